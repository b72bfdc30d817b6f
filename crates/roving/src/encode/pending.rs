//! Values complete but not yet placed in their container's slot.

use crate::layout::*;

/// A value that is complete but not yet placed in its container's slot,
/// packed as an 8-byte slot would hold it (low two bits: the slot kind):
/// an inline integer (`v << 2 | SLOT_INT`, `v` in the 8-byte inline range)
/// and a special constant are their slot bits already; a record is its
/// position `<< 2` (kind [`SLOT_REL`]), made relative or absolute when the
/// container is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Pending(pub(super) u64);

/// [`Pending`] unpacked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PendingKind {
    /// Small integer, inline if the container's width allows.
    Int(i64),
    /// Special constant.
    Special,
    /// Record at this position.
    Record(usize),
}

impl Pending {
    /// An integer in the 8-byte inline range.
    #[inline(always)]
    pub(super) fn int(v: i64) -> Pending {
        Pending(((v as u64) << 2) | SLOT_INT)
    }

    #[inline(always)]
    pub(super) fn special(s: u64) -> Pending {
        Pending((s << 2) | SLOT_SPECIAL)
    }

    #[inline(always)]
    pub(super) fn record(pos: usize) -> Pending {
        Pending((pos as u64) << 2)
    }

    /// The position of the record this is, if it is one.
    #[inline(always)]
    pub(super) fn record_pos(self) -> Option<usize> {
        (self.0 & 3 == SLOT_REL).then_some((self.0 >> 2) as usize)
    }

    #[inline(always)]
    pub(super) fn kind(self) -> PendingKind {
        match self.0 & 3 {
            SLOT_INT => PendingKind::Int((self.0 as i64) >> 2),
            SLOT_REL => PendingKind::Record((self.0 >> 2) as usize),
            _ => PendingKind::Special,
        }
    }
}
