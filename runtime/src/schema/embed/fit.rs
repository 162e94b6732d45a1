//! Whether an embedded file fits a network, decided in `const` evaluation without stopping it:
//! the first way it does not is kept as a [`Mismatch`] (a message composed in a fixed buffer,
//! since `const` evaluation has no `format!`), the rest of the network is built from zeros, and
//! [`embedded`](super::embedded) reports the mismatch at its caller, the user's `embed_gml!`.

use core::fmt;
use core::mem::ManuallyDrop;

use super::EmbeddedParam;
use crate::schema::{Kind, Name, Param};

/// How many bytes a [`Mismatch`]'s message holds (the longest is about 200).
const CAPACITY: usize = 512;

/// The first way an embedded file does not fit a network: a message naming the layer group, the
/// parameter and both shapes (`` `/L1/weight`: the network has a strictly lower triangular 4×4
/// matrix, the file has `/L1/weight`, a strictly lower triangular 3×3 matrix ``).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Mismatch {
    bytes: [u8; CAPACITY],
    len: usize,
}

impl Mismatch {
    /// The message.
    pub const fn as_str(&self) -> &str {
        match core::str::from_utf8(self.bytes.split_at(self.len).0) {
            Ok(message) => message,
            // `text` only ever appends whole strings.
            Err(_) => "",
        }
    }

    /// Stops `const` evaluation with the message, at the caller of the (`#[track_caller]`)
    /// functions that led here: the compile error points at the user's code.
    #[track_caller]
    pub(crate) const fn fail(&self) -> ! {
        panic!("{}", self.as_str())
    }

    pub(crate) const fn new() -> Self {
        Self {
            bytes: [0; CAPACITY],
            len: 0,
        }
    }

    /// Appends `text` whole, or nothing if it does not fit.
    pub(crate) const fn text(mut self, text: &str) -> Self {
        let text = text.as_bytes();
        if self.len + text.len() > CAPACITY {
            return self;
        }
        let mut k = 0;
        while k < text.len() {
            self.bytes[self.len] = text[k];
            self.len += 1;
            k += 1;
        }
        self
    }

    pub(crate) const fn number(self, mut n: usize) -> Self {
        let mut digits = [b'0'; 20];
        let mut start = digits.len() - 1;
        loop {
            digits[start] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
            start -= 1;
        }
        match core::str::from_utf8(digits.split_at(start).1) {
            Ok(text) => self.text(text),
            Err(_) => self,
        }
    }

    /// `/L<layer>/<name>`.
    pub(crate) const fn path(self, layer: usize, name: Name) -> Self {
        let mut message = self.text("`/L").number(layer).text("/");
        if let Some(parent) = name.parent {
            message = message.text(parent).text("/");
        }
        message = message.text(name.stem);
        if let Some(number) = name.number {
            message = message.number(number);
        }
        message.text("`")
    }

    /// "a dense 3×2 matrix", "a vector of 3", "a skew-symmetric 3×3 matrix".
    const fn shape(self, kind: Kind, rows: usize, cols: usize) -> Self {
        let what = match kind {
            Kind::Vector => return self.text("a vector of ").number(rows),
            Kind::Dense => "a dense ",
            Kind::Stiefel => "a Stiefel ",
            Kind::Skew => "a skew-symmetric ",
            Kind::Symmetric => "a symmetric ",
            Kind::StrictlyLower => "a strictly lower triangular ",
            Kind::StrictlyUpper => "a strictly upper triangular ",
        };
        self.text(what)
            .number(rows)
            .text("×")
            .number(cols)
            .text(" matrix")
    }
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Mismatch").field(&self.as_str()).finish()
    }
}

/// A network (or part) built from an embedded file, with the first way the file does not fit
/// it. With a mismatch, the value is built from zeros where the file did not fit: only
/// [`embedded`](super::embedded), which reports the mismatch instead, hands values out.
///
/// (The value is held in a `ManuallyDrop`, which has no destructor, so that `const` code can
/// take a generic `Fitted` apart; it is only ever moved out, never dropped.)
pub struct Fitted<N> {
    value: ManuallyDrop<N>,
    mismatch: Option<Mismatch>,
}

impl<N> Fitted<N> {
    /// `value`, which the file fits unless `mismatch` says where it does not.
    pub const fn new(value: N, mismatch: Option<Mismatch>) -> Self {
        Self {
            value: ManuallyDrop::new(value),
            mismatch,
        }
    }

    /// The value, keeping its mismatch in `first` unless `first` already holds one: how a
    /// container gathers its parts in the file's order.
    pub const fn take(self, first: &mut Option<Mismatch>) -> N {
        let Self { value, mismatch } = self;
        if first.is_none() {
            *first = mismatch;
        }
        ManuallyDrop::into_inner(value)
    }
}

/// Reads one part of an embedded file, checking each layer group against the parameters the part
/// expects, and keeping the first mismatch: from there on every value reads as zero.
pub(crate) struct Fit<'a> {
    data: &'a [f64],
    params: &'a [EmbeddedParam],
    mismatch: Option<Mismatch>,
}

impl<'a> Fit<'a> {
    pub(crate) const fn new(data: &'a [f64], params: &'a [EmbeddedParam]) -> Self {
        Self {
            data,
            params,
            mismatch: None,
        }
    }

    /// Keeps `mismatch` unless one is kept already.
    pub(crate) const fn fail(&mut self, mismatch: Mismatch) {
        if self.mismatch.is_none() {
            self.mismatch = Some(mismatch);
        }
    }

    /// Whether the file fits so far.
    pub(crate) const fn fits(&self) -> bool {
        self.mismatch.is_none()
    }

    /// `value`, with the first mismatch met.
    pub(crate) const fn fitted<N>(self, value: N) -> Fitted<N> {
        Fitted::new(value, self.mismatch)
    }

    /// Value `k` of parameter `at` (an index into the file's parameters), with its index in the
    /// file's data, if the file fits so far (then both exist: the parameter was checked).
    pub(crate) const fn value(&self, at: usize, k: usize) -> Option<(usize, f64)> {
        if !self.fits() || at >= self.params.len() {
            return None;
        }
        let index = self.params[at].offset + k;
        if index < self.data.len() {
            Some((index, self.data[index]))
        } else {
            None
        }
    }

    /// The index of the first parameter of layer group `layer` (from 1), or of the first after
    /// it if it has none.
    pub(crate) const fn first_of(&self, layer: usize) -> usize {
        let mut first = 0;
        while first < self.params.len() && self.params[first].layer < layer {
            first += 1;
        }
        first
    }

    /// The `k`-th parameter of layer group `layer`, whose first is `params[first]`, if it has
    /// one.
    const fn nth_of(&self, layer: usize, first: usize, k: usize) -> Option<&'a EmbeddedParam> {
        let params = self.params;
        if first + k < params.len() && params[first + k].layer == layer {
            Some(&params[first + k])
        } else {
            None
        }
    }

    /// Checks that the `k`-th parameter of layer group `layer` is `wanted`; returns its index.
    pub(crate) const fn check(
        &mut self,
        layer: usize,
        first: usize,
        k: usize,
        wanted: Param,
    ) -> usize {
        match self.nth_of(layer, first, k) {
            Some(found)
                if same_name(wanted.name, found.name)
                    && same_kind(wanted.kind, found.kind)
                    && wanted.rows == found.rows
                    && wanted.cols == found.cols => {}
            Some(found) => self.fail(
                Mismatch::new()
                    .path(layer, wanted.name)
                    .text(": the network has ")
                    .shape(wanted.kind, wanted.rows, wanted.cols)
                    .text(", the file has ")
                    .path(layer, found.name)
                    .text(", ")
                    .shape(found.kind, found.rows, found.cols),
            ),
            None => self.fail(
                Mismatch::new()
                    .path(layer, wanted.name)
                    .text(": the network has ")
                    .shape(wanted.kind, wanted.rows, wanted.cols)
                    .text(", the file has nothing there"),
            ),
        }
        first + k
    }

    /// Checks that layer group `layer` has no parameter after its first `count`.
    pub(crate) const fn check_end(&mut self, layer: usize, first: usize, count: usize) {
        if let Some(found) = self.nth_of(layer, first, count) {
            self.fail(
                Mismatch::new()
                    .path(layer, found.name)
                    .text(": the file has ")
                    .shape(found.kind, found.rows, found.cols)
                    .text(", which the network does not have"),
            );
        }
    }

    /// Checks that layer group `layer` (from 1) has exactly the parameters `expected`, in order;
    /// returns the index of its first.
    pub(crate) const fn expect(&mut self, layer: usize, expected: &[Param]) -> usize {
        let first = self.first_of(layer);
        let mut k = 0;
        while k < expected.len() {
            self.check(layer, first, k, expected[k]);
            k += 1;
        }
        self.check_end(layer, first, expected.len());
        first
    }
}

const fn same_str(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut k = 0;
    while k < a.len() {
        if a[k] != b[k] {
            return false;
        }
        k += 1;
    }
    true
}

const fn same_name(a: Name, b: Name) -> bool {
    let parents = match (a.parent, b.parent) {
        (Some(a), Some(b)) => same_str(a, b),
        (None, None) => true,
        _ => false,
    };
    let numbers = match (a.number, b.number) {
        (Some(a), Some(b)) => a == b,
        (None, None) => true,
        _ => false,
    };
    parents && numbers && same_str(a.stem, b.stem)
}

const fn same_kind(a: Kind, b: Kind) -> bool {
    a.code() == b.code()
}
