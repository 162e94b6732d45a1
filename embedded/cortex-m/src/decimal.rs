//! `f32`s printed in decimal without `core`'s float formatting: printed with `{:?}`, the states
//! took about 21 KiB more flash than with this (measured with the test of `MEASURED.md`).

use core::fmt;

/// Digits after the decimal point: an `f32` has 7 significant decimal digits or fewer.
const DECIMALS: usize = 7;
const SCALE: f64 = 1e7;
/// Beyond this magnitude, `|x| · 10⁷` no longer fits a `u64`.
const LARGEST: f32 = 1e11;

/// An `f32` in fixed point with 7 decimals (`-0.5765488`), rounded half away from zero; `inf`,
/// `-inf`, `NaN`, and `>1e11` or `<-1e11` past what the fixed point holds (the hex bits beside it
/// are exact).
///
/// The product `|x| · 10⁷` is exact in `f64` (24 + 17 significant bits), so the rounding is that
/// of the exact value.
pub struct Decimal(pub f32);

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.0;
        let sign = if x.is_sign_negative() { "-" } else { "" };
        if x.is_nan() {
            return f.write_str("NaN");
        }
        if x.is_infinite() {
            return write!(f, "{}inf", sign);
        }
        if x.abs() >= LARGEST {
            let bound = if x < 0.0 { "<-1e11" } else { ">1e11" };
            return f.write_str(bound);
        }
        // Below 10¹⁸: the cast is exact, and truncating `+ 0.5` rounds half away from zero.
        let scaled = (f64::from(x.abs()) * SCALE + 0.5) as u64;
        let one = SCALE as u64;
        write!(
            f,
            "{}{}.{:0width$}",
            sign,
            scaled / one,
            scaled % one,
            width = DECIMALS
        )
    }
}
