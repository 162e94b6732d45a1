use geomattn::{Network, SkewVpa};

#[derive(Network)]
struct Net<'a> {
    attention: &'a SkewVpa<f64, 2, 3>,
}

fn main() {}
