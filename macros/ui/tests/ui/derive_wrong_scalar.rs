use geomattn::{Network, SkewVpa};

#[derive(Network)]
#[geomattn(scalar = f64, dim = 2, len = 3)]
struct Net(SkewVpa<f64, 2, 3>, SkewVpa<f32, 2, 3>);

fn main() {}
