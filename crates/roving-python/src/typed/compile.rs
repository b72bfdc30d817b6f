//! Compiling a Python type into a [`Plan`] (cached per type).

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyFrozenSet, PySet, PyString, PyTuple, PyType};

use crate::pytypes;

use super::compile_dataclass::dataclass_plan;
use super::plan::{NamedTuplePlan, Plan};

/// The objects of `typing`, `dataclasses` and `datetime` that compiling
/// compares types with (looked up once), and the caches of plans.
pub(super) struct Typing {
    pub(super) get_origin: Py<PyAny>,
    pub(super) get_args: Py<PyAny>,
    pub(super) get_type_hints: Py<PyAny>,
    pub(super) any: Py<PyAny>,
    pub(super) union: Py<PyAny>,
    pub(super) union_type: Py<PyAny>,
    pub(super) literal: Py<PyAny>,
    pub(super) annotated: Py<PyAny>,
    /// `typing.Tuple` unparameterized (its args are `()`, as `tuple[()]`'s).
    pub(super) bare_tuple: Py<PyAny>,
    pub(super) initvar: Py<PyAny>,
    pub(super) missing: Py<PyAny>,
    pub(super) field_marker: Py<PyAny>,
    pub(super) initvar_marker: Py<PyAny>,
    pub(super) typevar: Py<PyAny>,
    pub(super) abc: Vec<(Py<PyAny>, u8)>,
    pub(super) datetime: Py<PyAny>,
    pub(super) date: Py<PyAny>,
    pub(super) time: Py<PyAny>,
    pub(super) timedelta: Py<PyAny>,
    /// type -> compiled plan
    pub(super) plans: Py<PyDict>,
    /// dataclass type (or parameterized generic dataclass) -> DataclassPlanBox
    pub(super) dataclass_plans: Py<PyDict>,
}

static TYPING: PyOnceLock<Typing> = PyOnceLock::new();

/// The [`Typing`] objects (looked up on the first call).
pub(super) fn typing(py: Python<'_>) -> PyResult<&Typing> {
    TYPING.get_or_try_init(py, || {
        let t = py.import("typing")?;
        let dc = py.import("dataclasses")?;
        let abc = py.import("collections.abc")?;
        let types = py.import("types")?;
        let dt = py.import("datetime")?;
        let mut kinds = Vec::new();
        for (n, k) in [
            ("Sequence", b'l'),
            ("MutableSequence", b'l'),
            ("Collection", b'l'),
            ("Iterable", b'l'),
            ("Mapping", b'd'),
            ("MutableMapping", b'd'),
            ("Set", b's'),
            ("MutableSet", b's'),
        ] {
            kinds.push((abc.getattr(n)?.unbind(), k));
        }
        Ok(Typing {
            get_origin: t.getattr("get_origin")?.unbind(),
            get_args: t.getattr("get_args")?.unbind(),
            get_type_hints: t.getattr("get_type_hints")?.unbind(),
            any: t.getattr("Any")?.unbind(),
            union: t.getattr("Union")?.unbind(),
            union_type: types.getattr("UnionType")?.unbind(),
            literal: t.getattr("Literal")?.unbind(),
            annotated: t.getattr("Annotated")?.unbind(),
            bare_tuple: t.getattr("Tuple")?.unbind(),
            initvar: dc.getattr("InitVar")?.unbind(),
            missing: dc.getattr("MISSING")?.unbind(),
            field_marker: dc.getattr("_FIELD")?.unbind(),
            initvar_marker: dc.getattr("_FIELD_INITVAR")?.unbind(),
            typevar: t.getattr("TypeVar")?.unbind(),
            abc: kinds,
            datetime: dt.getattr("datetime")?.unbind(),
            date: dt.getattr("date")?.unbind(),
            time: dt.getattr("time")?.unbind(),
            timedelta: dt.getattr("timedelta")?.unbind(),
            plans: PyDict::new(py).unbind(),
            dataclass_plans: PyDict::new(py).unbind(),
        })
    })
}

/// A cached plan, with the type it was compiled from and, for a type
/// whose plan depends on the order of its union members (`A | B` and `B |
/// A` are equal keys of the cache, but try their members in another
/// order), that type's [`leaves`], compared on a hit by an equal type.
#[pyclass(frozen)]
struct PlanBox {
    plan: Arc<Plan>,
    tp: Py<PyAny>,
    ordered: Option<Vec<Py<PyAny>>>,
}

/// The leaves of a type expression in order (`list[int | str]`: `int`,
/// `str`), `None` left out (a union's plan takes it out of the order):
/// two equal types whose leaves are the same in the same order have the
/// same plan.
pub(super) fn leaves<'py>(
    tp: &Bound<'py, PyAny>,
    out: &mut Vec<Bound<'py, PyAny>>,
) -> PyResult<()> {
    let py = tp.py();
    let _level = too_deep()?;
    if tp.is_none() || tp.is(py.None().bind(py).get_type()) {
        return Ok(());
    }
    if !tp.is_instance_of::<PyType>() {
        if let Some(args) = tp.getattr_opt(pyo3::intern!(py, "__args__"))? {
            if let Ok(args) = args.cast::<PyTuple>() {
                for a in args.iter() {
                    leaves(&a, out)?;
                }
                return Ok(());
            }
        }
    }
    out.push(tp.clone());
    Ok(())
}

/// Whether `tp` has these [`leaves`] (identical, or equal for values such
/// as a `Literal`'s).
pub(super) fn same_leaves(tp: &Bound<'_, PyAny>, stored: &[Py<PyAny>]) -> PyResult<bool> {
    let mut mine = Vec::with_capacity(stored.len());
    leaves(tp, &mut mine)?;
    Ok(mine.len() == stored.len()
        && mine.iter().zip(stored).all(|(a, b)| {
            let b = b.bind(tp.py());
            a.is(b) || (!a.is_instance_of::<PyType>() && a.eq(b).unwrap_or(false))
        }))
}

/// Whether the plan holds a union of several members or a parameterized
/// generic dataclass (not looking into other dataclasses, whose field
/// types are their own).
fn order_sensitive(p: &Plan) -> bool {
    match p {
        Plan::List { item: p }
        | Plan::Set { item: p, .. }
        | Plan::HomogeneousTuple { item: p }
        | Plan::Dict { value: p } => order_sensitive(p),
        Plan::TypedKeyDict {
            key: k, value: v, ..
        } => order_sensitive(k) || order_sensitive(v),
        Plan::Tuple { items } => items.iter().any(order_sensitive),
        Plan::Union { members, .. } => members.len() > 1 || members.iter().any(order_sensitive),
        Plan::Dataclass(d) => d.generic,
        _ => false,
    }
}

pub(super) fn type_repr(t: &Bound<'_, PyAny>) -> String {
    if let Ok(ty) = t.cast::<PyType>() {
        if let Ok(n) = ty.qualname() {
            return n.to_string();
        }
    }
    t.repr()
        .map(|r| r.to_string().replace("typing.", ""))
        .unwrap_or_else(|_| "?".into())
}

thread_local! {
    /// Levels of [`compile`] and [`leaves`] under way on this thread.
    static TYPE_DEPTH: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Levels of type nesting that are always compiled, whatever the stack
/// (as before the check: a thread with a small stack still compiles a
/// shallow type); past them every level checks the stack.
const FREE_TYPE_LEVELS: u32 = 32;

/// One level of [`compile`] or [`leaves`] (left when dropped).
struct TypeLevel;

impl Drop for TypeLevel {
    fn drop(&mut self) {
        TYPE_DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
    }
}

/// Enters one level of type nesting: the `TypeError` of a type nested so
/// deeply that compiling it would exhaust this thread's stack.
fn too_deep() -> PyResult<TypeLevel> {
    let depth = TYPE_DEPTH.with(|d| {
        d.set(d.get() + 1);
        d.get()
    });
    let level = TypeLevel;
    if depth > FREE_TYPE_LEVELS && crate::stack::sp() < crate::stack::limit() {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "type nested too deeply for typed decoding (this thread's stack is exhausted)",
        ));
    }
    Ok(level)
}

/// The compiled plan of a type (cached).
pub(crate) fn plan_for(tp: &Bound<'_, PyAny>) -> PyResult<Arc<Plan>> {
    // The type of the last call of this thread, the common case (a loop
    // decoding records of one type): found by identity, without hashing
    // it. The strong reference keeps its address its own.
    thread_local! {
        static LAST: std::cell::RefCell<Option<(Py<PyAny>, Arc<Plan>)>> =
            const { std::cell::RefCell::new(None) };
    }
    let last = LAST.with(|l| match &*l.borrow() {
        Some((t, plan)) if t.as_ptr() == tp.as_ptr() => Some(plan.clone()),
        _ => None,
    });
    if let Some(plan) = last {
        return Ok(plan);
    }
    let plan = plan_lookup(tp)?;
    // Replacing the entry drops a reference to a type; its destructor
    // (Python code) runs after the borrow ends.
    let old = LAST.with(|l| l.replace(Some((tp.clone().unbind(), plan.clone()))));
    drop(old);
    Ok(plan)
}

/// [`plan_for`] without its one-entry cache: the plan of `tp` from the
/// cache of plans by type, compiled (and cached) if new.
fn plan_lookup(tp: &Bound<'_, PyAny>) -> PyResult<Arc<Plan>> {
    let py = tp.py();
    let ty = typing(py)?;
    let cache = ty.plans.bind(py);
    let hashable = tp.hash().is_ok();
    if hashable {
        if let Some(p) = cache.get_item(tp)? {
            if let Ok(b) = p.cast::<PlanBox>() {
                let b = b.get();
                let same = b.tp.bind(py).is(tp)
                    || match &b.ordered {
                        None => true,
                        Some(l) => same_leaves(tp, l)?,
                    };
                if same {
                    return Ok(b.plan.clone());
                }
                // An equal type with its members in another order: its own
                // plan, not cached (the first order seen keeps the entry).
                return Ok(Arc::new(compile(tp)?));
            }
        }
    }
    let plan = Arc::new(compile(tp)?);
    if hashable && cache.len() < 10_000 {
        let ordered = if order_sensitive(&plan) {
            let mut l = Vec::new();
            leaves(tp, &mut l)?;
            Some(l.into_iter().map(Bound::unbind).collect())
        } else {
            None
        };
        let b = PlanBox {
            plan: plan.clone(),
            tp: tp.clone().unbind(),
            ordered,
        };
        cache.set_item(tp, Bound::new(py, b)?)?;
    }
    Ok(plan)
}

/// [`compile`] of the type `hint` of field `name` of the class named
/// `class`, whose errors name the field.
pub(super) fn compile_field(
    class: &str,
    name: &Bound<'_, PyAny>,
    hint: &Bound<'_, PyAny>,
) -> PyResult<Plan> {
    compile(hint).map_err(|e| {
        pyo3::exceptions::PyTypeError::new_err(format!(
            "field {class}.{name}: {}",
            e.value(name.py())
        ))
    })
}

pub(super) fn compile(tp: &Bound<'_, PyAny>) -> PyResult<Plan> {
    let py = tp.py();
    // A type nested thousands deep (`list[list[...]]` built in a loop)
    // overflowed the stack: SIGSEGV.
    let _level = too_deep()?;
    let ty = typing(py)?;
    if tp.is(ty.any.bind(py)) || tp.is(py.get_type::<pyo3::types::PyAny>()) {
        return Ok(Plan::Any);
    }
    if tp.is_none() || tp.is(py.None().bind(py).get_type()) {
        return Ok(Plan::NoneType);
    }
    if let Ok(t) = tp.cast::<PyType>() {
        let simple = [
            (py.get_type::<pyo3::types::PyBool>(), 0),
            (py.get_type::<pyo3::types::PyInt>(), 1),
            (py.get_type::<pyo3::types::PyFloat>(), 2),
            (py.get_type::<PyString>(), 3),
            (py.get_type::<pyo3::types::PyBytes>(), 4),
            (py.get_type::<pyo3::types::PyByteArray>(), 5),
        ];
        for (st, k) in simple {
            if t.is(&st) {
                return Ok(match k {
                    0 => Plan::Bool,
                    1 => Plan::Int,
                    2 => Plan::Float,
                    3 => Plan::Str,
                    4 => Plan::Bytes,
                    _ => Plan::ByteArray,
                });
            }
        }
        if t.is(ty.datetime.bind(py)) {
            return Ok(Plan::DateTime);
        }
        if t.is(ty.date.bind(py)) {
            return Ok(Plan::Date);
        }
        if t.is(ty.time.bind(py)) {
            return Ok(Plan::Time);
        }
        if t.is(ty.timedelta.bind(py)) {
            return Ok(Plan::TimeDelta);
        }
        let std = pytypes::types(py)?;
        if t.is(std.uuid.bind(py)) {
            return Ok(Plan::Uuid);
        }
        if t.is(std.decimal.bind(py)) {
            return Ok(Plan::Decimal);
        }
        if t.is(py.get_type::<pyo3::types::PyList>()) {
            return Ok(Plan::List {
                item: Box::new(Plan::Any),
            });
        }
        if t.is(py.get_type::<PyTuple>()) {
            return Ok(Plan::HomogeneousTuple {
                item: Box::new(Plan::Any),
            });
        }
        if t.is(py.get_type::<PyDict>()) {
            return Ok(Plan::Dict {
                value: Box::new(Plan::Any),
            });
        }
        if t.is(py.get_type::<PySet>()) {
            return Ok(Plan::Set {
                item: Box::new(Plan::Any),
                frozen: false,
            });
        }
        if t.is(py.get_type::<PyFrozenSet>()) {
            return Ok(Plan::Set {
                item: Box::new(Plan::Any),
                frozen: true,
            });
        }
        if t.is(std.array.bind(py)) {
            return Ok(Plan::Vector);
        }
        if let Some(np) = pytypes::numpy_loaded(py) {
            if t.is(np.ndarray.bind(py)) {
                return Ok(Plan::NdArray);
            }
        }
        if t.is_subclass(std.enum_.bind(py))? {
            let mut bools = false;
            for m in t.try_iter()? {
                bools |= m?
                    .getattr(pyo3::intern!(py, "value"))?
                    .is_instance_of::<pyo3::types::PyBool>();
            }
            return Ok(Plan::Enum {
                class: t.clone().unbind(),
                name: type_repr(tp),
                bool_values: bools,
            });
        }
        if t.hasattr(pyo3::intern!(py, "__dataclass_fields__"))? || is_typeddict(t)? {
            return Ok(Plan::Dataclass(dataclass_plan(tp, t, None)?));
        }
        if t.is_subclass(&py.get_type::<PyTuple>())?
            && t.hasattr(pyo3::intern!(py, "_fields"))?
            && t.hasattr(pyo3::intern!(py, "_field_defaults"))?
        {
            return Ok(Plan::NamedTuple(Box::new(namedtuple_plan(t)?)));
        }
    }
    if tp.is_instance(ty.typevar.bind(py))? {
        return typevar_plan(tp);
    }
    if tp.is(ty.bare_tuple.bind(py)) {
        return Ok(Plan::HomogeneousTuple {
            item: Box::new(Plan::Any),
        });
    }
    let origin = ty.get_origin.bind(py).call1((tp,))?;
    let args = ty.get_args.bind(py).call1((tp,))?.cast_into::<PyTuple>()?;
    if let Ok(cls) = origin.cast::<PyType>() {
        // A parameterized generic dataclass: `Box[int]`.
        if cls.hasattr(pyo3::intern!(py, "__dataclass_fields__"))?
            && !cls.is_subclass(pytypes::types(py)?.enum_.bind(py))?
        {
            return Ok(Plan::Dataclass(dataclass_plan(tp, cls, Some(&args))?));
        }
    }
    if !origin.is_none() {
        let arg = |i: usize| -> PyResult<Plan> {
            match args.get_item(i) {
                Ok(a) => compile(&a),
                Err(_) => Ok(Plan::Any),
            }
        };
        if origin.is(ty.union.bind(py)) || origin.is(ty.union_type.bind(py)) {
            let mut members = Vec::new();
            let mut nullable = false;
            for a in args.iter() {
                match compile(&a)? {
                    Plan::NoneType => nullable = true,
                    p => members.push(p),
                }
            }
            let mut names: Vec<String> = members.iter().map(Plan::name).collect();
            if nullable {
                names.push("None".into());
            }
            // An integer goes to `int` ahead of `float` or `Decimal`, which
            // accept integers too (as msgspec and pydantic do): `float |
            // int` must not round 2**60 + 1 to a float.
            let lax = members
                .iter()
                .position(|m| matches!(m, Plan::Float | Plan::Decimal));
            let int = members.iter().position(|m| matches!(m, Plan::Int));
            if let (Some(l), Some(i)) = (lax, int) {
                if l < i {
                    let m = members.remove(i);
                    members.insert(l, m);
                }
            }
            return Ok(Plan::Union {
                nullable,
                members,
                name: names.join(" | "),
            });
        }
        if origin.is(ty.literal.bind(py)) {
            let enum_ = pytypes::types(py)?.enum_.bind(py);
            let mut vals = Vec::new();
            for a in args.iter() {
                // An enum member is written as its value.
                let wire = if a.is_instance(enum_)? {
                    a.getattr(pyo3::intern!(py, "value"))?
                } else {
                    a.clone()
                };
                vals.push((wire.unbind(), a.unbind()));
            }
            let shown: Vec<String> = vals
                .iter()
                .map(|(_, v)| v.bind(py).repr().map(|r| r.to_string()).unwrap_or_default())
                .collect();
            return Ok(Plan::Literal {
                values: vals,
                name: format!("one of {}", shown.join(", ")),
            });
        }
        if origin.is(ty.annotated.bind(py)) {
            return arg(0);
        }
        if origin.is(py.get_type::<pyo3::types::PyList>()) {
            return Ok(Plan::List {
                item: Box::new(arg(0)?),
            });
        }
        if origin.is(py.get_type::<PySet>()) {
            return Ok(Plan::Set {
                item: Box::new(arg(0)?),
                frozen: false,
            });
        }
        if origin.is(py.get_type::<PyFrozenSet>()) {
            return Ok(Plan::Set {
                item: Box::new(arg(0)?),
                frozen: true,
            });
        }
        if origin.is(py.get_type::<PyTuple>()) {
            let n = args.len();
            if n == 2 && args.get_item(1)?.is(py.Ellipsis().bind(py)) {
                return Ok(Plan::HomogeneousTuple {
                    item: Box::new(arg(0)?),
                });
            }
            let mut items = Vec::new();
            for a in args.iter() {
                items.push(compile(&a)?);
            }
            return Ok(Plan::Tuple { items });
        }
        let is_dict = origin.is(py.get_type::<PyDict>())
            || ty
                .abc
                .iter()
                .any(|(t, k)| *k == b'd' && origin.is(t.bind(py)));
        if is_dict {
            if let Ok(k) = args.get_item(0) {
                let kp = compile(&k)?;
                if !matches!(kp, Plan::Str | Plan::Any) {
                    let int_keys = int_key_type(py, &kp)?;
                    if !int_keys && !kp.str_like() {
                        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                            "dict keys must be str for typed decoding (or a type read \
                             from str or from an int's text), not {}",
                            type_repr(&k)
                        )));
                    }
                    return Ok(Plan::TypedKeyDict {
                        key: Box::new(kp),
                        value: Box::new(arg(1)?),
                        int_keys,
                    });
                }
            }
            return Ok(Plan::Dict {
                value: Box::new(arg(1)?),
            });
        }
        for (t, k) in &ty.abc {
            if origin.is(t.bind(py)) {
                return Ok(match k {
                    b'l' => Plan::List {
                        item: Box::new(arg(0)?),
                    },
                    _ => Plan::Set {
                        item: Box::new(arg(0)?),
                        frozen: true,
                    },
                });
            }
        }
    }
    // typing.NewType
    if let Ok(sup) = tp.getattr(pyo3::intern!(py, "__supertype__")) {
        return compile(&sup);
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "unsupported type for typed decoding: {}",
        type_repr(tp)
    )))
}

/// Whether dict keys of this type are read from an int's decimal text:
/// `int`, an enum whose members' values are all ints (not bools), a
/// `Literal` of ints, or a union of these (without None).
pub(super) fn int_key_type(py: Python<'_>, p: &Plan) -> PyResult<bool> {
    let is_int = |o: &Bound<'_, PyAny>| {
        o.is_instance_of::<pyo3::types::PyInt>() && !o.is_instance_of::<pyo3::types::PyBool>()
    };
    Ok(match p {
        Plan::Int => true,
        Plan::Enum { class: cls, .. } => {
            let mut any = false;
            for m in cls.bind(py).try_iter()? {
                if !is_int(&m?.getattr(pyo3::intern!(py, "value"))?) {
                    return Ok(false);
                }
                any = true;
            }
            any
        }
        Plan::Literal { values: vals, .. } => vals.iter().all(|(w, _)| is_int(w.bind(py))),
        Plan::Union {
            members, nullable, ..
        } => {
            if *nullable {
                return Ok(false);
            }
            for m in members {
                if !int_key_type(py, m)? {
                    return Ok(false);
                }
            }
            true
        }
        _ => false,
    })
}

/// `typing.get_type_hints(cls, **kwargs)`, its failure named by [`hints_error`].
pub(super) fn type_hints<'py>(
    cls: &Bound<'py, PyType>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let py = cls.py();
    typing(py)?
        .get_type_hints
        .bind(py)
        .call((cls,), kwargs)
        .map_err(|e| hints_error(cls, e))?
        .cast_into::<PyDict>()
        .map_err(PyErr::from)
}

/// A failure of `typing.get_type_hints(cls)` (a string annotation that
/// does not resolve, e.g. a class local to a function), naming `cls`: of
/// the same exception type when that is a `NameError`, with the original
/// as its cause.
#[cold]
fn hints_error(cls: &Bound<'_, PyType>, e: PyErr) -> PyErr {
    let py = cls.py();
    if !e.is_instance_of::<pyo3::exceptions::PyNameError>(py) {
        return e;
    }
    let err = pyo3::exceptions::PyNameError::new_err(format!(
        "cannot resolve the type hints of {}: {}",
        type_repr(cls.as_any()),
        e.value(py)
    ));
    err.set_cause(py, Some(e));
    err
}

/// Whether `t` is a `TypedDict` (typing's or typing_extensions').
pub(super) fn is_typeddict(t: &Bound<'_, PyType>) -> PyResult<bool> {
    let py = t.py();
    Ok(t.is_subclass(&py.get_type::<PyDict>())?
        && t.hasattr(pyo3::intern!(py, "__required_keys__"))?
        && t.hasattr(pyo3::intern!(py, "__total__"))?)
}

thread_local! {
    /// NamedTuple classes being compiled by this thread (a NamedTuple that
    /// holds itself is refused rather than compiled forever).
    static NT_IN_PROGRESS: std::cell::RefCell<Vec<usize>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

fn namedtuple_plan(cls: &Bound<'_, PyType>) -> PyResult<NamedTuplePlan> {
    let py = cls.py();
    let key = cls.as_ptr() as usize;
    if NT_IN_PROGRESS.with(|p| p.borrow().contains(&key)) {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "recursive NamedTuple {} is not supported for typed decoding",
            type_repr(cls.as_any())
        )));
    }
    NT_IN_PROGRESS.with(|p| p.borrow_mut().push(key));
    let r = (|| {
        let name = type_repr(cls.as_any());
        let hints = type_hints(cls, None)?;
        let field_defaults = cls
            .getattr(pyo3::intern!(py, "_field_defaults"))?
            .cast_into::<PyDict>()?;
        let (mut items, mut defaults, mut required) = (Vec::new(), Vec::new(), 0);
        for f in cls.getattr(pyo3::intern!(py, "_fields"))?.try_iter()? {
            let f = f?;
            items.push(match hints.get_item(&f)? {
                Some(h) => compile_field(&name, &f, &h)?,
                None => Plan::Any,
            });
            let d = field_defaults.get_item(&f)?.map(Bound::unbind);
            if d.is_none() {
                required = items.len();
            }
            defaults.push(d);
        }
        Ok(NamedTuplePlan {
            cls: cls.clone().unbind(),
            name,
            items,
            defaults,
            required,
        })
    })();
    NT_IN_PROGRESS.with(|p| p.borrow_mut().retain(|k| *k != key));
    r
}

/// A free type variable: its bound, its constraints as a union, or `Any`
/// (as msgspec reads them).
fn typevar_plan(tv: &Bound<'_, PyAny>) -> PyResult<Plan> {
    let py = tv.py();
    let bound = tv.getattr(pyo3::intern!(py, "__bound__"))?;
    if !bound.is_none() {
        return compile(&bound);
    }
    let cons = tv
        .getattr(pyo3::intern!(py, "__constraints__"))?
        .cast_into::<PyTuple>()?;
    if !cons.is_empty() {
        let u = typing(py)?.union.bind(py).get_item(cons)?;
        return compile(&u);
    }
    Ok(Plan::Any)
}
