//! The whole type of one layer group: GML's name of the layer, every option its Rust type fixes
//! that is not a parameter (sizes, activation, `add_connection`, the orthogonal map, …), and its
//! parameters. What [`Schema::describe`](super::Schema::describe) hands out (a constant of the
//! layer's type), and what a blob records and checks ([`read_blob`](super::read_blob)). The same
//! types at sizes known only at run time ([`OwnedLayerType`], from [`described`](super::described))
//! write the blob of a network read from a file.
//!
//! ```
//! use geomattn::{Identity, LayerType, ResNetLayer, Schema, Visit};
//! struct First(Option<String>);
//! impl Visit for First {
//!     fn layer(&mut self, layer: &LayerType) {
//!         let activation = layer.setting("activation").map(|value| value.to_string());
//!         self.0.get_or_insert(format!("{} {}", layer.name, activation.unwrap_or_default()));
//!     }
//! }
//! let mut first = First(None);
//! ResNetLayer::<f64, 3, Identity>::describe(&mut first);
//! assert_eq!(first.0.as_deref(), Some("ResNetLayer identity"));
//! ```
//!
//! Displayed, a layer's type reads as GML's constructor with its options:
//!
//! ```
//! use geomattn::{LayerType, ResNetLayer, Schema, Tanh, Visit};
//! struct Types(Vec<String>);
//! impl Visit for Types {
//!     fn layer(&mut self, layer: &LayerType) {
//!         self.0.push(layer.to_string());
//!     }
//! }
//! let mut types = Types(Vec::new());
//! ResNetLayer::<f32, 3, Tanh>::describe(&mut types);
//! assert_eq!(types.0, ["ResNetLayer(dim = 3, activation = tanh, use_bias = true)"]);
//! ```

use core::fmt;

use super::Param;

/// The type of one layer group: GML's layer, its options, its parameters; `'a` is where the
/// options and parameters are held (`'static` in a layer's constant, an [`OwnedLayerType`] at
/// run-time sizes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayerType<'a> {
    /// GML's name of the layer (`ResNetLayer`, `VolumePreservingLowerLayer`, `GradientLayerQ`).
    pub name: &'static str,
    /// Every option the Rust type fixes that is not a parameter, in a fixed order (GML's keyword
    /// where GML has one: `dim`, `seq_length`, `activation`, `add_connection`, …).
    pub settings: &'a [Setting],
    /// The parameters, in GML's order.
    pub params: &'a [Param],
}

/// A [`LayerType`] whose options and parameters are built at run time: the type of a layer
/// whose sizes are read from a file ([`described`](super::described)).
#[cfg(feature = "std")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedLayerType {
    /// GML's name of the layer.
    pub name: &'static str,
    /// The options, as [`LayerType::settings`].
    pub settings: std::vec::Vec<Setting>,
    /// The parameters, in GML's order.
    pub params: std::vec::Vec<Param>,
}

#[cfg(feature = "std")]
impl OwnedLayerType {
    /// The layer `name` with options `settings` and parameters `params`.
    pub fn new(name: &'static str, settings: &[Setting], params: &[Param]) -> Self {
        Self {
            name,
            settings: settings.to_vec(),
            params: params.to_vec(),
        }
    }

    /// Borrowed, as a layer's constant type is.
    pub fn as_type(&self) -> LayerType<'_> {
        LayerType {
            name: self.name,
            settings: &self.settings,
            params: &self.params,
        }
    }
}

/// GML's layer with the options of its type, as a GML user writes a constructor:
/// `ResNetLayer(dim = 3, activation = tanh)`. A GML file written by geomattn records it on each
/// layer group ([`gml`](crate::gml), feature `hdf5`).
impl fmt::Display for LayerType<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.name)?;
        for (k, setting) in self.settings.iter().enumerate() {
            let separator = if k == 0 { "" } else { ", " };
            write!(f, "{separator}{} = {}", setting.key, setting.value)?;
        }
        f.write_str(")")
    }
}

impl LayerType<'_> {
    /// The value of the option `key`, if the layer has it.
    pub fn setting(&self, key: &str) -> Option<SettingValue<'static>> {
        self.settings
            .iter()
            .find(|setting| setting.key == key)
            .map(|setting| setting.value)
    }
}

/// One option of a layer's type: a key and its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setting {
    /// The option's name (`activation`).
    pub key: &'static str,
    /// Its value (`tanh`).
    pub value: SettingValue<'static>,
}

impl Setting {
    /// A size or count: `dim = 3`.
    pub const fn number(key: &'static str, value: usize) -> Self {
        Self {
            key,
            value: SettingValue::Number(value as u64),
        }
    }

    /// A yes/no option: `add_connection = true`.
    pub const fn flag(key: &'static str, value: bool) -> Self {
        Self {
            key,
            value: SettingValue::Flag(value),
        }
    }

    /// A choice named by text: `activation = tanh`.
    pub const fn name(key: &'static str, value: &'static str) -> Self {
        Self {
            key,
            value: SettingValue::Name(value),
        }
    }
}

/// The value of a [`Setting`]; `'a` is where a name is held (`'static` in a type, the blob's
/// bytes when read from one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingValue<'a> {
    /// A size or count.
    Number(u64),
    /// Yes or no.
    Flag(bool),
    /// A choice, by name.
    Name(&'a str),
}

impl fmt::Display for SettingValue<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Number(number) => write!(f, "{number}"),
            Self::Flag(flag) => write!(f, "{flag}"),
            Self::Name(name) => f.write_str(name),
        }
    }
}
