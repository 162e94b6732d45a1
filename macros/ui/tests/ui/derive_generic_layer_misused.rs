use geomattn::{Network, SequenceLayer, SkewSymmetric, SkewVpa};

// A generic field is checked where the network is used with concrete types: the error notes the
// field's bound.
#[derive(Network)]
#[geomattn(dim = 2, len = 3)]
struct Net<Att> {
    attention: Att,
}

fn run<L: SequenceLayer<f64, 2, 3>>(_: &L) {}

fn main() {
    let a = SkewVpa::<f64, 3, 3>::skew_sym(SkewSymmetric::from_packed(&[0.1, 0.2, 0.3]).unwrap());
    run(&Net { attention: a });
}
