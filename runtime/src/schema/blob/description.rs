//! A network's type in a blob: the [`LayerType`]s its schema describes, as tokens written
//! ([`Encoder`]) and read back and compared with the type a blob is read into ([`Compare`]),
//! which names the first difference.
//!
//! Tokens, integers little-endian, a text a `u16` byte length then UTF-8:
//!
//! | token | bytes |
//! |---|---|
//! | a layer group begins | `L`, name (text) |
//! | an option | `S`, key (text), value: `n` and a `u64`, `b` and one byte 0 or 1, or `t` and a text |
//! | a parameter | `P`, parent group (text, empty if none), stem (text), number (`u64`, 0 if none), kind ([`Kind::code`]), rows (`u64`), columns (`u64`) |

use core::fmt;

use super::error::{BlobError, Difference, ShortText, TypeMismatch};
use crate::schema::{Kind, LayerType, Param, SettingValue, Visit};

const LAYER: u8 = b'L';
const SETTING: u8 = b'S';
const PARAM: u8 = b'P';
const NUMBER: u8 = b'n';
const FLAG: u8 = b'b';
const NAME: u8 = b't';

/// The length of a text token: its `u16` length, then its bytes.
const fn text_len(text: &str) -> usize {
    assert!(
        text.len() <= u16::MAX as usize,
        "a name in a layer's type is longer than 65535 bytes"
    );
    2 + text.len()
}

impl LayerType<'_> {
    /// How many bytes it takes in a blob: what a layer's
    /// [`Schema::DESCRIPTION_LEN`](crate::Schema::DESCRIPTION_LEN) is.
    ///
    /// # Panics
    /// If a name or key is longer than 65535 bytes (at compile time, where a schema's constant
    /// calls it).
    pub const fn description_len(&self) -> usize {
        let mut len = 1 + text_len(self.name);
        let mut i = 0;
        while i < self.settings.len() {
            let setting = &self.settings[i];
            len += 1 + text_len(setting.key);
            len += match setting.value {
                SettingValue::Number(_) => 1 + 8,
                SettingValue::Flag(_) => 1 + 1,
                SettingValue::Name(name) => 1 + text_len(name),
            };
            i += 1;
        }
        let mut i = 0;
        while i < self.params.len() {
            let name = self.params[i].name;
            let parent = match name.parent {
                Some(parent) => parent,
                None => "",
            };
            len += 1 + text_len(parent) + text_len(name.stem) + 8 + 1 + 8 + 8;
            i += 1;
        }
        len
    }
}

/// A parameter as a blob records it (the same for one read from a blob and one of a type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ParamRecord<'a> {
    parent: &'a str,
    stem: &'a str,
    /// 0 if the name has no number (GML's numbers start at 1).
    number: u64,
    kind: Kind,
    rows: u64,
    cols: u64,
}

impl ParamRecord<'static> {
    fn of(param: &Param) -> Self {
        Self {
            parent: param.name.parent.unwrap_or(""),
            stem: param.name.stem,
            number: param.name.number.map_or(0, |n| n as u64),
            kind: param.kind,
            rows: param.rows as u64,
            cols: param.cols as u64,
        }
    }
}

impl fmt::Display for ParamRecord<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.parent.is_empty() {
            write!(f, "{}/", self.parent)?;
        }
        f.write_str(self.stem)?;
        if self.number != 0 {
            write!(f, "{}", self.number)?;
        }
        write!(f, " {:?} {}×{}", self.kind, self.rows, self.cols)
    }
}

/// Writes the types a schema describes as tokens into `out`, counting what does not fit.
pub(super) struct Encoder<'a> {
    out: &'a mut [u8],
    len: usize,
    fits: bool,
}

impl<'a> Encoder<'a> {
    pub(super) fn new(out: &'a mut [u8]) -> Self {
        Self {
            out,
            len: 0,
            fits: true,
        }
    }

    /// Checks that the description filled `out` exactly.
    pub(super) fn finish(self) -> Result<(), BlobError> {
        if self.fits && self.len == self.out.len() {
            Ok(())
        } else {
            Err(BlobError::DescriptionLength {
                declared: self.out.len(),
                described: self.len,
            })
        }
    }

    fn bytes(&mut self, bytes: &[u8]) {
        let end = self.len.saturating_add(bytes.len());
        match self.out.get_mut(self.len..end) {
            Some(slot) => slot.copy_from_slice(bytes),
            None => self.fits = false,
        }
        self.len = end;
    }

    fn number(&mut self, number: u64) {
        self.bytes(&number.to_le_bytes());
    }

    fn text(&mut self, text: &str) {
        match u16::try_from(text.len()) {
            Ok(len) => self.bytes(&len.to_le_bytes()),
            Err(_) => {
                self.fits = false;
                self.len = self.len.saturating_add(2);
            }
        }
        self.bytes(text.as_bytes());
    }
}

impl Visit for Encoder<'_> {
    fn layer(&mut self, layer: &LayerType) {
        self.bytes(&[LAYER]);
        self.text(layer.name);
        for setting in layer.settings {
            self.bytes(&[SETTING]);
            self.text(setting.key);
            match setting.value {
                SettingValue::Number(number) => {
                    self.bytes(&[NUMBER]);
                    self.number(number);
                }
                SettingValue::Flag(flag) => self.bytes(&[FLAG, u8::from(flag)]),
                SettingValue::Name(name) => {
                    self.bytes(&[NAME]);
                    self.text(name);
                }
            }
        }
        for param in layer.params {
            let record = ParamRecord::of(param);
            self.bytes(&[PARAM]);
            self.text(record.parent);
            self.text(record.stem);
            self.number(record.number);
            self.bytes(&[record.kind.code()]);
            self.number(record.rows);
            self.number(record.cols);
        }
    }
}

/// One token of a blob's description.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Token<'b> {
    Layer(&'b str),
    Setting(&'b str, SettingValue<'b>),
    Param(ParamRecord<'b>),
    End,
}

/// How a token reads in an error where something else was expected.
impl fmt::Display for Token<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Layer(name) => write!(f, "layer {name}"),
            Self::Setting(key, value) => write!(f, "{key} = {value}"),
            Self::Param(param) => write!(f, "parameter {param}"),
            Self::End => f.write_str("nothing"),
        }
    }
}

/// The tokens of a blob's description, read without trusting it.
#[derive(Clone, Copy)]
struct Reader<'b> {
    bytes: &'b [u8],
    /// The offset of `bytes[0]` in the blob (for errors).
    at: usize,
}

impl<'b> Reader<'b> {
    fn malformed(&self, reason: &'static str) -> BlobError {
        BlobError::Malformed {
            at: self.at,
            reason,
        }
    }

    fn take(&mut self, len: usize) -> Result<&'b [u8], BlobError> {
        if len > self.bytes.len() {
            return Err(self.malformed("the description ends inside a token"));
        }
        let (taken, rest) = self.bytes.split_at(len);
        self.bytes = rest;
        self.at += len;
        Ok(taken)
    }

    fn byte(&mut self) -> Result<u8, BlobError> {
        Ok(self.take(1)?[0])
    }

    fn number(&mut self) -> Result<u64, BlobError> {
        let mut le = [0; 8];
        le.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(le))
    }

    fn text(&mut self) -> Result<&'b str, BlobError> {
        let mut le = [0; 2];
        le.copy_from_slice(self.take(2)?);
        let start = *self;
        let bytes = self.take(usize::from(u16::from_le_bytes(le)))?;
        core::str::from_utf8(bytes).map_err(|_| start.malformed("a name is not UTF-8"))
    }

    fn next(&mut self) -> Result<Token<'b>, BlobError> {
        if self.bytes.is_empty() {
            return Ok(Token::End);
        }
        let start = *self;
        match self.byte()? {
            LAYER => Ok(Token::Layer(self.text()?)),
            SETTING => {
                let key = self.text()?;
                let tag = *self;
                let value = match self.byte()? {
                    NUMBER => SettingValue::Number(self.number()?),
                    FLAG => match self.byte()? {
                        0 => SettingValue::Flag(false),
                        1 => SettingValue::Flag(true),
                        _ => return Err(tag.malformed("a flag is neither 0 nor 1")),
                    },
                    NAME => SettingValue::Name(self.text()?),
                    _ => return Err(tag.malformed("an option's value has an unknown tag")),
                };
                Ok(Token::Setting(key, value))
            }
            PARAM => {
                let parent = self.text()?;
                let stem = self.text()?;
                let number = self.number()?;
                let code = *self;
                let kind = Kind::from_code(self.byte()?)
                    .ok_or_else(|| code.malformed("a parameter has an unknown kind"))?;
                let rows = self.number()?;
                let cols = self.number()?;
                Ok(Token::Param(ParamRecord {
                    parent,
                    stem,
                    number,
                    kind,
                    rows,
                    cols,
                }))
            }
            _ => Err(start.malformed("a token has an unknown tag")),
        }
    }

    fn peek(&self) -> Result<Token<'b>, BlobError> {
        let mut copy = *self;
        copy.next()
    }
}

/// The blob's side of a difference in a layer position: a layer's name, or `no layer`.
fn layer_text(token: Token<'_>) -> ShortText {
    match token {
        Token::Layer(name) => ShortText::from(name),
        Token::End => ShortText::from("no layer"),
        other => ShortText::of(other),
    }
}

/// The error of a difference.
fn mismatch(
    layer: usize,
    difference: Difference,
    in_blob: ShortText,
    in_type: ShortText,
) -> BlobError {
    BlobError::Type(TypeMismatch {
        layer,
        difference,
        in_blob,
        in_type,
    })
}

/// Compares a blob's description with the types a schema describes, token by token, and keeps
/// the first difference.
pub(super) struct Compare<'b> {
    reader: Reader<'b>,
    layer: usize,
    outcome: Result<(), BlobError>,
}

impl<'b> Compare<'b> {
    /// The comparison with `description`, which starts at byte `at` of the blob.
    pub(super) fn new(description: &'b [u8], at: usize) -> Self {
        Self {
            reader: Reader {
                bytes: description,
                at,
            },
            layer: 0,
            outcome: Ok(()),
        }
    }

    /// The first difference, if any, once the schema has described itself: a blob with more
    /// layers than the type differs too.
    pub(super) fn finish(mut self) -> Result<(), BlobError> {
        self.outcome?;
        match self.reader.next()? {
            Token::End => Ok(()),
            other => Err(mismatch(
                self.layer + 1,
                Difference::Layer,
                layer_text(other),
                ShortText::from("no layer"),
            )),
        }
    }

    /// Compares the next layer of the blob with `layer`, the next of the type.
    fn check(&mut self, layer: &LayerType) -> Result<(), BlobError> {
        let n = self.layer;
        match self.reader.next()? {
            Token::Layer(name) if name == layer.name => {}
            other => {
                let in_type = ShortText::from(layer.name);
                return Err(mismatch(n, Difference::Layer, layer_text(other), in_type));
            }
        }
        for setting in layer.settings {
            let difference = Difference::Setting {
                layer: layer.name,
                key: setting.key,
            };
            let in_type = ShortText::of(setting.value);
            match self.reader.next()? {
                Token::Setting(key, value) if key == setting.key => {
                    if value != setting.value {
                        let in_blob = ShortText::of(value);
                        return Err(mismatch(n, difference, in_blob, in_type));
                    }
                }
                other => return Err(mismatch(n, difference, ShortText::of(other), in_type)),
            }
        }
        for (index, param) in layer.params.iter().enumerate() {
            let expected = ParamRecord::of(param);
            match self.reader.next()? {
                Token::Param(found) if found == expected => {}
                other => {
                    let difference = Difference::Param {
                        layer: layer.name,
                        index: index + 1,
                    };
                    let in_blob = match other {
                        Token::Param(found) => ShortText::of(found),
                        other => ShortText::of(other),
                    };
                    let in_type = ShortText::of(expected);
                    return Err(mismatch(n, difference, in_blob, in_type));
                }
            }
        }
        match self.reader.peek()? {
            Token::Layer(_) | Token::End => Ok(()),
            other => {
                let difference = Difference::More { layer: layer.name };
                let in_type = ShortText::from("nothing more");
                Err(mismatch(n, difference, ShortText::of(other), in_type))
            }
        }
    }
}

impl Visit for Compare<'_> {
    fn layer(&mut self, layer: &LayerType) {
        if self.outcome.is_ok() {
            self.layer += 1;
            self.outcome = self.check(layer);
        }
    }
}
