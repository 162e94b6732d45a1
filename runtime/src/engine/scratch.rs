//! The buffers of forward passes at run-time sizes: taken for an intermediate result and given
//! back, so that a pass run again on windows of the shapes it has seen allocates nothing.
//!
//! A pass of the rigid-body transformer over lanes allocated about twenty matrices per group of
//! windows; over lanes, whose vectors are aligned beyond what `malloc` gives, each went through
//! `posix_memalign` and its slow path, about half of the pass's time (measured in the guide's
//! performance chapter).

use core::any::Any;
use std::vec::Vec;

use nalgebra::allocator::Allocator;
use nalgebra::{DMatrix, DefaultAllocator, Dim, OMatrix};

use super::Element;
use crate::product;
use crate::scalar::Field;
use crate::workspace::Workspace;

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
    /// The spare buffers by their capacity, in order of capacity: a pass asks for the few
    /// lengths of its shapes again and again.
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

    /// A copy of the rows `first..first + n` of `m`, on a spare buffer if there is one.
    pub(crate) fn copy_rows(&mut self, m: &DMatrix<S>, first: usize, n: usize) -> DMatrix<S> {
        let mut rows = self.unfilled(n, m.ncols());
        rows.copy_from(&m.rows(first, n));
        rows
    }

    /// A spare buffer for `len` values: the one of least capacity that holds them, else the
    /// largest (to grow), else a new one. A buffer grows once to the most a pass asks of it, and
    /// a pass's buffers so settle after its first run, whatever order they come back in.
    fn take(&mut self, len: usize) -> Vec<S> {
        let at = self.spare.partition_point(|(capacity, _)| *capacity < len);
        let (smaller, holding) = self.spare.split_at_mut(at);
        holding
            .iter_mut()
            .find_map(|(_, buffers)| buffers.pop())
            .or_else(|| {
                smaller
                    .iter_mut()
                    .rev()
                    .find_map(|(_, buffers)| buffers.pop())
            })
            .unwrap_or_default()
    }

    /// `m`'s buffer, for the next [`zeros`](Self::zeros) or [`copy`](Self::copy).
    pub fn recycle(&mut self, m: DMatrix<S>) {
        let values: Vec<S> = m.data.into();
        let capacity = values.capacity();
        match self.spare.binary_search_by_key(&capacity, |(c, _)| *c) {
            Ok(at) => self.spare[at].1.push(values),
            Err(at) => self.spare.insert(at, (capacity, std::vec![values])),
        }
    }

    /// `next` becomes `z` (a layer's output written over its input), `z`'s old buffer recycled.
    pub(crate) fn replace(&mut self, z: &mut DMatrix<S>, mut next: DMatrix<S>) {
        core::mem::swap(z, &mut next);
        self.recycle(next);
    }
}

/// The engine's matrices are [`DMatrix`]es (both sizes `Dyn`): a kernel written over [`Dim`]
/// gets them from the spare buffers and multiplies them with the scalar's products
/// ([`Element::mul_to`]: the instruction set chosen at run time). Given matrices of other sizes
/// (never, from the engine) it falls back on new matrices and [`product`]'s loops.
impl<S: Element> Workspace<S> for Scratch<S> {
    fn build<R: Dim, C: Dim>(
        &mut self,
        rows: R,
        cols: C,
        mut entry: impl FnMut(usize, usize) -> S,
    ) -> OMatrix<S, R, C>
    where
        DefaultAllocator: Allocator<R, C>,
    {
        let mut m = self.sized(rows, cols);
        product::update(&mut m, |_, i, j| entry(i, j));
        m
    }

    fn recycle<R: Dim, C: Dim>(&mut self, m: &mut OMatrix<S, R, C>)
    where
        DefaultAllocator: Allocator<R, C>,
    {
        if let Some(m) = (m as &mut dyn Any).downcast_mut::<DMatrix<S>>() {
            let m = core::mem::replace(m, DMatrix::from_vec(0, 0, Vec::new()));
            Scratch::recycle(self, m);
        }
    }

    fn mul<R: Dim, K: Dim, C: Dim>(
        &mut self,
        a: &OMatrix<S, R, K>,
        b: &OMatrix<S, K, C>,
    ) -> OMatrix<S, R, C>
    where
        DefaultAllocator: Allocator<R, K> + Allocator<K, C> + Allocator<R, C>,
    {
        let mut out = self.sized(a.shape_generic().0, b.shape_generic().1);
        match dynamic(a, b, &mut out) {
            Some((a, b, out)) if a.ncols() > 0 => S::mul_to(&a.as_view(), &b.as_view(), out),
            _ => product::mul_to(a, b, &mut out),
        }
        out
    }

    fn tr_mul<K: Dim, R: Dim, C: Dim>(
        &mut self,
        a: &OMatrix<S, K, R>,
        b: &OMatrix<S, K, C>,
    ) -> OMatrix<S, R, C>
    where
        DefaultAllocator: Allocator<K, R> + Allocator<K, C> + Allocator<R, C>,
    {
        let mut out = self.sized(a.shape_generic().1, b.shape_generic().1);
        match dynamic(a, b, &mut out) {
            Some((a, b, out)) if a.nrows() > 0 => S::tr_mul_to(&a.as_view(), &b.as_view(), out),
            _ => product::tr_mul_to(a, b, &mut out),
        }
        out
    }
}

impl<S: Field> Scratch<S> {
    /// An unfilled `rows×cols` matrix ([`unfilled`](Self::unfilled)) as one of sizes `R×C`:
    /// a spare buffer when those are `Dyn` (it is then that type), else a new matrix.
    fn sized<R: Dim, C: Dim>(&mut self, rows: R, cols: C) -> OMatrix<S, R, C>
    where
        DefaultAllocator: Allocator<R, C>,
    {
        let mut spare = Some(self.unfilled(rows.value(), cols.value()));
        if let Some(m) = as_sized::<S, R, C>(&mut spare) {
            return m;
        }
        if let Some(m) = spare {
            self.recycle(m);
        }
        OMatrix::zeros_generic(rows, cols)
    }
}

/// The matrix in `slot` as one of sizes `R×C`, if those are `Dyn` (then it is that type).
fn as_sized<S: Field, R: Dim, C: Dim>(slot: &mut Option<DMatrix<S>>) -> Option<OMatrix<S, R, C>>
where
    DefaultAllocator: Allocator<R, C>,
{
    (slot as &mut dyn Any)
        .downcast_mut::<Option<OMatrix<S, R, C>>>()
        .and_then(Option::take)
}

/// The three matrices of a product as [`DMatrix`]es, if they are (all their sizes `Dyn`).
fn dynamic<'a, S: Field, A: Any, B: Any, O: Any>(
    a: &'a A,
    b: &'a B,
    out: &'a mut O,
) -> Option<(&'a DMatrix<S>, &'a DMatrix<S>, &'a mut DMatrix<S>)> {
    let a = (a as &dyn Any).downcast_ref::<DMatrix<S>>()?;
    let b = (b as &dyn Any).downcast_ref::<DMatrix<S>>()?;
    let out = (out as &mut dyn Any).downcast_mut::<DMatrix<S>>()?;
    Some((a, b, out))
}
