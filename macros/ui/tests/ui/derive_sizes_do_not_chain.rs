use geomattn::{Network, SkewVpa};

#[derive(Network)]
#[geomattn(scalar = f64, dim = 2, len = 3)]
struct Net {
    first: SkewVpa<f64, 2, 3>,
    second: SkewVpa<f64, 3, 3>,
    third: SkewVpa<f64, 2, 4>,
}

fn main() {}
