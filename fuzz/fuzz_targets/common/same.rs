//! Shared by the targets that compare two reads of one value.

use roving::Value;

/// Whether two reads gave the same value, without reading a container's
/// children (containers and vectors by offset and length, floats by bits).
/// Compared field by field, not through `format!`: formatting took most of
/// a target's time.
pub fn same(x: &Value<'_>, y: &Value<'_>) -> bool {
    match (x, y) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::Int(a), Value::Int(b)) => a == b,
        (Value::UInt(a), Value::UInt(b)) => a == b,
        (Value::BigInt(a), Value::BigInt(b)) => a == b,
        (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
        (Value::Str(a), Value::Str(b)) => a == b,
        (Value::Bytes(a), Value::Bytes(b)) => a == b,
        (Value::Timestamp(a), Value::Timestamp(b)) => a == b,
        (Value::Array(a), Value::Array(b)) => a.offset() == b.offset() && a.len() == b.len(),
        (Value::Map(a), Value::Map(b)) => a.offset() == b.offset() && a.len() == b.len(),
        (Value::Vector(a), Value::Vector(b)) => a.offset() == b.offset() && a.len() == b.len(),
        (Value::Ext(a), Value::Ext(b)) => a == b,
        _ => false,
    }
}
