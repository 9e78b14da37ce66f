//! What a connection holds back instead of running or sending: commands waiting for the
//! client to read its replies or for a wrong password's delay ([`HeldBack`]), and how the
//! output buffer is kept small while partly sent ([`compact`]).

use std::time::Duration;

use tokio::time::Instant;
use vitrine_engine::Session;

use crate::guard::{OutputPolicy, SoftLimitClock};
use crate::now_ms;

use super::connection::READ_CHUNK;

/// When the session's blocked command gives up, on tokio's clock; `None` when nothing is
/// blocked or it waits for ever.
pub(super) fn block_deadline(session: &Session) -> Option<Instant> {
    let at = session.blocked.as_ref()?.deadline_ms?;
    Some(Instant::now() + Duration::from_millis(at.saturating_sub(now_ms())))
}

/// Commands a connection holds back instead of running: the rest of its input after its
/// output reached the limit, during a CLIENT PAUSE, after a blocked command answered, or
/// after a wrong password (and
/// then the delay before anything more is sent or run).
#[derive(Default)]
pub(super) struct HeldBack {
    /// Complete commands may wait in the input buffer: run them before reading more.
    pub(super) commands: bool,
    /// They wait because the unsent replies reached the limit.
    by_output: bool,
    /// The end of a wrong password's delay.
    pub(super) until: Option<Instant>,
    /// `session.auth_failures` when last looked at.
    failures: u32,
}

impl HeldBack {
    /// After `feed_until`: whether it stopped with input left because the output reached its
    /// limit or a password was wrong (a partial command at the end is not held back: it waits
    /// for bytes), and the delay a new wrong password costs.
    pub(super) fn after_feed(&mut self, session: &Session, input_left: bool, output_full: bool) {
        let failed = session.auth_failures != self.failures;
        if failed {
            self.failures = session.auth_failures;
            self.until = Instant::now().checked_add(crate::guard::auth_failure_delay(self.failures));
        }
        self.commands = input_left && session.blocked.is_none() && (output_full || failed || session.paused);
        self.by_output = self.commands && output_full;
    }

    /// Whether `pending` unsent bytes close the connection: at the close limit (checked right
    /// after the replies are made, before any is written, as Redis does), or over the soft
    /// limit for longer than its seconds. Commands held back for want of room count as
    /// reaching the limit they stopped at, as their replies would have in Redis, which
    /// does not pause a client.
    pub(super) fn over_limit(&self, policy: &OutputPolicy, pending: usize, soft_clock: &mut SoftLimitClock) -> bool {
        let demand = if self.by_output { pending.max(policy.stop_at) } else { pending };
        pending >= policy.close_at || soft_clock.exceeded(policy, demand, std::time::Instant::now)
    }

    /// Whether a wrong password's delay is still running.
    pub(super) fn delayed(&mut self) -> bool {
        match self.until {
            Some(at) if Instant::now() < at => true,
            Some(_) => {
                self.until = None;
                false
            }
            None => false,
        }
    }
}

/// Drops the sent bytes at the front of `out` once they are at least half of it, so a buffer
/// refilled while partly sent stays within twice its unsent bytes; the copy costs no more than
/// the bytes already written.
pub(super) fn compact(out: &mut Vec<u8>, sent: &mut usize) {
    if *sent >= READ_CHUNK && *sent * 2 >= out.len() {
        out.drain(..*sent);
        *sent = 0;
    }
}
