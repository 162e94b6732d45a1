//! `cayley!`: the Cayley transform unrolled for one size, forwarded to `geomattn-macros` with the
//! path of this crate.

/// A Cayley transform `Cay(C) = (I − C)(I + C)⁻¹` unrolled for one size `T`: a branch-free
/// function `fn<S: geomattn::Field>(&SMatrix<S, T, T>) -> SMatrix<S, T, T>` reading only the strict
/// upper triangle of `C`.
///
/// Syntax: `cayley!(T)` or `cayley!(T, strategy = NAME)`, `T` an integer literal in the table
/// below. The expansion is an expression whose value is the function:
///
/// ```
/// use geomattn::nalgebra::Matrix2;
///
/// let c = Matrix2::new(0.0, -0.5, 0.5, 0.0);
/// assert!((geomattn::cayley!(2)(&c) - Matrix2::new(0.6, 0.8, -0.8, 0.6)).amax() < 1e-15);
///
/// // Exact rationals run the same code.
/// type Q = num_rational::Ratio<i64>;
/// let c = Matrix2::new(Q::from(0), Q::new(-1, 2), Q::new(1, 2), Q::from(0));
/// assert_eq!(geomattn::cayley!(2, strategy = elimination)(&c)[(0, 0)], Q::new(3, 5));
///
/// // A named function for one size:
/// fn cayley_5<S: geomattn::Field>(
///     c: &geomattn::nalgebra::SMatrix<S, 5, 5>,
/// ) -> geomattn::nalgebra::SMatrix<S, 5, 5> {
///     geomattn::cayley!(5)(c)
/// }
/// # let _ = cayley_5::<f64>;
/// ```
///
/// Every path in the expansion goes through `$crate`, so the macro works through `geomattn`
/// alone, under whatever name the dependency is given
/// (`ga = { package = "geomattn", … }`, then `ga::cayley!(4)`). What it expands to, for the
/// default strategy of each size `Generated` unrolls, is committed in `codegen/gen/cayley_T.rs`.
///
/// Strategies:
///
/// | strategy | program |
/// |---|---|
/// | `gram_schmidt` | square-root-free modified Gram–Schmidt QR of `I + C`, unrolled (`≈ 3.4T³` operations, `T` reciprocals): as accurate as LU at every `‖C‖`, finite while `‖C‖²` is |
/// | `quaternion` | `T = 4` only: the closed form through the two quaternions of `C` (106 operations, two reciprocals): orthogonal to rounding at every `‖C‖`, finite while `‖C‖²` is |
/// | `symbolic` | closed forms derived with Symbolica (committed programs, one reciprocal) |
/// | `elimination` | pivot-free LU of `I + C`, unrolled (`≈ 1.75 T³` operations, `T − 1` reciprocals): loses `ε‖C‖²`, breaks down in `f32` |
///
/// Sizes, strategies and defaults (generated from the table `geomattn_codegen::sizes::SIZES`,
/// which also drives [`Generated`](crate::Generated)):
///
#[doc = include_str!("cayley/sizes.md")]
///
/// The defaults come from the benchmarks (`benches/`) and the accuracy sweep
/// (`tests/tests/cayley_robust.rs`), measured in one run each (f64; ns are divan medians,
/// instructions callgrind counts; the worst `‖ΛᵀΛ − I‖` over `‖C‖_F` from `10⁻³` to `10⁸` in ε,
/// with LU's for comparison):
///
/// | T | ns gram_schmidt / elimination / symbolic | ‖ΛᵀΛ−I‖ default / elimination / LU |
/// |---|---|---|
/// | 2 | 0.9 / 1.1 / 0.9 | 3 / 3.5 / 1 |
/// | 3 | 13.9 / 5.7 / 3.1 | 5 / 6.9·10¹⁵ / 3.0·10⁷ |
/// | 4 | 36 / 16 / 11 | 7 / 2.9·10³ / 44 |
/// | 5 | 62 / 34 / 71 | 3.9·10⁷ / 1.3·10¹⁵ / 2.6·10⁷ |
/// | 8 | 231 / 120 / 14 000 | 1.1·10³ / 7.9·10⁷ / 4.5·10³ |
///
/// In `f32` pivot-free elimination breaks down outright (∞ at `T = 3, 4` for `‖C‖_F ≤ 10⁴`). The
/// symbolic closed form at `T = 4` is fast and fine on full-rank `C`, but loses up to `ε‖C‖²` on
/// rank-deficient `C` (volume-preserving attention with `D < T`: 90× LU's error in `f32` at
/// `‖C‖ = 10³`, `‖ΛᵀΛ − I‖ ≈ 10⁴` at `10⁵`); the quaternion form, as short, stays orthogonal to
/// rounding on every `C`, so it is the default there (the ns column above predates it:
/// gram_schmidt was the default at `T = 4`).
/// (For odd `T`, `C` is singular and the conditioning of `I + C` grows like `‖C‖`: every stable
/// method loses `ε‖C‖` there, as LU does; pivot-free elimination loses `ε‖C‖²`.) Pivot-free
/// elimination is the fastest unrolled program from `T = 5` on, and accurate for `‖C‖ ≲ 1`: name
/// `strategy = elimination` when `C` is known to be small.
///
/// Errors (compile errors on the offending token): a size that is not an integer literal
/// (a const generic `T` is not known yet when macros run: use [`Generated`](crate::Generated)), a
/// size outside the table, an unknown option or strategy, or a strategy without a program for the
/// size.
#[macro_export]
macro_rules! cayley {
    ($($args:tt)*) => {
        $crate::__private::cayley_with_crate!($crate; $($args)*)
    };
}

/// A network trained in GML, embedded at compile time: `embed_gml!(static NAME: Type =
/// "file.h5");` reads the file when your crate compiles (the path is relative to your crate's
/// `Cargo.toml`, `CARGO_MANIFEST_DIR`), checks it against `Type`, and defines a `static` holding the
/// network, its weights literals in `Type`'s scalar (`f32` or `f64`): nothing is parsed at run time,
/// nothing allocated, and the weights are in read-only memory. Cargo rebuilds the crate when the
/// file changes. Works without `std`.
///
/// ```
/// use geomattn::{ColumnLayer, Tanh, VolumePreservingFeedForward, nalgebra::Vector3};
/// // GML's VolumePreservingFeedForward(3, 6, 1, tanh), from the repository's fixture.
/// geomattn::embed_gml!(static NET: VolumePreservingFeedForward<f32, 3, 6, 1, Tanh> =
///     "../fixtures/gml/transformer_rigid_body_nn_vpff.h5");
/// let next = NET.apply(&Vector3::new(0.0, 0.891, 0.454));
/// assert!((next - Vector3::new(0.0405, 0.8894, 0.4554)).amax() < 3e-3);
/// ```
///
/// The type says what the file does not (activations, sequence length, `add_connection`: see
/// [`gml`](crate#loading-a-trained-network)); its parameters must be exactly the file's, layer
/// group by layer group, or the build fails with the layer, the parameter and both shapes:
///
/// ```compile_fail
/// use geomattn::{Tanh, VolumePreservingFeedForward};
/// // Five blocks where the file has six: "the file has 26 layer groups, the network 22".
/// geomattn::embed_gml!(static NET: VolumePreservingFeedForward<f64, 3, 5, 1, Tanh> =
///     "../fixtures/gml/transformer_rigid_body_nn_vpff.h5");
/// ```
///
/// A file that cannot be read, or is not one of GML's networks, is a compile error on the path.
/// How it works: [`Embedded`](crate::Embedded), [`EmbedFrom`](crate::EmbedFrom).
#[macro_export]
macro_rules! embed_gml {
    ($($args:tt)*) => {
        $crate::__private::embed_gml_with_crate!($crate; $($args)*);
    };
}

/// Its tokens where geomattn has the `hdf5` feature, nothing otherwise: what the crate's docs wrap
/// their examples of the loader in. Not a public API.
#[cfg(feature = "hdf5")]
#[doc(hidden)]
#[macro_export]
macro_rules! __with_hdf5 {
    ($($tokens:tt)*) => { $($tokens)* };
}

/// Its tokens where geomattn has the `hdf5` feature, nothing otherwise. Not a public API.
#[cfg(not(feature = "hdf5"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __with_hdf5 {
    ($($tokens:tt)*) => {};
}
