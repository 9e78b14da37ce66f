//! The process's global allocator: jemalloc for everything below 1 MiB, the system allocator
//! (glibc) for larger blocks.
//!
//! Why both: the keyspace is millions of small allocations (one node per key, see the
//! engine's `store::node`), and jemalloc keeps no header beside each (a 64-byte node takes 64
//! bytes, glibc takes 80). But jemalloc grows a large block by copying it, so a receive
//! buffer growing to hold a 24 MiB value briefly holds 16 + 24 MiB; glibc serves large blocks
//! with mmap and grows them with mremap, without a copy. The engine's `alloc_size` models
//! this split. This is the server's only unsafe code, a reviewed exception to the workspace
//! lint, and it only forwards each call to one of the two allocators.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};

use tikv_jemallocator::Jemalloc;

/// Blocks of at least this many bytes come from the system allocator (keep in step with the
/// engine's `store::entry::LARGE_ALLOC`).
const LARGE: usize = vitrine_engine::LARGE_ALLOC;

pub struct Split;

/// Pins glibc's mmap threshold at `LARGE`, so every large block is mmapped (and grown with
/// mremap, and unmapped when freed). Left alone, glibc raises the threshold each time a
/// mapped block is freed, and later large blocks then come from its heap, where they are
/// copied to grow and not given back. Call once, first thing in `main`.
pub fn init() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes a malloc setting; any value is valid for this option.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, LARGE as libc::c_int);
    }
}

/// Gives freed memory back to the system as jemalloc's decay curve allows (pages freed more
/// than its `dirty_decay_ms`, 10 s, ago). jemalloc does this by itself only while the program
/// keeps allocating, so after a FLUSHALL of 632,000 keys (`redis-benchmark -t set -n 1000000
/// -r 1000000 -d 32`) an idle server kept its 57 MB of RSS; the maintenance task calls this
/// once a second. Returns whether jemalloc accepted the request. (jemalloc's background threads would do the
/// same, but on 2 shared CPUs their wake-ups under a write load raised SET p99 at pipeline 16
/// from 1.3 ms to 1.6-2.1 ms.)
pub fn release_freed_memory() -> bool {
    // jemalloc's MALLCTL_ARENAS_ALL: the control applies to every arena.
    every_arena(b"arena.4096.decay\0")
}

/// Gives every dirty page back to the system now, whatever its age (MEMORY PURGE, as Redis
/// purges its jemalloc arenas). Returns whether jemalloc accepted the request.
pub fn purge() -> bool {
    every_arena(b"arena.4096.purge\0")
}

/// Runs a jemalloc arena control that takes and returns nothing; `control` is its name,
/// NUL-terminated.
fn every_arena(control: &'static [u8]) -> bool {
    debug_assert_eq!(control.last(), Some(&0));
    // SAFETY: `arena.<i>.decay` and `.purge` take no value and return none: every pointer is
    // null and the name is a NUL-terminated string, as mallctl requires for such a control.
    let status = unsafe {
        tikv_jemalloc_sys::mallctl(
            control.as_ptr().cast(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            0,
        )
    };
    status == 0
}

/// Bytes the allocators hand the program right now: jemalloc's `stats.allocated` plus glibc's
/// in-use heap and mmapped blocks (INFO's `allocator_allocated`, the dashboard's allocator
/// bytes). 0 for a part that cannot be read.
pub fn allocated_bytes() -> u64 {
    usage().allocated
}

/// The allocators' figures at one moment (INFO's `allocator_allocated`, `_active` and
/// `_resident`): jemalloc's `stats.allocated`, `stats.active` (its pages in use) and
/// `stats.resident` (its pages in RAM), each plus glibc's large blocks, which are mapped
/// and in use as a whole.
#[derive(Debug, Clone, Copy)]
pub struct Usage {
    pub allocated: u64,
    pub active: u64,
    pub resident: u64,
}

pub fn usage() -> Usage {
    use tikv_jemalloc_ctl::stats;
    // jemalloc caches its statistics until the epoch advances.
    let advanced = tikv_jemalloc_ctl::epoch::advance().is_ok();
    let read = |r: tikv_jemalloc_ctl::Result<usize>| if advanced { r.unwrap_or(0) as u64 } else { 0 };
    let system = system_bytes();
    Usage {
        allocated: read(stats::allocated::read()) + system,
        active: read(stats::active::read()) + system,
        resident: read(stats::resident::read()) + system,
    }
}

/// INFO's `mem_allocator`: `jemalloc-5.3.0`, as Redis names its own.
pub fn name() -> String {
    let version = tikv_jemalloc_ctl::version::read().unwrap_or("");
    format!("jemalloc-{}", version.split('-').next().unwrap_or(version))
}

/// jemalloc's statistics report (MEMORY MALLOC-STATS), as `malloc_stats_print` writes it.
pub fn stats_text() -> String {
    unsafe extern "C" fn append(out: *mut std::ffi::c_void, text: *const std::ffi::c_char) {
        // SAFETY: `out` is the `String` passed below, alive for the whole call, and jemalloc
        // hands its callback NUL-terminated text.
        unsafe {
            let out = &mut *out.cast::<String>();
            out.push_str(&std::ffi::CStr::from_ptr(text).to_string_lossy());
        }
    }
    let mut out = String::new();
    // SAFETY: the callback only appends to `out`, which outlives the call; a null options
    // string asks for the default report.
    unsafe {
        tikv_jemalloc_sys::malloc_stats_print(Some(append), (&mut out as *mut String).cast(), std::ptr::null());
    }
    out
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn system_bytes() -> u64 {
    // SAFETY: mallinfo2 only reads glibc's malloc statistics; it has no preconditions.
    let info = unsafe { libc::mallinfo2() };
    (info.uordblks + info.hblkhd) as u64
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn system_bytes() -> u64 {
    0
}

fn large(size: usize) -> bool {
    size >= LARGE
}

// SAFETY: every block is freed or resized by the allocator that made it, which is decided by
// its size alone (the layout Rust passes back is the one it was allocated or last resized
// with); a block that crosses the threshold on realloc is moved by alloc + copy + dealloc.
unsafe impl GlobalAlloc for Split {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees (non-zero size).
        unsafe {
            if large(layout.size()) {
                System.alloc(layout)
            } else {
                Jemalloc.alloc(layout)
            }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        unsafe {
            if large(layout.size()) {
                System.alloc_zeroed(layout)
            } else {
                Jemalloc.alloc_zeroed(layout)
            }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from the allocator its size selects (see the impl's comment).
        unsafe {
            if large(layout.size()) {
                System.dealloc(ptr, layout)
            } else {
                Jemalloc.dealloc(ptr, layout)
            }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees `ptr` is live with `layout` and `new_size` is valid
        // for its alignment. Same side: that allocator resizes it. Crossing: a fresh block
        // from the other side, the common prefix copied, the old block freed by its own.
        unsafe {
            match (large(layout.size()), large(new_size)) {
                (true, true) => System.realloc(ptr, layout, new_size),
                (false, false) => Jemalloc.realloc(ptr, layout, new_size),
                _ => {
                    let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
                    let new = self.alloc(new_layout);
                    if !new.is_null() {
                        std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                        self.dealloc(ptr, layout);
                    }
                    new
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_decay_control_is_accepted() {
        let blocks: Vec<Vec<u8>> = (0..1000).map(|i| vec![i as u8; 4096]).collect();
        drop(blocks);
        assert!(super::release_freed_memory(), "jemalloc refused arena.4096.decay");
    }

    #[test]
    fn purge_is_accepted_and_the_report_is_jemallocs() {
        assert!(super::purge(), "jemalloc refused arena.4096.purge");
        let text = super::stats_text();
        assert!(text.starts_with("___ Begin jemalloc statistics ___"), "{}", &text[..text.len().min(200)]);
        assert!(text.contains("End jemalloc statistics"));
        assert!(super::name().starts_with("jemalloc-5."), "{}", super::name());
        let u = super::usage();
        assert!(u.allocated > 0 && u.active >= u.allocated / 2 && u.resident >= u.active / 2, "{u:?}");
    }

    #[test]
    fn allocated_bytes_count_both_allocators() {
        let before = super::allocated_bytes();
        assert!(before > 0);
        let large = vec![7u8; 4 * super::LARGE]; // glibc
        let small: Vec<Vec<u8>> = (0..256).map(|i| vec![i as u8; 16 * 1024]).collect(); // jemalloc
        let during = super::allocated_bytes();
        // Other test threads allocate too; ours alone add 8 MiB.
        assert!(during >= before + (4 * super::LARGE + 256 * 16 * 1024) as u64 / 2, "{before} -> {during}");
        drop((large, small));
    }

    #[test]
    fn blocks_cross_the_threshold_intact() {
        let mut v: Vec<u8> = (0..=255).cycle().take(super::LARGE - 10).collect();
        v.extend((0..=255u8).cycle().take(100)); // grows past the threshold: moved to System
        assert!(v.iter().take(super::LARGE - 10).copied().eq((0..=255).cycle().take(super::LARGE - 10)));
        v.truncate(100);
        v.shrink_to_fit(); // back below it: moved to jemalloc
        assert!(v.iter().copied().eq(0..100));
    }
}
