//! Keyspace notifications (Redis's `notify-keyspace-events`): an event of a class that is on
//! is published on `__keyspace@<db>__:<key>` (message: the event) and on
//! `__keyevent@<db>__:<event>` (message: the key), as K and E say, through pub/sub, and kept
//! in a bounded feed for the dashboard's Events view. While the flags are empty an event
//! costs the one relaxed load that finds them so.

use std::collections::VecDeque;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;

use parking_lot::Mutex;

use crate::config::BufferLimit;
use crate::pubsub::PubSub;
pub use crate::store::events::class;
use crate::store::events::wanted;

/// How many events the dashboard's feed keeps.
pub const FEED_LEN: usize = 1000;
/// Longest key kept in the feed (the channel carries it whole).
const FEED_KEY_MAX: usize = 200;

/// One published event, as the dashboard's feed keeps it.
#[derive(Debug, Clone)]
pub struct FeedEvent {
    /// Increases by one per event, so a reader asks for what came after what it has.
    pub seq: u64,
    pub at_ms: u64,
    pub db: usize,
    pub event: &'static str,
    /// The class letter `notify-keyspace-events` turns it on with.
    pub class: char,
    pub key: Vec<u8>,
}

/// The events published lately, for the dashboard.
#[derive(Default)]
pub struct Notifier {
    /// Held while events are taken from the store's queue and published, so two threads
    /// (a command, the expiry timer) cannot interleave their events or the two channels of
    /// one event: subscribers see one order, as from Redis's single thread. Taken only
    /// when an event is to be published.
    pub order: Mutex<()>,
    feed: Mutex<VecDeque<FeedEvent>>,
    next_seq: AtomicU64,
}

/// The class letter of one `NOTIFY_*` bit.
pub fn class_letter(class: u32) -> char {
    match class {
        class::GENERIC => 'g',
        class::STRING => '$',
        class::LIST => 'l',
        class::SET => 's',
        class::HASH => 'h',
        class::ZSET => 'z',
        class::EXPIRED => 'x',
        class::EVICTED => 'e',
        class::STREAM => 't',
        class::KEY_MISS => 'm',
        class::MODULE => 'd',
        class::NEW => 'n',
        _ => '?',
    }
}

impl Notifier {
    /// Publishes one event under flags `flags` (already read by the caller) and records it.
    #[allow(clippy::too_many_arguments)]
    pub fn publish(
        &self,
        pubsub: &PubSub,
        flags: u32,
        class: u32,
        event: &'static str,
        db: usize,
        key: &[u8],
        limit: BufferLimit,
        now_ms: u64,
    ) {
        if !wanted(flags, class) {
            return;
        }
        let db_text = db.to_string();
        let mut channel = Vec::with_capacity(16 + db_text.len() + key.len().max(event.len()));
        if flags & class::KEYSPACE != 0 {
            channel.extend_from_slice(b"__keyspace@");
            channel.extend_from_slice(db_text.as_bytes());
            channel.extend_from_slice(b"__:");
            channel.extend_from_slice(key);
            pubsub.publish(&channel, event.as_bytes(), limit, now_ms);
        }
        if flags & class::KEYEVENT != 0 {
            channel.clear();
            channel.extend_from_slice(b"__keyevent@");
            channel.extend_from_slice(db_text.as_bytes());
            channel.extend_from_slice(b"__:");
            channel.extend_from_slice(event.as_bytes());
            pubsub.publish(&channel, key, limit, now_ms);
        }
        let seq = self.next_seq.fetch_add(1, Relaxed) + 1;
        let mut feed = self.feed.lock();
        if feed.len() >= FEED_LEN {
            feed.pop_front();
        }
        let key = key[..key.len().min(FEED_KEY_MAX)].to_vec();
        feed.push_back(FeedEvent { seq, at_ms: now_ms, db, event, class: class_letter(class), key });
    }

    /// The recorded events after sequence number `after`, oldest first, at most `limit`
    /// (the newest ones when more are waiting).
    pub fn since(&self, after: u64, limit: usize) -> Vec<FeedEvent> {
        let feed = self.feed.lock();
        let newer = feed.iter().filter(|e| e.seq > after).count();
        feed.iter().skip(feed.len() - newer + newer.saturating_sub(limit)).cloned().collect()
    }

    /// The sequence number of the latest event (0: none yet).
    #[cfg(test)]
    pub fn last_seq(&self) -> u64 {
        self.next_seq.load(Relaxed)
    }
}

#[cfg(test)]
mod tests;
