use geomattn::{Network, SkewVpa};

#[derive(Network)]
#[geomattn(scalar = f64, size = 2)]
struct Net(SkewVpa<f64, 2, 3>);

fn main() {}
