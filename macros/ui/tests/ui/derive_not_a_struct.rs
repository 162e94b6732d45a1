use geomattn::{Network, SkewVpa};

#[derive(Network)]
enum Net {
    Attention(SkewVpa<f64, 2, 3>),
}

fn main() {}
