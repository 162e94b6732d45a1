//! A network's weights and its whole type as one flat, checked binary blob: written from any
//! [`Schema`] into a `&mut [u8]`, read back from a `&[u8]` (a file, flash, `include_bytes!`) with
//! no allocation and no `std`.
//!
//! # Format (version 2)
//!
//! All integers little-endian; the header is [`BLOB_HEADER_LEN`] = 32 bytes.
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | [`BLOB_MAGIC`], `b"GEOMATTN"` |
//! | 8..10 | format version, `u16` ([`BLOB_VERSION`]) |
//! | 10..12 | scalar width in bytes, `u16`: 4 (`f32`) or 8 (`f64`) |
//! | 12..16 | CRC-32 (ISO-HDLC, as zlib and PNG) of everything after the header, `u32` |
//! | 16..24 | length of the type description in bytes, `u64` |
//! | 24..32 | number of scalars, `u64` |
//! | 32.. | the type description: every layer group's [`LayerType`](crate::LayerType) (GML's layer, its options, its parameters' names, kinds and shapes; the tokens are in `description.rs`) |
//! | then | the payload: the scalars in schema order, IEEE 754, little-endian |
//!
//! A blob is read only into a network of the type it was written from: the same layers with the
//! same options (sizes, activations, `add_connection`, `Stiefel`, the kick, the orthogonal map's
//! *function*, …), the same parameters, the same scalar (width; no conversion). Reading it into
//! another type is [`BlobError::Type`], naming the first difference:
//! `layer 3 (ResNetLayer): activation tanh in the blob, identity in the type`.
//!
//! The orthogonal map of volume-preserving attention is recorded by the function it computes
//! ([`OrthogonalMap::FUNCTION`](crate::OrthogonalMap::FUNCTION): `cayley` or `exp`), not by its
//! kernel: a blob written with one Cayley kernel ([`Generated`](crate::Generated)) reads into the
//! same network with another ([`GramSchmidt`](crate::GramSchmidt)), which computes the same
//! outputs to rounding; a blob written with the Cayley transform does not read as the exponential.
//! What a type does not fix is not recorded: a layer that runs on sequences of any length (multi-head
//! attention) has no `seq_length`.
//!
//! NaN and infinite weights are rejected ([`BlobError::NonFinite`]), as the HDF5 loader rejects
//! them: no trained network has them, and one that has them would give NaN everywhere.
//!
//! Version 1 (before the description; its header held only a CRC of the parameters' layout) is
//! refused ([`BlobError::Version`]): it cannot say which activation, connection or map it was
//! written with. Write such a blob again from the network.
//!
//! ```
//! use geomattn::{
//!     BlobError, Difference, Exp, SkewSymmetric, SkewVpa, TypeMismatch, blob_len, read_blob, write_blob,
//! };
//! type Net = SkewVpa<f32, 3, 4>;
//! let net = Net::skew_sym(SkewSymmetric::from_packed(&[0.5, -1.0, 2.0])?);
//! let mut bytes = [0_u8; blob_len::<Net>()];
//! write_blob(&net, &mut bytes)?;
//! let back: Net = read_blob(&bytes)?;
//! assert_eq!(back.weight(), net.weight());
//! // The same parameters with the exponential instead of the Cayley transform: another type.
//! let error = read_blob::<SkewVpa<f32, 3, 4, Exp>>(&bytes).unwrap_err();
//! assert_eq!(
//!     error.to_string(),
//!     "the blob was written for another type: layer 1 (VolumePreservingAttention): \
//!      orthogonal_map cayley in the blob, exp in the type"
//! );
//! assert!(matches!(
//!     error,
//!     BlobError::Type(TypeMismatch { difference: Difference::Setting { key: "orthogonal_map", .. }, .. })
//! ));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod description;
mod error;

use core::mem::MaybeUninit;

use self::description::{Compare, Encoder};
pub use self::error::{BlobError, Difference, ShortText, TypeMismatch};
#[cfg(feature = "std")]
use super::Visit;
use super::{Param, Schema, Sink, Source};

/// The first eight bytes of every blob.
pub const BLOB_MAGIC: [u8; 8] = *b"GEOMATTN";
/// The format version this crate writes and reads.
pub const BLOB_VERSION: u16 = 2;
/// The length of the header, before the type description and the payload.
pub const BLOB_HEADER_LEN: usize = 32;

/// A scalar a blob can hold: `f32` or `f64`, stored as IEEE 754 little-endian.
pub trait BlobScalar: Copy {
    /// Its width in bytes.
    const WIDTH: u16;
    /// Its bytes, little-endian, into `out` (exactly [`WIDTH`](Self::WIDTH) bytes).
    fn put(self, out: &mut [u8]);
    /// The scalar of `bytes` (exactly [`WIDTH`](Self::WIDTH) bytes, little-endian).
    fn get(bytes: &[u8]) -> Self;
    /// Whether it is neither NaN nor infinite.
    fn finite(self) -> bool;
}

macro_rules! blob_scalar {
    ($($ty:ty),*) => {$(
        impl BlobScalar for $ty {
            const WIDTH: u16 = core::mem::size_of::<$ty>() as u16;
            fn put(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_le_bytes());
            }
            fn get(bytes: &[u8]) -> Self {
                let mut le = [0; core::mem::size_of::<$ty>()];
                le.copy_from_slice(bytes);
                <$ty>::from_le_bytes(le)
            }
            fn finite(self) -> bool {
                self.is_finite()
            }
        }
    )*};
}
blob_scalar!(f32, f64);

/// The length of the blob of network `N`: header, type description and payload.
pub const fn blob_len<N: Schema>() -> usize
where
    N::Scalar: BlobScalar,
{
    parts_len::<N>(1)
}

/// The length of the blob of `[N; count]`: header, then `count` descriptions and payloads.
const fn parts_len<N: Schema>(count: usize) -> usize
where
    N::Scalar: BlobScalar,
{
    BLOB_HEADER_LEN + count * (N::DESCRIPTION_LEN + N::SCALARS * N::Scalar::WIDTH as usize)
}

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    let mut le = [0; 4];
    le.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(le)
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    let mut le = [0; 8];
    le.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(le)
}

/// The length the header announces (`None` if it does not fit in a `usize`).
fn announced_len(description: u64, count: u64, width: u16) -> Option<usize> {
    let payload = count.checked_mul(u64::from(width))?;
    let len = description
        .checked_add(payload)?
        .checked_add(BLOB_HEADER_LEN as u64)?;
    usize::try_from(len).ok()
}

/// Checks the header, the length, the checksum and the type description of `bytes` against
/// network `N`, and returns the payload.
fn payload<N: Schema>(bytes: &[u8]) -> Result<&[u8], BlobError>
where
    N::Scalar: BlobScalar,
{
    let truncated = |needed| BlobError::Truncated {
        needed,
        found: bytes.len(),
    };
    let header = bytes
        .get(..BLOB_HEADER_LEN)
        .ok_or(truncated(BLOB_HEADER_LEN))?;
    let mut magic = [0; 8];
    magic.copy_from_slice(&header[..8]);
    if magic != BLOB_MAGIC {
        return Err(BlobError::Magic { found: magic });
    }
    let version = u16_at(header, 8);
    if version != BLOB_VERSION {
        return Err(BlobError::Version { found: version });
    }
    let width = u16_at(header, 10);
    if width != N::Scalar::WIDTH {
        return Err(BlobError::Width {
            expected: N::Scalar::WIDTH,
            found: width,
        });
    }
    let (description_len, count) = (u64_at(header, 16), u64_at(header, 24));
    let len = announced_len(description_len, count, width).ok_or(truncated(usize::MAX))?;
    if bytes.len() < len {
        return Err(truncated(len));
    }
    if bytes.len() > len {
        return Err(BlobError::TrailingBytes {
            expected: len,
            found: bytes.len(),
        });
    }
    let body = &bytes[BLOB_HEADER_LEN..];
    let expected = u32_at(header, 12);
    let found = crc32fast::hash(body);
    if found != expected {
        return Err(BlobError::Checksum { expected, found });
    }
    // `announced_len` fits, so does the description's length.
    let (description, payload) = body.split_at(description_len as usize);
    let mut compare = Compare::new(description, BLOB_HEADER_LEN);
    N::describe(&mut compare);
    compare.finish()?;
    if count != N::SCALARS as u64 {
        return Err(BlobError::Count {
            expected: N::SCALARS as u64,
            found: count,
        });
    }
    Ok(payload)
}

/// The scalars of a checked payload, handed out parameter by parameter.
struct BlobSource<'a, S> {
    payload: &'a [u8],
    layer: usize,
    scalar: core::marker::PhantomData<S>,
}

impl<S: BlobScalar> Source<S> for BlobSource<'_, S> {
    type Error = BlobError;

    fn begin_layer(&mut self) -> Result<(), BlobError> {
        self.layer += 1;
        Ok(())
    }

    fn end_layer(&mut self) -> Result<(), BlobError> {
        Ok(())
    }

    fn param(&mut self, param: &Param, out: &mut [S]) -> Result<(), BlobError> {
        let width = usize::from(S::WIDTH);
        let needed = out.len() * width;
        if needed > self.payload.len() {
            // The header's count matched the schema's: only a schema that reads more than its
            // `SCALARS` gets here.
            return Err(BlobError::Count {
                expected: out.len() as u64,
                found: (self.payload.len() / width) as u64,
            });
        }
        let (bytes, rest) = self.payload.split_at(needed);
        for (index, (slot, bytes)) in out.iter_mut().zip(bytes.chunks_exact(width)).enumerate() {
            *slot = S::get(bytes);
            if !slot.finite() {
                return Err(BlobError::NonFinite {
                    layer: self.layer,
                    name: param.name,
                    index,
                });
            }
        }
        self.payload = rest;
        Ok(())
    }

    fn invalid(&mut self, source: crate::error::Error) -> BlobError {
        BlobError::Invalid {
            layer: self.layer,
            source,
        }
    }
}

/// Runs `read` on the payload of `bytes` after checking the header, then checks that the whole
/// payload was read.
fn with_source<N: Schema, R>(
    bytes: &[u8],
    read: impl FnOnce(&mut BlobSource<'_, N::Scalar>) -> Result<R, BlobError>,
) -> Result<R, BlobError>
where
    N::Scalar: BlobScalar,
{
    let mut source = BlobSource {
        payload: payload::<N>(bytes)?,
        layer: 0,
        scalar: core::marker::PhantomData,
    };
    let value = read(&mut source)?;
    if source.payload.is_empty() {
        Ok(value)
    } else {
        // Only a schema that reads fewer than its `SCALARS` gets here.
        Err(BlobError::Count {
            expected: N::SCALARS as u64,
            found: (N::SCALARS - source.payload.len() / usize::from(N::Scalar::WIDTH)) as u64,
        })
    }
}

/// Reads network `N` from a blob written by [`write_blob`], by value, allocating nothing.
///
/// # Errors
/// Every way the bytes can be wrong is a [`BlobError`]: checked in the order truncated header,
/// magic, version, width, truncated or trailing bytes, checksum, type (the first difference
/// between the blob's description and `N`'s, or a malformed description), count, then the values
/// (non-finite, rejected by a layer).
pub fn read_blob<N: Schema>(bytes: &[u8]) -> Result<N, BlobError>
where
    N::Scalar: BlobScalar,
{
    with_source::<N, _>(bytes, |source| N::read(source))
}

/// [`read_blob`] in place, into `slot` (e.g. a `static` cell's storage): only one layer at a time
/// passes through the stack. Returns the slot, now initialised.
///
/// # Errors
/// As [`read_blob`]; the slot may then be partly written (and what was written is leaked).
pub fn read_blob_into<'slot, N: Schema>(
    slot: &'slot mut MaybeUninit<N>,
    bytes: &[u8],
) -> Result<&'slot mut N, BlobError>
where
    N::Scalar: BlobScalar,
{
    with_source::<N, _>(bytes, |source| {
        super::fill(slot, source)?;
        Ok(())
    })?;
    // SAFETY: `fill` returned Ok, so the slot has been initialised (it checks that `read_into`
    // returned the slot itself).
    Ok(unsafe { slot.assume_init_mut() })
}

/// [`read_blob`] onto the heap, built in place: for networks larger than the stack.
///
/// # Errors
/// As [`read_blob`].
#[cfg(feature = "std")]
pub fn read_blob_boxed<N: Schema>(bytes: &[u8]) -> Result<std::boxed::Box<N>, BlobError>
where
    N::Scalar: BlobScalar,
{
    with_source::<N, _>(bytes, |source| super::read_boxed(source))
}

/// The scalars of a network, written into a payload.
struct BlobSink<'a> {
    payload: &'a mut [u8],
    layer: usize,
}

impl<S: BlobScalar> Sink<S> for BlobSink<'_> {
    type Error = BlobError;

    fn begin_layer(&mut self) -> Result<(), BlobError> {
        self.layer += 1;
        Ok(())
    }

    fn param(&mut self, _: &Param, values: &[S]) -> Result<(), BlobError> {
        let width = usize::from(S::WIDTH);
        let needed = values.len() * width;
        let payload = core::mem::take(&mut self.payload);
        if needed > payload.len() {
            // The buffer was sized from the schema's `SCALARS`: only a schema that writes more
            // gets here.
            return Err(BlobError::BufferTooSmall {
                needed,
                found: payload.len(),
            });
        }
        let (bytes, rest) = payload.split_at_mut(needed);
        for (value, bytes) in values.iter().zip(bytes.chunks_exact_mut(width)) {
            value.put(bytes);
        }
        self.payload = rest;
        Ok(())
    }

    fn invalid(&mut self, source: crate::error::Error) -> BlobError {
        BlobError::Invalid {
            layer: self.layer,
            source,
        }
    }
}

/// Writes `network` as a blob into the first [`blob_len::<N>()`](blob_len) bytes of `out`, and
/// returns that length. Allocates nothing.
///
/// # Errors
/// [`BlobError::BufferTooSmall`] if `out` is shorter than the blob, [`BlobError::Invalid`] if the
/// network does not fit its schema (a layer with a bias where GML's architecture has none),
/// [`BlobError::DescriptionLength`] if `N`'s schema is inconsistent.
pub fn write_blob<N: Schema>(network: &N, out: &mut [u8]) -> Result<usize, BlobError>
where
    N::Scalar: BlobScalar,
{
    write_parts(core::slice::from_ref(network), out)
}

/// [`write_blob`] of `[N; k]` from a slice of its `k` parts.
fn write_parts<N: Schema>(parts: &[N], out: &mut [u8]) -> Result<usize, BlobError>
where
    N::Scalar: BlobScalar,
{
    let (description_len, scalars) = (parts.len() * N::DESCRIPTION_LEN, parts.len() * N::SCALARS);
    let len = parts_len::<N>(parts.len());
    write_with::<N::Scalar>(
        out,
        (len, description_len, scalars),
        |encoder| {
            for _ in parts {
                N::describe(encoder);
            }
        },
        |sink| parts.iter().try_for_each(|part| part.write(sink)),
    )
}

/// Writes a blob of `len` bytes (`description_len` of them the description, `scalars` scalars of
/// `S`) into `out`: the description by `describe`, the payload by `write`, then the header.
fn write_with<S: BlobScalar>(
    out: &mut [u8],
    (len, description_len, scalars): (usize, usize, usize),
    describe: impl FnOnce(&mut Encoder<'_>),
    write: impl FnOnce(&mut BlobSink<'_>) -> Result<(), BlobError>,
) -> Result<usize, BlobError> {
    let found = out.len();
    let blob = out
        .get_mut(..len)
        .ok_or(BlobError::BufferTooSmall { needed: len, found })?;
    let (header, body) = blob.split_at_mut(BLOB_HEADER_LEN);
    let (description, payload) = body.split_at_mut(description_len);
    let mut encoder = Encoder::new(description);
    describe(&mut encoder);
    encoder.finish()?;
    write(&mut BlobSink { payload, layer: 0 })?;
    header[..8].copy_from_slice(&BLOB_MAGIC);
    header[8..10].copy_from_slice(&BLOB_VERSION.to_le_bytes());
    header[10..12].copy_from_slice(&S::WIDTH.to_le_bytes());
    header[12..16].copy_from_slice(&crc32fast::hash(body).to_le_bytes());
    header[16..24].copy_from_slice(&(description_len as u64).to_le_bytes());
    header[24..32].copy_from_slice(&(scalars as u64).to_le_bytes());
    Ok(len)
}

/// [`write_blob`] into a new vector.
///
/// # Errors
/// As [`write_blob`] ([`BlobError::Invalid`] only).
#[cfg(feature = "std")]
pub fn to_blob<N: Schema>(network: &N) -> Result<std::vec::Vec<u8>, BlobError>
where
    N::Scalar: BlobScalar,
{
    slice_to_blob(core::slice::from_ref(network))
}

/// The blob of `[N; k]` written from a slice of its `k` parts, for a `k` known only at run time:
/// byte for byte what [`to_blob`] writes for the array, and so for a [`Transformer`] of `k`
/// units when `N` is a unit `(Att, Ff)` (whose schema is its array of units). [`read_blob`] reads
/// it into the array's or the transformer's type.
///
/// ```
/// use geomattn::{SkewSymmetric, SkewVpa, Transformer, read_blob, slice_to_blob, to_blob};
/// type Unit = (SkewVpa<f64, 3, 2>, SkewVpa<f64, 3, 2>);
/// let layer = |x: f64| SkewVpa::skew_sym(SkewSymmetric::from_packed(&[x, 1.0, -1.0]).unwrap());
/// let units: Vec<Unit> = vec![(layer(0.5), layer(2.0)), (layer(-1.0), layer(0.25))];
/// let bytes = slice_to_blob(&units)?;
/// let net: Transformer<SkewVpa<f64, 3, 2>, SkewVpa<f64, 3, 2>, 2> = read_blob(&bytes)?;
/// assert_eq!(to_blob(&net)?, bytes);
/// assert_eq!(to_blob(&[units[0], units[1]])?, bytes);
/// # Ok::<(), geomattn::BlobError>(())
/// ```
///
/// [`Transformer`]: crate::Transformer
///
/// # Errors
/// As [`write_blob`] ([`BlobError::Invalid`] only).
#[cfg(feature = "std")]
pub fn slice_to_blob<N: Schema>(parts: &[N]) -> Result<std::vec::Vec<u8>, BlobError>
where
    N::Scalar: BlobScalar,
{
    let mut out = std::vec![0; parts_len::<N>(parts.len())];
    write_parts(parts, &mut out)?;
    Ok(out)
}

/// The blob of a network of layers `types` whose parameters hold `values`, in order (each
/// type's parameters, each in its kind's order: what [`Schema::write`] hands out): a network
/// whose sizes were read at run time ([`described`](super::described)). Byte for byte the blob
/// of the compile-time network with those layer types and values, which [`read_blob`] reads.
///
/// ```
/// use geomattn::schema::described;
/// use geomattn::{ResNetLayer, Tanh, described_to_blob, read_blob, to_blob};
/// let weight = [1.0, 2.0, 3.0, 4.0];
/// let bias = [0.5, -0.5];
/// let values: Vec<f64> = weight.iter().chain(&bias).copied().collect();
/// let bytes = described_to_blob(&[described::resnet_layer(2, "tanh")], &values)?;
/// let layer: ResNetLayer<f64, 2, Tanh> = read_blob(&bytes)?;
/// assert_eq!(to_blob(&layer)?, bytes);
/// assert_eq!(layer.weight().as_slice(), weight);
/// # Ok::<(), geomattn::BlobError>(())
/// ```
///
/// # Errors
/// [`BlobError::Count`] if `values` is not as long as the types' parameters together.
#[cfg(feature = "std")]
pub fn described_to_blob<S: BlobScalar>(
    types: &[super::OwnedLayerType],
    values: &[S],
) -> Result<std::vec::Vec<u8>, BlobError> {
    let description_len = types.iter().map(|t| t.as_type().description_len()).sum();
    let scalars: usize = types.iter().flat_map(|t| &t.params).map(Param::len).sum();
    if scalars != values.len() {
        return Err(BlobError::Count {
            expected: scalars as u64,
            found: values.len() as u64,
        });
    }
    let len = BLOB_HEADER_LEN + description_len + scalars * usize::from(S::WIDTH);
    let mut out = std::vec![0; len];
    write_with::<S>(
        &mut out,
        (len, description_len, scalars),
        |encoder| {
            for layer in types {
                encoder.layer(&layer.as_type());
            }
        },
        |sink| {
            let mut rest = values;
            for layer in types {
                Sink::<S>::begin_layer(sink)?;
                for param in &layer.params {
                    let (these, after) = rest.split_at(param.len());
                    sink.param(param, these)?;
                    rest = after;
                }
            }
            Ok(())
        },
    )?;
    Ok(out)
}
