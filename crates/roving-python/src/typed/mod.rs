//! Typed decoding: `loads(data, type=list[Item])`.
//!
//! A Python type is compiled once into a [`Plan`] (cached per type;
//! `compile.rs`, `compile_dataclass.rs`), and documents are converted
//! straight from their in-place values to the requested objects, checking
//! types on the way (`decode*.rs`). Errors carry the path (`failure.rs`).

mod compile;
mod compile_dataclass;
mod decode;
mod decode_dataclass;
mod decode_dict;
mod decode_sequence;
mod failure;
mod plan;
mod text;

pub(crate) use compile::plan_for;
pub(crate) use decode::decode_typed;
pub(crate) use plan::Plan;
