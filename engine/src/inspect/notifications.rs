//! The Events page's feed: the keyspace notifications published lately (the engine keeps the
//! last `notify::FEED_LEN`), after a sequence number, with the `notify-keyspace-events`
//! setting they depend on (empty: nothing is published, and the page offers to turn it on).

use serde::Serialize;
use ts_rs::TS;

use super::Bytes;
use crate::engine::Engine;

/// One keyspace event.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct KeyspaceEventView {
    pub seq: u64,
    /// Engine time (unix ms) when it was published.
    pub at_ms: u64,
    pub db: u32,
    /// Redis's event name (`set`, `expired`, `lpush`, ...).
    pub event: String,
    /// The class letter `notify-keyspace-events` turns it on with (`g`, `$`, `x`, ...).
    pub class: String,
    /// The key (its first 200 bytes).
    pub key: Bytes,
}

/// `GET /api/events/keyspace?since=N`: the events after `since`, oldest first.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct KeyspaceEventsView {
    pub events: Vec<KeyspaceEventView>,
    /// The newest event's `seq` (`since` for the next poll).
    pub last_seq: u64,
    /// `notify-keyspace-events` as CONFIG GET shows it.
    pub flags: String,
}

/// At most this many events per answer (a first poll gets the newest ones).
const MAX_EVENTS: usize = 500;

/// The keyspace events published after `since`.
pub fn keyspace_events(engine: &Engine, since: u64) -> KeyspaceEventsView {
    let events: Vec<KeyspaceEventView> = engine
        .notifier
        .since(since, MAX_EVENTS)
        .into_iter()
        .map(|e| KeyspaceEventView {
            seq: e.seq,
            at_ms: e.at_ms,
            db: e.db as u32,
            event: e.event.to_string(),
            class: e.class.to_string(),
            key: Bytes(e.key),
        })
        .collect();
    let last_seq = events.last().map_or(since, |e| e.seq);
    let flags = engine.config().get("notify-keyspace-events").unwrap_or_default();
    KeyspaceEventsView { events, last_seq, flags }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TestEngine;

    #[test]
    fn the_feed_follows_what_is_published() {
        let mut t = TestEngine::default();
        let off = keyspace_events(&t.engine, 0);
        assert_eq!((off.events.len(), off.flags.as_str()), (0, ""));
        t.run(&["CONFIG", "SET", "notify-keyspace-events", "KEA"]);
        t.run(&["SELECT", "2"]);
        t.run(&["SET", "k", "v"]);
        t.run(&["LPUSH", "l", "x"]);
        let view = keyspace_events(&t.engine, 0);
        assert_eq!(view.flags, "AKE");
        let seen: Vec<(u32, &str, &str)> =
            view.events.iter().map(|e| (e.db, e.event.as_str(), e.class.as_str())).collect();
        assert_eq!(seen, [(2, "set", "$"), (2, "lpush", "l")]);
        assert_eq!(view.events[0].key, Bytes(b"k".to_vec()));
        let later = keyspace_events(&t.engine, view.last_seq);
        assert!(later.events.is_empty());
        assert_eq!(later.last_seq, view.last_seq);
    }
}
