//! Decoding maps as dicts: `dict[str, T]`, and dicts whose keys are read
//! as another type (`dict[int, T]`, `dict[StrEnum, T]`).

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use roving::{Map, Value};

use crate::error_path::PathStep;

use super::decode::TypedDecoder;
use super::failure::{decode_fail, fail_msg, with_step, DecodeResult};
use super::plan::Plan;
use super::text::{py_repr, utf8};

impl<'py, 'a, 'p> TypedDecoder<'py, 'a, 'p> {
    pub(super) fn dict(&mut self, vp: &'p Plan, m: Map<'a>) -> DecodeResult<'py> {
        let py = self.py();
        let n = m.len();
        self.enter(n)?;
        let dict = PyDict::new(py);
        let start = self.decoder.keys_start(&m, n).map_err(decode_fail)?;
        for (i, v) in m.values().enumerate().take(n) {
            let o = self.value(vp, v).map_err(|f| {
                let k = m.key_at(i).unwrap_or("").as_bytes();
                with_step(f, PathStep::Key(String::from_utf8_lossy(k).into_owned()))
            })?;
            let k = self.decoder.key(start, i);
            // SAFETY: `k` is a live str owned by the decoder's key store.
            if unsafe { ffi::PyDict_SetItem(dict.as_ptr(), k, o.as_ptr()) } < 0 {
                return Err(decode_fail(PyErr::fetch(py)));
            }
        }
        self.decoder.leave();
        Ok(dict.into_any())
    }

    /// A dict whose keys are read as `kp` (each key's errors at its place).
    pub(super) fn key_dict(
        &mut self,
        kp: &'p Plan,
        vp: &'p Plan,
        int_keys: bool,
        m: Map<'a>,
    ) -> DecodeResult<'py> {
        let n = m.len();
        self.enter(n)?;
        let dict = PyDict::new(self.py());
        for (i, v) in m.values().enumerate().take(n) {
            let k = m.key_at(i).unwrap_or("");
            let at = |f| with_step(f, PathStep::Key(k.to_owned()));
            let ko = if int_keys {
                self.int_key(kp, k)
            } else {
                self.value(kp, Value::Str(k))
            }
            .map_err(at)?;
            let o = self.value(vp, v).map_err(at)?;
            dict.set_item(ko, o).map_err(decode_fail)?;
        }
        self.decoder.leave();
        Ok(dict.into_any())
    }

    /// A dict key read as an int type (see [`int_key_type`]) from its
    /// canonical decimal text (`-?(0|[1-9][0-9]*)`, not `-0`, at most 4300
    /// digits as for `int(str)`): as an int value of the document within 64
    /// bits, else as a Python int.
    fn int_key(&mut self, kp: &'p Plan, k: &str) -> DecodeResult<'py> {
        let py = self.py();
        let k = utf8(py, k)?;
        let digits = k.len() - usize::from(k.starts_with('-'));
        if !roving::serde::is_int_key(k) || digits > roving::read::MAX_DECIMAL_DIGITS {
            return Err(fail_msg(format!(
                "invalid int key {} (expected an integer's decimal text: no sign but -, no \
                 leading zeros or spaces, at most {} digits)",
                py_repr(py, k),
                roving::read::MAX_DECIMAL_DIGITS
            )));
        }
        if let Ok(i) = k.parse::<i64>() {
            return self.value(kp, Value::Int(i));
        }
        if let Ok(u) = k.parse::<u64>() {
            return self.value(kp, Value::UInt(u));
        }
        let i = py
            .get_type::<pyo3::types::PyInt>()
            .call1((k,))
            .map_err(decode_fail)?;
        self.big_int_key(kp, &i)
    }

    /// A dict key outside 64 bits (a Python int) as an int type.
    fn big_int_key(&mut self, kp: &'p Plan, i: &Bound<'py, PyAny>) -> DecodeResult<'py> {
        let py = self.py();
        let shown = || i.repr().map(|r| r.to_string()).unwrap_or_default();
        match kp {
            Plan::Int => Ok(i.clone()),
            Plan::Enum {
                class: cls, name, ..
            } => cls
                .bind(py)
                .call1((i,))
                .map_err(|_| fail_msg(format!("invalid value {} for {name}", shown()))),
            Plan::Literal { values: vals, .. } => vals
                .iter()
                .find(|(c, _)| c.bind(py).eq(i).unwrap_or(false))
                .map(|(_, out)| out.bind(py).clone())
                .ok_or_else(|| fail_msg(format!("expected {}, got {}", kp.name(), shown()))),
            Plan::Union { members, .. } => {
                for m in members {
                    if let Ok(o) = self.big_int_key(m, i) {
                        return Ok(o);
                    }
                }
                Err(fail_msg(format!("expected {}, got {}", kp.name(), shown())))
            }
            _ => Err(fail_msg(format!("expected {}, got int", kp.name()))),
        }
    }
}
