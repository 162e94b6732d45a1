//! The buffers of forward passes at run-time sizes: taken for an intermediate result and given
//! back, so that a pass run again on windows of the shapes it has seen allocates nothing.
//!
//! A pass of the rigid-body transformer over lanes allocated about twenty matrices per group of
//! windows; over lanes, whose vectors are aligned beyond what `malloc` gives, each went through
//! `posix_memalign` and its slow path, about half of the pass's time (measured in the guide's
//! performance chapter).

use std::vec::Vec;

use nalgebra::DMatrix;

use crate::scalar::Field;

/// Spare buffers for [`Forward::forward_in_place`](super::Forward::forward_in_place): keep one
/// for a run of calls (one per thread) and the calls after the first allocate nothing.
///
/// ```
/// use geomattn::engine::Scratch;
/// let mut scratch = Scratch::<f64>::new();
/// let m = scratch.zeros(3, 2);
/// let at = m.as_ptr();
/// scratch.recycle(m);
/// // The same buffer again, of another shape that fits in it.
/// assert_eq!(scratch.zeros(2, 3).as_ptr(), at);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Scratch<S> {
    /// The spare buffers by their length (the entries of the matrix they last held), in order of
    /// length: a pass asks for the few lengths of its shapes again and again.
    spare: Vec<(usize, Vec<Vec<S>>)>,
}

impl<S: Field> Scratch<S> {
    /// No buffers yet.
    pub fn new() -> Self {
        Self { spare: Vec::new() }
    }

    /// The `rows×cols` matrix of zeros, on a spare buffer if there is one.
    pub fn zeros(&mut self, rows: usize, cols: usize) -> DMatrix<S> {
        let len = rows * cols;
        let mut values = self.take(len);
        values.clear();
        values.resize(len, S::zero());
        DMatrix::from_vec(rows, cols, values)
    }

    /// An unfilled `rows×cols` matrix for a result that writes every entry (a product, a
    /// transpose): on a spare buffer, whose old values it keeps (zeros past them), so nothing is
    /// filled twice.
    pub(crate) fn unfilled(&mut self, rows: usize, cols: usize) -> DMatrix<S> {
        let len = rows * cols;
        let mut values = self.take(len);
        if values.len() >= len {
            values.truncate(len);
        } else {
            values.resize(len, S::zero());
        }
        DMatrix::from_vec(rows, cols, values)
    }

    /// A copy of `m`, on a spare buffer if there is one.
    pub fn copy(&mut self, m: &DMatrix<S>) -> DMatrix<S> {
        let mut values = self.take(m.len());
        values.clear();
        values.extend_from_slice(m.as_slice());
        DMatrix::from_vec(m.nrows(), m.ncols(), values)
    }

    /// A spare buffer for `len` values: one of that length if there is one, else the shortest
    /// longer one, else the longest (to grow), else a new one. A pass's buffers so settle after
    /// its first run, whatever order they come back in, and one of the length asked for needs
    /// no fill.
    fn take(&mut self, len: usize) -> Vec<S> {
        let at = self.spare.partition_point(|(l, _)| *l < len);
        let (shorter, longer) = self.spare.split_at_mut(at);
        longer
            .iter_mut()
            .find_map(|(_, buffers)| buffers.pop())
            .or_else(|| {
                shorter
                    .iter_mut()
                    .rev()
                    .find_map(|(_, buffers)| buffers.pop())
            })
            .unwrap_or_default()
    }

    /// `m`'s buffer, for the next [`zeros`](Self::zeros) or [`copy`](Self::copy).
    pub fn recycle(&mut self, m: DMatrix<S>) {
        let values: Vec<S> = m.data.into();
        let len = values.len();
        match self.spare.binary_search_by_key(&len, |(l, _)| *l) {
            Ok(at) => self.spare[at].1.push(values),
            Err(at) => self.spare.insert(at, (len, std::vec![values])),
        }
    }

    /// `next` becomes `z` (a layer's output written over its input), `z`'s old buffer recycled.
    pub(crate) fn replace(&mut self, z: &mut DMatrix<S>, mut next: DMatrix<S>) {
        core::mem::swap(z, &mut next);
        self.recycle(next);
    }
}
