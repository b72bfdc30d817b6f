//! `roving.Encoder` and `roving.Decoder`: `dumps` and `loads` with their
//! options bound once, as msgspec's `Encoder` and `Decoder` are, for code
//! that writes or reads many documents alike (messages, records): each
//! call parses no keyword arguments, and a `Decoder` compiles its type
//! when it is made rather than looking it up per call.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::dictionary::Dictionary;
use crate::encode::EncodeOptions;
use crate::typed::{self, Plan};

/// Encoder(*, default=None, non_str_keys=False, dictionary=None)
///
/// `dumps` with its keyword arguments bound once: `enc.encode(obj)` writes
/// the bytes of `dumps(obj, default=..., non_str_keys=..., dictionary=...)`,
/// and a dictionary that is not frozen learns from it as there.
#[pyclass(module = "roving", name = "Encoder", frozen)]
pub(crate) struct Encoder {
    options: EncodeOptions,
    dictionary: Option<Py<Dictionary>>,
}

#[pymethods]
impl Encoder {
    #[new]
    #[pyo3(signature = (*, default=None, non_str_keys=false, dictionary=None))]
    fn py_new(
        default: Option<&Bound<'_, PyAny>>,
        non_str_keys: bool,
        dictionary: Option<Bound<'_, Dictionary>>,
    ) -> Encoder {
        Encoder {
            options: EncodeOptions::new(default, non_str_keys),
            dictionary: dictionary.map(Bound::unbind),
        }
    }

    /// encode(obj, /) -> bytes
    ///
    /// `obj` as a roving document, as `dumps` writes it with this
    /// encoder's options.
    #[pyo3(signature = (obj, /))]
    fn encode<'py>(&self, obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
        let d = self.dictionary.as_ref().map(|d| d.bind(obj.py()));
        crate::dumps_with(obj, &self.options, d)
    }

    /// The `default` hook (or None).
    #[getter]
    fn default(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.options.default.as_ref().map(|d| d.clone_ref(py))
    }

    /// Whether non-str dict keys are written as their text.
    #[getter]
    fn non_str_keys(&self) -> bool {
        self.options.non_str_keys
    }

    /// The dictionary documents are written against (or None).
    #[getter]
    fn dictionary(&self, py: Python<'_>) -> Option<Py<Dictionary>> {
        self.dictionary.as_ref().map(|d| d.clone_ref(py))
    }

    fn __repr__(&self) -> String {
        format!(
            "roving.Encoder(default={}, non_str_keys={}, dictionary={})",
            if self.options.default.is_some() {
                "<hook>"
            } else {
                "None"
            },
            if self.options.non_str_keys {
                "True"
            } else {
                "False"
            },
            if self.dictionary.is_some() {
                "<Dictionary>"
            } else {
                "None"
            },
        )
    }
}

/// Decoder(type=None, *, dictionary=None)
///
/// `loads` with its keyword arguments bound once: `dec.decode(data)` reads
/// what `loads(data, type=..., dictionary=...)` reads. The type is checked
/// and compiled here, so an unsupported one raises now.
#[pyclass(module = "roving", name = "Decoder", frozen)]
pub(crate) struct Decoder {
    /// The type as given (None for plain Python objects).
    ty: Option<Py<PyAny>>,
    /// Its compiled plan.
    plan: Option<Arc<Plan>>,
    dictionary: Option<Py<Dictionary>>,
}

#[pymethods]
impl Decoder {
    #[new]
    #[pyo3(signature = (r#type=None, *, dictionary=None))]
    fn py_new(
        r#type: Option<&Bound<'_, PyAny>>,
        dictionary: Option<Bound<'_, Dictionary>>,
    ) -> PyResult<Decoder> {
        let ty = r#type.filter(|t| !t.is_none());
        let plan = ty.map(typed::plan_for).transpose()?;
        Ok(Decoder {
            ty: ty.map(|t| t.clone().unbind()),
            plan,
            dictionary: dictionary.map(Bound::unbind),
        })
    }

    /// decode(data, /) -> Any
    ///
    /// The document in `data` (any bytes-like object), validated and read
    /// as `loads` reads it with this decoder's type and dictionary.
    #[pyo3(signature = (data, /))]
    fn decode<'py>(&self, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let d = self
            .dictionary
            .as_ref()
            .map(|d| d.bind(data.py()).try_borrow());
        let d = d.transpose()?;
        crate::loads_with(data, self.plan.as_ref(), d.as_deref())
    }

    /// The type documents are read as (or None).
    #[getter]
    fn r#type(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.ty.as_ref().map(|t| t.clone_ref(py))
    }

    /// The dictionary documents are read with (or None).
    #[getter]
    fn dictionary(&self, py: Python<'_>) -> Option<Py<Dictionary>> {
        self.dictionary.as_ref().map(|d| d.clone_ref(py))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let ty = match &self.ty {
            Some(t) => t.bind(py).repr()?.to_string(),
            None => "None".to_owned(),
        };
        Ok(format!(
            "roving.Decoder({ty}, dictionary={})",
            if self.dictionary.is_some() {
                "<Dictionary>"
            } else {
                "None"
            },
        ))
    }
}
