//! The options of an encoding: `dumps(obj, default=..., non_str_keys=...)`,
//! and a `Store`'s, which it encodes every value with.

use pyo3::prelude::*;

/// How objects are encoded, besides the types written as they are.
#[derive(Default)]
pub(crate) struct EncodeOptions {
    /// `default=`: called with an object of a type that is not written; what
    /// it returns is written instead (never Python's `None`, which means
    /// no hook).
    pub(crate) default: Option<Py<PyAny>>,
    /// `non_str_keys=True`: dict keys that are ints, enum members, UUIDs,
    /// Decimals or dates are written as their text (what typed `loads`
    /// reads them back from).
    pub(crate) non_str_keys: bool,
}

impl EncodeOptions {
    /// The options of the keyword arguments `default` and `non_str_keys`
    /// (`default=None` is no hook).
    pub(crate) fn new(default: Option<&Bound<'_, PyAny>>, non_str_keys: bool) -> EncodeOptions {
        EncodeOptions {
            default: default.filter(|d| !d.is_none()).map(|d| d.clone().unbind()),
            non_str_keys,
        }
    }

    /// These options with `non_str_keys` set as given.
    pub(crate) fn with_non_str_keys(&self, py: Python<'_>, non_str_keys: bool) -> EncodeOptions {
        EncodeOptions {
            default: self.default.as_ref().map(|d| d.clone_ref(py)),
            non_str_keys,
        }
    }
}
