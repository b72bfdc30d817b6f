//! Structural equality of values in time linear in the documents' sizes,
//! shared subtrees included.
//!
//! Comparing two values as trees takes time proportional to their expanded
//! size, which a small document of nested shared subtrees makes exponential
//! (found by fuzzing). Instead every distinct subtree gets a canonical number
//! (hash-consing): a container's number is looked up from its kind and its
//! children's numbers, and each record is numbered once (memoized by its
//! position), so two values are equal exactly when their numbers are.

use hashbrown::HashMap;

use crate::layout::ElemType;
use crate::read::{Array, Map, Value};

/// A scalar, by value, as [`PartialEq`] for [`Value`] compares it (floats by
/// bits).
#[derive(Hash, PartialEq, Eq)]
enum Atom<'a> {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    BigInt {
        negative: bool,
        magnitude: &'a [u8],
    },
    Float(u64),
    Str(&'a [u8]),
    Bytes(&'a [u8]),
    Timestamp {
        seconds: i64,
        nanos: u32,
        offset: Option<i32>,
    },
    Ext {
        type_id: u64,
        data: &'a [u8],
    },
    Vector {
        elem: ElemType,
        raw: &'a [u8],
        /// The dimensions of a shaped vector (empty for one dimension).
        shape: Vec<usize>,
    },
}

const ARRAY: u32 = 0;
const MAP: u32 = 1;

/// Canonical numbers of the values met so far.
#[derive(Default)]
pub(crate) struct Canon<'a> {
    atoms: HashMap<Atom<'a>, u32>,
    /// Containers by (kind, buffer address, record position).
    records: HashMap<(u32, usize, usize), u32>,
    /// Strings and byte strings by (address, length): a string referenced
    /// many times is hashed once.
    texts: HashMap<(bool, usize, usize), u32>,
    /// Containers by kind, length and their children's numbers.
    nodes: HashMap<Vec<u32>, u32>,
    next: u32,
}

/// A container value: what [`Canon::id`] numbers from its children.
#[derive(Clone, Copy)]
enum Container<'a> {
    Array(Array<'a>),
    Map(Map<'a>),
}

impl<'a> Container<'a> {
    /// The container `v` is, if it is one (exhaustive on the kinds of
    /// value: a new kind must say whether it has children).
    fn of(v: Value<'a>) -> Option<Container<'a>> {
        match v {
            Value::Array(a) => Some(Container::Array(a)),
            Value::Map(m) => Some(Container::Map(m)),
            Value::Null
            | Value::Bool(_)
            | Value::Int(_)
            | Value::UInt(_)
            | Value::BigInt(_)
            | Value::Float(_)
            | Value::Str(_)
            | Value::Bytes(_)
            | Value::Timestamp(_)
            | Value::Vector(_)
            | Value::Ext(_) => None,
        }
    }

    /// The record identity: (kind, buffer address, record position).
    fn key(self) -> (u32, usize, usize) {
        match self {
            Container::Array(a) => (ARRAY, a.buf_addr(), a.pos()),
            Container::Map(m) => (MAP, m.buf_addr(), m.pos()),
        }
    }

    fn len(self) -> usize {
        match self {
            Container::Array(a) => a.len(),
            Container::Map(m) => m.len(),
        }
    }

    /// Child `i`: its key (maps only) and its value.
    fn child(self, i: usize) -> (Option<&'a str>, Value<'a>) {
        match self {
            Container::Array(a) => (None, a.get(i).unwrap_or(Value::Null)),
            Container::Map(m) => (
                Some(m.key_at(i).unwrap_or("")),
                m.value_at(i).unwrap_or(Value::Null),
            ),
        }
    }
}

impl<'a> Canon<'a> {
    fn fresh(&mut self) -> u32 {
        self.next += 1;
        self.next
    }

    fn atom(&mut self, v: Value<'a>) -> u32 {
        let text = match v {
            Value::Str(s) => Some((true, s.as_ptr() as usize, s.len())),
            Value::Bytes(b) => Some((false, b.as_ptr() as usize, b.len())),
            _ => None,
        };
        if let Some(t) = text {
            if let Some(&id) = self.texts.get(&t) {
                return id;
            }
        }
        let a = match v {
            Value::Null | Value::Array(_) | Value::Map(_) => Atom::Null,
            Value::Bool(b) => Atom::Bool(b),
            Value::Int(i) => Atom::Int(i),
            Value::UInt(u) => Atom::UInt(u),
            Value::BigInt(b) => Atom::BigInt {
                negative: b.negative,
                magnitude: b.magnitude,
            },
            Value::Float(f) => Atom::Float(f.to_bits()),
            Value::Str(s) => Atom::Str(s.as_bytes()),
            Value::Bytes(b) => Atom::Bytes(b),
            Value::Timestamp(t) => Atom::Timestamp {
                seconds: t.seconds,
                nanos: t.nanos,
                offset: t.offset,
            },
            Value::Ext(e) => Atom::Ext {
                type_id: e.type_id,
                data: e.data,
            },
            Value::Vector(x) => Atom::Vector {
                elem: x.elem_type(),
                raw: x.raw(),
                shape: if x.ndim() > 1 { x.shape() } else { Vec::new() },
            },
        };
        let id = match self.atoms.get(&a) {
            Some(&id) => id,
            None => {
                let id = self.fresh();
                self.atoms.insert(a, id);
                id
            }
        };
        if let Some(t) = text {
            self.texts.insert(t, id);
        }
        id
    }

    /// The canonical number of `root`. Iterative: no recursion at any depth.
    pub(crate) fn id(&mut self, root: Value<'a>) -> u32 {
        let Some(c) = Container::of(root) else {
            return self.atom(root);
        };
        if let Some(&id) = self.records.get(&c.key()) {
            return id;
        }
        struct Frame<'a> {
            v: Container<'a>,
            key: (u32, usize, usize),
            len: usize,
            next: usize,
            items: Vec<u32>,
        }
        let frame = |v: Container<'a>| {
            let key = v.key();
            let len = v.len();
            let mut items = Vec::with_capacity(2 + 2 * len);
            items.extend([key.0, len as u32]);
            Frame {
                v,
                key,
                len,
                next: 0,
                items,
            }
        };
        let mut stack = vec![frame(c)];
        loop {
            let top = stack.last_mut().expect("the root frame is popped last");
            if top.next < top.len {
                let i = top.next;
                top.next += 1;
                let (k, child) = top.v.child(i);
                if let Some(k) = k {
                    let kid = self.atom(Value::Str(k));
                    top.items.push(kid);
                }
                match Container::of(child) {
                    None => {
                        let id = self.atom(child);
                        top.items.push(id);
                    }
                    Some(cc) => match self.records.get(&cc.key()) {
                        Some(&id) => top.items.push(id),
                        // Children come before their parents in a document,
                        // so the stack cannot cycle.
                        None => stack.push(frame(cc)),
                    },
                }
                continue;
            }
            let done = stack.pop().expect("a frame is on the stack");
            let id = match self.nodes.get(&done.items) {
                Some(&id) => id,
                None => {
                    let id = self.fresh();
                    self.nodes.insert(done.items, id);
                    id
                }
            };
            self.records.insert(done.key, id);
            match stack.last_mut() {
                Some(parent) => parent.items.push(id),
                None => return id,
            }
        }
    }
}
