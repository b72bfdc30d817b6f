//! Stack for serde's recursion: serializing or deserializing a nested
//! value recurses through the user's `Serialize`/`Deserialize` code once
//! per level, and a level can take a kilobyte of stack or more (far more
//! in debug builds). The depth limits (100,000 levels for `to_vec`) are
//! beyond what a thread's stack holds (2 MiB for a spawned thread), so
//! past [`CHECK_FROM`] levels each level makes sure that [`RED_ZONE`]
//! bytes of stack are left, and continues on a new segment of
//! [`SEGMENT`] bytes if they are not: deep values reach the depth limit's
//! error, or succeed, instead of overflowing the stack.

/// Levels run on the caller's stack with no check (the common documents
/// never reach it, so their cost is one comparison per value).
const CHECK_FROM: usize = 32;

/// Stack a level must find left, else it moves to a new segment.
const RED_ZONE: usize = 128 * 1024;

/// Size of each new stack segment.
const SEGMENT: usize = 2 * 1024 * 1024;

/// Runs `f`, the visit of a value `level` containers deep, on enough stack.
#[inline(always)]
pub(super) fn at_level<R>(level: usize, f: impl FnOnce() -> R) -> R {
    if level < CHECK_FROM {
        f()
    } else {
        on_enough_stack(f)
    }
}

/// [`at_level`] past [`CHECK_FROM`] levels; at every level for
/// recursion through other crates' serializers, whose frames per level
/// are unknown (`Serialize` for `Value`).
#[inline(never)]
pub(super) fn on_enough_stack<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}
