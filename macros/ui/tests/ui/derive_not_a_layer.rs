use geomattn::{Network, SkewVpa};

#[derive(Network)]
#[geomattn(scalar = f64, dim = 2, len = 3)]
struct Net {
    attention: SkewVpa<f64, 2, 3>,
    notes: String,
}

fn main() {}
