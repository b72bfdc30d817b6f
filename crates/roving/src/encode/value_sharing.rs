//! Which value strings the encoder looks up in its string table: the
//! values of a shape's key that have not recurred lately are written
//! without a lookup.
//!
//! Storing each string once costs a hash of the string and a probe of the
//! table, whose entries leave the processor's caches once a document
//! passes a few megabytes. A key whose values never recur (an id, a
//! timestamp, free text) pays that for nothing, and its strings crowd the
//! table's bounded generations so that the strings that do recur are
//! found less far back. So each key of each shape (each [`ShapeKey`]
//! of a predicted shape) keeps a count: after [`WINDOW`] values in a row
//! looked up and not found (or found only farther back than the table's
//! reach, and so written again), the next [`SKIP`] values of that key are
//! written as new records, then it looks again. A key of repeated values
//! (an enum, a country, a URL shared by records) never stops looking up.
//! The format allows equal strings in two records (FORMAT.md section 7);
//! such a key's few repeats are what it costs.
//!
//! [`ShapeKey`]: super::shapes::ShapeKey

/// Values of a key looked up in a row, none of them found, after which it
/// skips.
pub(super) const WINDOW: u16 = 32;

/// Values of a key written without a lookup after [`WINDOW`] in a row were
/// not found (so that a key of unique values looks up one value in 16).
pub(super) const SKIP: u16 = 480;

/// How a shape's key has shared its values lately.
#[derive(Clone, Copy, Debug)]
pub(super) struct Sharing {
    /// Values looked up in a row and not found.
    misses: u16,
    /// Values still to write without a lookup.
    skip: u16,
}

impl Sharing {
    /// The counts of a key not seen yet: it looks its values up.
    pub(super) const NEW: Sharing = Sharing { misses: 0, skip: 0 };

    /// Whether the key's next value is looked up in the string table (when
    /// it is not, this counts it against the skip).
    #[inline(always)]
    pub(super) fn looks_up(&mut self) -> bool {
        if self.skip == 0 {
            return true;
        }
        self.skip -= 1;
        false
    }

    /// Notes a value looked up, and whether the table had it.
    #[inline(always)]
    pub(super) fn note(&mut self, found: bool) {
        if found {
            self.misses = 0;
        } else {
            self.misses += 1;
            if self.misses == WINDOW {
                self.misses = 0;
                self.skip = SKIP;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_without_a_repeat_skips_the_next_values() {
        let mut s = Sharing::NEW;
        for _ in 0..WINDOW {
            assert!(s.looks_up());
            s.note(false);
        }
        for _ in 0..SKIP {
            assert!(!s.looks_up());
        }
        assert!(s.looks_up());
    }

    #[test]
    fn one_repeat_in_each_run_keeps_looking_up() {
        let mut s = Sharing::NEW;
        for round in 0..10 {
            for i in 0..WINDOW {
                assert!(s.looks_up(), "round {round}, value {i}");
                s.note(i == 7);
            }
        }
    }
}
