//! Why a blob cannot be read into the network asked for: [`BlobError`], and, for a blob of another
//! type, where the two types first differ ([`TypeMismatch`]), with both values as [`ShortText`].

use core::fmt;

use super::BLOB_VERSION;
use crate::schema::Name;

/// Why a blob cannot be read into the network asked for, or a network not written as a blob.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BlobError {
    /// The bytes end before the header or the description and payload it announces do.
    #[error("the blob is truncated: {needed} bytes needed, {found} given")]
    Truncated {
        /// Bytes the header (and what it announces) need.
        needed: usize,
        /// Bytes given.
        found: usize,
    },
    /// The bytes do not start with [`BLOB_MAGIC`](super::BLOB_MAGIC): not a blob.
    #[error("not a geomattn blob (the first bytes are {found:?})")]
    Magic {
        /// The first eight bytes.
        found: [u8; 8],
    },
    /// A format version this crate does not read (version 1 recorded only the parameters' layout,
    /// not the layers' types, so it cannot be checked: write the blob again).
    #[error(
        "blob format version {found}, this crate reads only version {BLOB_VERSION}: write the blob again with this crate"
    )]
    Version {
        /// The version in the header.
        found: u16,
    },
    /// The blob holds scalars of another width than the network's.
    #[error("the blob holds {found}-byte scalars, the network {expected}-byte ones")]
    Width {
        /// The network's scalar width.
        expected: u16,
        /// The width in the header.
        found: u16,
    },
    /// The blob was written for another type of network: where the two first differ.
    #[error("the blob was written for another type: {0}")]
    Type(TypeMismatch),
    /// The blob's description of its type is not well formed (only a writer other than this
    /// crate's makes one: the checksum covers it).
    #[error("the blob's type description is malformed at byte {at}: {reason}")]
    Malformed {
        /// The offset in the blob of the first byte that cannot be read.
        at: usize,
        /// What is wrong there.
        reason: &'static str,
    },
    /// The blob announces another number of scalars than the network has.
    #[error("the blob holds {found} scalars, the network has {expected}")]
    Count {
        /// The network's number of scalars.
        expected: u64,
        /// The number in the header.
        found: u64,
    },
    /// Bytes follow the payload.
    #[error("{found} bytes where the blob is {expected} bytes long")]
    TrailingBytes {
        /// The blob's length (header, description and payload).
        expected: usize,
        /// Bytes given.
        found: usize,
    },
    /// The description and payload do not match their checksum: corrupted.
    #[error("the blob's CRC-32 is {found:#010x}, the header says {expected:#010x}")]
    Checksum {
        /// The checksum in the header.
        expected: u32,
        /// The checksum of the description and payload.
        found: u32,
    },
    /// A weight is NaN or infinite.
    #[error("`/L{layer}/{name}` has a non-finite entry at index {index}")]
    NonFinite {
        /// The layer group (from 1, as GML's `L1 … Ln`).
        layer: usize,
        /// The parameter.
        name: Name,
        /// The index of the entry in the parameter (in the kind's order).
        index: usize,
    },
    /// A layer rejects its weights (a Stiefel weight off the manifold), or, when writing, the
    /// network does not fit its own schema ([`crate::Error::NotInSchema`]).
    #[error("layer {layer}: {source}")]
    Invalid {
        /// The layer group (from 1).
        layer: usize,
        /// What the layer reported.
        source: crate::error::Error,
    },
    /// The buffer given to [`write_blob`](super::write_blob) is too small.
    #[error("the blob needs {needed} bytes, the buffer has {found}")]
    BufferTooSmall {
        /// [`blob_len`](super::blob_len) of the network.
        needed: usize,
        /// The buffer's length.
        found: usize,
    },
    /// When writing: the network's [`Schema`](crate::Schema) declares a description of another
    /// length than the one it describes (a bug in that implementation, never in the weights).
    #[error(
        "the schema declares a {declared}-byte type description but describes {described} bytes"
    )]
    DescriptionLength {
        /// [`Schema::DESCRIPTION_LEN`](crate::Schema::DESCRIPTION_LEN).
        declared: usize,
        /// The length of what [`Schema::describe`](crate::Schema::describe) hands out.
        described: usize,
    },
}

/// Where the type a blob was written from and the type it is read into first differ, and how:
/// `layer 3 (ResNetLayer): activation tanh in the blob, identity in the type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TypeMismatch {
    /// The layer group (from 1, as GML's `L1 … Ln`).
    pub layer: usize,
    /// What differs there.
    pub difference: Difference,
    /// The blob's side.
    pub in_blob: ShortText,
    /// The type's side.
    pub in_type: ShortText,
}

/// What differs between a blob's type and the type it is read into ([`TypeMismatch`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Difference {
    /// Another layer, or a layer where the other has none (`no layer`).
    Layer,
    /// An option of the type's layer `layer` (its name in the type): `key`.
    Setting {
        /// The layer's name in the type.
        layer: &'static str,
        /// The option's key.
        key: &'static str,
    },
    /// The `index`-th parameter (from 1) of the type's layer `layer`.
    Param {
        /// The layer's name in the type.
        layer: &'static str,
        /// The parameter's position in its layer, from 1.
        index: usize,
    },
    /// The blob's layer has more than the type's layer `layer` (its name in the type).
    More {
        /// The layer's name in the type.
        layer: &'static str,
    },
}

impl fmt::Display for TypeMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Self {
            layer: n,
            in_blob,
            in_type,
            ..
        } = self;
        match self.difference {
            Difference::Layer => write!(f, "layer {n}: "),
            Difference::Setting { layer, key } => write!(f, "layer {n} ({layer}): {key} "),
            Difference::Param { layer, index } => {
                write!(f, "layer {n} ({layer}): parameter {index}: ")
            }
            Difference::More { layer } => write!(f, "layer {n} ({layer}): "),
        }?;
        write!(f, "{in_blob} in the blob, {in_type} in the type")
    }
}

/// A short text held inline (no allocation, 32 bytes: small enough for an error returned by value
/// on a microcontroller): at most [`CAPACITY`](Self::CAPACITY) bytes, which every name of the
/// built-in layers and options fits, cut at a character boundary and shown with a trailing `…`
/// when longer.
///
/// ```
/// use core::fmt::Write;
/// use geomattn::ShortText;
/// let mut text = ShortText::default();
/// write!(text, "{}", "tanh")?;
/// assert_eq!((text.as_str(), text.to_string()), ("tanh", "tanh".to_string()));
/// let long = ShortText::from("é".repeat(40).as_str());
/// assert_eq!(long.as_str(), "é".repeat(ShortText::CAPACITY / 2));
/// assert_eq!(long.to_string(), "é".repeat(ShortText::CAPACITY / 2) + "…");
/// # Ok::<(), core::fmt::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ShortText {
    bytes: [u8; Self::CAPACITY],
    len: u8,
    cut: bool,
}

impl ShortText {
    /// The most bytes it holds.
    pub const CAPACITY: usize = 30;

    /// The text held (without the `…` of a cut text).
    pub fn as_str(&self) -> &str {
        // Only whole characters are ever copied in, so this is always `Ok`.
        core::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or_default()
    }

    /// Whether the text was longer than [`CAPACITY`](Self::CAPACITY) and cut.
    pub const fn is_cut(&self) -> bool {
        self.cut
    }

    /// `value` as text (cut if longer than the capacity).
    pub(crate) fn of(value: impl fmt::Display) -> Self {
        let mut text = Self::default();
        // Writing into a `ShortText` never fails.
        let _ = fmt::Write::write_fmt(&mut text, format_args!("{value}"));
        text
    }
}

impl Default for ShortText {
    fn default() -> Self {
        Self {
            bytes: [0; Self::CAPACITY],
            len: 0,
            cut: false,
        }
    }
}

impl From<&str> for ShortText {
    fn from(text: &str) -> Self {
        Self::of(text)
    }
}

/// Appends what fits; never fails.
impl fmt::Write for ShortText {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        if self.cut {
            return Ok(());
        }
        let len = usize::from(self.len);
        let mut end = text.len().min(Self::CAPACITY - len);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        self.bytes[len..len + end].copy_from_slice(&text.as_bytes()[..end]);
        // At most `CAPACITY` (30) bytes: fits in a `u8`.
        self.len = (len + end) as u8;
        self.cut = end < text.len();
        Ok(())
    }
}

impl fmt::Display for ShortText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())?;
        if self.cut { f.write_str("…") } else { Ok(()) }
    }
}

impl fmt::Debug for ShortText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)?;
        if self.cut { f.write_str("…") } else { Ok(()) }
    }
}
