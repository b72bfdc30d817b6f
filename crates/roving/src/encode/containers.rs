//! Opening and closing arrays and maps: the stack of open containers
//! ([`Frame`]s) and the records written when a container ends.

use super::pending::Pending;
use super::shapes::shape_ref;
use super::{depth_error, encoder_state_error, Encoder, Mark};
use crate::error::Result;
use crate::layout::*;

/// The kind of container [`Encoder::open`] starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FrameKind {
    Array,
    Map,
}

/// [`Frame::state`] of an array.
pub(super) const ARRAY: u8 = 0;
/// [`Frame::state`] of a map whose next item is a value.
pub(super) const MAP_VALUE: u8 = 1;
/// [`Frame::state`] of a map whose next item is a key (at first and after
/// each value).
pub(super) const MAP_KEY: u8 = 2;
/// [`Frame::state`] outside every container.
pub(super) const ROOT: u8 = 3;
/// [`Frame::state`] of a map whose keys were all given when it opened
/// ([`Encoder::begin_map_with_keys`]): its values come with no keys.
pub(super) const MAP_PACKED: u8 = 4;

/// An open container (or the document outside every container): what it
/// expects next, where its slots and keys start on the encoder's stacks,
/// and the shape a map is predicted to have.
#[derive(Clone, Copy, Debug)]
pub(super) struct Frame {
    /// What the container is and expects next: [`ARRAY`], [`MAP_VALUE`],
    /// [`MAP_KEY`] or [`ROOT`]. Placing a value in an array or a map
    /// expecting one doubles it (`ARRAY` stays, `MAP_VALUE` becomes
    /// `MAP_KEY`), so that one comparison checks it.
    pub(super) state: u8,
    /// Index in `Encoder::slots` of the container's first slot.
    pub(super) slots_start: usize,
    /// Index in `Encoder::keys` of the map's first key looked up.
    pub(super) keys_start: usize,
    /// Running hash of the keys pushed to `Encoder::keys` so far.
    pub(super) shape_hash: u64,
    /// Whether a key pushed to `Encoder::keys` may repeat an earlier one:
    /// false while every key pushed was a string new to the document
    /// (its record written by the push) or one of the guess's keys (which
    /// are distinct and pushed first), so that ending the map need not
    /// look for duplicate keys.
    pub(super) maybe_dup: bool,
    /// The shape this map is predicted to have (an index into
    /// `Encoder::shapes`: the last shape ended at the same depth), or
    /// [`NO_GUESS`]. While the keys written match the guess's keys in
    /// order, they are only counted (`matched`), not looked up or pushed.
    pub(super) guess: u32,
    /// Keys of the guess matched so far.
    pub(super) matched: u32,
    /// The guess's keys are `Encoder::shape_keys[guess_keys..][..guess_len]`
    /// ([`NO_KEYS`] without a guess). The entry after them is a
    /// [`KEYS_END`](super::shapes::KEYS_END), which matches no key: the next key of the guess is
    /// `shape_keys[guess_keys + matched]` if it matches, with no need to
    /// check `matched < guess_len` first.
    pub(super) guess_keys: usize,
    /// Number of keys of the guess (0 without one).
    pub(super) guess_len: u32,
    /// Length of the output when the container opened: where an array's
    /// first element record is, if it has one (see
    /// [`Encoder::pack_numbers`]).
    pub(super) out_start: usize,
}

/// Entries of `Encoder::key_guess` (direct-mapped by key record).
pub(super) const KEY_GUESS: usize = 64;

/// An entry of `Encoder::key_guess`: the last shape ended as the value of
/// key record `key`, in the document `generation` (entries of another
/// document are not used, so the table is never cleared).
#[derive(Clone, Copy)]
pub(super) struct KeyGuess {
    key: usize,
    shape: u32,
    generation: u64,
}

impl KeyGuess {
    pub(super) const NONE: KeyGuess = KeyGuess {
        key: usize::MAX,
        shape: NO_GUESS,
        generation: 0,
    };
}

/// The entry of `Encoder::key_guess` for key record `key`.
#[inline(always)]
fn key_guess_slot(key: usize) -> usize {
    (key as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) as usize
        >> (usize::BITS - KEY_GUESS.trailing_zeros())
}

/// `Frame::guess` of a frame without a (still valid) prediction.
pub(super) const NO_GUESS: u32 = u32::MAX;

/// `Frame::guess_keys` of a frame without a prediction (out of bounds,
/// also when `matched`, then 0, is added with wrapping).
pub(super) const NO_KEYS: usize = usize::MAX;

/// The frame outside every container: no key expected, no prediction.
pub(super) const ROOT_FRAME: Frame = Frame {
    state: ROOT,
    slots_start: 0,
    keys_start: 0,
    shape_hash: 0,
    maybe_dup: false,
    guess: NO_GUESS,
    matched: 0,
    guess_keys: NO_KEYS,
    guess_len: 0,
    out_start: 0,
};

impl Encoder {
    /// Opens a container of `kind` inside the open one (or as the root),
    /// a map with the shape predicted at its depth.
    #[inline]
    fn open(&mut self, kind: FrameKind) -> Result<()> {
        if self.frames.len() >= self.max_depth {
            return Err(depth_error(self.max_depth));
        }
        self.check_value_expected()?;
        let guess = match kind {
            FrameKind::Map if self.predict => self.key_guess().unwrap_or_else(|| {
                self.depth_guess
                    .get(self.frames.len())
                    .copied()
                    .unwrap_or(NO_GUESS)
            }),
            _ => NO_GUESS,
        };
        let (guess_keys, guess_len) = match self.shapes.get(guess as usize) {
            Some(shape) => (shape.keys, shape.len as u32),
            None => (NO_KEYS, 0),
        };
        let inner = Frame {
            state: if kind == FrameKind::Map {
                MAP_KEY
            } else {
                ARRAY
            },
            slots_start: self.slots.len(),
            keys_start: self.keys.len(),
            shape_hash: 0,
            maybe_dup: false,
            guess,
            matched: 0,
            guess_keys,
            guess_len,
            out_start: self.out.len(),
        };
        let outer = std::mem::replace(&mut self.top, inner);
        self.frames.push(outer);
        Ok(())
    }

    /// Fails unless the open container (or the document, if none is
    /// open) takes a value now.
    #[inline(always)]
    pub(super) fn check_value_expected(&self) -> Result<()> {
        if self.top.state > MAP_VALUE {
            return self.check_value_expected_other();
        }
        Ok(())
    }

    /// [`Self::check_value_expected`] outside arrays and maps expecting a
    /// value (out of line: `open` stays small enough to inline).
    #[inline(never)]
    fn check_value_expected_other(&self) -> Result<()> {
        let s = self.top.state;
        if s == MAP_PACKED {
            return self.check_packed_room();
        }
        if s == MAP_KEY {
            return Err(encoder_state_error("a map value needs a key first"));
        }
        if self.root.is_some() {
            return Err(encoder_state_error("a document has exactly one root value"));
        }
        Ok(())
    }

    /// Values placed in the open container so far.
    #[inline(always)]
    fn values_placed(&self) -> usize {
        self.slots.len() - self.top.slots_start
    }

    /// Fails if the open map, opened with its keys, has a value for each.
    pub(super) fn check_packed_room(&self) -> Result<()> {
        if self.values_placed() >= self.top.guess_len as usize {
            return Err(encoder_state_error(
                "a map opened with its keys has a value for each key already",
            ));
        }
        Ok(())
    }

    /// The key record of the open map's key whose value is being written
    /// (`None` unless the open container is a map expecting a value).
    #[inline(always)]
    fn value_key(&self) -> Option<usize> {
        let f = &self.top;
        if f.state != MAP_VALUE {
            return None;
        }
        if f.guess != NO_GUESS && f.matched > 0 {
            // Matched keys of a guess are counted, not pushed.
            let at = f.guess_keys + f.matched as usize - 1;
            return self.shape_keys.get(at).map(|k| k.record);
        }
        self.keys.get(f.keys_start..)?.last().copied()
    }

    /// The shape last ended under the key whose value a new map is (see
    /// `Encoder::key_guess`), if any in this document.
    #[inline(always)]
    fn key_guess(&self) -> Option<u32> {
        let key = self.value_key()?;
        let e = self.key_guess[key_guess_slot(key)];
        (e.key == key && e.generation == self.generation).then_some(e.shape)
    }

    /// Starts an array; write its elements, then [`Encoder::end_array`].
    #[inline]
    pub fn begin_array(&mut self) -> Result<()> {
        self.open(FrameKind::Array)
    }

    /// Starts a map; write `key`, value, `key`, value..., then [`Encoder::end_map`].
    #[inline]
    pub fn begin_map(&mut self) -> Result<()> {
        self.open(FrameKind::Map)
    }

    /// Writes an empty array: the bytes of [`Encoder::begin_array`] then
    /// [`Encoder::end_array`] (and the same errors), in one step.
    ///
    /// ```
    /// use roving::{Document, Encoder};
    /// let mut e = Encoder::new();
    /// e.begin_map()?;
    /// e.key("tags")?;
    /// e.empty_array()?;
    /// e.end_map()?;
    /// let bytes = e.finish()?;
    /// let doc = Document::open(&bytes)?;
    /// assert_eq!(doc.get_path("tags")?.unwrap().as_array().map(|a| a.len()), Some(0));
    /// # Ok::<(), roving::Error>(())
    /// ```
    #[inline]
    pub fn empty_array(&mut self) -> Result<Mark> {
        self.empty(Pending::special(SPECIAL_EMPTY_ARRAY))
    }

    /// Writes an empty map: the bytes of [`Encoder::begin_map`] then
    /// [`Encoder::end_map`] (and the same errors), in one step.
    #[inline]
    pub fn empty_map(&mut self) -> Result<Mark> {
        self.empty(Pending::special(SPECIAL_EMPTY_MAP))
    }

    /// Places the empty container `pending`, if a container may open here.
    #[inline(always)]
    fn empty(&mut self, pending: Pending) -> Result<Mark> {
        if self.frames.len() >= self.max_depth {
            return Err(depth_error(self.max_depth));
        }
        self.place(pending)?;
        Ok(Mark {
            pending,
            generation: self.generation,
        })
    }

    /// Ends the open array. Returns a mark of it.
    #[inline]
    pub fn end_array(&mut self) -> Result<Mark> {
        if self.top.state != ARRAY {
            return Err(encoder_state_error("end_array without an open array"));
        }
        let Some(outer) = self.frames.pop() else {
            return Err(encoder_state_error("end_array without an open array"));
        };
        let frame = std::mem::replace(&mut self.top, outer);
        let n = self.slots.len() - frame.slots_start;
        let pending = if n == 0 {
            Pending::special(SPECIAL_EMPTY_ARRAY)
        } else if let Some(pos) = self.pack_numbers(frame.slots_start, frame.out_start) {
            Pending::record(pos)
        } else if let Some(p) = self.try_str_array(frame.slots_start, frame.out_start) {
            p
        } else if let Some(p) = self.try_stride_array(frame.slots_start, frame.out_start) {
            p
        } else {
            let (width, pos) =
                self.write_container(frame.slots_start, |w| 1 + varint_len(n as u64) + n * w);
            self.write_record(frame.slots_start, TAG_ARRAY, n as u64, width, pos);
            Pending::record(pos)
        };
        self.slots.truncate(frame.slots_start);
        self.place(pending)?;
        Ok(Mark {
            pending,
            generation: self.generation,
        })
    }

    /// Ends the open map. If a key was written twice, the map keeps the
    /// first position and the last value. Returns a mark of it.
    #[inline]
    pub fn end_map(&mut self) -> Result<Mark> {
        if self.top.state == MAP_PACKED {
            return self.end_packed_map();
        }
        self.end_map_of::<false>()
    }

    /// [`Encoder::end_map`] of a map opened with its keys (out of line).
    #[inline(never)]
    fn end_packed_map(&mut self) -> Result<Mark> {
        self.end_map_of::<true>()
    }

    /// [`Encoder::end_map`] of a map opened with its keys (`PACKED`) or
    /// with [`Encoder::begin_map`].
    #[inline(always)]
    fn end_map_of<const PACKED: bool>(&mut self) -> Result<Mark> {
        let frame = &self.top;
        let packed = PACKED;
        if frame.state != MAP_KEY && !packed {
            if frame.state == MAP_VALUE {
                return Err(encoder_state_error("a key without a value"));
            }
            return Err(encoder_state_error("end_map without an open map"));
        }
        if packed && self.values_placed() != frame.guess_len as usize {
            return Err(encoder_state_error(
                "a map opened with its keys needs one value per key",
            ));
        }
        let guessed = packed || (frame.guess != NO_GUESS && frame.guess_len == frame.matched);
        if !guessed {
            self.drop_guess();
        }
        let Some(outer) = self.frames.pop() else {
            return Err(encoder_state_error("end_map without an open map"));
        };
        let frame = std::mem::replace(&mut self.top, outer);
        let n = if packed {
            frame.guess_len as usize
        } else if guessed {
            frame.matched as usize
        } else {
            self.keys.len() - frame.keys_start
        };
        let pending = if n == 0 {
            Pending::special(SPECIAL_EMPTY_MAP)
        } else {
            let shape = if guessed {
                frame.guess
            } else {
                self.shape(&frame)
            };
            let depth = self.frames.len();
            if depth >= self.depth_guess.len() {
                self.depth_guess.resize(depth + 1, NO_GUESS);
            }
            // A packed shape is no map's guess: no other map shares it.
            self.depth_guess[depth] = if packed { NO_GUESS } else { shape };
            if let Some(key) = self.value_key().filter(|_| !packed) {
                self.key_guess[key_guess_slot(key)] = KeyGuess {
                    key,
                    shape,
                    generation: self.generation,
                };
            }
            let Some(info) = self.shapes.get(shape as usize) else {
                return Err(encoder_state_error("unknown shape"));
            };
            // No guessed width without prediction either (tests compare
            // the bytes of both).
            let guess = if self.predict { info.width } else { 0 };
            let (shape_pos, absolute_from) = (info.pos, info.absolute_from);
            let head = |pos: usize| {
                let rel = ((pos - shape_pos) as u64) << 1;
                let head = if rel >= absolute_from {
                    ((shape_pos as u64) << 1) | 1
                } else {
                    rel
                };
                debug_assert_eq!(head, shape_ref(shape_pos, pos));
                head
            };
            let values = if packed {
                self.try_num_map(frame.slots_start, frame.out_start)
            } else {
                None
            };
            let here = self.out.len();
            let n = self.slots.len() - frame.slots_start;
            let size = |w: usize| 3 + n * w;
            let pos = if let Some(values) = values {
                write_num_map(&mut self.out, head(here), values);
                here
            } else if self.write_record_as(frame.slots_start, TAG_MAP, head(here), guess, size) {
                here
            } else {
                let (width, pos) = self.write_container(frame.slots_start, size);
                self.write_record(frame.slots_start, TAG_MAP, head(pos), width, pos);
                if let Some(info) = self.shapes.get_mut(shape as usize) {
                    // A map that needed integer records (written before
                    // it, at `here`) leaves no guess: the next one of its
                    // shape likely needs them too, and a guessed width
                    // would only be written and taken back.
                    info.width = if pos == here { width } else { 0 };
                }
                pos
            };
            Pending::record(pos)
        };
        self.slots.truncate(frame.slots_start);
        self.keys.truncate(frame.keys_start);
        self.place(pending)?;
        Ok(Mark {
            pending,
            generation: self.generation,
        })
    }
}
