//! One-shot encoding ([`encode_document`]) on a thread's spare encoder,
//! whose tables keep their memory from one document to the next.

use super::Encoder;
use crate::error::Result;
use crate::layout::*;

thread_local! {
    /// Each thread's spare encoder for [`encode_document`]: its string and
    /// shape tables keep their memory from one document to the next.
    static SPARE: std::cell::RefCell<Option<Encoder>> = const { std::cell::RefCell::new(None) };
    /// Size of the last document [`encode_document`] made on this thread.
    static LAST_LEN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The output capacity to start a document with after one of `last`
/// bytes: a little more, so that documents of similar size grow no buffer.
pub(super) fn next_capacity(last: usize) -> usize {
    last + last / 8 + 256
}

/// Encodes one document with `write`, on this thread's spare encoder (or a
/// new one when that is in use, e.g. by a nested call). The output buffer
/// starts with `capacity` bytes, or by default a little more than the last
/// document made this way on this thread, so that documents of similar
/// size grow no buffer; a buffer that turns out more than twice too big is
/// shrunk. The output is the same as with a new [`Encoder`].
pub(crate) fn encode_document(
    capacity: Option<usize>,
    max_depth: usize,
    write: impl FnOnce(&mut Encoder) -> Result<()>,
) -> Result<Vec<u8>> {
    let spare = SPARE
        .try_with(|s| s.try_borrow_mut().ok().and_then(|mut s| s.take()))
        .ok()
        .flatten();
    let mut enc = spare.unwrap_or_else(|| Encoder::with_capacity(16));
    let cap =
        capacity.unwrap_or_else(|| next_capacity(LAST_LEN.try_with(|c| c.get()).unwrap_or(0)));
    enc.out = Vec::with_capacity(cap.max(HEADER_LEN));
    enc.out.extend_from_slice(&MAGIC);
    enc.out.push(VERSION_1);
    enc.max_depth = max_depth;
    let done = write(&mut enc).and_then(|()| enc.finish_root());
    enc.unbase();
    let mut doc = std::mem::take(&mut enc.out);
    enc.reset();
    if enc.fits_spare() {
        let _ = SPARE.try_with(|s| {
            if let Ok(mut s) = s.try_borrow_mut() {
                *s = Some(enc);
            }
        });
    }
    done?;
    let _ = LAST_LEN.try_with(|c| c.set(doc.len()));
    if doc.capacity() > 2 * doc.len() + 4096 {
        doc.shrink_to_fit();
    }
    Ok(doc)
}

impl Encoder {
    /// Whether this encoder's memory is small enough to keep as a thread's
    /// spare (see [`encode_document`]).
    fn fits_spare(&self) -> bool {
        const MAX: usize = 1 << 16;
        self.strings.capacity() <= MAX
            && self.shape_index.capacity() <= MAX
            && self.slots.capacity() <= MAX
            && self.keys.capacity() <= MAX
            && self.frames.capacity() <= MAX
            && self.shapes.capacity() <= MAX
            && self.shape_keys.capacity() <= MAX
            && self.depth_guess.capacity() <= MAX
            && self.scratch.capacity() <= MAX
    }
}
