//! The host's monotonic clock, in microseconds. The engine keeps no clock of its own
//! (DESIGN.md: time is a parameter); command durations (INFO commandstats, the slow log,
//! latency histograms) need one, so the host lends it: the server a cheap process-relative
//! timer, the playground `performance.now()`, tests a clock they advance by hand. Without
//! one every duration is 0 and timing is off. A leaf: dispatch and stats both read it.

/// A monotonic clock: microseconds since any fixed origin. Read twice per command, so it
/// must be cheap (tens of nanoseconds).
pub trait Clock: Send + Sync {
    fn now_us(&self) -> u64;
}
