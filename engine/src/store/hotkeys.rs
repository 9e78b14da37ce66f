//! Hot keys: which keys take the most accesses over the last 10 to 20 seconds, from a small
//! Space-Saving sketch (Metwally et al., 2005) per shard, kept under the shard's lock the
//! command already holds. One access in `SAMPLE_EVERY` is sampled by a per-shard counter,
//! so an access costs an add and a test; a sampled one hashes the key and updates at most
//! `SLOTS` slots. Two sketches alternate every `WINDOW_MS` (the current one and the one
//! before), which makes the window slide. Reading merges the shards' sketches: a key lives
//! in exactly one shard, so merging is concatenating. Not counted against `maxmemory`
//! (bounded: at most `2 × SLOTS` keys of at most `KEY_BYTES` per shard).
//!
//! An access is a command naming the key (dispatch locks its stripe through
//! `Store::lock_key` or `Locked::count_accesses`), counted once per command however
//! many lookups the command's handler makes (and each command of an EXEC). Commands that take
//! every stripe on their own (FLUSHALL, SORT ... BY) are not counted.

use super::keyhash::key_hash;
use super::locked::Locked;
use super::{Shard, Store};

/// One access in this many is sampled, on average (a power of two).
pub const SAMPLE_EVERY: u32 = 16;
/// `SAMPLE_EVERY`'s bits, taken from the top of the sampler's state.
const SAMPLE_SHIFT: u32 = 32 - SAMPLE_EVERY.trailing_zeros();
/// How long each of the two alternating sketches counts.
pub const WINDOW_MS: u64 = 10_000;
/// Keys a shard's sketch follows. A key that takes more than 1/SLOTS of its shard's sampled
/// accesses is always among them (Space-Saving's guarantee).
pub const SLOTS: usize = 16;
/// Bytes of a key kept for display (keys are told apart by a 64-bit hash).
const KEY_BYTES: usize = 256;

struct Slot {
    hash: u64,
    key: Vec<u8>,
    /// Sampled accesses counted, and the overestimate inherited from the key it replaced.
    count: u32,
    error: u32,
}

#[derive(Default)]
struct Sketch {
    slots: Vec<Slot>,
    /// Every sampled access, followed or not (the denominator of a key's share).
    total: u64,
}

impl Sketch {
    fn add(&mut self, key: &[u8], hash: u64) {
        self.total += 1;
        if let Some(slot) = self.slots.iter_mut().find(|s| s.hash == hash) {
            slot.count = slot.count.saturating_add(1);
            return;
        }
        let key = &key[..key.len().min(KEY_BYTES)];
        if self.slots.len() < SLOTS {
            self.slots.push(Slot { hash, key: key.to_vec(), count: 1, error: 0 });
            return;
        }
        // Space-Saving: the newcomer takes the least counted slot and its count, as an error
        // (in the slot's own buffer: a stream of new keys allocates nothing once it is big
        // enough).
        if let Some(min) = self.slots.iter_mut().min_by_key(|s| s.count) {
            min.hash = hash;
            min.key.clear();
            min.key.extend_from_slice(key);
            (min.error, min.count) = (min.count, min.count.saturating_add(1));
        }
    }

    fn bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Slot>() + self.slots.iter().map(|s| s.key.capacity()).sum::<usize>()
    }
}

struct Windows {
    /// `now_ms / WINDOW_MS` of `current`.
    epoch: u64,
    current: Sketch,
    previous: Sketch,
}

/// One shard's hot-key sketch (see the module's text).
#[derive(Default)]
pub struct HotKeys {
    /// A linear congruential generator: one multiply and add per access. Its high bits
    /// decide, so a workload with a period (every 4th command the same key) is still
    /// sampled fairly, as a plain counter would not be.
    tick: u32,
    /// Allocated at the first sampled access: most shards of most databases never see one.
    windows: Option<Box<Windows>>,
}

/// A key's sampled count over the window, as a shard reports it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct HotKey {
    pub key: Vec<u8>,
    /// Estimated accesses (sampled count × `SAMPLE_EVERY`), and how much of it may be
    /// overestimate (Space-Saving's error bound).
    pub accesses: u64,
    pub error: u64,
}

impl HotKeys {
    /// Counts one access to `key` (sampled).
    #[inline]
    pub fn access(&mut self, key: &[u8], now_ms: u64) {
        self.tick = self.tick.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        if self.tick >> SAMPLE_SHIFT == 0 {
            self.record(key, now_ms);
        }
    }

    #[cold]
    #[inline(never)]
    fn record(&mut self, key: &[u8], now_ms: u64) {
        let epoch = now_ms / WINDOW_MS;
        let w = self.windows.get_or_insert_with(|| {
            Box::new(Windows { epoch, current: Sketch::default(), previous: Sketch::default() })
        });
        if epoch > w.epoch {
            w.previous = if epoch == w.epoch + 1 { std::mem::take(&mut w.current) } else { Sketch::default() };
            w.current = Sketch::default();
            w.epoch = epoch;
        }
        w.current.add(key, key_hash(0x686f_746b_6579, key));
    }

    /// The keys followed over the window that ends at `now_ms` (the current sketch and the one
    /// before it), appended to `out`; returns the estimated accesses of all keys in the window.
    pub fn collect(&self, now_ms: u64, out: &mut Vec<HotKey>) -> u64 {
        let Some(w) = &self.windows else { return 0 };
        let epoch = now_ms / WINDOW_MS;
        let live: &[&Sketch] = if w.epoch >= epoch {
            &[&w.current, &w.previous]
        } else if w.epoch + 1 == epoch {
            &[&w.current]
        } else {
            &[]
        };
        let start = out.len();
        let mut total = 0;
        for sketch in live {
            total += sketch.total * u64::from(SAMPLE_EVERY);
            for s in &sketch.slots {
                let (accesses, error) =
                    (u64::from(s.count) * u64::from(SAMPLE_EVERY), u64::from(s.error) * u64::from(SAMPLE_EVERY));
                match out[start..].iter_mut().find(|h| h.key[..] == s.key[..]) {
                    Some(h) => {
                        h.accesses += accesses;
                        h.error += error;
                    }
                    None => out.push(HotKey { key: s.key.clone(), accesses, error }),
                }
            }
        }
        total
    }

    /// Heap bytes the sketches hold.
    pub fn bytes(&self) -> usize {
        self.windows.as_ref().map_or(0, |w| std::mem::size_of::<Windows>() + w.current.bytes() + w.previous.bytes())
    }

    /// Forgets everything (the view's reset).
    pub fn clear(&mut self) {
        self.windows = None;
    }
}

/// The hot keys of every database over the window ending at `now_ms`, read one stripe at a
/// time (never two locks at once).
#[derive(Debug, Default)]
pub struct HotKeysReport {
    /// (database, key), most accessed first.
    pub keys: Vec<(usize, HotKey)>,
    /// Estimated accesses to any key in the window, by database.
    pub total: Vec<u64>,
    /// Heap bytes of every shard's sketches.
    pub bytes: usize,
}

/// INFO hotkeys: the window and sampling, then the 10 hottest keys (`hotkey_<rank>:db=0,
/// key=...,accesses=N,per_sec=R`; a key's bytes outside printable ASCII, and `,` `=` `\`, as
/// `\xHH`, so a line stays one line).
pub fn info(report: &HotKeysReport, now_ms: u64) -> String {
    use std::fmt::Write as _;
    let window_ms = window_ms(now_ms);
    let mut out = format!(
        "hotkeys_window_ms:{window_ms}\r\nhotkeys_sample_every:{SAMPLE_EVERY}\r\nhotkeys_total_accesses:{}\r\nhotkeys_sketch_bytes:{}\r\n",
        report.total.iter().sum::<u64>(),
        report.bytes
    );
    for (rank, (db, k)) in report.keys.iter().take(10).enumerate() {
        let mut key = String::new();
        for &b in &k.key {
            if b.is_ascii_graphic() && !matches!(b, b',' | b'=' | b'\\') {
                key.push(b as char);
            } else {
                let _ = write!(key, "\\x{b:02x}");
            }
        }
        let per_sec = k.accesses as f64 * 1000.0 / window_ms as f64;
        let _ = write!(out, "hotkey_{rank}:db={db},key={key},accesses={},per_sec={per_sec:.2}\r\n", k.accesses);
    }
    out
}

/// How far back the window reaches at `now_ms`: the current sketch's part of its period and
/// the whole one before it.
pub fn window_ms(now_ms: u64) -> u64 {
    WINDOW_MS + now_ms % WINDOW_MS
}

impl HotKeysReport {
    fn new(databases: usize) -> HotKeysReport {
        HotKeysReport { total: vec![0; databases], ..Default::default() }
    }

    fn add(&mut self, shard: &Shard, now_ms: u64, found: &mut Vec<HotKey>) {
        found.clear();
        if let Some(t) = self.total.get_mut(shard.db()) {
            *t += shard.hot.collect(now_ms, found);
        }
        self.bytes += shard.hot.bytes();
        self.keys.extend(found.drain(..).map(|k| (shard.db(), k)));
    }

    fn finish(mut self) -> HotKeysReport {
        self.keys.sort_by(|a, b| b.1.accesses.cmp(&a.1.accesses).then_with(|| a.cmp(b)));
        self
    }
}

impl Store {
    /// For a host's view, outside any command: one stripe locked at a time.
    pub fn hot_keys(&self, now_ms: u64) -> HotKeysReport {
        let mut report = HotKeysReport::new(self.databases);
        let mut found = Vec::new();
        for stripe in self.stripes.iter() {
            let stripe = stripe.lock();
            for shard in stripe.iter() {
                report.add(shard, now_ms, &mut found);
            }
        }
        report.finish()
    }

    /// How many stripes the keyspace has (a walk through `Locked::hot_keys`).
    pub fn stripe_count(&self) -> usize {
        self.stripes.len()
    }

    /// Forgets every shard's sketch.
    pub fn reset_hot_keys(&self) {
        for stripe in self.stripes.iter() {
            stripe.lock().iter_mut().for_each(|shard| shard.hot.clear());
        }
    }
}

impl Locked<'_> {
    /// Counts one access to each of a multi-key command's keys (already locked).
    pub fn count_accesses<'k>(&mut self, keys: impl Iterator<Item = &'k [u8]>, now_ms: u64) {
        for key in keys {
            self.shard(key).hot.access(key, now_ms);
        }
    }

    /// `Store::hot_keys` from inside a command (INFO hotkeys), through this command's locks,
    /// as INFO keyspace walks them (an EXEC that holds every stripe lends them).
    pub fn hot_keys(&mut self, stripes: usize, now_ms: u64) -> HotKeysReport {
        let mut report = HotKeysReport::new(self.databases());
        let mut found = Vec::new();
        for db in 0..self.databases() {
            let mut in_db = self.reborrow_in(db);
            for i in 0..stripes {
                report.add(&in_db.shard_at(i), now_ms, &mut found);
            }
        }
        report.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn top(h: &HotKeys, now: u64) -> Vec<(String, u64)> {
        let mut out = Vec::new();
        h.collect(now, &mut out);
        let total = out.iter().map(|k| k.accesses).sum::<u64>();
        let mut again = Vec::new();
        assert!(h.collect(now, &mut again) >= total);
        out.sort_by_key(|k| std::cmp::Reverse(k.accesses));
        out.into_iter().map(|k| (String::from_utf8_lossy(&k.key).into_owned(), k.accesses)).collect()
    }

    #[test]
    fn a_hot_key_stands_out_of_a_long_tail() {
        let mut h = HotKeys::default();
        for i in 0..100_000u32 {
            let key = if i % 4 == 0 { "hot".to_string() } else { format!("cold:{}", i % 5000) };
            h.access(key.as_bytes(), 1_000);
        }
        let top = top(&h, 1_000);
        assert_eq!(top[0].0, "hot");
        // 25,000 accesses, estimated from 1 in 16 (the tail can only add its error).
        assert!((24_000..=30_000).contains(&top[0].1), "{top:?}");
        assert!(top.len() <= SLOTS);
        assert!(h.bytes() > 0 && h.bytes() < 64 * 1024, "{}", h.bytes());
    }

    #[test]
    fn the_window_slides() {
        let mut h = HotKeys::default();
        for _ in 0..1600 {
            h.access(b"old", 5_000);
        }
        for _ in 0..160 {
            h.access(b"new", 15_000);
        }
        let near = |got: &[(String, u64)], want: &[(&str, u64)]| {
            got.len() == want.len() && got.iter().zip(want).all(|(g, w)| g.0 == w.0 && g.1.abs_diff(w.1) * 3 <= w.1)
        };
        let now = top(&h, 15_000);
        assert!(near(&now, &[("old", 1600), ("new", 160)]), "{now:?}");
        // A window later "old" is gone, "new" is still seen; two later, nothing is.
        let later = top(&h, 25_000);
        assert!(near(&later, &[("new", 160)]), "{later:?}");
        assert!(top(&h, 35_000).is_empty());
        for _ in 0..1600 {
            h.access(b"new", 45_000);
        }
        let again = top(&h, 45_000);
        assert!(near(&again, &[("new", 1600)]), "{again:?}");
        h.clear();
        assert!(top(&h, 45_000).is_empty());
    }
}
