//! The lane path of [`Arithmetic::Fast`](super::Arithmetic::Fast) over a borrowed network whose
//! sizes are types (compiled for each network type a program batches, per instruction set).

use geomattn::{Error, Field, LaneTwin, Lanewise, MapScalar, Real};

/// A borrowed network as a [`LaneTwin`]: [`Lanewise`] owns the layer it runs, and a batch only
/// borrows the network.
struct Borrowed<'a, Net>(&'a Net);

impl<Net: MapScalar> MapScalar for Borrowed<'_, Net> {
    type Scalar = Net::Scalar;
    type Over<S2: Field> = Net::Over<S2>;

    fn map_scalar<S2: Field>(&self, f: impl FnMut(Self::Scalar) -> S2) -> Self::Over<S2> {
        self.0.map_scalar(f)
    }
}

impl<Net: LaneTwin<D, T>, const D: usize, const T: usize> LaneTwin<D, T> for Borrowed<'_, Net> {
    type Twin<X: Real> = Net::Twin<X>;

    fn twin<X: Real>(&self, f: impl FnMut(Self::Scalar) -> X) -> Self::Twin<X> {
        self.0.twin(f)
    }
}

/// `net` on every window of a flat column-major `(D, T, B)` buffer of `f32`: on the lane path
/// with the vectorised functions ([`Arithmetic::Fast`](super::Arithmetic::Fast)), on the best
/// instruction set of this processor among those it is compiled for
/// ([`geomattn::Isa::is_compact`]: AVX-512 and AVX2 on x86-64, not the portable vectors, a third
/// less of the lane path's code per network type). `None` on a processor without them (the
/// caller takes the scalar path).
pub(crate) fn vector_lanes<Net, const D: usize, const T: usize>(
    net: &Net,
    input: &[f32],
    output: &mut [f32],
) -> Option<Result<(), Error>>
where
    Net: LaneTwin<D, T, Scalar = f32>,
{
    Lanewise::new(Borrowed(net))
        .vector_functions()
        .forward_flat_compact::<D, T>(input, output)
}
