//! `ACL LOG`: refused commands, keys, channels and failed logins, newest first, a repeat
//! within 60 s folded into the entry it repeats (Redis 7.0's `addACLLogEntry`).

use std::collections::VecDeque;

/// A repeat this close (ms) to the entry it matches is counted in it, not logged anew.
const GROUPING_MS: u64 = 60_000;
/// How many of the newest entries a new event is compared with (Redis bounds the work).
const SCAN: usize = 10;

/// What was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LogReason {
    Command,
    Key,
    Channel,
    Auth,
}

impl LogReason {
    /// `ACL LOG`'s `reason` field.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            LogReason::Command => "command",
            LogReason::Key => "key",
            LogReason::Channel => "channel",
            LogReason::Auth => "auth",
        }
    }
}

/// Where it was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LogContext {
    TopLevel,
    Multi,
    Lua,
}

impl LogContext {
    /// `ACL LOG`'s `context` field.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            LogContext::TopLevel => "toplevel",
            LogContext::Multi => "multi",
            LogContext::Lua => "lua",
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct LogEntry {
    pub entry_id: u64,
    pub count: u64,
    pub reason: LogReason,
    pub context: LogContext,
    /// The command's full name, the key, the channel, or (auth) argv[0] as typed.
    pub object: Vec<u8>,
    pub username: Vec<u8>,
    pub created_ms: u64,
    /// The last time the event happened (Redis 7.0's `ctime`: `age-seconds` counts from it).
    pub updated_ms: u64,
    /// The CLIENT INFO line of the client refused (without its newline).
    pub client_info: String,
}

impl LogEntry {
    /// `age-seconds` at `now_ms`, as Redis computes it.
    pub(crate) fn age_seconds(&self, now_ms: u64) -> f64 {
        now_ms.saturating_sub(self.updated_ms) as f64 / 1000.0
    }
}

/// One event to log: everything but the times and the count.
pub(crate) struct Event {
    pub reason: LogReason,
    pub context: LogContext,
    pub object: Vec<u8>,
    pub username: Vec<u8>,
    pub client_info: String,
}

#[derive(Default)]
pub(crate) struct AclLog {
    /// Newest first.
    pub entries: VecDeque<LogEntry>,
    pub next_id: u64,
}

impl AclLog {
    /// Logs `event` at `now_ms`: folded into one of the 10 newest entries with the same
    /// reason, context, object and user seen within 60 s (count + 1, its time and client
    /// updated, moved to the head), else added at the head, the oldest dropped past `max_len`.
    pub(crate) fn record(&mut self, event: Event, now_ms: u64, max_len: usize) {
        let same = |e: &LogEntry| {
            e.reason == event.reason
                && e.context == event.context
                && e.updated_ms.abs_diff(now_ms) <= GROUPING_MS
                && e.object == event.object
                && e.username == event.username
        };
        if let Some(at) = self.entries.iter().take(SCAN).position(same) {
            let Some(mut entry) = self.entries.remove(at) else { return };
            entry.count += 1;
            entry.updated_ms = now_ms;
            entry.client_info = event.client_info;
            self.entries.push_front(entry);
            return;
        }
        self.entries.push_front(LogEntry {
            entry_id: self.next_id,
            count: 1,
            reason: event.reason,
            context: event.context,
            object: event.object,
            username: event.username,
            created_ms: now_ms,
            updated_ms: now_ms,
            client_info: event.client_info,
        });
        self.next_id += 1;
        self.entries.truncate(max_len);
    }

    /// The `count` newest entries, newest first.
    pub(crate) fn entries(&self, count: usize) -> Vec<LogEntry> {
        self.entries.iter().take(count).cloned().collect()
    }

    /// `ACL LOG RESET`.
    pub(crate) fn reset(&mut self) {
        self.entries.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(reason: LogReason, object: &str, client: &str) -> Event {
        Event {
            reason,
            context: LogContext::TopLevel,
            object: object.as_bytes().to_vec(),
            username: b"u".to_vec(),
            client_info: client.into(),
        }
    }

    fn objects(log: &AclLog) -> Vec<(String, u64)> {
        log.entries(100).iter().map(|e| (String::from_utf8_lossy(&e.object).into_owned(), e.count)).collect()
    }

    #[test]
    fn repeats_fold_into_their_entry_and_move_to_the_head() {
        let mut log = AclLog::default();
        log.record(event(LogReason::Command, "get", "c1"), 1_000, 128);
        log.record(event(LogReason::Key, "k", "c1"), 2_000, 128);
        log.record(event(LogReason::Command, "get", "c2"), 3_000, 128);
        assert_eq!(objects(&log), vec![("get".into(), 2), ("k".into(), 1)]);
        let head = &log.entries(1)[0];
        assert_eq!((head.client_info.as_str(), head.created_ms, head.updated_ms), ("c2", 1_000, 3_000));
        assert_eq!(head.age_seconds(4_500), 1.5);
        // The window counts from the last repeat: 60 s after it is still the same entry.
        log.record(event(LogReason::Command, "get", "c2"), 63_000, 128);
        assert_eq!(log.entries(1)[0].count, 3);
        // Past 60 s it is a new one.
        log.record(event(LogReason::Command, "get", "c2"), 123_001, 128);
        assert_eq!(objects(&log), vec![("get".into(), 1), ("get".into(), 3), ("k".into(), 1)]);
        // Another reason with the same object is another entry.
        log.record(event(LogReason::Key, "get", "c2"), 123_002, 128);
        assert_eq!(log.entries(100).len(), 4);
    }

    #[test]
    fn only_the_ten_newest_are_searched_and_the_length_is_bounded() {
        let mut log = AclLog::default();
        log.record(event(LogReason::Key, "old", "c"), 0, 128);
        for i in 0..10 {
            log.record(event(LogReason::Key, &format!("k{i}"), "c"), 1, 128);
        }
        log.record(event(LogReason::Key, "old", "c"), 2, 128);
        assert_eq!(log.entries(100).len(), 12, "the 11th entry is not looked at");
        for i in 0..200 {
            log.record(event(LogReason::Key, &format!("n{i}"), "c"), 3, 5);
        }
        assert_eq!(log.entries(100).len(), 5);
        assert_eq!(log.entries(1)[0].object, b"n199");
        assert!(log.entries(1)[0].entry_id > log.entries(2)[1].entry_id);
        log.reset();
        assert!(log.entries(10).is_empty());
    }
}
