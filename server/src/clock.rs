//! The monotonic clock the server lends the engine to time commands (see the engine's
//! `Clock`): microseconds since the server started, from `std::time::Instant` (the vDSO's
//! `clock_gettime(CLOCK_MONOTONIC)` on Linux, some 20 ns a reading; two readings per command
//! do not show at pipeline 16). The `quanta` crate's TSC clock would be cheaper still, but
//! it was not available to this build, and `Instant` needs no calibration thread.

use std::sync::Arc;
use std::time::Instant;

use vitrine_engine::{Clock, Engine};

pub struct MonotonicClock {
    start: Instant,
}

impl Clock for MonotonicClock {
    fn now_us(&self) -> u64 {
        self.start.elapsed().as_micros() as u64
    }
}

/// Lends `engine` the server's clock, so its commands are timed.
pub fn lend_clock(engine: &Engine) {
    engine.set_clock(Arc::new(MonotonicClock { start: Instant::now() }));
}
