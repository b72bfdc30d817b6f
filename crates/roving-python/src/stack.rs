//! Stack guard for the recursive conversions: besides the depth limit,
//! every level checks that enough of the current thread's stack remains,
//! so deep data gives a clean error even on threads with small stacks.

use std::cell::Cell;

/// Stack kept free below the deepest level we allow (for CPython calls,
/// error handling and the release of partial results).
const RESERVE: usize = 256 * 1024;
/// Stack assumed available when the platform cannot tell us.
const FALLBACK: usize = 1024 * 1024;

thread_local! {
    static LIMIT: Cell<usize> = const { Cell::new(0) };
}

/// The current stack pointer (approximately: the address of a local).
#[inline(always)]
pub(crate) fn sp() -> usize {
    let x = 0u8;
    std::hint::black_box(&x) as *const u8 as usize
}

/// The lowest stack address this thread may recurse down to.
pub(crate) fn limit() -> usize {
    LIMIT.with(|l| {
        let v = l.get();
        if v != 0 {
            return v;
        }
        let here = sp();
        let low = match stack_low() {
            Some(low) if low < here && here - low > RESERVE => low + RESERVE,
            Some(low) if low < here => here,
            _ => here.saturating_sub(FALLBACK),
        };
        l.set(low);
        low
    })
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn stack_low() -> Option<usize> {
    // SAFETY: standard pthread calls on the current thread with a zeroed,
    // initialised-by-pthread_getattr_np attribute object, destroyed after use.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
            return None;
        }
        let mut addr: *mut libc::c_void = std::ptr::null_mut();
        let mut size: libc::size_t = 0;
        let rc = libc::pthread_attr_getstack(&attr, &mut addr, &mut size);
        libc::pthread_attr_destroy(&mut attr);
        (rc == 0 && !addr.is_null()).then_some(addr as usize)
    }
}

#[cfg(target_os = "macos")]
fn stack_low() -> Option<usize> {
    // SAFETY: these functions only read the current thread's description.
    unsafe {
        let t = libc::pthread_self();
        let top = libc::pthread_get_stackaddr_np(t) as usize;
        let size = libc::pthread_get_stacksize_np(t);
        top.checked_sub(size)
    }
}

#[cfg(not(any(target_os = "linux", target_os = "android", target_os = "macos")))]
fn stack_low() -> Option<usize> {
    None
}
