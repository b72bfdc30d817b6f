//! A cache hint for the objects `dumps` reads next.
//!
//! Walking a large document's Python objects costs a cache miss per object
//! once they outgrow the cache (their headers are scattered through the
//! heap). Asking for the next items a few steps ahead overlaps those misses
//! with the work on the current one: the walk of lists and dicts does.

/// How many items ahead of the current one a list or dict walk asks for.
pub(crate) const AHEAD: usize = 2;

/// Asks the processor to load the cache line at `p` (a hint: no fault and
/// no effect on the program's state, whatever the address).
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    // SAFETY: SSE is part of every x86_64 target (its baseline); a
    // prefetch reads no memory the program sees and cannot fault.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
