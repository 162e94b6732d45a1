//! A seeded xorshift64* generator, for tests whose inputs must depend on nothing but a seed (not
//! even on a version of `rand`): the loader's mutation test, the codegen's random exact checks.

/// xorshift64*: a 64-bit state, one shift-xor round and a multiplication per draw.
///
/// ```
/// use geomattn_testkit::seeded::XorShift;
/// let (mut a, mut b) = (XorShift(7), XorShift(7));
/// assert_eq!(a.next_u64(), b.next_u64());
/// assert!(a.below(10) < 10);
/// ```
pub struct XorShift(pub u64);

impl XorShift {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A draw from `0..n` (`n > 0`; the modulo bias is negligible for small `n`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}
