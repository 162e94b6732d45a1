//! The numbers of the axes: tick labels, and the ranges the data span.

/// A tick label of an axis spanning `span`: as many decimals as its ticks (plotters puts about
/// ten, a step of 1, 2 or 5 times a power of ten) need, and `0` never signed.
pub fn tick(value: f64, span: f64) -> String {
    let decimals = (-(span / 10.0).log10()).ceil().clamp(0.0, 17.0);
    // A whole number from 0 to 17.
    let label = format!("{value:.*}", decimals as usize);
    match label.strip_prefix('-') {
        Some(magnitude) if magnitude.bytes().all(|b| b == b'0' || b == b'.') => magnitude.into(),
        _ => label,
    }
}

/// `10ⁿ` in superscript digits for a power of ten, the shortest decimal otherwise.
pub fn power_of_ten(value: &f64) -> String {
    let exponent = value.log10().round();
    if (value.log10() - exponent).abs() > 1e-9 {
        return format!("{value:e}");
    }
    let digits: String = format!("{exponent}")
        .chars()
        .map(|c| match c {
            '-' => '⁻',
            digit => ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹']
                [digit.to_digit(10).map_or(0, |d| d as usize)],
        })
        .collect();
    format!("10{digits}")
}

/// The range of `values`, padded by 5 % (and never empty).
pub fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (low, high) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
        (lo.min(x), hi.max(x))
    });
    if !low.is_finite() || !high.is_finite() {
        return (0.0, 1.0);
    }
    let pad = ((high - low) * 0.05).max(1e-12);
    (low - pad, high + pad)
}

/// The whole decades around the positive `values`: `(10ᵃ, 10ᵇ)` with `a < b` (1e-16 to 1 if
/// there are none).
pub fn decades(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (low, high) = values.fold((f64::INFINITY, 0.0_f64), |(lo, hi), x| {
        (lo.min(x), hi.max(x))
    });
    if !(low.is_finite() && low > 0.0) {
        return (1e-16, 1.0);
    }
    let (a, b) = (low.log10().floor(), high.log10().ceil());
    (10_f64.powf(a), 10_f64.powf(if b > a { b } else { a + 1.0 }))
}

#[cfg(test)]
mod tests {
    use super::{decades, power_of_ten, range, tick};

    #[test]
    fn log_labels_are_powers_of_ten_in_superscript() {
        assert_eq!(power_of_ten(&1e-5), "10⁻⁵");
        assert_eq!(power_of_ten(&1.0), "10⁰");
        assert_eq!(power_of_ten(&1e12), "10¹²");
        assert_eq!(power_of_ten(&10_f64.powf(-7.0)), "10⁻⁷");
        assert_eq!(power_of_ten(&2e-5), "2e-5");
    }

    #[test]
    fn tick_labels_have_the_decimals_their_step_needs_and_no_signed_zero() {
        assert_eq!(tick(12.0, 12.0), "12");
        assert_eq!(tick(0.45, 0.33), "0.45");
        assert_eq!(tick(0.6, 1.3), "0.6");
        // plotters' tick at 0 can be a rounding's -1e-17.
        assert_eq!(tick(-1e-17, 1.3), "0.0");
        assert_eq!(tick(-0.2, 1.3), "-0.2");
        assert_eq!(tick(1e-9, 0.0), "0.00000000100000000");
    }

    #[test]
    fn ranges_are_never_empty_and_decades_are_whole() {
        assert_eq!(range([2.0, 2.0].into_iter()), (2.0 - 1e-12, 2.0 + 1e-12));
        assert_eq!(range(std::iter::empty()), (0.0, 1.0));
        let close = |(low, high): (f64, f64), (a, b): (f64, f64)| {
            assert!((low / a - 1.0).abs() < 1e-12 && (high / b - 1.0).abs() < 1e-12);
        };
        close(decades([2e-6, 1.4e-3].into_iter()), (1e-6, 1e-2));
        // A single value still spans a decade.
        close(decades([3e-4].into_iter()), (1e-4, 1e-3));
        assert_eq!(decades([0.0, -1.0].into_iter()), (1e-16, 1.0));
    }
}
