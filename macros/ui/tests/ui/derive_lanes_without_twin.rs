use geomattn::nalgebra::{SMatrixView, SMatrixViewMut};
use geomattn::{Lanewise, Network, SequenceLayer, SkewSymmetric, SkewVpa};

/// A layer of one's own: a sequence layer, but without a lane twin.
#[derive(Clone, Copy)]
struct Halve;

impl SequenceLayer<f32, 2, 3> for Halve {
    fn forward_into(&self, z: SMatrixView<'_, f32, 2, 3>, mut out: SMatrixViewMut<'_, f32, 2, 3>) {
        out.copy_from(&(z * 0.5));
    }
}

// The derive accepts it (the network runs on scalars) ...
#[derive(Network, Clone, Copy)]
#[geomattn(scalar = f32, dim = 2, len = 3)]
struct Net {
    attention: SkewVpa<f32, 2, 3>,
    halve: Halve,
}

fn main() {
    let net = Net {
        attention: SkewVpa::skew_sym(SkewSymmetric::from_packed(&[0.5]).unwrap()),
        halve: Halve,
    };
    let mut out = [0.0; 6];
    net.forward_flat(&[0.0; 6], &mut out).unwrap();
    // ... but not in lanes: the error names the field's missing lane twin.
    Lanewise::new(net).forward_flat::<2, 3>(&[0.0; 6], &mut out).unwrap();
}
