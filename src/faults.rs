//! The guard against a memory-mapped distance table truncated under the process (by another
//! one): reading a mapped page past the file's new end raises SIGBUS, whose default action
//! ends the process (exit 135). One guard for every front end that reads tables in place:
//! `npuzzle serve`'s answers ([`watch`]: a server must go on) and the CLI's `solve --table`,
//! `--heuristic exact` and `sample` ([`guard`]: the run ends with one line).
//!
//! Both register the table's mapped range ([`DistanceTable::mapped`]) and install, once, one
//! SIGBUS handler. For a fault inside a range [`watch`]ed, the handler maps a page of zeros
//! over the faulting page (`mmap(MAP_FIXED | MAP_ANONYMOUS)`) and counts the fault: the read
//! then completes with zeros, and the answer, which looks at [`faults`] after reading (and at
//! the file's length before), is refused instead of given. For a fault inside a range
//! [`guard`]ed, it writes the guard's line on stderr and ends the process with `_exit(1)`. A
//! fault outside every range gets the default action.

use std::sync::Once;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

use crate::table::DistanceTable;

/// The most tables watched or guarded at once (a served folder's tables; a later one is not
/// watched).
pub const SLOTS: usize = 64;

static STARTS: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static LENS: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static FAULTS: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
/// A guarded slot's line (leaked, never freed) and its length; null for a watched slot.
static MESSAGES: [AtomicPtr<u8>; SLOTS] = [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];
static MESSAGE_LENS: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static USED: AtomicUsize = AtomicUsize::new(0);
static PAGE: AtomicUsize = AtomicUsize::new(4096);
static INSTALL: Once = Once::new();

/// Watches `table`'s mapped bytes for faults, each read as zeros and counted; returns its slot
/// for [`faults`], `None` when all [`SLOTS`] are taken. The table must outlive the process's
/// use of it (its range is never released).
pub fn watch(table: &DistanceTable) -> Option<usize> {
    register(table, None)
}

/// Ends the process with `message` on stderr (one line, its newline included) and exit 1 on
/// a fault reading `table`'s mapped bytes, instead of SIGBUS's exit 135. The table must
/// outlive the process's use of it (its range is never released); with all [`SLOTS`] taken,
/// it is not guarded.
pub fn guard(table: &DistanceTable, message: String) {
    register(table, Some(message.into_bytes().leak()));
}

/// How many faults the table of `slot` has had (0: its bytes all read from its file).
pub fn faults(slot: usize) -> usize {
    FAULTS.get(slot).map_or(0, |f| f.load(Ordering::SeqCst))
}

/// Installs the handler (once) and takes a slot for `table`'s range, with `message` for a
/// guarded one.
fn register(table: &DistanceTable, message: Option<&'static mut [u8]>) -> Option<usize> {
    INSTALL.call_once(|| {
        // SAFETY: sysconf is safe to call; a zeroed `sigaction` is a valid empty action; the
        // handler has the signature `sa_sigaction` expects with SA_SIGINFO and does only
        // async-signal-safe things (atomic loads and stores, mmap(2), write(2), _exit and
        // signal(2)).
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
    if let Some(message) = message {
        MESSAGE_LENS[slot].store(message.len(), Ordering::SeqCst);
        MESSAGES[slot].store(message.as_mut_ptr(), Ordering::SeqCst);
    }
    // The range last: the handler takes a slot of length 0 for no table.
    let (start, len) = table.mapped();
    STARTS[slot].store(start, Ordering::SeqCst);
    LENS[slot].store(len, Ordering::SeqCst);
    Some(slot)
}

/// The SIGBUS handler of [`watch`] and [`guard`].
extern "C" fn on_bus_error(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid `siginfo_t` with SA_SIGINFO; a SIGBUS one holds the
    // faulting address.
    let address = unsafe { (*info).si_addr() } as usize;
    let used = USED.load(Ordering::SeqCst).min(SLOTS);
    for slot in 0..used {
        let start = STARTS[slot].load(Ordering::SeqCst);
        let len = LENS[slot].load(Ordering::SeqCst);
        if len > 0 && address >= start && address - start < len {
            let message = MESSAGES[slot].load(Ordering::SeqCst);
            if !message.is_null() {
                let message_len = MESSAGE_LENS[slot].load(Ordering::SeqCst);
                // SAFETY: the message was leaked by `guard` (never freed) and its length
                // stored before its address; write(2) and _exit are async-signal-safe.
                unsafe {
                    libc::write(2, message.cast(), message_len);
                    libc::_exit(1);
                }
            }
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
