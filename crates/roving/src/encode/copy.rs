//! Writing a value read from another document: iterative, and shared
//! subtrees stay shared (so a small document with exponential sharing
//! copies in linear time).

use hashbrown::HashMap;

use super::{Encoder, Mark};
use crate::error::Result;
use crate::read::{ArrayIter, MapIter, Value};

/// A container being copied by [`Encoder::write_value`]: what is left of
/// it, and its offset in the source document (to write it again as a
/// shared reference when it appears again; `None`: not shared).
enum Frame<'a> {
    /// An array and its elements not yet written.
    Array {
        /// The elements left.
        elements: ArrayIter<'a>,
        /// The array's offset in the source document.
        offset: Option<usize>,
    },
    /// A map and its entries not yet written.
    Map {
        /// The entries left.
        entries: MapIter<'a>,
        /// The map's offset in the source document.
        offset: Option<usize>,
    },
}

impl Encoder {
    /// Writes `value` (from any open document) as the next value, keeping
    /// shared arrays and maps shared. No recursion: the encoder's depth
    /// limit applies.
    ///
    /// ```
    /// let a = roving::json::from_json(br#"{"k":[1,2,{"x":null}]}"#)?;
    /// let doc = roving::Document::open(&a)?;
    /// let mut e = roving::Encoder::new();
    /// e.write_value(doc.root())?;
    /// assert_eq!(e.finish()?, a); // the same value encodes the same way
    /// # Ok::<(), roving::Error>(())
    /// ```
    ///
    /// A value of a lazily opened document is validated first
    /// ([`Value::validated`]), so that copying stays linear.
    pub fn write_value(&mut self, value: Value<'_>) -> Result<()> {
        let value = value.validated()?;
        let mut memo: HashMap<usize, Mark> = HashMap::new();
        let mut stack: Vec<Frame<'_>> = Vec::new();
        let mut next = Some(value);
        loop {
            if let Some(v) = next.take() {
                match v {
                    Value::Array(a) if !a.is_empty() => {
                        if let Some(m) = a.offset().and_then(|o| memo.get(&o)) {
                            self.reuse(*m)?;
                        } else {
                            self.begin_array()?;
                            stack.push(Frame::Array {
                                elements: a.iter(),
                                offset: a.offset(),
                            });
                        }
                    }
                    Value::Map(m) if !m.is_empty() => {
                        if let Some(mk) = m.offset().and_then(|o| memo.get(&o)) {
                            self.reuse(*mk)?;
                        } else {
                            self.begin_map()?;
                            stack.push(Frame::Map {
                                entries: m.iter(),
                                offset: m.offset(),
                            });
                        }
                    }
                    v => self.write_scalar(v)?,
                }
            }
            match stack.last_mut() {
                None => return Ok(()),
                Some(Frame::Array { elements, offset }) => match elements.next() {
                    Some(v) => next = Some(v),
                    None => {
                        let offset = *offset;
                        stack.pop();
                        let mark = self.end_array()?;
                        if let Some(offset) = offset {
                            memo.insert(offset, mark);
                        }
                    }
                },
                Some(Frame::Map { entries, offset }) => match entries.next() {
                    Some((k, v)) => {
                        self.key(k)?;
                        next = Some(v);
                    }
                    None => {
                        let offset = *offset;
                        stack.pop();
                        let mark = self.end_map()?;
                        if let Some(offset) = offset {
                            memo.insert(offset, mark);
                        }
                    }
                },
            }
        }
    }

    /// Writes a value that is not a non-empty container.
    fn write_scalar(&mut self, v: Value<'_>) -> Result<()> {
        match v {
            Value::Null => self.null(),
            Value::Bool(b) => self.bool(b),
            Value::Int(i) => self.i64(i),
            Value::UInt(u) => self.u64(u),
            Value::BigInt(b) => self.bigint_le(b.negative, b.magnitude),
            Value::Float(f) => self.f64(f),
            Value::Str(s) => self.str(s),
            Value::Bytes(b) => self.bytes(b),
            Value::Timestamp(t) => self.timestamp(t),
            Value::Ext(e) => self.ext(e.type_id, e.data),
            Value::Vector(x) if x.ndim() > 1 => {
                self.shaped_vector_raw(x.elem_type(), &x.shape(), x.raw())
            }
            Value::Vector(x) => self.vector_raw(x.elem_type(), x.raw()),
            Value::Array(_) => {
                self.begin_array()?;
                self.end_array().map(drop)
            }
            Value::Map(_) => {
                self.begin_map()?;
                self.end_map().map(drop)
            }
        }
    }
}
