//! `default=`: what it returns for an object of a type not written is
//! written instead.

use pyo3::ffi;
use pyo3::prelude::*;

use super::failure::{fail_msg, EncodeResult};
use super::{type_name, State};

/// Most calls of `default` in a row, each on what the last returned
/// (orjson's limit).
const DEFAULT_CHAIN_MAX: u32 = 254;

impl<'py> State<'py, '_> {
    /// Encodes what `default` returns for `ob` (of a type this encoder
    /// cannot write). `from` is set if `ob` itself is what `default`
    /// returned: calling `default` again on an object of the same type as
    /// it was given would not end (`default=lambda o: o`), so that is an
    /// error at once, as is a chain of more than [`DEFAULT_CHAIN_MAX`]
    /// calls (types that `default` maps to each other). A result that is
    /// a container is not affected: its items are new values. Without a
    /// `default`, the result is `unsupported()` (the caller's error).
    pub(super) fn call_default(
        &mut self,
        ob: &Bound<'py, PyAny>,
        from: Option<(*mut ffi::PyTypeObject, u32)>,
        unsupported: impl FnOnce() -> EncodeResult,
    ) -> EncodeResult {
        let Some(default) = &self.options.default else {
            return unsupported();
        };
        let t = ob.get_type_ptr();
        let calls = match from {
            Some((ft, _)) if ft == t => {
                return Err(fail_msg(format!(
                    "default() returned an unencodable object of type '{}'",
                    type_name(ob.as_ptr())
                )))
            }
            Some((_, n)) if n >= DEFAULT_CHAIN_MAX => {
                return Err(fail_msg(format!(
                "default() returned unencodable objects {n} times in a row (the last of type '{}')",
                type_name(ob.as_ptr())
            )))
            }
            Some((_, n)) => n + 1,
            None => 1,
        };
        let v = default.bind(self.py).call1((ob,))?;
        // The result goes to `slow` (which takes `from_default`) unless
        // it is an exact dict, list or tuple (written by `value` itself):
        // then their items must not see it.
        let vt = v.get_type_ptr();
        if vt != tp!(PyDict_Type) && vt != tp!(PyList_Type) && vt != tp!(PyTuple_Type) {
            self.from_default = Some((t, calls));
        }
        let r = self.owned(v, 1);
        self.from_default = None;
        r
    }
}
