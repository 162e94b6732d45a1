//! A network's parameters as one flat slice, in GML's order ([`Schema`]): what an optimiser
//! updates entry by entry, as GML's optimisers update each weight's (packed) array.
//!
//! ```
//! use geomattn::schema::{from_flat, to_flat};
//! use geomattn::{SkewSymmetric, SkewVpa};
//! let layer = SkewVpa::<f64, 3, 4>::skew_sym(SkewSymmetric::from_packed(&[1.0, 2.0, 3.0])?);
//! let mut flat = [0.0; 3];
//! to_flat(&layer, &mut flat)?;
//! assert_eq!(flat, [1.0, 2.0, 3.0]);
//! let back: SkewVpa<f64, 3, 4> = from_flat(&flat)?;
//! assert_eq!(back.weight(), layer.weight());
//! assert!(from_flat::<SkewVpa<f64, 3, 4>>(&flat[..2]).is_err());
//! # Ok::<(), geomattn::Error>(())
//! ```

use super::{Param, Schema, Sink, Source};
use crate::error::Error;

/// The values of a flat slice, handed out in order.
struct SliceSource<'a, S> {
    values: &'a [S],
}

impl<S: Copy> Source<S> for SliceSource<'_, S> {
    type Error = Error;

    fn begin_layer(&mut self) -> Result<(), Error> {
        Ok(())
    }

    fn end_layer(&mut self) -> Result<(), Error> {
        Ok(())
    }

    fn param(&mut self, _: &Param, out: &mut [S]) -> Result<(), Error> {
        let (head, rest) = self.values.split_at(out.len());
        out.copy_from_slice(head);
        self.values = rest;
        Ok(())
    }

    fn invalid(&mut self, error: Error) -> Error {
        error
    }
}

/// A flat slice, filled in order.
struct SliceSink<'a, S> {
    out: &'a mut [S],
}

impl<S: Copy> Sink<S> for SliceSink<'_, S> {
    type Error = Error;

    fn begin_layer(&mut self) -> Result<(), Error> {
        Ok(())
    }

    fn param(&mut self, _: &Param, values: &[S]) -> Result<(), Error> {
        let (head, rest) = core::mem::take(&mut self.out).split_at_mut(values.len());
        head.copy_from_slice(values);
        self.out = rest;
        Ok(())
    }

    fn invalid(&mut self, error: Error) -> Error {
        error
    }
}

/// Checks that a flat slice holds exactly the network's [`Schema::SCALARS`].
fn check_len<N: Schema>(found: usize) -> Result<(), Error> {
    if found == N::SCALARS {
        Ok(())
    } else {
        Err(Error::WeightLength {
            name: "parameters",
            expected: N::SCALARS,
            found,
        })
    }
}

/// Writes every parameter of `net` into `out`, in GML's order.
///
/// # Errors
/// [`Error::WeightLength`] if `out` does not hold [`Schema::SCALARS`] entries; what the network's
/// schema reports if it does not fit it.
pub fn to_flat<N: Schema>(net: &N, out: &mut [N::Scalar]) -> Result<(), Error> {
    check_len::<N>(out.len())?;
    net.write(&mut SliceSink { out })
}

/// The network whose parameters, in GML's order, are `values`.
///
/// # Errors
/// [`Error::WeightLength`] if `values` does not hold [`Schema::SCALARS`] entries; what the
/// network's layers report if they reject their values (a Stiefel weight off the manifold).
pub fn from_flat<N: Schema>(values: &[N::Scalar]) -> Result<N, Error> {
    check_len::<N>(values.len())?;
    N::read(&mut SliceSource { values })
}
