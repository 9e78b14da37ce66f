//! Streams in the RDB format (types 15, 19 and 21): the entries in listpacks keyed by their
//! master ID (t_stream.c's layout: a master entry of fields, then each entry as flags, ID
//! deltas, its fields unless the same as the master's, its values, and its element count),
//! then the stream's metadata and its consumer groups with their PELs and consumers.
//! Reading checks what Redis's deep sanitization checks (the listpack layout, counts, IDs in
//! order and consistent with the metadata, every pending entry owned by exactly one consumer).

use super::listpack::{self, Entry};
use super::primitives::{save_len, save_millis, save_string, Reader};
use super::{types, Error};
use crate::store::stream::{Stream, StreamId};

const FLAG_DELETED: i64 = 1;
const FLAG_SAMEFIELDS: i64 = 2;

/// A stream, decoded.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StreamData {
    /// Live entries in ID order, each with its fields and values flat.
    pub entries: Vec<(StreamId, Vec<Vec<u8>>)>,
    pub last_id: StreamId,
    pub max_deleted: StreamId,
    pub entries_added: u64,
    pub groups: Vec<GroupData>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GroupData {
    pub name: Vec<u8>,
    pub last_id: StreamId,
    pub entries_read: Option<u64>,
    /// Pending entries: ID, delivery time, delivery count.
    pub pel: Vec<(StreamId, u64, u64)>,
    pub consumers: Vec<ConsumerData>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ConsumerData {
    pub name: Vec<u8>,
    pub seen_time: u64,
    pub active_time: Option<u64>,
    pub pel: Vec<StreamId>,
}

fn id_from_key(key: &[u8]) -> Option<StreamId> {
    let ms = u64::from_be_bytes(key.get(..8)?.try_into().ok()?);
    let seq = u64::from_be_bytes(key.get(8..16)?.try_into().ok()?);
    (key.len() == 16).then_some(StreamId { ms, seq })
}

fn id_key(id: StreamId) -> [u8; 16] {
    let mut k = [0u8; 16];
    k[..8].copy_from_slice(&id.ms.to_be_bytes());
    k[8..].copy_from_slice(&id.seq.to_be_bytes());
    k
}

fn read_id(r: &mut Reader<'_>) -> Result<StreamId, Error> {
    Ok(StreamId { ms: r.length()?, seq: r.length()? })
}

/// The entries of one node listpack, appended to `out` (live ones) with the count of
/// deleted ones returned; `prev` is the last ID seen, which each entry must be above.
fn read_node(
    lp: &[u8],
    master: StreamId,
    prev: &mut Option<StreamId>,
    out: &mut Vec<(StreamId, Vec<Vec<u8>>)>,
) -> Option<()> {
    let items = listpack::read(lp)?;
    let mut it = items.into_iter();
    let int = |e: Option<Entry<'_>>| e.and_then(Entry::int);
    let live = int(it.next())?;
    let deleted = int(it.next())?;
    let nfields = usize::try_from(int(it.next())?).ok()?;
    let mut master_fields = Vec::with_capacity(nfields.min(lp.len()));
    for _ in 0..nfields {
        master_fields.push(it.next()?);
    }
    if int(it.next())? != 0 || live < 0 || deleted < 0 || live + deleted == 0 {
        return None;
    }
    let (mut seen_live, mut seen_deleted) = (0i64, 0i64);
    for _ in 0..live.checked_add(deleted)? {
        let flags = int(it.next())?;
        let id = StreamId {
            ms: master.ms.wrapping_add(int(it.next())? as u64),
            seq: master.seq.wrapping_add(int(it.next())? as u64),
        };
        if prev.is_some_and(|p| id <= p) || id < master {
            return None;
        }
        *prev = Some(id);
        let mut fields = Vec::new();
        let count = if flags & FLAG_SAMEFIELDS != 0 {
            for f in &master_fields {
                fields.push(f.to_vec());
                fields.push(it.next()?.to_vec());
            }
            3 + master_fields.len()
        } else {
            let n = usize::try_from(int(it.next())?).ok()?;
            if n > lp.len() {
                return None;
            }
            for _ in 0..2 * n {
                fields.push(it.next()?.to_vec());
            }
            4 + 2 * n
        };
        if int(it.next())? != count as i64 {
            return None;
        }
        if flags & FLAG_DELETED != 0 {
            seen_deleted += 1;
        } else {
            seen_live += 1;
            out.push((id, fields));
        }
    }
    (it.next().is_none() && seen_live == live && seen_deleted == deleted).then_some(())
}

/// A stream of type `kind` (15, 19 or 21).
pub fn read(r: &mut Reader<'_>, kind: u8) -> Result<StreamData, Error> {
    let nodes = r.count(2)?;
    let mut s = StreamData::default();
    let mut prev = None;
    for _ in 0..nodes {
        let key = r.string()?;
        let master = match id_from_key(&key) {
            Some(id) => id,
            None => return r.err("a stream node key that is not an ID"),
        };
        let lp = r.string()?;
        if read_node(&lp, master, &mut prev, &mut s.entries).is_none() {
            return r.err("a damaged stream listpack");
        }
    }
    let length = r.length()?;
    s.last_id = read_id(r)?;
    if kind >= types::STREAM_LISTPACKS_2 {
        let _first = read_id(r)?;
        s.max_deleted = read_id(r)?;
        s.entries_added = r.length()?;
    } else {
        s.entries_added = length;
    }
    if length != s.entries.len() as u64
        || prev.is_some_and(|p| p > s.last_id)
        || s.max_deleted > s.last_id
        || s.entries_added < length
    {
        return r.err("stream metadata that does not match its entries");
    }
    let ngroups = r.count(1)?;
    for _ in 0..ngroups {
        let name = r.string()?;
        if s.groups.iter().any(|g| g.name == name) {
            return r.err("a repeated consumer group");
        }
        let last_id = read_id(r)?;
        let entries_read =
            if kind >= types::STREAM_LISTPACKS_2 { Some(r.length()?).filter(|&n| n != u64::MAX) } else { None };
        let npel = r.count(17)?;
        let mut pel: Vec<(StreamId, u64, u64)> = Vec::with_capacity(npel);
        for _ in 0..npel {
            let id = id_from_key(r.bytes(16)?).unwrap_or_default();
            if pel.last().is_some_and(|p| p.0 >= id) {
                return r.err("a group PEL out of order");
            }
            let time = r.millis()?;
            pel.push((id, time, r.length()?));
        }
        let nconsumers = r.count(2)?;
        let mut consumers: Vec<ConsumerData> = Vec::with_capacity(nconsumers);
        let mut owned = vec![false; pel.len()];
        for _ in 0..nconsumers {
            let name = r.string()?;
            if consumers.iter().any(|c| c.name == name) {
                return r.err("a repeated consumer");
            }
            let seen_time = r.millis()?;
            // Before 7.2 there was no active time: Redis 7.2 takes the seen time for it.
            let active_time = Some(if kind >= types::STREAM_LISTPACKS_3 { r.millis()? } else { seen_time });
            let n = r.count(16)?;
            let mut cpel = Vec::with_capacity(n);
            for _ in 0..n {
                let id = id_from_key(r.bytes(16)?).unwrap_or_default();
                match pel.binary_search_by(|p| p.0.cmp(&id)) {
                    Ok(i) if !owned[i] => owned[i] = true,
                    _ => return r.err("a consumer PEL entry not in its group's PEL"),
                }
                cpel.push(id);
            }
            consumers.push(ConsumerData { name, seen_time, active_time, pel: cpel });
        }
        if owned.contains(&false) {
            return r.err("a group PEL entry without a consumer");
        }
        s.groups.push(GroupData { name, last_id, entries_read, pel, consumers });
    }
    Ok(s)
}

/// Builds the store's stream from decoded data.
pub fn build(d: &StreamData) -> Stream {
    let mut s = Stream::new();
    for (id, fields) in &d.entries {
        let f: Vec<&[u8]> = fields.iter().map(Vec::as_slice).collect();
        s.append(*id, &f);
    }
    s.set_id(d.last_id, Some(d.entries_added), Some(d.max_deleted));
    for g in &d.groups {
        let groups = s.groups.get_or_insert_with(Default::default);
        groups.create(&g.name, g.last_id, g.entries_read);
        groups.modify(&g.name, |group| {
            for c in &g.consumers {
                group.create_consumer(&c.name, c.seen_time);
                for id in &c.pel {
                    if let Ok(i) = g.pel.binary_search_by(|p| p.0.cmp(id)) {
                        let (_, time, count) = g.pel[i];
                        group.assign(*id, &c.name, time, count);
                    }
                }
                if let Some(cons) = group.consumer_mut(&c.name) {
                    cons.seen_time = c.seen_time;
                    cons.active_time = c.active_time;
                }
            }
        });
    }
    s
}

/// Writes a stream as Redis 7.0 does (type 19), its entries in nodes of at most
/// `stream-node-max-entries` entries and about `stream-node-max-bytes` bytes.
pub fn write(out: &mut Vec<u8>, s: &Stream) {
    let t = crate::store::encodings::current();
    let max_entries = if t.stream_node_max_entries == 0 { usize::MAX } else { t.stream_node_max_entries };
    let max_bytes = if t.stream_node_max_bytes == 0 { usize::MAX } else { t.stream_node_max_bytes };
    let mut nodes: Vec<(StreamId, Vec<u8>)> = Vec::new();
    let mut entries = s.range(crate::store::stream::MIN_ID, crate::store::stream::MAX_ID, false).peekable();
    while let Some((master, first_fields)) = entries.next() {
        let names: Vec<&[u8]> = first_fields.iter().step_by(2).copied().collect();
        let mut body = listpack::Writer::new();
        let mut node_entries = vec![(master, first_fields)];
        let mut bytes = names.iter().map(|n| n.len() + 2).sum::<usize>() + 16;
        while node_entries.len() < max_entries {
            match entries.peek() {
                Some((_, f)) if bytes + f.iter().map(|x| x.len() + 2).sum::<usize>() + 8 <= max_bytes => {
                    bytes += f.iter().map(|x| x.len() + 2).sum::<usize>() + 8;
                    if let Some(e) = entries.next() {
                        node_entries.push(e);
                    }
                }
                _ => break,
            }
        }
        body.push_int(node_entries.len() as i64);
        body.push_int(0);
        body.push_int(names.len() as i64);
        for n in &names {
            body.push(n);
        }
        body.push_int(0);
        for (id, fields) in &node_entries {
            let same = fields.len() == 2 * names.len() && fields.iter().step_by(2).zip(&names).all(|(a, b)| a == b);
            body.push_int(if same { FLAG_SAMEFIELDS } else { 0 });
            body.push_int(id.ms.wrapping_sub(master.ms) as i64);
            body.push_int(id.seq.wrapping_sub(master.seq) as i64);
            if same {
                for v in fields.iter().skip(1).step_by(2) {
                    body.push(v);
                }
                body.push_int(3 + names.len() as i64);
            } else {
                body.push_int((fields.len() / 2) as i64);
                for f in fields {
                    body.push(f);
                }
                body.push_int(4 + fields.len() as i64);
            }
        }
        nodes.push((master, body.finish()));
    }
    save_len(out, nodes.len() as u64);
    for (master, lp) in &nodes {
        save_string(out, &id_key(*master));
        save_string(out, lp);
    }
    save_len(out, s.len());
    let write_id = |out: &mut Vec<u8>, id: StreamId| {
        save_len(out, id.ms);
        save_len(out, id.seq);
    };
    write_id(out, s.last_id());
    write_id(out, s.first_id());
    write_id(out, s.max_deleted_id());
    save_len(out, s.entries_added());
    let groups: Vec<_> = s.groups.iter().flat_map(|g| g.iter()).collect();
    save_len(out, groups.len() as u64);
    for (name, g) in groups {
        save_string(out, name);
        write_id(out, g.last_id);
        save_len(out, g.entries_read.unwrap_or(u64::MAX));
        save_len(out, g.pel().len() as u64);
        for (id, nack) in g.pel() {
            out.extend_from_slice(&id_key(*id));
            save_millis(out, nack.delivery_time);
            save_len(out, nack.delivery_count);
        }
        save_len(out, g.consumers().len() as u64);
        for c in g.consumers().values() {
            save_string(out, &c.name);
            save_millis(out, c.seen_time);
            save_len(out, c.pel.len() as u64);
            for id in &c.pel {
                out.extend_from_slice(&id_key(*id));
            }
        }
    }
}
