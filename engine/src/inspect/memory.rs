//! The Memory page's view: the memory ledger (bytes and keys by prefix two levels deep, by
//! type, by TTL present or absent), the biggest keys and the distribution of remaining TTLs.
//! The ledger is kept on every write (see `store::ledger`); reading it merges the shards'.

use std::collections::HashMap;

use serde::Serialize;
use ts_rs::TS;

use super::{Bytes, Refusal, Status};
use crate::store::bigkeys;
use crate::store::entry::Value;
use crate::store::ledger::{self, Merged, Part, PrefixParts, AHEAD_MS, TTL_BUCKETS_MS};
use crate::Engine;

/// First-level prefixes shown (the rest are summed into one "(other)" row).
pub const PREFIXES_SHOWN: usize = 50;
/// Second-level prefixes shown under each first-level one.
pub const CHILDREN_SHOWN: usize = 20;

/// What a row of prefixes stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum PrefixKind {
    /// Keys whose name starts with `name`.
    Prefix,
    /// Keys with no delimiter (first level), or none after the parent's (second level).
    None,
    /// Prefixes past what is kept or shown, summed.
    Other,
}

/// Keys and their accounted bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, TS)]
pub struct KeysBytes {
    pub keys: u64,
    pub bytes: u64,
}

impl From<Part> for KeysBytes {
    fn from(p: Part) -> KeysBytes {
        KeysBytes { keys: p.keys, bytes: p.bytes }
    }
}

/// One value type's share.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct TypeShare {
    #[serde(rename = "type")]
    #[ts(rename = "type")]
    pub type_name: &'static str,
    pub keys: u64,
    pub bytes: u64,
}

/// A second-level prefix under a first-level one.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct SubPrefix {
    pub kind: PrefixKind,
    /// The prefix, delimiter included (`user:42:`); empty unless `kind` is `prefix`.
    pub name: Bytes,
    pub keys: u64,
    pub bytes: u64,
}

/// A first-level prefix.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct PrefixRow {
    pub kind: PrefixKind,
    /// The prefix, delimiter included (`user:`); empty unless `kind` is `prefix`.
    pub name: Bytes,
    pub keys: u64,
    pub bytes: u64,
    /// Its keys with a TTL.
    pub volatile: KeysBytes,
    /// Types with at least one key, biggest first.
    pub by_type: Vec<TypeShare>,
    /// Second-level prefixes, biggest first (empty for `none` and `other` rows).
    pub children: Vec<SubPrefix>,
}

/// One of the biggest keys.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct BigKeyRow {
    pub db: u32,
    pub key: Bytes,
    #[serde(rename = "type")]
    #[ts(rename = "type")]
    pub type_name: &'static str,
    /// Accounted bytes (as `MEMORY USAGE`).
    pub bytes: u64,
}

/// One bucket of remaining TTLs.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct TtlBucket {
    /// `<1s`, `<10s`, ..., `>=1d`.
    pub label: &'static str,
    /// The bucket's upper bound in ms (exclusive); null for the last.
    pub below_ms: Option<u64>,
    pub keys: u64,
}

/// Remaining TTLs and the expiry rate ahead.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct TtlView {
    pub buckets: Vec<TtlBucket>,
    pub no_ttl: u64,
    pub volatile: u64,
    /// Keys that will expire within 1 s, 10 s and 60 s.
    pub expiring_1s: u64,
    pub expiring_10s: u64,
    pub expiring_60s: u64,
    /// Whether every key with a TTL was read; otherwise each shard's figures are scaled up
    /// from a random sample of `sample_per_shard` of its keys with a TTL.
    pub exact: bool,
    pub sampled: u64,
    pub sample_per_shard: u32,
}

/// The ledger's own bounds.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct LedgerBounds {
    /// First- and second-level prefixes kept per shard; the rest count as "(other)".
    pub first_level_per_shard: u32,
    pub second_level_per_shard: u32,
    /// Longer prefixes count as "(other)".
    pub name_max_bytes: u32,
    pub big_keys_per_shard: u32,
    pub shards: u32,
    /// Heap bytes the ledgers and big-key lists hold now (not in `used_memory`).
    pub ledger_bytes: u64,
}

/// `GET /api/memory`.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct MemoryView {
    pub now_ms: u64,
    /// The database shown; null for all of them.
    pub db: Option<u32>,
    /// The byte prefixes are split on (`vitrine-ledger-delimiter`).
    pub delimiter: String,
    /// Every part below added up: with every database, `used_memory_dataset`.
    pub dataset_bytes: u64,
    /// Keys with each of their accounted bytes.
    pub keys: KeysBytes,
    /// Bytes of the index of hashes with field TTLs (in `dataset_bytes`, no key's own).
    pub index_bytes: u64,
    pub with_ttl: KeysBytes,
    pub without_ttl: KeysBytes,
    pub by_type: Vec<TypeShare>,
    /// Biggest first; the last row may be `other`.
    pub prefixes: Vec<PrefixRow>,
    /// Biggest first.
    pub big_keys: Vec<BigKeyRow>,
    pub ttl: TtlView,
    pub bounds: LedgerBounds,
}

fn type_shares(parts: &[Part; Value::TYPES]) -> Vec<TypeShare> {
    let mut v: Vec<TypeShare> = parts
        .iter()
        .zip(Value::TYPE_NAMES)
        .filter(|(p, _)| p.keys > 0)
        .map(|(p, type_name)| TypeShare { type_name, keys: p.keys, bytes: p.bytes })
        .collect();
    v.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.type_name.cmp(b.type_name)));
    v
}

fn by_bytes<T>(rows: &mut [(Box<[u8]>, T)], bytes: impl Fn(&T) -> u64) {
    rows.sort_by(|a, b| bytes(&b.1).cmp(&bytes(&a.1)).then_with(|| a.0.cmp(&b.0)));
}

/// A prefix and its part.
type Named = (Box<[u8]>, Part);

/// The second-level rows of `parent`, from its children (`user:` for its direct keys).
fn children(parent: &[u8], total: Part, mut kids: Vec<Named>) -> Vec<SubPrefix> {
    by_bytes(&mut kids, |p| p.bytes);
    let mut shown = Part::default();
    let mut out: Vec<SubPrefix> = Vec::new();
    for (name, p) in kids.iter().take(CHILDREN_SHOWN) {
        shown.merge(p);
        let direct = &**name == parent;
        out.push(SubPrefix {
            kind: if direct { PrefixKind::None } else { PrefixKind::Prefix },
            name: Bytes(if direct { Vec::new() } else { name.to_vec() }),
            keys: p.keys,
            bytes: p.bytes,
        });
    }
    // What is left: children not shown, and keys whose second-level name was folded.
    let rest = Part { keys: total.keys.saturating_sub(shown.keys), bytes: total.bytes.saturating_sub(shown.bytes) };
    if rest.keys > 0 {
        out.push(SubPrefix { kind: PrefixKind::Other, name: Bytes(Vec::new()), keys: rest.keys, bytes: rest.bytes });
    }
    out
}

fn prefix_row(kind: PrefixKind, name: &[u8], p: &PrefixParts, kids: Vec<SubPrefix>) -> PrefixRow {
    PrefixRow {
        kind,
        name: Bytes(if kind == PrefixKind::Prefix { name.to_vec() } else { Vec::new() }),
        keys: p.all.keys,
        bytes: p.all.bytes,
        volatile: p.volatile.into(),
        by_type: type_shares(&p.by_type),
        children: kids,
    }
}

fn prefixes(m: &mut Merged) -> Vec<PrefixRow> {
    let delimiter = m.delimiter;
    let mut kids: HashMap<Box<[u8]>, Vec<Named>> = HashMap::new();
    for (name, p) in m.second.drain() {
        let end = name.iter().position(|&b| b == delimiter).map_or(name.len(), |i| i + 1);
        kids.entry(name[..end].into()).or_default().push((name, p));
    }
    let mut firsts: Vec<(Box<[u8]>, PrefixParts)> = m.first.drain().collect();
    by_bytes(&mut firsts, |p| p.all.bytes);
    let mut other = m.first_other;
    let mut rows = Vec::new();
    for (i, (name, p)) in firsts.into_iter().enumerate() {
        if i >= PREFIXES_SHOWN {
            other.merge(&p);
            continue;
        }
        if name.is_empty() {
            rows.push(prefix_row(PrefixKind::None, &name, &p, Vec::new()));
        } else {
            let k = children(&name, p.all, kids.remove(&name).unwrap_or_default());
            rows.push(prefix_row(PrefixKind::Prefix, &name, &p, k));
        }
    }
    if other.all.keys > 0 {
        rows.push(prefix_row(PrefixKind::Other, &[], &other, Vec::new()));
    }
    rows
}

const TTL_LABELS: [&str; TTL_BUCKETS_MS.len() + 1] = ["<1s", "<10s", "<1m", "<10m", "<1h", "<1d", ">=1d"];

/// The memory view of database `db` (every database when `None`), refused when there is no
/// such database.
pub fn memory(engine: &Engine, db: Option<usize>, now_ms: u64) -> Result<MemoryView, Refusal> {
    if let Some(d) = db.filter(|&d| d >= engine.store.databases()) {
        return Err(Refusal::new(Status::BadRequest, "bad_parameter", format!("no database {d}")));
    }
    let mut m = engine.store.ledger(db, now_ms);
    let sum = |parts: &[Part]| {
        parts.iter().fold(Part::default(), |mut a, p| {
            a.merge(p);
            a
        })
    };
    let (without, with) = (sum(&m.by_type[0]), sum(&m.by_type[1]));
    let mut types = m.by_type[0];
    for (a, b) in types.iter_mut().zip(&m.by_type[1]) {
        a.merge(b);
    }
    let ttl = &m.ttl;
    let round = |x: f64| x.round() as u64;
    let ttl_view = TtlView {
        buckets: TTL_LABELS
            .iter()
            .enumerate()
            .map(|(i, &label)| TtlBucket {
                label,
                below_ms: TTL_BUCKETS_MS.get(i).copied(),
                keys: round(ttl.buckets[i]),
            })
            .collect(),
        no_ttl: ttl.no_ttl,
        volatile: ttl.volatile,
        expiring_1s: round(ttl.ahead[0]),
        expiring_10s: round(ttl.ahead[1]),
        expiring_60s: round(ttl.ahead[2]),
        exact: ttl.exact(),
        sampled: ttl.looked,
        sample_per_shard: ledger::TTL_SAMPLE as u32,
    };
    debug_assert_eq!(AHEAD_MS.len(), 3);
    let big_keys = m
        .big
        .iter()
        .map(|(db, b)| BigKeyRow {
            db: *db as u32,
            key: Bytes(b.key.to_vec()),
            type_name: Value::TYPE_NAMES[b.type_index as usize],
            bytes: b.size as u64,
        })
        .collect();
    Ok(MemoryView {
        now_ms,
        db: db.map(|d| d as u32),
        delimiter: char::from(m.delimiter).to_string(),
        dataset_bytes: m.total_bytes(),
        keys: KeysBytes { keys: with.keys + without.keys, bytes: with.bytes + without.bytes },
        index_bytes: m.index_bytes,
        with_ttl: with.into(),
        without_ttl: without.into(),
        by_type: type_shares(&types),
        prefixes: prefixes(&mut m),
        big_keys,
        ttl: ttl_view,
        bounds: LedgerBounds {
            first_level_per_shard: ledger::L1_CAP as u32,
            second_level_per_shard: ledger::L2_CAP as u32,
            name_max_bytes: ledger::NAME_MAX as u32,
            big_keys_per_shard: bigkeys::CAP as u32,
            shards: m.shards as u32,
            ledger_bytes: m.ledger_bytes,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TestEngine;

    const T0: u64 = TestEngine::START_MS;

    #[test]
    fn prefixes_types_ttls_and_big_keys_add_up() {
        let mut t = TestEngine::default();
        for i in 0..30 {
            t.run(&["SET", &format!("user:{i}:name"), "alice"]);
        }
        t.run(&["SET", "user:direct", "x"]);
        t.run(&["RPUSH", "queue:jobs", "a", "b", "c"]);
        t.run(&["SET", "plain", "v", "EX", "5"]);
        t.run(&["SET", "blob:1", &"x".repeat(5000), "PX", "500"]);
        let v = memory(&t.engine, None, T0).expect("view");
        assert_eq!(v.dataset_bytes, t.used_memory() as u64);
        assert_eq!(v.keys.keys, 34);
        let total: u64 = v.prefixes.iter().map(|p| p.bytes).sum::<u64>() + v.index_bytes;
        assert_eq!(total, v.dataset_bytes);
        let user = v.prefixes.iter().find(|p| p.name.0 == b"user:").expect("user:");
        assert_eq!(user.keys, 31);
        assert_eq!(user.children.len(), CHILDREN_SHOWN + 1, "20 shown, the rest and the direct key folded");
        assert_eq!(user.children.iter().map(|c| c.keys).sum::<u64>(), 31);
        assert!(v.prefixes.iter().any(|p| p.kind == PrefixKind::None && p.keys == 1));
        assert_eq!(v.big_keys[0].key.0, b"blob:1");
        assert_eq!(v.with_ttl.keys, 2);
        assert_eq!(v.ttl.buckets[0].keys, 1, "blob:1 expires within a second");
        assert_eq!(v.ttl.buckets[1].keys, 1, "plain within ten");
        assert_eq!((v.ttl.expiring_1s, v.ttl.expiring_10s), (1, 2));
        assert_eq!(v.ttl.no_ttl, 32);
        assert!(v.ttl.exact);
        assert!(memory(&t.engine, Some(999), T0).is_err());
    }

    #[test]
    fn a_new_delimiter_rebuilds_the_ledger_and_deleted_big_keys_are_replaced() {
        let mut t = TestEngine::default();
        for i in 0..60 {
            t.run(&["SET", &format!("a/{i}"), &"v".repeat(100 + i)]);
        }
        assert_eq!(memory(&t.engine, None, T0).expect("view").prefixes[0].kind, PrefixKind::None);
        for bad in ["::", "", "é"] {
            let r = t.resp(&["CONFIG", "SET", "vitrine-ledger-delimiter", bad]);
            assert!(r.contains("the ledger delimiter must be one ASCII character"), "{bad:?}: {r}");
        }
        t.run(&["CONFIG", "SET", "vitrine-ledger-delimiter", "/"]);
        let v = memory(&t.engine, None, T0).expect("view");
        assert_eq!(v.delimiter, "/");
        assert_eq!(v.prefixes[0].name.0, b"a/");
        // Sizes round to allocator classes, so compare sizes (MEMORY USAGE), not names.
        let usage = |t: &mut TestEngine, i: usize| match t.run(&["MEMORY", "USAGE", &format!("a/{i}")]) {
            crate::reply::Reply::Int(n) => n as u64,
            _ => 0,
        };
        let mut want: Vec<u64> = (0..60).map(|i| usage(&mut t, i)).collect();
        want.sort_unstable_by(|a, b| b.cmp(a));
        assert_eq!(v.big_keys.iter().map(|b| b.bytes).collect::<Vec<_>>(), want[..bigkeys::TOP]);
        for i in 20..60 {
            t.run(&["DEL", &format!("a/{i}")]);
        }
        let v = memory(&t.engine, None, T0).expect("view");
        let mut want: Vec<u64> = (0..20).map(|i| usage(&mut t, i)).collect();
        want.sort_unstable_by(|a, b| b.cmp(a));
        assert_eq!(v.big_keys.iter().map(|b| b.bytes).collect::<Vec<_>>(), want, "refilled after deletions");
        let live =
            |k: &[u8]| std::str::from_utf8(&k[2..]).ok().and_then(|n| n.parse::<usize>().ok()).is_some_and(|n| n < 20);
        assert!(v.big_keys.iter().all(|b| live(&b.key.0)), "no deleted key");
    }
}
