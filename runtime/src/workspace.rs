//! Where a layer's kernel keeps its intermediate matrices, and how it multiplies them: what lets
//! a layer's maths be written once, over nalgebra's [`Dim`], for compile-time and run-time sizes.
//!
//! A kernel written over `N: Dim, T: Dim` takes its matrices as nalgebra's [`OMatrix`] (arrays at
//! `Const` sizes, vectors at `Dyn` ones) and asks a [`Workspace`] for each intermediate result:
//! - [`Fresh`] makes a new one each time: on the stack at compile-time sizes, where the kernel is
//!   inlined into the layer and the optimiser keeps it in registers (`no_std`, no allocation);
//! - the engine's `Scratch` (the `std` feature) lends a spare buffer and takes it back, and
//!   multiplies with the engine's products (the instruction set chosen at run time).
//!
//! The kernel is then one piece of code, and the two kinds of size differ only in where its
//! matrices live: nalgebra's own way of writing a decomposition once over `D: Dim`, with the
//! storage left to the caller as the engine's passes need (they allocate nothing after their
//! first run).

use core::mem::MaybeUninit;

use nalgebra::allocator::Allocator;
use nalgebra::{DefaultAllocator, Dim, OMatrix, RawStorageMut};

use crate::product;
use crate::scalar::Field;

/// The intermediate matrices and products of a kernel written over [`Dim`].
pub(crate) trait Workspace<S: Field> {
    /// The `rows×cols` matrix with entries `entry(i, j)`, each written once.
    fn build<R: Dim, C: Dim>(
        &mut self,
        rows: R,
        cols: C,
        entry: impl FnMut(usize, usize) -> S,
    ) -> OMatrix<S, R, C>
    where
        DefaultAllocator: Allocator<R, C>;

    /// `m`'s storage back, once the kernel is done with it (`m` is left empty or as it was;
    /// taken by reference, so that a matrix on the stack is not moved).
    fn recycle<R: Dim, C: Dim>(&mut self, m: &mut OMatrix<S, R, C>)
    where
        DefaultAllocator: Allocator<R, C>;

    /// `a·b`, on a matrix of this workspace.
    fn mul<R: Dim, K: Dim, C: Dim>(
        &mut self,
        a: &OMatrix<S, R, K>,
        b: &OMatrix<S, K, C>,
    ) -> OMatrix<S, R, C>
    where
        DefaultAllocator: Allocator<R, K> + Allocator<K, C> + Allocator<R, C>;

    /// `aᵀ·b`, on a matrix of this workspace.
    fn tr_mul<K: Dim, R: Dim, C: Dim>(
        &mut self,
        a: &OMatrix<S, K, R>,
        b: &OMatrix<S, K, C>,
    ) -> OMatrix<S, R, C>
    where
        DefaultAllocator: Allocator<K, R> + Allocator<K, C> + Allocator<R, C>;

    /// `a·bᵀ`, on a matrix of this workspace, entry by entry `Σ_k a[i, k]·b[j, k]` in every
    /// workspace (the gradients' outer products, `Σ_t ȳ_t x_tᵀ`, whose sums run over the
    /// sequence).
    #[inline(always)]
    fn mul_tr<R: Dim, K: Dim, C: Dim>(
        &mut self,
        a: &OMatrix<S, R, K>,
        b: &OMatrix<S, C, K>,
    ) -> OMatrix<S, R, C>
    where
        DefaultAllocator: Allocator<R, K> + Allocator<C, K> + Allocator<R, C>,
    {
        self.build(
            a.shape_generic().0,
            b.shape_generic().0,
            #[inline(always)]
            |i, j| {
                product::sum_of_products(
                    a.ncols(),
                    #[inline(always)]
                    |k| (a[(i, k)], b[(j, k)]),
                )
            },
        )
    }

    /// `mᵀ`, on a matrix of this workspace.
    #[inline(always)]
    fn transpose<R: Dim, C: Dim>(&mut self, m: &OMatrix<S, R, C>) -> OMatrix<S, C, R>
    where
        DefaultAllocator: Allocator<R, C> + Allocator<C, R>,
    {
        let (rows, cols) = m.shape_generic();
        self.build(
            cols,
            rows,
            #[inline(always)]
            |i, j| m[(j, i)],
        )
    }

    /// Each matrix's storage back ([`recycle`](Self::recycle)).
    #[inline(always)]
    fn recycle_all<R: Dim, C: Dim, const K: usize>(&mut self, ms: [&mut OMatrix<S, R, C>; K])
    where
        DefaultAllocator: Allocator<R, C>,
    {
        for m in ms {
            self.recycle(m);
        }
    }
}

/// A new matrix for every intermediate result, built in place, and [`product`]'s loops: the
/// workspace of the compile-time layers, whose matrices are arrays on the stack (and, once the
/// kernel is inlined, mostly registers). Each is built as [`product::matrix`] builds, every
/// entry written once into nalgebra's uninitialised storage, never zeroed first (over lanes a
/// zeroed array is a `memset` call, around which every vector register is spilled). At run-time
/// sizes it allocates each matrix (the engine lends its own buffers instead).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Fresh;

impl<S: Field> Workspace<S> for Fresh {
    #[inline(always)]
    fn build<R: Dim, C: Dim>(
        &mut self,
        rows: R,
        cols: C,
        mut entry: impl FnMut(usize, usize) -> S,
    ) -> OMatrix<S, R, C>
    where
        DefaultAllocator: Allocator<R, C>,
    {
        let mut storage = <DefaultAllocator as Allocator<R, C>>::allocate_uninit::<S>(rows, cols);
        let first = storage.ptr_mut();
        let (r, c) = (rows.value(), cols.value());
        for j in 0..c {
            for i in 0..r {
                // SAFETY: nalgebra's storage of a `rows×cols` matrix holds its `r·c` entries
                // column by column, column `j` from `j·r` on, so the offset is in bounds; the
                // write does not read or drop the old (uninitialised) value.
                unsafe { first.add(j * r + i).write(MaybeUninit::new(entry(i, j))) };
            }
        }
        // SAFETY: every one of the `r·c` entries was written above.
        OMatrix::from_data(unsafe { <DefaultAllocator as Allocator<R, C>>::assume_init(storage) })
    }

    #[inline(always)]
    fn recycle<R: Dim, C: Dim>(&mut self, _: &mut OMatrix<S, R, C>)
    where
        DefaultAllocator: Allocator<R, C>,
    {
    }

    #[inline(always)]
    fn mul<R: Dim, K: Dim, C: Dim>(
        &mut self,
        a: &OMatrix<S, R, K>,
        b: &OMatrix<S, K, C>,
    ) -> OMatrix<S, R, C>
    where
        DefaultAllocator: Allocator<R, K> + Allocator<K, C> + Allocator<R, C>,
    {
        self.build(
            a.shape_generic().0,
            b.shape_generic().1,
            #[inline(always)]
            |i, j| product::entry(a, b, i, j),
        )
    }

    #[inline(always)]
    fn tr_mul<K: Dim, R: Dim, C: Dim>(
        &mut self,
        a: &OMatrix<S, K, R>,
        b: &OMatrix<S, K, C>,
    ) -> OMatrix<S, R, C>
    where
        DefaultAllocator: Allocator<K, R> + Allocator<K, C> + Allocator<R, C>,
    {
        self.build(
            a.shape_generic().1,
            b.shape_generic().1,
            #[inline(always)]
            |i, j| product::column_dot(a, i, b, j),
        )
    }
}
