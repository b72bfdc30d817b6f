//! Compiling a dataclass or a `TypedDict` (generic or not) into a
//! [`DataclassPlan`]: its fields, their types with type variables bound,
//! and how instances are built.

use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, OnceLock};

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple, PyType};

use super::compile::{
    compile_field, is_typeddict, leaves, same_leaves, type_hints, type_repr, typing,
};
use super::decode_dataclass::FIELD_VALUES_INLINE;
use super::plan::{DataclassPlan, Field, FieldDefault};

/// A cached dataclass plan; for a parameterized generic (`Box[A | B]`),
/// the [`leaves`] of its key too (an equal key in another order is
/// another plan).
#[pyclass(frozen)]
pub(super) struct DataclassPlanBox {
    plan: Arc<DataclassPlan>,
    ordered: Option<Vec<Py<PyAny>>>,
}

/// A parameterized type's text: `Box[int]`, `Pair[str, list[int]]`.
fn generic_name(cls: &Bound<'_, PyType>, args: &Bound<'_, PyTuple>) -> String {
    let shown: Vec<String> = args.iter().map(|a| type_repr(&a)).collect();
    format!("{}[{}]", type_repr(cls.as_any()), shown.join(", "))
}

/// Whether `key` is the dataclass (or parameterized generic) `k`: the
/// same class, or an equal generic with the same [`leaves`].
fn same_key(key: &Bound<'_, PyAny>, k: &Bound<'_, PyAny>, generic: bool) -> PyResult<bool> {
    if key.is(k) {
        return Ok(true);
    }
    if !generic || !key.eq(k)? {
        return Ok(false);
    }
    let mut l = Vec::new();
    leaves(k, &mut l)?;
    let l: Vec<Py<PyAny>> = l.into_iter().map(Bound::unbind).collect();
    same_leaves(key, &l)
}

thread_local! {
    /// Dataclass plans being compiled by this thread (for recursive types),
    /// by class or parameterized generic; published to the shared cache
    /// only once complete.
    static IN_PROGRESS: std::cell::RefCell<Vec<(Py<PyAny>, Arc<DataclassPlan>)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// The plan of dataclass `cls`, parameterized by `args` when `key` is a
/// generic alias (`Box[int]`; `key` is `cls` otherwise).
pub(super) fn dataclass_plan(
    key: &Bound<'_, PyAny>,
    cls: &Bound<'_, PyType>,
    args: Option<&Bound<'_, PyTuple>>,
) -> PyResult<Arc<DataclassPlan>> {
    let py = cls.py();
    let ty = typing(py)?;
    let cache = ty.dataclass_plans.bind(py);
    let generic = args.is_some();
    let hashable = key.hash().is_ok();
    if hashable {
        if let Some(b) = cache.get_item(key)? {
            if let Ok(b) = b.cast::<DataclassPlanBox>() {
                let b = b.get();
                let hit = match &b.ordered {
                    Some(l) => same_leaves(key, l)?,
                    None => true,
                };
                if hit {
                    return Ok(b.plan.clone());
                }
            }
        }
    }
    let mut pending = None;
    IN_PROGRESS.with(|p| -> PyResult<()> {
        for (k, d) in p.borrow().iter() {
            if same_key(key, k.bind(py), generic)? {
                pending = Some(d.clone());
                break;
            }
        }
        Ok(())
    })?;
    if let Some(d) = pending {
        return Ok(d);
    }
    let plan = Arc::new(DataclassPlan {
        cls: cls.clone().unbind(),
        name: match args {
            Some(a) => generic_name(cls, a),
            None => type_repr(cls.as_any()),
        },
        generic,
        as_dict: is_typeddict(cls)?,
        fields: OnceLock::new(),
        by_name: OnceLock::new(),
        call_init: OnceLock::new(),
        post_init: OnceLock::new(),
        fast_init: OnceLock::new(),
        key_lists: std::array::from_fn(|_| OnceLock::new()),
        n_key_lists: AtomicUsize::new(0),
        last_keys: AtomicUsize::new(0),
    });
    IN_PROGRESS.with(|p| p.borrow_mut().push((key.clone().unbind(), plan.clone())));
    let r = if plan.as_dict {
        fill_typeddict(cls, &plan)
    } else {
        fill_dataclass(cls, &plan, args)
    };
    IN_PROGRESS.with(|p| {
        let mut p = p.borrow_mut();
        if let Some(i) = p.iter().rposition(|(_, d)| Arc::ptr_eq(d, &plan)) {
            p.remove(i);
        }
    });
    r?;
    if hashable && cache.len() < 10_000 {
        let l = if generic {
            let mut l = Vec::new();
            leaves(key, &mut l)?;
            Some(l.into_iter().map(Bound::unbind).collect())
        } else {
            None
        };
        cache.set_item(
            key,
            Bound::new(
                py,
                DataclassPlanBox {
                    plan: plan.clone(),
                    ordered: l,
                },
            )?,
        )?;
    }
    Ok(plan)
}

/// The fields of a `TypedDict`: every key, required or not. Which are
/// required comes from the `Required`/`NotRequired` qualifiers when the
/// annotations show them (Python 3.11 misses them in string annotations,
/// `from __future__ import annotations`), else `__required_keys__`.
fn fill_typeddict(cls: &Bound<'_, PyType>, plan: &DataclassPlan) -> PyResult<()> {
    let py = cls.py();
    let ty = typing(py)?;
    let t = py.import("typing")?;
    let (req, not_req) = (t.getattr("Required")?, t.getattr("NotRequired")?);
    let kw = PyDict::new(py);
    kw.set_item("include_extras", true)?;
    let hints = type_hints(cls, Some(&kw))?;
    let required_keys = cls.getattr(pyo3::intern!(py, "__required_keys__"))?;
    let mut out = Vec::new();
    for (name, mut hint) in hints.iter() {
        let name = name.cast_into::<PyString>()?;
        let mut required = required_keys.contains(&name)?;
        // Qualifiers, possibly inside Annotated (compile strips Annotated).
        loop {
            let origin = ty.get_origin.bind(py).call1((&hint,))?;
            if origin.is(&req) || origin.is(&not_req) {
                required = origin.is(&req);
                hint = ty.get_args.bind(py).call1((&hint,))?.get_item(0)?;
            } else if origin.is(ty.annotated.bind(py)) {
                hint = ty.get_args.bind(py).call1((&hint,))?.get_item(0)?;
            } else {
                break;
            }
        }
        let fplan = compile_field(&plan.name, &name, &hint)?;
        out.push(Field {
            name_str: name.to_str()?.to_owned(),
            name: name.unbind(),
            plan: fplan,
            default: if required {
                FieldDefault::Required
            } else {
                FieldDefault::Omit
            },
            init: true,
        });
    }
    plan.complete(out, None, false, false);
    Ok(())
}

/// The type variables of each generic class in `cls`'s MRO, by class,
/// bound to what `cls[args]` and the bases' parameters (`class
/// IntBox(Box[int])`) make them; unbound ones are left out.
fn typevar_maps<'py>(
    cls: &Bound<'py, PyType>,
    args: Option<&Bound<'py, PyTuple>>,
) -> PyResult<Bound<'py, PyDict>> {
    let py = cls.py();
    let ty = typing(py)?;
    let maps = PyDict::new(py);
    let own = PyDict::new(py);
    if let Some(args) = args {
        if let Some(params) = cls.getattr_opt(pyo3::intern!(py, "__parameters__"))? {
            for (p, a) in params.try_iter()?.zip(args.iter()) {
                own.set_item(p?, a)?;
            }
        }
    }
    maps.set_item(cls, own)?;
    let mro = cls.getattr(pyo3::intern!(py, "__mro__"))?;
    for c in mro.try_iter()? {
        let c = c?;
        let cmap = match maps.get_item(&c)? {
            Some(m) => m.cast_into::<PyDict>()?,
            None => PyDict::new(py),
        };
        let Some(bases) = c
            .getattr(pyo3::intern!(py, "__dict__"))?
            .get_item(pyo3::intern!(py, "__orig_bases__"))
            .ok()
        else {
            continue;
        };
        for b in bases.try_iter()? {
            let b = b?;
            let origin = ty.get_origin.bind(py).call1((&b,))?;
            let Ok(origin) = origin.cast_into::<PyType>() else {
                continue;
            };
            let Some(params) = origin.getattr_opt(pyo3::intern!(py, "__parameters__"))? else {
                continue;
            };
            let bargs = ty.get_args.bind(py).call1((&b,))?;
            let bmap = match maps.get_item(&origin)? {
                Some(m) => m.cast_into::<PyDict>()?,
                None => {
                    let m = PyDict::new(py);
                    maps.set_item(&origin, &m)?;
                    m
                }
            };
            for (p, a) in params.try_iter()?.zip(bargs.try_iter()?) {
                let (p, a) = (p?, a?);
                if !bmap.contains(&p)? {
                    bmap.set_item(p, substitute(&a, &cmap)?)?;
                }
            }
        }
    }
    Ok(maps)
}

/// `tp` with the type variables bound in `map` replaced (`list[T]` with
/// T -> int: `list[int]`).
fn substitute<'py>(
    tp: &Bound<'py, PyAny>,
    map: &Bound<'py, PyDict>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = tp.py();
    if map.is_empty() {
        return Ok(tp.clone());
    }
    if let Some(v) = map.get_item(tp).ok().flatten() {
        return Ok(v);
    }
    if tp.is_instance_of::<PyType>() {
        return Ok(tp.clone());
    }
    let Some(params) = tp.getattr_opt(pyo3::intern!(py, "__parameters__"))? else {
        return Ok(tp.clone());
    };
    let Ok(params) = params.cast_into::<PyTuple>() else {
        return Ok(tp.clone());
    };
    if params.is_empty() {
        return Ok(tp.clone());
    }
    let mut vals = Vec::with_capacity(params.len());
    for p in params.iter() {
        vals.push(map.get_item(&p)?.unwrap_or(p));
    }
    tp.get_item(PyTuple::new(py, vals)?)
}

fn fill_dataclass(
    cls: &Bound<'_, PyType>,
    plan: &DataclassPlan,
    args: Option<&Bound<'_, PyTuple>>,
) -> PyResult<()> {
    let py = cls.py();
    let ty = typing(py)?;
    let generic = cls
        .getattr_opt(pyo3::intern!(py, "__parameters__"))?
        .is_some_and(|p| p.len().is_ok_and(|n| n > 0))
        || cls
            .getattr_opt(pyo3::intern!(py, "__orig_bases__"))?
            .is_some();
    let maps = if generic {
        Some(typevar_maps(cls, args)?)
    } else {
        None
    };
    let mro = cls.getattr(pyo3::intern!(py, "__mro__"))?;
    let hints = type_hints(cls, None)?;
    let fields = cls
        .getattr(pyo3::intern!(py, "__dataclass_fields__"))?
        .cast_into::<PyDict>()?;
    let mut out = Vec::new();
    let mut has_initvar = false;
    let mut all_positional = true;
    for (name, f) in fields.iter() {
        let ft = f.getattr(pyo3::intern!(py, "_field_type"))?;
        let is_initvar = ft.is(ty.initvar_marker.bind(py));
        if !ft.is(ty.field_marker.bind(py)) && !is_initvar {
            continue;
        }
        has_initvar |= is_initvar;
        let name = name.cast_into::<PyString>()?;
        let mut hint = match hints.get_item(&name)? {
            Some(h) => h,
            None => f.getattr(pyo3::intern!(py, "type"))?,
        };
        if hint.is_instance(ty.initvar.bind(py))? {
            hint = hint.getattr(pyo3::intern!(py, "type"))?;
        }
        if let Some(maps) = &maps {
            // The type variables of the class that declares the field.
            for c in mro.try_iter()? {
                let c = c?;
                let declares = c
                    .getattr(pyo3::intern!(py, "__dict__"))?
                    .get_item(pyo3::intern!(py, "__annotations__"))
                    .ok()
                    .is_some_and(|a| a.contains(&name).unwrap_or(false));
                if declares {
                    if let Some(m) = maps.get_item(&c)? {
                        hint = substitute(&hint, m.cast::<PyDict>()?)?;
                    }
                    break;
                }
            }
        }
        let fplan = compile_field(&plan.name, &name, &hint)?;
        let d = f.getattr(pyo3::intern!(py, "default"))?;
        let df = f.getattr(pyo3::intern!(py, "default_factory"))?;
        let default = if !d.is(ty.missing.bind(py)) {
            FieldDefault::Value(d.unbind())
        } else if !df.is(ty.missing.bind(py)) {
            FieldDefault::Factory(df.unbind())
        } else {
            FieldDefault::Required
        };
        let init: bool = f.getattr(pyo3::intern!(py, "init"))?.extract()?;
        let kw_only = f
            .getattr(pyo3::intern!(py, "kw_only"))
            .is_ok_and(|k| k.is_truthy().unwrap_or(true));
        all_positional &= init && !kw_only;
        let mut p = name.clone().into_ptr();
        // SAFETY: `p` is an owned str; interning may replace it with another owned reference.
        let name = unsafe {
            ffi::PyUnicode_InternInPlace(&mut p);
            Bound::from_owned_ptr(py, p).cast_into_unchecked::<PyString>()
        };
        out.push(Field {
            name_str: name.to_str()?.to_owned(),
            name: name.unbind(),
            plan: fplan,
            default,
            init,
        });
    }
    let post_init = cls.hasattr(pyo3::intern!(py, "__post_init__"))?;
    let fast_init = if all_positional && !has_initvar && out.len() <= FIELD_VALUES_INLINE {
        generated_init(cls)?
    } else {
        None
    };
    plan.complete(out, fast_init, has_initvar, post_init);
    Ok(())
}

/// The `__init__` that `@dataclass` generated for `cls` itself, if calling
/// it as `__init__(obj, *fields)` does exactly what decoding does by hand:
/// store each field on `obj` in order (then call `__post_init__`). That
/// holds when the class is not frozen (a frozen class's `__init__` goes
/// through `object.__setattr__`), does not define `__setattr__` (decoding
/// bypasses it) and its `__init__` is the generated one (defined in the
/// class, compiled by `dataclasses` from a string, named after the class).
pub(super) fn generated_init(cls: &Bound<'_, PyType>) -> PyResult<Option<Py<PyAny>>> {
    let py = cls.py();
    let tp = cls.as_ptr() as *mut ffi::PyTypeObject;
    // SAFETY: `cls` is a live type object; reading a slot is plain field access.
    let setattro = unsafe { (*tp).tp_setattro };
    let generic: ffi::setattrofunc = ffi::PyObject_GenericSetAttr;
    if !setattro.is_some_and(|f| std::ptr::fn_addr_eq(f, generic)) {
        return Ok(None);
    }
    let params = cls.getattr(pyo3::intern!(py, "__dataclass_params__"))?;
    if params.getattr(pyo3::intern!(py, "frozen"))?.is_truthy()?
        || !params.getattr(pyo3::intern!(py, "init"))?.is_truthy()?
    {
        return Ok(None);
    }
    let own = cls.getattr(pyo3::intern!(py, "__dict__"))?;
    let Ok(init) = own.get_item(pyo3::intern!(py, "__init__")) else {
        return Ok(None);
    };
    if !init.is_instance_of::<pyo3::types::PyFunction>() {
        return Ok(None);
    }
    let code = init.getattr(pyo3::intern!(py, "__code__"))?;
    let file: String = code.getattr(pyo3::intern!(py, "co_filename"))?.extract()?;
    let qualname: String = init.getattr(pyo3::intern!(py, "__qualname__"))?.extract()?;
    let cls_qualname: String = cls.getattr(pyo3::intern!(py, "__qualname__"))?.extract()?;
    if file != "<string>" || qualname != format!("{cls_qualname}.__init__") {
        return Ok(None);
    }
    Ok(Some(init.unbind()))
}
