//! Writing map keys: the next key of the predicted shape is recognized
//! by its bytes (or its address), any other key is looked up.

use super::containers::{MAP_KEY, MAP_VALUE, NO_GUESS, NO_KEYS};
use super::shapes::{shape_hash_step, EMPTY_KEY};
use super::strings::{u32_at, u64_at};
use super::{encoder_state_error, Encoder, KeyId};
use crate::error::Result;

impl Encoder {
    /// Writes the next key of the open map.
    #[inline]
    pub fn key(&mut self, key: &str) -> Result<()> {
        let frame = &mut self.top;
        // Fast path: the next key of the predicted shape (only maps have
        // one), compared by its bytes.
        if frame.state == MAP_KEY {
            let at = frame.guess_keys.wrapping_add(frame.matched as usize);
            if let Some(shape_key) = self.shape_keys.get(at) {
                if shape_key.len == key.len()
                    && key_eq(
                        self.out.get(shape_key.data..shape_key.data + shape_key.len),
                        key.as_bytes(),
                    )
                {
                    frame.matched += 1;
                    frame.state = MAP_VALUE;
                    return Ok(());
                }
            }
        }
        self.key_slow(key)
    }

    /// [`Encoder::key`] for a key that lives for the whole program (serde's
    /// struct field names, a class's field names kept for good): the
    /// predicted key is recognized by the key's address, without comparing
    /// bytes. The same bytes as [`Encoder::key`].
    ///
    /// ```
    /// use roving::{Document, Encoder};
    /// let mut e = Encoder::new();
    /// e.begin_array()?;
    /// for id in 0..3 {
    ///     e.begin_map()?;
    ///     e.key_static("id")?;
    ///     e.i64(id)?;
    ///     e.end_map()?;
    /// }
    /// e.end_array()?;
    /// let bytes = e.finish()?;
    /// let doc = Document::open(&bytes)?;
    /// assert!(doc.get_path("[2].id")?.unwrap() == 2);
    /// # Ok::<(), roving::Error>(())
    /// ```
    #[inline(always)]
    pub fn key_static(&mut self, key: &'static str) -> Result<()> {
        let frame = &mut self.top;
        if frame.state == MAP_KEY {
            let at = frame.guess_keys.wrapping_add(frame.matched as usize);
            if let Some(shape_key) = self.shape_keys.get(at) {
                if shape_key.addr == key.as_ptr() as usize && shape_key.len == key.len() {
                    frame.matched += 1;
                    frame.state = MAP_VALUE;
                    return Ok(());
                }
            }
        }
        self.key_static_slow(key)
    }

    /// [`Encoder::key_static`] when the address is not the predicted key's:
    /// if the bytes are, the address is remembered for the next map.
    #[inline(never)]
    fn key_static_slow(&mut self, key: &'static str) -> Result<()> {
        let frame = &self.top;
        let at = (frame.matched < frame.guess_len && frame.state == MAP_KEY)
            .then_some(frame.guess_keys + frame.matched as usize);
        self.key(key)?;
        if let (Some(at), frame) = (at, &self.top) {
            // Matched the predicted key by its bytes (the guess is checked
            // first: a dropped guess has `guess_keys` `NO_KEYS`).
            if frame.guess != NO_GUESS && frame.matched as usize == at + 1 - frame.guess_keys {
                if let Some(shape_key) = self.shape_keys.get_mut(at) {
                    shape_key.addr = key.as_ptr() as usize;
                }
            }
        }
        Ok(())
    }

    /// [`Encoder::key`] when the key is not the predicted one.
    #[inline(never)]
    fn key_slow(&mut self, key: &str) -> Result<()> {
        let frame = &mut self.top;
        if frame.state != MAP_KEY {
            return Err(encoder_state_error(
                "a key outside a map, or two keys in a row",
            ));
        }
        frame.state = MAP_VALUE;
        if frame.guess != NO_GUESS {
            self.drop_guess();
        }
        let before = self.out.len();
        let pos = if key.is_empty() {
            EMPTY_KEY
        } else {
            self.key_record(key.as_bytes())
        };
        // A record written now is of a string new to the document: not a
        // key this map has already (`EMPTY_KEY`, above every record, is
        // not written).
        if pos < before || pos == EMPTY_KEY {
            self.top.maybe_dup = true;
        }
        self.top.shape_hash = shape_hash_step(self.top.shape_hash, pos);
        self.keys.push(pos);
        Ok(())
    }

    /// Gives up the open map's predicted shape: pushes the keys matched so
    /// far as if they had been looked up one by one.
    #[cold]
    pub(super) fn drop_guess(&mut self) {
        let frame = &mut self.top;
        if frame.guess == NO_GUESS {
            return;
        }
        let shape = self.shapes[frame.guess as usize];
        for shape_key in &self.shape_keys[shape.keys..shape.keys + frame.matched as usize] {
            frame.shape_hash = shape_hash_step(frame.shape_hash, shape_key.record);
            self.keys.push(shape_key.record);
        }
        frame.guess = NO_GUESS;
        frame.matched = 0;
        frame.guess_len = 0;
        frame.guess_keys = NO_KEYS;
    }

    /// Writes the next key of the open map, like [`Encoder::key`], and
    /// returns a [`KeyId`] for writing the same key again in this document
    /// with [`Encoder::key_id`] (without looking its string up).
    pub fn key_with_id(&mut self, key: &str) -> Result<KeyId> {
        self.key(key)?;
        let pos = match &self.top {
            // Matched as the next key of the predicted shape.
            frame if frame.matched > 0 && frame.guess != NO_GUESS => self
                .shape_keys
                .get(frame.guess_keys + frame.matched as usize - 1)
                .map_or(EMPTY_KEY, |shape_key| shape_key.record),
            _ => self.keys.last().copied().unwrap_or(EMPTY_KEY),
        };
        Ok(KeyId {
            pos,
            generation: self.generation,
        })
    }

    /// Writes the next key of the open map: a key of this document, by the
    /// [`KeyId`] that [`Encoder::key_with_id`] returned (a key id of another
    /// document, of this encoder or another, is an
    /// [`ErrorKind::EncoderState`](crate::ErrorKind::EncoderState) error).
    #[inline]
    pub fn key_id(&mut self, id: KeyId) -> Result<()> {
        if id.generation != self.generation {
            return Err(encoder_state_error("key from another document"));
        }
        let frame = &mut self.top;
        if frame.state != MAP_KEY {
            return Err(encoder_state_error(
                "a key outside a map, or two keys in a row",
            ));
        }
        frame.state = MAP_VALUE;
        // Fast path: the next key of the predicted shape, compared by record.
        if frame.matched < frame.guess_len
            && self
                .shape_keys
                .get(frame.guess_keys + frame.matched as usize)
                .is_some_and(|shape_key| shape_key.record == id.pos)
        {
            frame.matched += 1;
            return Ok(());
        }
        if frame.guess != NO_GUESS {
            self.drop_guess();
        }
        self.top.maybe_dup = true;
        self.top.shape_hash = shape_hash_step(self.top.shape_hash, id.pos);
        self.keys.push(id.pos);
        Ok(())
    }
}

/// Equality of `b` with bytes of the document (`None`: none), for up to
/// 16 bytes without a call to `memcmp` (two overlapping loads).
#[inline(always)]
pub(super) fn key_eq(a: Option<&[u8]>, b: &[u8]) -> bool {
    let Some(a) = a else {
        return false;
    };
    let n = b.len();
    if a.len() != n {
        return false;
    }
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => u32_at(a, 0) == u32_at(b, 0) && u32_at(a, n - 4) == u32_at(b, n - 4),
        8..=16 => u64_at(a, 0) == u64_at(b, 0) && u64_at(a, n - 8) == u64_at(b, n - 8),
        _ => a == b,
    }
}

#[cfg(test)]
mod prediction_tests {
    use super::Encoder;

    /// Writes a random value: maps whose keys come from a small set (so
    /// sibling maps share, extend, cut short or repeat keys), nested.
    fn write(e: &mut Encoder, next: &mut impl FnMut() -> u64, depth: usize) {
        const KEYS: [&str; 7] = ["a", "b", "", "name", "a_longer_key_0123", "b", "x"];
        match next() % 6 {
            0 | 1 if depth < 4 => {
                e.begin_map().unwrap();
                let n = next() % 6;
                let base = next() % 3;
                for i in 0..n {
                    // Mostly a fixed order, sometimes a different key.
                    let k = if next() % 5 == 0 {
                        next() % 7
                    } else {
                        (base + i) % 7
                    };
                    e.key(KEYS[k as usize]).unwrap();
                    write(e, next, depth + 1);
                }
                e.end_map().unwrap();
            }
            2 if depth < 4 => {
                e.begin_array().unwrap();
                for _ in 0..next() % 5 {
                    write(e, next, depth + 1);
                }
                e.end_array().unwrap();
            }
            3 => e
                .str(["a", "name", "zz", ""][(next() % 4) as usize])
                .unwrap(),
            // Integers of every inline width, and wider: a map's width
            // may be the references', or an integer's (or records).
            _ => {
                let span = [64, 20_000, 1 << 31, 1 << 40][(next() % 4) as usize];
                e.i64((next() % span) as i64 - (span / 2) as i64).unwrap()
            }
        }
    }

    /// The bytes of `maps` (each a map of key "a", then "b" if given)
    /// in an array, with or without prediction.
    fn sibling_maps(predict: bool, maps: &[(i64, Option<i64>)]) -> Vec<u8> {
        let mut e = Encoder::new();
        e.predict = predict;
        e.begin_array().unwrap();
        for &(a, b) in maps {
            e.begin_map().unwrap();
            e.key("a").unwrap();
            e.i64(a).unwrap();
            if let Some(b) = b {
                e.key("b").unwrap();
                e.i64(b).unwrap();
            }
            e.end_map().unwrap();
        }
        e.end_array().unwrap();
        e.finish().unwrap()
    }

    /// A width guessed from an integer is kept only where the width
    /// search would choose it: not when a narrower width plus an integer
    /// record is as small (9,000 at width 1 and its 3-byte record: 7
    /// bytes, as at width 4), nor when the references need more.
    #[test]
    fn guessed_integer_width_is_the_searched_one() {
        let cases: [&[(i64, Option<i64>)]; 4] = [
            &[(100_000, None), (9_000, None), (100_000, None)],
            &[(100_000, Some(1)), (200_000, Some(2)), (300_000, Some(-3))],
            &[
                (1 << 40, Some(5)),
                (1 << 41, Some(1 << 20)),
                (7, Some(1 << 33)),
            ],
            &[(100_000, None), (40_000, None), (9_000, None), (100, None)],
        ];
        for maps in cases {
            assert_eq!(
                sibling_maps(true, maps),
                sibling_maps(false, maps),
                "{maps:?}"
            );
        }
    }

    /// Predicted shapes (and the slot widths guessed from a shape's last
    /// map) give exactly the bytes of looking every key up.
    #[test]
    fn prediction_changes_no_byte() {
        let mut rng = crate::test_rng::Rng(0x2545_F491_4F6C_DD1D);
        let mut next = move || rng.next();
        let (mut with, mut without) = (Encoder::new(), Encoder::new());
        without.predict = false;
        for _ in 0..3000 {
            let seed = next();
            for e in [&mut with, &mut without] {
                let mut y = crate::test_rng::Rng(seed | 1);
                let mut r = move || y.next();
                e.begin_array().unwrap();
                for _ in 0..r() % 8 {
                    write(e, &mut r, 1);
                }
                e.end_array().unwrap();
            }
            assert_eq!(
                with.finish_reset().unwrap(),
                without.finish_reset().unwrap()
            );
        }
    }
}
