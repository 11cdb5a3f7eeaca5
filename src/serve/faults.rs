//! A served table whose file is truncated under the server (by another process) must give an
//! error answer, not kill the server: reading a mapped page past the file's new end raises
//! SIGBUS, whose default action ends the process (exit 135).
//!
//! [`watch`] registers a table's mapped range and installs, once, a SIGBUS handler that, for a
//! fault inside a registered range, maps a page of zeros over the faulting page
//! (`mmap(MAP_FIXED | MAP_ANONYMOUS)`) and counts the fault: the read then completes with
//! zeros, and the answer, which looks at [`faults`] after reading (and at the file's length
//! before), is refused instead of given. A fault outside every range gets the default action.
//! (The CLI's `solve --table` guard ends the run instead; a server must go on.)

use std::sync::Once;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::table::DistanceTable;

/// The most tables watched at once (a served folder's tables; a later one is not watched).
pub const SLOTS: usize = 64;

static STARTS: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static LENS: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static FAULTS: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static USED: AtomicUsize = AtomicUsize::new(0);
static PAGE: AtomicUsize = AtomicUsize::new(4096);
static INSTALL: Once = Once::new();

/// Watches `table`'s mapped bytes for faults; returns its slot for [`faults`], `None` when all
/// [`SLOTS`] are taken. The table must outlive the server (its range is never released).
pub fn watch(table: &DistanceTable) -> Option<usize> {
    INSTALL.call_once(|| {
        // SAFETY: sysconf is safe to call; a zeroed `sigaction` is a valid empty action; the
        // handler has the signature `sa_sigaction` expects with SA_SIGINFO and does only
        // atomic loads and stores and the mmap(2) and signal(2) system calls.
        unsafe {
            let page = libc::sysconf(libc::_SC_PAGESIZE);
            if page > 0 {
                PAGE.store(page as usize, Ordering::SeqCst);
            }
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_bus_error
                as extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void)
                as usize;
            action.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
        }
    });
    let slot = USED.fetch_add(1, Ordering::SeqCst);
    if slot >= SLOTS {
        return None;
    }
    let (start, len) = table.mapped();
    STARTS[slot].store(start, Ordering::SeqCst);
    LENS[slot].store(len, Ordering::SeqCst);
    Some(slot)
}

/// How many faults the table of `slot` has had (0: its bytes all read from its file).
pub fn faults(slot: usize) -> usize {
    FAULTS.get(slot).map_or(0, |f| f.load(Ordering::SeqCst))
}

/// The SIGBUS handler of [`watch`].
extern "C" fn on_bus_error(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid `siginfo_t` with SA_SIGINFO; a SIGBUS one holds the
    // faulting address.
    let address = unsafe { (*info).si_addr() } as usize;
    let used = USED.load(Ordering::SeqCst).min(SLOTS);
    for slot in 0..used {
        let start = STARTS[slot].load(Ordering::SeqCst);
        let len = LENS[slot].load(Ordering::SeqCst);
        if len > 0 && address >= start && address - start < len {
            let page = PAGE.load(Ordering::SeqCst);
            let at = address & !(page - 1);
            // SAFETY: the page lies in the table's read-only mapping, which nothing writes;
            // replacing it by zeros only changes what later reads of it see.
            let mapped = unsafe {
                libc::mmap(
                    at as *mut libc::c_void,
                    page,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if mapped != libc::MAP_FAILED {
                FAULTS[slot].fetch_add(1, Ordering::SeqCst);
                return;
            }
            break;
        }
    }
    // Not a table's: the default action, once the faulting access runs again.
    // SAFETY: signal(2) is async-signal-safe.
    unsafe { libc::signal(libc::SIGBUS, libc::SIG_DFL) };
}
