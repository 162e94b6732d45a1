//! The one place where a runtime [`Arch`] becomes a compiled network type, and the one place
//! that calls geomattn's GML loader.

use core::marker::PhantomData;
use std::path::Path;

use geomattn::gml::{GmlFile, Layers, LoadError, load};
use geomattn::nalgebra::RealField;
use geomattn::{
    AddConnection, ArbitraryWeight, MultiHeadAttention, NoConnection, ResNetStack, Schema,
    SkewWeight, Tanh, VolumePreservingAttention, VolumePreservingFeedForward,
};

use crate::engine;
use crate::grid::{self, Grid};
use crate::network::{Loaded, Units};
use crate::structure::{self, Sampling};
use crate::{Activation, Arch, Error, Measurement, Network, Precision};

/// Calls the callback macro `$k` with the network types of the grid point `$arch` names, in
/// scalar `$S`: `$k!(vpt|st|sympt|lsympt arch, S, D, T, Attention, FeedForward, ctx)` for the
/// transformers (the symplectic ones' halves as `Attention` and `FeedForward`),
/// `$k!(vpff arch, S, D, Network, ctx)` for the feed-forward network. Off the grid: `Err(OffGrid)`.
/// The arms must list exactly the sizes of [`crate::grid`] (a test checks it).
macro_rules! on_grid {
    ($arch:expr, $S:ty, $k:ident, $ctx:expr) => {{
        let arch: &Arch = $arch;
        match $crate::dispatch::fixed_options(arch) {
        Err(error) => Err(error),
        Ok(()) => match arch {
            Arch::Vpt(v) => match v.dim {
                2 => on_grid!(@vpt_t arch, v, $S, $k, $ctx, 2),
                3 => on_grid!(@vpt_t arch, v, $S, $k, $ctx, 3),
                4 => on_grid!(@vpt_t arch, v, $S, $k, $ctx, 4),
                _ => Err(off_grid(arch, "dim", v.dim, &grid::VPT)),
            },
            Arch::Vpff(v) => match v.dim {
                2 => on_grid!(@vpff_nb arch, v, $S, $k, $ctx, 2),
                3 => on_grid!(@vpff_nb arch, v, $S, $k, $ctx, 3),
                4 => on_grid!(@vpff_nb arch, v, $S, $k, $ctx, 4),
                _ => Err(off_grid(arch, "dim", v.dim, &grid::VPFF)),
            },
            Arch::St(v) => match v.dim {
                2 => on_grid!(@st_t arch, v, $S, $k, $ctx, 2),
                3 => on_grid!(@st_t arch, v, $S, $k, $ctx, 3),
                4 => on_grid!(@st_t arch, v, $S, $k, $ctx, 4),
                _ => Err(off_grid(arch, "dim", v.dim, &grid::ST)),
            },
            Arch::Sympt(v) => match v.dim {
                2 => on_grid!(@sy_t arch, v, $S, $k, $ctx, 2, 1),
                4 => on_grid!(@sy_t arch, v, $S, $k, $ctx, 4, 2),
                _ => Err(off_grid(arch, "dim", v.dim, &grid::SYMPT)),
            },
            Arch::LinSympt(v) => match v.dim {
                2 => on_grid!(@ls_t arch, v, $S, $k, $ctx, 2, 1),
                4 => on_grid!(@ls_t arch, v, $S, $k, $ctx, 4, 2),
                _ => Err(off_grid(arch, "dim", v.dim, &grid::LINSYMPT)),
            },
            Arch::Ct(_) => Err(Error::Unsupported {
                arch: arch.to_string(),
                reason: "is a classifier, not an integrator: use `geomattn classify` \
                         (`geomattn_networks::classify`)".into(),
            }),
        },
        }
    }};
    (@vpt_t $a:ident, $v:ident, $S:ty, $k:ident, $ctx:expr, $d:literal) => {
        match $v.seq {
            2 => on_grid!(@vpt_nb $a, $v, $S, $k, $ctx, $d, 2),
            3 => on_grid!(@vpt_nb $a, $v, $S, $k, $ctx, $d, 3),
            4 => on_grid!(@vpt_nb $a, $v, $S, $k, $ctx, $d, 4),
            _ => Err(off_grid($a, "seq", $v.seq, &grid::VPT)),
        }
    };
    (@vpt_nb $a:ident, $v:ident, $S:ty, $k:ident, $ctx:expr, $d:literal, $t:literal) => {
        match ($v.n_blocks, $v.n_linear, $v.activation) {
            (1, 1, Activation::Tanh) => on_grid!(@vpt_w $a, $v, $S, $k, $ctx, $d, $t, 1, 1),
            (2, 1, Activation::Tanh) => on_grid!(@vpt_w $a, $v, $S, $k, $ctx, $d, $t, 2, 1),
            (1 | 2, 1, activation) => Err(off_grid($a, "activation", activation, &grid::VPT)),
            (1 | 2, n_linear, _) => Err(off_grid($a, "n_linear", n_linear, &grid::VPT)),
            (n_blocks, _, _) => Err(off_grid($a, "n_blocks", n_blocks, &grid::VPT)),
        }
    };
    (@vpt_w $a:ident, $v:ident, $S:ty, $k:ident, $ctx:expr, $d:literal, $t:literal,
     $nb:literal, $nl:literal) => {
        if $v.skew_sym {
            $k!(vpt $a, $S, $d, $t,
                VolumePreservingAttention<$S, $d, $t, SkewWeight<$S, $d>>,
                VolumePreservingFeedForward<$S, $d, $nb, $nl, Tanh>, $ctx)
        } else {
            $k!(vpt $a, $S, $d, $t,
                VolumePreservingAttention<$S, $d, $t, ArbitraryWeight<$S, $d>>,
                VolumePreservingFeedForward<$S, $d, $nb, $nl, Tanh>, $ctx)
        }
    };
    (@vpff_nb $a:ident, $v:ident, $S:ty, $k:ident, $ctx:expr, $d:literal) => {
        match ($v.n_blocks, $v.n_linear, $v.activation) {
            (1, 1, Activation::Tanh) => $k!(vpff $a, $S, $d, VolumePreservingFeedForward<$S, $d, 1, 1, Tanh>, $ctx),
            (2, 1, Activation::Tanh) => $k!(vpff $a, $S, $d, VolumePreservingFeedForward<$S, $d, 2, 1, Tanh>, $ctx),
            (3, 1, Activation::Tanh) => $k!(vpff $a, $S, $d, VolumePreservingFeedForward<$S, $d, 3, 1, Tanh>, $ctx),
            (4, 1, Activation::Tanh) => $k!(vpff $a, $S, $d, VolumePreservingFeedForward<$S, $d, 4, 1, Tanh>, $ctx),
            (5, 1, Activation::Tanh) => $k!(vpff $a, $S, $d, VolumePreservingFeedForward<$S, $d, 5, 1, Tanh>, $ctx),
            (6, 1, Activation::Tanh) => $k!(vpff $a, $S, $d, VolumePreservingFeedForward<$S, $d, 6, 1, Tanh>, $ctx),
            (1..=6, 1, activation) => Err(off_grid($a, "activation", activation, &grid::VPFF)),
            (1..=6, n_linear, _) => Err(off_grid($a, "n_linear", n_linear, &grid::VPFF)),
            (n_blocks, _, _) => Err(off_grid($a, "n_blocks", n_blocks, &grid::VPFF)),
        }
    };
    (@st_t $a:ident, $v:ident, $S:ty, $k:ident, $ctx:expr, $d:literal) => {
        match $v.seq {
            2 => on_grid!(@st_nb $a, $v, $S, $k, $ctx, $d, 2),
            3 => on_grid!(@st_nb $a, $v, $S, $k, $ctx, $d, 3),
            4 => on_grid!(@st_nb $a, $v, $S, $k, $ctx, $d, 4),
            _ => Err(off_grid($a, "seq", $v.seq, &grid::ST)),
        }
    };
    (@st_nb $a:ident, $v:ident, $S:ty, $k:ident, $ctx:expr, $d:literal, $t:literal) => {
        if $v.add_connection {
            on_grid!(@st_c $a, $v, $S, $k, $ctx, $d, $t, AddConnection)
        } else {
            on_grid!(@st_c $a, $v, $S, $k, $ctx, $d, $t, NoConnection)
        }
    };
    (@st_c $a:ident, $v:ident, $S:ty, $k:ident, $ctx:expr, $d:literal, $t:literal, $c:ty) => {
        match ($v.n_heads, $v.n_blocks, $v.activation) {
            (1, 1, Activation::Tanh) => $k!(st $a, $S, $d, $t,
                MultiHeadAttention<$S, $d, 1, $d, $c>, ResNetStack<$S, $d, 1, Tanh>, $ctx),
            (1, 2, Activation::Tanh) => $k!(st $a, $S, $d, $t,
                MultiHeadAttention<$S, $d, 1, $d, $c>, ResNetStack<$S, $d, 2, Tanh>, $ctx),
            (1, 1 | 2, activation) => Err(off_grid($a, "activation", activation, &grid::ST)),
            (1, n_blocks, _) => Err(off_grid($a, "n_blocks", n_blocks, &grid::ST)),
            (n_heads, _, _) => Err(off_grid($a, "n_heads", n_heads, &grid::ST)),
        }
    };
    // Symplectic transformers: `$d = 2·$n`, the gradient layers' hidden width `$d` (GML's
    // upscaling 2·dim), then seq, n_sympnet, init_upper, softmax and weight.
    (@sy_t $a:ident, $v:ident, $S:ty, $k:ident, $ctx:expr, $d:literal, $n:literal) => {
        match ($v.seq, $v.upscaling_dimension == 2 * $d, $v.sympnet_activation) {
            (2, true, Activation::Tanh) => on_grid!(@sy_ns $a, $v, $S, $k, $ctx, $d, $n, 2),
            (3, true, Activation::Tanh) => on_grid!(@sy_ns $a, $v, $S, $k, $ctx, $d, $n, 3),
            (2 | 3, true, activation) => Err(off_grid($a, "sympnet_activation", activation, &grid::SYMPT)),
            (2 | 3, false, _) => Err(off_grid($a, "upscaling_dimension", $v.upscaling_dimension, &grid::SYMPT)),
            (seq, _, _) => Err(off_grid($a, "seq", seq, &grid::SYMPT)),
        }
    };
    (@sy_ns $a:ident, $v:ident, $S:ty, $k:ident, $ctx:expr, $d:literal, $n:literal, $t:literal) => {
        match ($v.n_sympnet, $v.init_upper) {
            (1, true) => on_grid!(@sy_sm $a, $v, $S, $k, $ctx, $d, $n, $t, ::geomattn::SympNetStack<$S, $n, $d, 1, ::geomattn::Tanh, ::geomattn::UpdateQ>),
            (1, false) => on_grid!(@sy_sm $a, $v, $S, $k, $ctx, $d, $n, $t, ::geomattn::SympNetStack<$S, $n, $d, 1, ::geomattn::Tanh, ::geomattn::UpdateP>),
            (2, true) => on_grid!(@sy_sm $a, $v, $S, $k, $ctx, $d, $n, $t, ::geomattn::SympNetStack<$S, $n, $d, 2, ::geomattn::Tanh, ::geomattn::UpdateQ>),
            (2, false) => on_grid!(@sy_sm $a, $v, $S, $k, $ctx, $d, $n, $t, ::geomattn::SympNetStack<$S, $n, $d, 2, ::geomattn::Tanh, ::geomattn::UpdateP>),
            (n_sympnet, _) => Err(off_grid($a, "n_sympnet", n_sympnet, &grid::SYMPT)),
        }
    };
    (@sy_sm $a:ident, $v:ident, $S:ty, $k:ident, $ctx:expr, $d:literal, $n:literal, $t:literal, $st:ty) => {
        match $v.attention_activation {
            $crate::AttentionActivation::MatrixSoftmax => on_grid!(@sy_w $a, $v, $S, $k, $ctx, $d, $n, $t, $st, ::geomattn::MatrixSoftmax),
            $crate::AttentionActivation::VectorSoftmax => on_grid!(@sy_w $a, $v, $S, $k, $ctx, $d, $n, $t, $st, ::geomattn::VectorSoftmax),
        }
    };
    (@sy_w $a:ident, $v:ident, $S:ty, $k:ident, $ctx:expr, $d:literal, $n:literal, $t:literal, $st:ty, $sm:ty) => {
        match $v.symmetric {
            None => on_grid!(@sy $a, $S, $k, $ctx, $d, $t, $n, $st, $sm, ::geomattn::DenseA<$S, $n>),
            Some($crate::Kick::Gml) => on_grid!(@sy $a, $S, $k, $ctx, $d, $t, $n, $st, $sm, ::geomattn::SymmetricA<$S, $n, ::geomattn::GmlCompatible>),
            Some($crate::Kick::Exact) => on_grid!(@sy $a, $S, $k, $ctx, $d, $t, $n, $st, $sm, ::geomattn::SymmetricA<$S, $n, ::geomattn::GradientExact>),
        }
    };
    (@sy $a:ident, $S:ty, $k:ident, $ctx:expr, $d:literal, $t:literal, $n:literal, $st:ty, $sm:ty, $w:ty) => {
        $k!(sympt $a, $S, $d, $t,
            ::geomattn::Transformer<::geomattn::SymplecticAttentionQ<$S, $n, $sm, $w>, $st, 1>,
            ::geomattn::Transformer<::geomattn::SymplecticAttentionP<$S, $n, $sm, $w>, $st, 1>, $ctx)
    };
    (@ls_t $a:ident, $v:ident, $S:ty, $k:ident, $ctx:expr, $d:literal, $n:literal) => {
        match ($v.seq, $v.upscaling_dimension == 2 * $d, $v.activation) {
            (2, true, Activation::Tanh) => on_grid!(@ls_ns $a, $v, $S, $k, $ctx, $d, $n, 2),
            (3, true, Activation::Tanh) => on_grid!(@ls_ns $a, $v, $S, $k, $ctx, $d, $n, 3),
            (2 | 3, true, activation) => Err(off_grid($a, "activation", activation, &grid::LINSYMPT)),
            (2 | 3, false, _) => Err(off_grid($a, "upscaling_dimension", $v.upscaling_dimension, &grid::LINSYMPT)),
            (seq, _, _) => Err(off_grid($a, "seq", seq, &grid::LINSYMPT)),
        }
    };
    (@ls_ns $a:ident, $v:ident, $S:ty, $k:ident, $ctx:expr, $d:literal, $n:literal, $t:literal) => {
        match ($v.n_sympnet, $v.init_upper) {
            (1, true) => on_grid!(@ls $a, $S, $k, $ctx, $d, $t, $n, ::geomattn::SympNetStack<$S, $n, $d, 1, ::geomattn::Tanh, ::geomattn::UpdateQ>),
            (1, false) => on_grid!(@ls $a, $S, $k, $ctx, $d, $t, $n, ::geomattn::SympNetStack<$S, $n, $d, 1, ::geomattn::Tanh, ::geomattn::UpdateP>),
            (2, true) => on_grid!(@ls $a, $S, $k, $ctx, $d, $t, $n, ::geomattn::SympNetStack<$S, $n, $d, 2, ::geomattn::Tanh, ::geomattn::UpdateQ>),
            (2, false) => on_grid!(@ls $a, $S, $k, $ctx, $d, $t, $n, ::geomattn::SympNetStack<$S, $n, $d, 2, ::geomattn::Tanh, ::geomattn::UpdateP>),
            (n_sympnet, _) => Err(off_grid($a, "n_sympnet", n_sympnet, &grid::LINSYMPT)),
        }
    };
    (@ls $a:ident, $S:ty, $k:ident, $ctx:expr, $d:literal, $t:literal, $n:literal, $st:ty) => {
        $k!(lsympt $a, $S, $d, $t,
            ::geomattn::Transformer<::geomattn::LinearSymplecticAttentionQ<$S, $n, $t>, $st, 1>,
            ::geomattn::Transformer<::geomattn::LinearSymplecticAttentionP<$S, $n, $t>, $st, 1>, $ctx)
    };
}

#[cfg(any(test, feature = "train"))]
pub(crate) use on_grid;

pub(crate) fn off_grid(arch: &Arch, key: &str, value: impl ToString, grid: &Grid) -> Error {
    Error::OffGrid {
        arch: arch.to_string(),
        what: format!("{key} = {}", value.to_string()),
        grid: grid.line(),
    }
}

/// The options geomattn's compiled networks fix at GML's default (no compile-time type has
/// another value): the volume-preserving networks' `init_upper = false`, the standard
/// transformer's `transformer_dim = sys_dim` and `VectorSoftmax`, the symplectic transformer's
/// `transformer_dim = dim`. Another value: [`Error::Unsupported`], naming it.
pub(crate) fn fixed_options(arch: &Arch) -> Result<(), Error> {
    let fixed = match *arch {
        Arch::Vpt(v) if v.init_upper => Some(("init_upper = true", "init_upper = false")),
        Arch::Vpff(v) if v.init_upper => Some(("init_upper = true", "init_upper = false")),
        Arch::St(s) if s.transformer_dim != s.dim => {
            Some(("transformer_dim ≠ sys_dim", "transformer_dim = sys_dim"))
        }
        Arch::St(s) if s.attention_activation != crate::AttentionActivation::VectorSoftmax => {
            Some((
                "attention_activation = MatrixSoftmax()",
                "attention_activation = VectorSoftmax()",
            ))
        }
        Arch::Sympt(s) if s.transformer_dim != s.dim => {
            Some(("transformer_dim ≠ dim", "transformer_dim = dim"))
        }
        _ => None,
    };
    match fixed {
        None => Ok(()),
        Some((given, only)) => Err(Error::Unsupported {
            arch: arch.to_string(),
            reason: format!(
                "cannot run yet ({given}): geomattn's compiled networks have only GML's default, \
                 {only}. The spec is valid, and `geomattn inspect` reads such files"
            ),
        }),
    }
}

/// What the loader reported, as an [`Error`] naming the file and the architecture: where the
/// file's layers are not the architecture's chain, the first difference
/// ([`Error::Mismatch`]), else the loader's error.
pub(crate) fn load_error(file: &GmlFile, arch: &Arch, source: LoadError) -> Error {
    match source {
        LoadError::Hdf5 { .. } | LoadError::NotAFile { .. } => Error::Unreadable {
            file: file.name().into(),
            source: Box::new(source),
        },
        _ => match geomattn_arch::inspect::mismatch(file, arch) {
            Ok(Some(mismatch)) => Error::Mismatch {
                file: file.name().into(),
                arch: arch.to_string(),
                mismatch: Box::new(mismatch),
            },
            _ => Error::Load {
                file: file.name().into(),
                arch: arch.to_string(),
                source: Box::new(source),
            },
        },
    }
}

/// `L` units of attention `Att` and feed-forward part `Ff`, read one by one.
pub(crate) fn units<Att, Ff>(file: &GmlFile, arch: &Arch) -> Result<Units<Att, Ff>, Error>
where
    (Att, Ff): Schema<Scalar: RealField>,
{
    let l = arch.units();
    let read = || -> Result<Units<Att, Ff>, LoadError> {
        let mut layers = Layers::new(file)?;
        let expected = l.saturating_mul(<(Att, Ff)>::LAYERS);
        if layers.remaining() != expected {
            return Err(LoadError::LayerCount {
                expected,
                found: layers.remaining(),
            });
        }
        let units = (0..l)
            .map(|_| layers.read::<(Att, Ff)>())
            .collect::<Result<_, _>>()?;
        layers.finish()?;
        Ok(Units(units))
    };
    read().map_err(|source| load_error(file, arch, source))
}

/// A whole network `Net` (the feed-forward one), by value.
pub(crate) fn whole<Net>(file: &GmlFile, arch: &Arch) -> Result<Net, Error>
where
    Net: Schema<Scalar: RealField>,
{
    load(file).map_err(|source| load_error(file, arch, source))
}

macro_rules! open_network {
    (vpff $a:ident, $S:ty, $d:literal, $net:ty, $file:expr) => {
        Ok(Box::new(Loaded::<$S, _, $d, 1> {
            arch: *$a,
            net: whole::<$net>($file, $a)?,
            scalar: PhantomData,
        }) as Box<dyn Network>)
    };
    ($kind:ident $a:ident, $S:ty, $d:literal, $t:literal, $att:ty, $ff:ty, $file:expr) => {
        Ok(Box::new(Loaded::<$S, _, $d, $t> {
            arch: *$a,
            net: units::<$att, $ff>($file, $a)?,
            scalar: PhantomData,
        }) as Box<dyn Network>)
    };
}

/// Loads `file` as `arch`, computing in `precision`: a compiled network of the grid, or, for
/// the architectures the run-time engine has ([`engine::runs`]), at any other size and option
/// on the engine.
///
/// # Errors
/// [`Error::OffGrid`] for sizes this build does not have, [`Error::Mismatch`] if the file's layers
/// are not that architecture's, [`Error::Load`] if they are but cannot be read as it,
/// [`Error::Unreadable`] if it is not a readable HDF5 file.
pub fn open(file: &GmlFile, arch: &Arch, precision: Precision) -> Result<Box<dyn Network>, Error> {
    let compiled = match precision {
        Precision::F32 => on_grid!(arch, f32, open_network, file),
        Precision::F64 => on_grid!(arch, f64, open_network, file),
    };
    match compiled {
        Err(Error::OffGrid { .. } | Error::Unsupported { .. }) if engine::runs(arch) => {
            engine::open(file, arch, precision)
        }
        compiled => compiled,
    }
}

/// Opens the file at `path` and loads it as `arch` (see [`open`]).
///
/// # Errors
/// As [`open`].
pub fn open_file(
    path: impl AsRef<Path>,
    arch: &Arch,
    precision: Precision,
) -> Result<Box<dyn Network>, Error> {
    open(&read(path.as_ref())?, arch, precision)
}

pub(crate) fn read(path: &Path) -> Result<GmlFile, Error> {
    GmlFile::open(path).map_err(|source| Error::Unreadable {
        file: path.display().to_string(),
        source: Box::new(source),
    })
}

macro_rules! check_network {
    (vpt $a:ident, $S:ty, $d:literal, $t:literal, $att:ty, $ff:ty, $ctx:expr) => {{
        let (file, sampling) = $ctx;
        let skew_sym = matches!($a, Arch::Vpt(v) if v.skew_sym);
        Ok(structure::transformer::<$d, $t, _, _>(
            &units::<$att, $ff>(file, $a)?,
            skew_sym,
            sampling,
        ))
    }};
    (st $a:ident, $S:ty, $d:literal, $t:literal, $att:ty, $ff:ty, $ctx:expr) => {{
        // Loaded to check that the file holds it; the architecture promises no structure.
        let (file, _) = $ctx;
        units::<$att, $ff>(file, $a).map(|_| Vec::new())
    }};
    (vpff $a:ident, $S:ty, $d:literal, $net:ty, $ctx:expr) => {{
        let (file, sampling) = $ctx;
        Ok(structure::feed_forward::<$d, _>(&whole::<$net>(file, $a)?, sampling))
    }};
    ($kind:ident $a:ident, $S:ty, $d:literal, $t:literal, $att:ty, $ff:ty, $ctx:expr) => {{
        // `sympt`, `lsympt`.
        let (file, sampling) = $ctx;
        Ok(structure::symplectic::<$d, $t, _, _>(&units::<$att, $ff>(file, $a)?, sampling))
    }};
}

/// Measures the structure `arch` promises on the network in `file`, over `samples` random inputs
/// (entries uniform in `(−1, 1)`, from `seed`), with exact Jacobians (from the backward passes).
/// An empty list: the architecture promises no structure (the standard transformer).
///
/// A promised property passes only if measured: a sample whose output is not finite makes it
/// NaN, and it fails.
///
/// # Errors
/// [`Error::Samples`] unless `samples` is from 1 to [`MAX_SAMPLES`](crate::structure::MAX_SAMPLES)
/// (no input measured would pass everything); otherwise as [`open`].
pub fn check(
    file: &GmlFile,
    arch: &Arch,
    samples: usize,
    seed: u64,
) -> Result<Vec<Measurement>, Error> {
    check_until(file, arch, samples, seed, &|| false)
}

/// [`check`], asking `stop` before each input whether to end early (a caller's Ctrl-C: Python's
/// `check` asks the interpreter for pending signals every 50 ms).
///
/// # Errors
/// [`Error::Stopped`] if `stop` said so; otherwise as [`check`].
pub fn check_until(
    file: &GmlFile,
    arch: &Arch,
    samples: usize,
    seed: u64,
    stop: &dyn Fn() -> bool,
) -> Result<Vec<Measurement>, Error> {
    let sampling = Sampling::new(samples, seed, stop)?;
    let measurements = match on_grid!(arch, f64, check_network, (file, &sampling)) {
        Err(Error::OffGrid { .. } | Error::Unsupported { .. }) if engine::runs(arch) => {
            engine::check_sampled(file, arch, &sampling)?
        }
        measured => measured?,
    };
    if sampling.stopped() {
        return Err(Error::Stopped);
    }
    Ok(measurements)
}

/// Opens the file at `path` and checks it as `arch` (see [`check`]).
///
/// # Errors
/// As [`open`].
pub fn check_file(
    path: impl AsRef<Path>,
    arch: &Arch,
    samples: usize,
    seed: u64,
) -> Result<Vec<Measurement>, Error> {
    check(&read(path.as_ref())?, arch, samples, seed)
}
