//! One block of a stream: a run of consecutive entries in a single byte buffer, as Redis keeps
//! them in a listpack. Each entry is a flags byte (deleted or not), its ID as deltas from the
//! block's first ID (varints), its field count and its fields and values, each length-prefixed.
//! An entry costs a few bytes beyond its data, where a node per entry or per field would cost
//! tens.

use super::id::StreamId;

/// The flags byte of a deleted entry.
const DELETED: u8 = 1;

/// A run of entries whose IDs are at least `master`.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// The ID the entries' IDs are deltas from: the first entry appended to the block.
    pub master: StreamId,
    /// The last entry appended (deleted or not): what MINID trimming compares.
    pub last: StreamId,
    pub buf: Vec<u8>,
    /// Entries not deleted.
    pub live: u32,
    /// Entries appended to the block, deleted ones included, and the bytes they took: what
    /// decides when a new block starts (Redis counts a listpack's deleted entries too, so
    /// approximate trimming removes the same entries here as there). Compaction leaves them.
    pub appended: u32,
    pub appended_bytes: usize,
}

/// One decoded entry: its ID and its flat `[field, value, ...]` list.
pub struct Decoded<'a> {
    pub id: StreamId,
    pub fields: Vec<&'a [u8]>,
}

fn put_varint(buf: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        buf.push((v as u8) | 0x80);
        v >>= 7;
    }
    buf.push(v as u8);
}

fn varint_len(mut v: u64) -> usize {
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

fn get_varint(buf: &[u8], at: &mut usize) -> u64 {
    let mut v = 0u64;
    let mut shift = 0;
    loop {
        let b = buf[*at];
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return v;
        }
        shift += 7;
    }
}

/// Bytes `fields` take encoded after `id` in a block whose master is `master`.
pub fn encoded_len(master: StreamId, id: StreamId, fields: &[&[u8]]) -> usize {
    let (dms, seq) = deltas(master, id);
    1 + varint_len(dms)
        + varint_len(seq)
        + varint_len(fields.len() as u64 / 2)
        + fields.iter().map(|f| varint_len(f.len() as u64) + f.len()).sum::<usize>()
}

/// An ID's deltas from the master: milliseconds apart, and the sequence as is (a sequence
/// delta would go negative for a later millisecond).
fn deltas(master: StreamId, id: StreamId) -> (u64, u64) {
    (id.ms - master.ms, id.seq)
}

impl Block {
    /// An empty block whose first entry will be `master`, with room for `capacity` bytes.
    pub fn new(master: StreamId, capacity: usize) -> Block {
        Block { master, last: master, buf: Vec::with_capacity(capacity), live: 0, appended: 0, appended_bytes: 0 }
    }

    /// Appends an entry (`fields` flat, field then value); `id` is above every ID in the block.
    pub fn push(&mut self, id: StreamId, fields: &[&[u8]]) {
        let start = self.buf.len();
        let (dms, seq) = deltas(self.master, id);
        self.buf.push(0);
        put_varint(&mut self.buf, dms);
        put_varint(&mut self.buf, seq);
        put_varint(&mut self.buf, fields.len() as u64 / 2);
        for f in fields {
            put_varint(&mut self.buf, f.len() as u64);
            self.buf.extend_from_slice(f);
        }
        self.last = id;
        self.live += 1;
        self.appended += 1;
        self.appended_bytes += self.buf.len() - start;
    }

    /// The entry starting at byte `at`.
    pub fn decode(&self, at: usize) -> Decoded<'_> {
        let buf = &self.buf[..];
        let mut p = at + 1;
        let dms = get_varint(buf, &mut p);
        let seq = get_varint(buf, &mut p);
        let n = get_varint(buf, &mut p) as usize * 2;
        let mut fields = Vec::with_capacity(n);
        for _ in 0..n {
            let len = get_varint(buf, &mut p) as usize;
            fields.push(&buf[p..p + len]);
            p += len;
        }
        Decoded { id: StreamId { ms: self.master.ms + dms, seq }, fields }
    }

    /// The ID of the entry at `at`, whether it is deleted, and where the next one starts,
    /// without collecting its fields.
    pub fn peek(&self, at: usize) -> (StreamId, bool, usize) {
        let buf = &self.buf[..];
        let mut p = at;
        let deleted = buf[p] & DELETED != 0;
        p += 1;
        let dms = get_varint(buf, &mut p);
        let seq = get_varint(buf, &mut p);
        let n = get_varint(buf, &mut p) as usize * 2;
        for _ in 0..n {
            let len = get_varint(buf, &mut p) as usize;
            p += len;
        }
        (StreamId { ms: self.master.ms + dms, seq }, deleted, p)
    }

    /// Offsets of the live entries with IDs in `start..=end`, in order.
    pub fn offsets(&self, start: StreamId, end: StreamId) -> Vec<usize> {
        let mut out = Vec::new();
        let mut p = 0;
        while p < self.buf.len() {
            let (id, deleted, next) = self.peek(p);
            if id > end {
                break;
            }
            if !deleted && id >= start {
                out.push(p);
            }
            p = next;
        }
        out
    }

    /// Where the live entry `id` starts, if the block holds it.
    pub fn find(&self, id: StreamId) -> Option<usize> {
        let mut p = 0;
        while p < self.buf.len() {
            let (at, deleted, next) = self.peek(p);
            if at == id {
                return (!deleted).then_some(p);
            }
            if at > id {
                return None;
            }
            p = next;
        }
        None
    }

    /// Flags the entry at `at` deleted (it must be live).
    pub fn mark_deleted(&mut self, at: usize) {
        self.buf[at] |= DELETED;
        self.live -= 1;
    }

    /// Rewrites the buffer without its deleted entries, once they are the greater part of it
    /// (Redis leaves them in place; here the memory comes back). The master and the appended
    /// counts stay, so IDs still decode and new blocks start where Redis would start them.
    pub fn compact_if_sparse(&mut self) {
        let dead = self.appended_entries_in_buf() - self.live as usize;
        if dead <= self.live as usize || dead < 8 {
            return;
        }
        let mut out = Vec::with_capacity(self.buf.len());
        let mut p = 0;
        while p < self.buf.len() {
            let (_, deleted, next) = self.peek(p);
            if !deleted {
                out.extend_from_slice(&self.buf[p..next]);
            }
            p = next;
        }
        out.shrink_to_fit();
        self.buf = out;
    }

    fn appended_entries_in_buf(&self) -> usize {
        let mut n = 0;
        let mut p = 0;
        while p < self.buf.len() {
            p = self.peek(p).2;
            n += 1;
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip() {
        let mut b = Block::new(StreamId::new(10, 5), 0);
        b.push(StreamId::new(10, 5), &[b"f", b"v"]);
        b.push(StreamId::new(300, 0), &[b"a", &[7u8; 200], b"", b"x"]);
        let first = b.decode(0);
        assert_eq!((first.id, first.fields.clone()), (StreamId::new(10, 5), vec![&b"f"[..], b"v"]));
        let second_at = b.peek(0).2;
        let second = b.decode(second_at);
        assert_eq!(second.id, StreamId::new(300, 0));
        assert_eq!(second.fields, vec![&b"a"[..], &[7u8; 200], b"", b"x"]);
        assert_eq!(b.peek(second_at).2, b.buf.len());
        assert_eq!(encoded_len(b.master, second.id, &second.fields), b.buf.len() - second_at);
        assert_eq!(b.find(StreamId::new(300, 0)), Some(second_at));
        b.mark_deleted(second_at);
        assert_eq!(b.find(StreamId::new(300, 0)), None);
        assert_eq!(b.offsets(StreamId::new(0, 0), StreamId::new(u64::MAX, 0)), vec![0]);
    }
}
