//! Striped event counters: each thread adds to its own cache line and a read sums them, so
//! counters bumped on every command (the store's hits and misses, dispatch's calls) cost no
//! contended atomic. A leaf: the store and stats both count with it.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering, Ordering::Relaxed};

/// How many stripes a [`Counter`] has: more than the threads that bump counters on a
/// typical machine (one event loop per core, the admin runtime, the AOF writer), so two
/// busy threads rarely share one.
pub(crate) const STRIPES: usize = 16;

std::thread_local! {
    /// This thread's stripe, handed out in turn the first time a thread bumps a counter.
    static STRIPE: usize = {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        NEXT.fetch_add(1, Relaxed) % STRIPES
    };
}

pub(crate) fn stripe() -> usize {
    STRIPE.with(|s| *s)
}

/// One atomic alone on its cache line (64 bytes; 128 keeps adjacent-line prefetch apart).
#[repr(align(128))]
#[derive(Default)]
struct Padded(AtomicU64);

/// An event counter bumped by many threads at once. One shared atomic would move its cache
/// line between cores on every bump (a contended read-modify-write costs tens to hundreds of
/// ns; several of them per command showed in profiles of pipelined GET/SET across two event
/// loops), so each thread adds to its own stripe and a read sums the stripes.
///
/// `fetch_add` and `load` have `AtomicU64`'s shape so counters read like the atomics they
/// replace; the ordering is always relaxed.
#[derive(Default)]
pub struct Counter {
    stripes: [Padded; STRIPES],
}

impl Counter {
    pub fn fetch_add(&self, n: u64, _: Ordering) {
        self.stripes[stripe()].0.fetch_add(n, Relaxed);
    }

    /// The sum of the stripes.
    pub fn load(&self, _: Ordering) -> u64 {
        self.stripes.iter().fold(0u64, |sum, s| sum.wrapping_add(s.0.load(Relaxed)))
    }

    pub fn reset(&self) {
        for s in &self.stripes {
            s.0.store(0, Relaxed);
        }
    }
}
