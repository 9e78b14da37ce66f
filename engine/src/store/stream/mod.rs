//! A stream: an append-only log of entries, each an ID (`StreamId`) and a list of field-value
//! pairs, plus the bookkeeping Redis keeps beside it (last ID, entries ever added, largest
//! deleted ID) and, boxed, its consumer groups.
//!
//! Representation, as compact as Redis's listpacks in a rax: entries live in `Block`s of up to
//! `stream-node-max-entries` entries or `stream-node-max-bytes` bytes, each one byte buffer of delta-encoded
//! IDs and length-prefixed fields; the blocks sit in order in a `VecDeque` (appends go to the
//! back, trimming pops the front, both O(1); a lookup is a binary search on the blocks' first
//! IDs). A deque rather than a tree also keeps the accounting exact: its one buffer and each
//! block's buffer are all the allocations there are. Deleted entries are flagged in place; a
//! block whose entries are all deleted is freed, and one that is mostly deleted is compacted.
//!
//! `heap_size` is O(1): the sum of the blocks' allocations is kept up to date by every write.

pub mod block;
pub mod groups;
pub mod id;

use std::collections::VecDeque;

use block::Block;
pub use groups::StreamGroups;
pub use id::{AddId, StreamId, MAX_ID, MIN_ID};

use super::entry::alloc_size;

/// Redis's cap on a listpack, what `stream-node-max-bytes` 0 (or more) means.
const LISTPACK_MAX_BYTES: usize = 1 << 30;

/// The block limits in force (`stream-node-max-entries`, `stream-node-max-bytes`, read live as
/// the other encoding thresholds): (entries, bytes).
fn node_limits() -> (usize, usize) {
    let t = super::encodings::current();
    let entries = if t.stream_node_max_entries == 0 { usize::MAX } else { t.stream_node_max_entries };
    let bytes = match t.stream_node_max_bytes {
        0 => LISTPACK_MAX_BYTES,
        n => n.min(LISTPACK_MAX_BYTES),
    };
    (entries, bytes)
}

/// What an approximate trim may remove when no LIMIT is given: 100 blocks' worth, as Redis
/// bounds it (10 000 when blocks have no count limit, at most a million).
pub fn default_trim_limit() -> u64 {
    let entries = super::encodings::current().stream_node_max_entries as u64;
    match entries.saturating_mul(100) {
        0 => 10_000,
        n => n.min(1_000_000),
    }
}

/// One entry as read: its ID and its fields and values, flat (`[f1, v1, f2, v2, ...]`).
pub type StreamEntry<'a> = (StreamId, Vec<&'a [u8]>);

/// How XADD and XTRIM trim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trim {
    /// Keep at most this many entries.
    MaxLen(u64),
    /// Drop entries with IDs below this one.
    MinId(StreamId),
}

/// Why XADD could not pick or take an ID.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddError {
    /// The ID is not above the stream's last ID.
    TooSmall,
    /// The last ID is the largest there is.
    Exhausted,
}

/// A stream value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stream {
    blocks: VecDeque<Block>,
    /// Live entries.
    len: u64,
    /// Sum of `alloc_size` of the blocks' buffers.
    block_bytes: usize,
    last_id: StreamId,
    max_deleted_id: StreamId,
    entries_added: u64,
    /// Consumer groups, once there is one.
    pub groups: Option<Box<StreamGroups>>,
}

impl Stream {
    pub fn new() -> Stream {
        Stream::default()
    }

    /// Live entries (XLEN).
    pub fn len(&self) -> u64 {
        self.len
    }

    /// No live entries. (An empty stream is still a key: Redis never deletes one on its own.)
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The largest ID ever added or set by XSETID.
    pub fn last_id(&self) -> StreamId {
        self.last_id
    }

    /// Entries ever added (XINFO's `entries-added`).
    pub fn entries_added(&self) -> u64 {
        self.entries_added
    }

    /// The largest ID XDEL removed (XINFO's `max-deleted-entry-id`).
    pub fn max_deleted_id(&self) -> StreamId {
        self.max_deleted_id
    }

    /// The first live entry's ID, or 0-0 when empty (XINFO's `recorded-first-entry-id`).
    pub fn first_id(&self) -> StreamId {
        self.first().map_or(MIN_ID, |(id, _)| id)
    }

    /// The first live entry.
    pub fn first(&self) -> Option<StreamEntry<'_>> {
        self.range(MIN_ID, MAX_ID, false).next()
    }

    /// The last live entry.
    pub fn last(&self) -> Option<StreamEntry<'_>> {
        self.range(MIN_ID, MAX_ID, true).next()
    }

    /// Blocks the entries occupy (XINFO's `radix-tree-nodes`, near enough).
    pub fn blocks(&self) -> usize {
        self.blocks.len()
    }

    /// Heap bytes held, in O(1): the blocks' buffers, the deque's buffer and the groups.
    pub fn heap_size(&self) -> usize {
        self.block_bytes
            + alloc_size(self.blocks.capacity() * std::mem::size_of::<Block>())
            + self.groups.as_ref().map_or(0, |g| alloc_size(std::mem::size_of::<StreamGroups>()) + g.heap_bytes())
    }

    /// The ID XADD would give an entry: `add` resolved against the last ID and the clock.
    pub fn next_id(&self, add: AddId, now_ms: u64) -> Result<StreamId, AddError> {
        let last = self.last_id;
        if last == MAX_ID {
            return Err(AddError::Exhausted);
        }
        match add {
            AddId::Auto => {
                if now_ms > last.ms {
                    Ok(StreamId::new(now_ms, 0))
                } else {
                    last.next().ok_or(AddError::Exhausted)
                }
            }
            AddId::AutoSeq(ms) => match ms.cmp(&last.ms) {
                std::cmp::Ordering::Greater => Ok(StreamId::new(ms, 0)),
                std::cmp::Ordering::Equal if last.seq < u64::MAX => Ok(StreamId::new(ms, last.seq + 1)),
                _ => Err(AddError::TooSmall),
            },
            AddId::Explicit(id) if id > last => Ok(id),
            AddId::Explicit(_) => Err(AddError::TooSmall),
        }
    }

    /// Appends an entry with `fields` flat (field, value, ...). `id` must be above `last_id`
    /// (see `next_id`).
    pub fn append(&mut self, id: StreamId, fields: &[&[u8]]) {
        debug_assert!(id > self.last_id);
        let need = block::encoded_len(id, id, fields);
        let (max_entries, max_bytes) = node_limits();
        let fits = self.blocks.back().is_some_and(|b| {
            (b.appended as usize) < max_entries
                && b.appended_bytes + block::encoded_len(b.master, id, fields) < max_bytes
        });
        if !fits {
            // The full block will take no more entries: give back its growth slack.
            if let Some(b) = self.blocks.back_mut() {
                let before = alloc_size(b.buf.capacity());
                b.buf.shrink_to_fit();
                self.block_bytes = self.block_bytes - before + alloc_size(b.buf.capacity());
            }
            let b = Block::new(id, need);
            self.block_bytes += alloc_size(b.buf.capacity());
            self.blocks.push_back(b);
        }
        let b = self.blocks.back_mut().expect("a block was just ensured");
        let before = alloc_size(b.buf.capacity());
        b.push(id, fields);
        self.block_bytes = self.block_bytes - before + alloc_size(b.buf.capacity());
        self.len += 1;
        self.entries_added += 1;
        self.last_id = id;
    }

    /// The index of the block that would hold `id`: the last whose master is at most `id`.
    fn block_for(&self, id: StreamId) -> Option<usize> {
        let after = self.blocks.partition_point(|b| b.master <= id);
        after.checked_sub(1)
    }

    /// The fields of the live entry `id`.
    pub fn get(&self, id: StreamId) -> Option<Vec<&[u8]>> {
        let b = &self.blocks[self.block_for(id)?];
        let at = b.find(id)?;
        Some(b.decode(at).fields)
    }

    /// Entries with IDs in `start..=end`, oldest first or (`rev`) newest first. Take as many
    /// as a COUNT allows; blocks are decoded as the iteration reaches them.
    pub fn range(&self, start: StreamId, end: StreamId, rev: bool) -> Range<'_> {
        let (next_block, stop) = if start > end || self.blocks.is_empty() {
            (0, 0)
        } else if rev {
            // Blocks are walked from the one holding `end` down to the one holding `start`.
            (self.block_for(end).map_or(0, |i| i + 1), self.block_for(start).unwrap_or(0))
        } else {
            (self.block_for(start).unwrap_or(0), self.block_for(end).map_or(0, |i| i + 1))
        };
        Range { stream: self, start, end, rev, next_block, stop, block: None, pending: Vec::new() }
    }

    /// Deletes the live entry `id` (XDEL); false when there is none. Raises the largest
    /// deleted ID; frees a block left with no live entry.
    pub fn delete(&mut self, id: StreamId) -> bool {
        let Some(i) = self.block_for(id) else { return false };
        let Some(at) = self.blocks[i].find(id) else { return false };
        self.blocks[i].mark_deleted(at);
        self.len -= 1;
        self.max_deleted_id = self.max_deleted_id.max(id);
        self.after_delete(i);
        true
    }

    /// Frees block `i` if it has no live entry, else compacts it when mostly deleted.
    fn after_delete(&mut self, i: usize) {
        let b = &mut self.blocks[i];
        let before = alloc_size(b.buf.capacity());
        if b.live == 0 {
            self.blocks.remove(i);
            self.block_bytes -= before;
            self.shrink_deque();
        } else {
            b.compact_if_sparse();
            self.block_bytes = self.block_bytes - before + alloc_size(b.buf.capacity());
        }
    }

    /// Gives back most of the deque's buffer once it is mostly empty.
    fn shrink_deque(&mut self) {
        if self.blocks.is_empty() {
            self.blocks = VecDeque::new();
        } else if self.blocks.capacity() > 8 && self.blocks.len() * 4 <= self.blocks.capacity() {
            self.blocks.shrink_to(self.blocks.len() * 2);
        }
    }

    /// Trims as Redis 7.0's `streamTrim`: whole blocks from the front while the rule allows
    /// it; then, unless `approx`, single entries of the next block. `limit` (0 = none) caps the
    /// entries removed with whole blocks. Returns how many entries were removed.
    pub fn trim(&mut self, rule: Trim, approx: bool, limit: u64) -> u64 {
        let mut deleted = 0;
        while let Some(front) = self.blocks.front() {
            if let Trim::MaxLen(max) = rule {
                if self.len <= max {
                    break;
                }
            }
            let entries = u64::from(front.live);
            if limit != 0 && deleted + entries > limit {
                break;
            }
            let whole = match rule {
                Trim::MaxLen(max) => self.len - entries >= max,
                Trim::MinId(min) => front.last < min,
            };
            if whole {
                let b = self.blocks.pop_front().expect("front exists");
                self.block_bytes -= alloc_size(b.buf.capacity());
                self.len -= entries;
                deleted += entries;
                continue;
            }
            if approx {
                break;
            }
            let b = self.blocks.front_mut().expect("front exists");
            let mut p = 0;
            while p < b.buf.len() {
                let (id, dead, next) = b.peek(p);
                let stop = match rule {
                    Trim::MaxLen(max) => self.len <= max,
                    Trim::MinId(min) => id >= min,
                };
                if stop {
                    break;
                }
                if !dead {
                    b.mark_deleted(p);
                    self.len -= 1;
                    deleted += 1;
                }
                p = next;
            }
            self.after_delete(0);
            break;
        }
        self.shrink_deque();
        deleted
    }

    /// XSETID: the last ID and, when given, the entries-added count and largest deleted ID.
    /// The caller checks them against the stream (see `cmd::stream`).
    pub fn set_id(&mut self, last: StreamId, entries_added: Option<u64>, max_deleted: Option<StreamId>) {
        self.last_id = last;
        if let Some(n) = entries_added {
            self.entries_added = n;
        }
        if let Some(id) = max_deleted {
            self.max_deleted_id = id;
        }
    }
}

#[cfg(test)]
impl Stream {
    /// `heap_size` measured from scratch, to check the running sum against.
    pub fn heap_recount(&self) -> usize {
        self.blocks.iter().map(|b| alloc_size(b.buf.capacity())).sum::<usize>()
            + alloc_size(self.blocks.capacity() * std::mem::size_of::<Block>())
            + self.groups.as_ref().map_or(0, |g| alloc_size(std::mem::size_of::<StreamGroups>()) + g.heap_bytes())
    }
}

/// An iteration over a stream's entries in an ID range (see `Stream::range`).
pub struct Range<'a> {
    stream: &'a Stream,
    start: StreamId,
    end: StreamId,
    rev: bool,
    /// Forward: the next block to decode, up to `stop` (exclusive). Reverse: one past the
    /// next block to decode, down to `stop` (inclusive).
    next_block: usize,
    stop: usize,
    block: Option<&'a Block>,
    /// Offsets in `block` still to yield, the next one last.
    pending: Vec<usize>,
}

impl<'a> Iterator for Range<'a> {
    type Item = StreamEntry<'a>;

    fn next(&mut self) -> Option<StreamEntry<'a>> {
        loop {
            if let (Some(b), Some(at)) = (self.block, self.pending.pop()) {
                let d = b.decode(at);
                return Some((d.id, d.fields));
            }
            let b = if self.rev {
                if self.next_block <= self.stop {
                    return None;
                }
                self.next_block -= 1;
                &self.stream.blocks[self.next_block]
            } else {
                if self.next_block >= self.stop {
                    return None;
                }
                self.next_block += 1;
                &self.stream.blocks[self.next_block - 1]
            };
            self.pending = b.offsets(self.start, self.end);
            if !self.rev {
                self.pending.reverse();
            }
            self.block = Some(b);
        }
    }
}

#[cfg(test)]
mod tests;
