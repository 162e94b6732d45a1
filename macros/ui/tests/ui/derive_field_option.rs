use geomattn::{Network, SkewVpa};

#[derive(Network)]
struct Net {
    #[geomattn(skip)]
    attention: SkewVpa<f64, 2, 3>,
}

fn main() {}
