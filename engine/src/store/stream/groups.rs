//! A stream's consumer groups (XGROUP, XREADGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM, XINFO):
//! groups by name, each with its last-delivered ID, its entries-read counter (for the lag),
//! its pending entries list (PEL: ID -> owner, delivery time, delivery count, in ID order)
//! and its consumers (name -> seen time, active time, own pending IDs), as Redis 7.2 keeps
//! them.
//!
//! Accounting: `heap_bytes` is O(1), a running total every mutation keeps up to date. The
//! trees are B-trees whose nodes the allocator holds; an element is charged its key and value
//! twice over (a node appended to in ID order is about half full, as XREADGROUP fills a PEL),
//! plus the allocations it owns (names). Each charge is a function of the element alone, so
//! removing what was added gives back exactly what it took.

use std::collections::{BTreeMap, BTreeSet};
use std::mem::size_of;
use std::sync::Arc;

use super::id::StreamId;
use super::Stream;
use crate::store::entry::alloc_size;

/// A pending entry: delivered to `consumer` and not yet acknowledged.
#[derive(Debug, Clone, PartialEq)]
pub struct Nack {
    /// The owner's name (shared with its `Consumer`).
    pub consumer: Arc<[u8]>,
    /// When it was last delivered (unix ms).
    pub delivery_time: u64,
    /// How many times it was delivered.
    pub delivery_count: u64,
}

/// One consumer of a group.
#[derive(Debug, Clone, PartialEq)]
pub struct Consumer {
    pub name: Arc<[u8]>,
    /// When it last did anything (read, claim): XINFO CONSUMERS's `idle`.
    pub seen_time: u64,
    /// When it last got an entry (Redis 7.2's `active-time`); `None` until then.
    pub active_time: Option<u64>,
    /// The IDs it owns in the group's PEL.
    pub pel: BTreeSet<StreamId>,
}

/// One consumer group.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// The last ID delivered with `>`.
    pub last_id: StreamId,
    /// Entries the group has read (its logical position); `None` when unknown (Redis's
    /// `SCG_INVALID_ENTRIES_READ`, XINFO's nil).
    pub entries_read: Option<u64>,
    pel: BTreeMap<StreamId, Nack>,
    consumers: BTreeMap<Arc<[u8]>, Consumer>,
    /// Accounted heap bytes of the PELs and consumers.
    bytes: usize,
}

/// Charge of one group PEL element.
const NACK_BYTES: usize = 2 * (size_of::<StreamId>() + size_of::<Nack>());
/// Charge of one consumer PEL element.
const CONSUMER_PEL_BYTES: usize = 2 * size_of::<StreamId>();
/// Charge of one group in the groups' tree (its name is charged apart).
const GROUP_BYTES: usize = 2 * (size_of::<Box<[u8]>>() + size_of::<Group>());

/// Charge of a consumer with `name`, without its PEL.
fn consumer_bytes(name: &[u8]) -> usize {
    // An `Arc<[u8]>` allocates its two counters and the bytes in one block.
    2 * (size_of::<Arc<[u8]>>() + size_of::<Consumer>()) + alloc_size(2 * size_of::<usize>() + name.len())
}

/// What the group computations need to know of their stream (Redis reads them off `stream`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamFacts {
    pub len: u64,
    pub entries_added: u64,
    pub last_id: StreamId,
    /// The first live entry's ID (0-0 when empty).
    pub first_id: StreamId,
    pub max_deleted_id: StreamId,
}

impl Stream {
    /// What its groups' counters are computed from.
    pub fn facts(&self) -> StreamFacts {
        StreamFacts {
            len: self.len(),
            entries_added: self.entries_added(),
            last_id: self.last_id(),
            first_id: self.first_id(),
            max_deleted_id: self.max_deleted_id(),
        }
    }
}

impl StreamFacts {
    /// Whether an XDEL'd ID lies in `start..=end` among the live entries (Redis's
    /// `streamRangeHasTombstones`): then counting entries by position is not possible.
    pub fn has_tombstones(&self, start: StreamId, end: StreamId) -> bool {
        let zero = StreamId::default();
        if self.len == 0 || self.max_deleted_id == zero || self.first_id > self.max_deleted_id {
            return false;
        }
        start <= self.max_deleted_id && self.max_deleted_id <= end
    }

    /// The entries-read counter an ID stands for, when it can be known (Redis's
    /// `streamEstimateDistanceFromFirstEverEntry`).
    pub fn entries_read_at(&self, id: StreamId) -> Option<u64> {
        if self.entries_added == 0 {
            return Some(0);
        }
        if self.len == 0 && id <= self.last_id {
            return Some(self.entries_added);
        }
        match id.cmp(&self.last_id) {
            std::cmp::Ordering::Equal => return Some(self.entries_added),
            std::cmp::Ordering::Greater => return None,
            std::cmp::Ordering::Less => {}
        }
        let zero = StreamId::default();
        if self.max_deleted_id == zero || self.max_deleted_id < self.first_id {
            match id.cmp(&self.first_id) {
                std::cmp::Ordering::Less => return Some(self.entries_added - self.len),
                std::cmp::Ordering::Equal => return Some(self.entries_added - self.len + 1),
                std::cmp::Ordering::Greater => {}
            }
        }
        None
    }
}

impl Group {
    fn new(last_id: StreamId, entries_read: Option<u64>) -> Group {
        Group { last_id, entries_read, pel: BTreeMap::new(), consumers: BTreeMap::new(), bytes: 0 }
    }

    /// The pending entries, in ID order.
    pub fn pel(&self) -> &BTreeMap<StreamId, Nack> {
        &self.pel
    }

    /// The consumers, in name order.
    pub fn consumers(&self) -> &BTreeMap<Arc<[u8]>, Consumer> {
        &self.consumers
    }

    pub fn consumer(&self, name: &[u8]) -> Option<&Consumer> {
        self.consumers.get(name)
    }

    /// A consumer, for a change of its times (its PEL changes through the group).
    pub fn consumer_mut(&mut self, name: &[u8]) -> Option<&mut Consumer> {
        self.consumers.get_mut(name)
    }

    /// The group's lag: entries in the stream not yet delivered, or `None` when it cannot be
    /// known (Redis 7.2's `streamReplyWithCGLag`).
    pub fn lag(&self, s: &StreamFacts) -> Option<u64> {
        if s.entries_added == 0 {
            return Some(0);
        }
        if let Some(read) = self.entries_read {
            if !s.has_tombstones(self.last_id, super::id::MAX_ID) {
                return Some(s.entries_added.saturating_sub(read));
            }
        }
        s.entries_read_at(self.last_id).map(|read| s.entries_added.saturating_sub(read))
    }

    /// Creates consumer `name` seen at `now` unless it exists; true when created.
    pub fn create_consumer(&mut self, name: &[u8], now: u64) -> bool {
        if self.consumers.contains_key(name) {
            return false;
        }
        let name: Arc<[u8]> = Arc::from(name);
        self.bytes += consumer_bytes(&name);
        let c = Consumer { name: name.clone(), seen_time: now, active_time: None, pel: BTreeSet::new() };
        self.consumers.insert(name, c);
        true
    }

    /// Consumer `name`, created when missing, marked seen at `now`.
    pub fn touch_consumer(&mut self, name: &[u8], now: u64) -> &mut Consumer {
        self.create_consumer(name, now);
        let c = self.consumers.get_mut(name).expect("just ensured");
        c.seen_time = now;
        c
    }

    /// Deletes consumer `name` and its pending entries; answers how many it had, `None`
    /// when there is no such consumer.
    pub fn delete_consumer(&mut self, name: &[u8]) -> Option<usize> {
        let c = self.consumers.remove(name)?;
        for id in &c.pel {
            self.pel.remove(id);
        }
        let pending = c.pel.len();
        self.bytes -= consumer_bytes(&c.name) + pending * (NACK_BYTES + CONSUMER_PEL_BYTES);
        Some(pending)
    }

    /// Gives pending entry `id` to `consumer` (which must exist), creating it when missing,
    /// with `delivery_time` and `delivery_count`. Answers the entry.
    pub fn assign(&mut self, id: StreamId, consumer: &[u8], delivery_time: u64, delivery_count: u64) -> &Nack {
        let owner = self.consumers.get(consumer).map(|c| c.name.clone()).expect("consumer exists");
        match self.pel.get_mut(&id) {
            Some(nack) => {
                if nack.consumer != owner {
                    if let Some(old) = self.consumers.get_mut(&nack.consumer) {
                        old.pel.remove(&id);
                    }
                    if let Some(new) = self.consumers.get_mut(&owner) {
                        new.pel.insert(id);
                    }
                    nack.consumer = owner;
                }
                nack.delivery_time = delivery_time;
                nack.delivery_count = delivery_count;
            }
            None => {
                self.pel.insert(id, Nack { consumer: owner.clone(), delivery_time, delivery_count });
                if let Some(c) = self.consumers.get_mut(&owner) {
                    c.pel.insert(id);
                }
                self.bytes += NACK_BYTES + CONSUMER_PEL_BYTES;
            }
        }
        &self.pel[&id]
    }

    /// Acknowledges `id`: true when it was pending.
    pub fn ack(&mut self, id: StreamId) -> bool {
        let Some(nack) = self.pel.remove(&id) else { return false };
        if let Some(c) = self.consumers.get_mut(&nack.consumer) {
            c.pel.remove(&id);
        }
        self.bytes -= NACK_BYTES + CONSUMER_PEL_BYTES;
        true
    }

    /// The pending entry `id`, for a change of its time or count (not of its owner).
    pub fn nack_mut(&mut self, id: StreamId) -> Option<&mut Nack> {
        self.pel.get_mut(&id)
    }

    /// Moves the group past `id`, delivered with `>` (Redis's `streamReplyWithRange`): the
    /// last ID, and the entries-read counter kept or re-estimated.
    pub fn advance(&mut self, id: StreamId, s: &StreamFacts) {
        if id <= self.last_id {
            return;
        }
        match self.entries_read {
            Some(n) if !s.has_tombstones(id, super::id::MAX_ID) => self.entries_read = Some(n + 1),
            _ if s.entries_added > 0 => self.entries_read = s.entries_read_at(id),
            _ => {}
        }
        self.last_id = id;
    }
}

/// The consumer groups of one stream.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StreamGroups {
    groups: BTreeMap<Box<[u8]>, Group>,
    /// Accounted heap bytes of everything above.
    bytes: usize,
}

impl StreamGroups {
    /// Heap bytes the groups hold (the stream adds this to its own accounting).
    pub fn heap_bytes(&self) -> usize {
        self.bytes
    }

    pub fn len(&self) -> usize {
        self.groups.len()
    }

    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// The groups, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &Group)> {
        self.groups.iter().map(|(k, g)| (&**k, g))
    }

    pub fn get(&self, name: &[u8]) -> Option<&Group> {
        self.groups.get(name)
    }

    /// Creates group `name`; false when it exists (BUSYGROUP).
    pub fn create(&mut self, name: &[u8], last_id: StreamId, entries_read: Option<u64>) -> bool {
        if self.groups.contains_key(name) {
            return false;
        }
        self.groups.insert(name.into(), Group::new(last_id, entries_read));
        self.bytes += GROUP_BYTES + alloc_size(name.len());
        true
    }

    /// Destroys group `name`; false when there is none.
    pub fn destroy(&mut self, name: &[u8]) -> bool {
        let Some(g) = self.groups.remove(name) else { return false };
        self.bytes -= GROUP_BYTES + alloc_size(name.len()) + g.bytes;
        true
    }

    /// Runs `f` on group `name` (`None` when there is none), keeping the accounting.
    pub fn modify<R>(&mut self, name: &[u8], f: impl FnOnce(&mut Group) -> R) -> Option<R> {
        let g = self.groups.get_mut(name)?;
        let before = g.bytes;
        let r = f(g);
        self.bytes = self.bytes - before + g.bytes;
        Some(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(ms: u64) -> StreamId {
        StreamId::new(ms, 0)
    }

    #[test]
    fn accounting_returns_to_baseline() {
        let mut gs = StreamGroups::default();
        assert_eq!(gs.heap_bytes(), 0);
        assert!(gs.create(b"g", id(0), None));
        assert!(!gs.create(b"g", id(0), None));
        let base = gs.heap_bytes();
        assert!(base > 0);
        gs.modify(b"g", |g| {
            g.create_consumer(b"alice", 1);
            for ms in 1..=100 {
                g.assign(id(ms), b"alice", 5, 1);
            }
        });
        let full = gs.heap_bytes();
        assert!(full > base + 100 * NACK_BYTES);
        gs.modify(b"g", |g| {
            g.create_consumer(b"bob", 1);
            // Reassigning moves, it does not add.
            g.assign(id(7), b"bob", 6, 2);
        });
        assert_eq!(gs.heap_bytes(), full + consumer_bytes(b"bob"));
        gs.modify(b"g", |g| {
            for ms in 1..=100 {
                assert!(g.ack(id(ms)));
            }
            assert!(!g.ack(id(1)));
            assert_eq!(g.delete_consumer(b"bob"), Some(0));
            assert_eq!(g.delete_consumer(b"alice"), Some(0));
        });
        assert_eq!(gs.heap_bytes(), base);
        gs.modify(b"g", |g| {
            g.create_consumer(b"c", 1);
            g.assign(id(1), b"c", 1, 1);
        });
        assert!(gs.destroy(b"g"));
        assert_eq!(gs.heap_bytes(), 0);
    }

    #[test]
    fn reassigning_moves_between_consumer_pels() {
        let mut gs = StreamGroups::default();
        gs.create(b"g", id(0), Some(0));
        gs.modify(b"g", |g| {
            g.create_consumer(b"a", 0);
            g.create_consumer(b"b", 0);
            g.assign(id(1), b"a", 10, 1);
            g.assign(id(2), b"a", 10, 1);
            g.assign(id(1), b"b", 20, 3);
            assert_eq!(g.consumer(b"a").unwrap().pel.len(), 1);
            assert_eq!(g.consumer(b"b").unwrap().pel.iter().copied().collect::<Vec<_>>(), [id(1)]);
            assert_eq!(g.pel()[&id(1)].delivery_count, 3);
            assert_eq!(g.delete_consumer(b"a"), Some(1));
            assert_eq!(g.pel().len(), 1);
        });
    }

    #[test]
    fn lag_and_entries_read() {
        let facts = |len, added, last, first, del| StreamFacts {
            len,
            entries_added: added,
            last_id: id(last),
            first_id: id(first),
            max_deleted_id: id(del),
        };
        // Five entries 1..=5, never deleted.
        let s = facts(5, 5, 5, 1, 0);
        let mut g = Group::new(id(0), None);
        assert_eq!(g.lag(&s), Some(5));
        g.advance(id(1), &s);
        assert_eq!(g.entries_read, Some(1));
        g.advance(id(2), &s);
        assert_eq!((g.entries_read, g.lag(&s)), (Some(2), Some(3)));
        // An XDEL of 4 ahead of the group: the lag cannot be known.
        let s = facts(4, 5, 5, 1, 4);
        assert_eq!(g.lag(&s), None);
        g.advance(id(3), &s);
        assert_eq!(g.entries_read, None);
        g.advance(id(5), &s);
        assert_eq!((g.entries_read, g.lag(&s)), (Some(5), Some(0)));
        // A group created at 0 on a stream whose first entries were trimmed away.
        let s = facts(2, 5, 5, 4, 0);
        let g = Group::new(id(0), None);
        assert_eq!(g.lag(&s), Some(2));
        assert_eq!(Group::new(id(4), None).lag(&s), Some(1));
        assert_eq!(Group::new(id(9), None).lag(&s), None);
        assert_eq!(facts(0, 0, 0, 0, 0).entries_read_at(id(3)), Some(0));
    }
}
