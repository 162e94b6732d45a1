//! Loading a GML file as a run-time [`Arch`] on the engine ([`crate::engine`]), its errors named
//! after the file and the architecture, and the structure check.

use std::path::Path;

use geomattn::gml::{GmlFile, LoadError};

use crate::engine;
use crate::error::Error;
use crate::network::Network;
use crate::network::Precision;
use crate::structure::Measurement;
use crate::structure::Sampling;
use geomattn_arch::Arch;

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

/// Loads `file` as `arch`, computing in `precision`, on the run-time engine: any size and option
/// GML allows.
///
/// # Errors
/// [`Error::Unsupported`] for the classifier (see [`crate::classify`]), [`Error::Mismatch`] if
/// the file's layers are not that architecture's, [`Error::Load`] if they are but cannot be read
/// as it, [`Error::Unreadable`] if it is not a readable HDF5 file.
pub fn open(file: &GmlFile, arch: &Arch, precision: Precision) -> Result<Box<dyn Network>, Error> {
    engine::open(file, arch, precision)
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
    let measurements = engine::check_sampled(file, arch, &sampling)?;
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
