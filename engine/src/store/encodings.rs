//! The encoding thresholds (`hash-max-listpack-entries`, `set-max-intset-entries`,
//! `list-max-listpack-size`, ...) the value types obey when they decide what `OBJECT ENCODING`
//! answers. `Config` (above the store) validates them into the shared [`Encodings`]; the
//! engine copies them into a per-thread snapshot before each command ([`Encodings::enter`]),
//! and the value types read that snapshot ([`current`]).
//!
//! Why a per-thread snapshot rather than a parameter: the thresholds are consulted deep inside
//! `HashValue::set`, `SetValue::add`, `ListValue::push_many`, ... which dozens of handlers (and
//! the AOF loader, RESTORE, the blocking registry) call; threading a reference through all of
//! them would touch every family for a setting that changes a few times in a process's life.
//! The snapshot is refreshed only when a `CONFIG SET` changed it (one relaxed load otherwise),
//! and each `Encodings` has its own generation so two engines on one thread (tests) never
//! see each other's values.

use std::cell::Cell;
use std::sync::atomic::{AtomicI64, AtomicU64, AtomicUsize, Ordering::Relaxed};

/// One set of thresholds, as Redis names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thresholds {
    pub hash_max_listpack_entries: usize,
    pub hash_max_listpack_value: usize,
    pub zset_max_listpack_entries: usize,
    pub zset_max_listpack_value: usize,
    pub set_max_intset_entries: usize,
    pub set_max_listpack_entries: usize,
    pub set_max_listpack_value: usize,
    /// `list-max-listpack-size`: negative = a byte limit (-1 4 KB ... -5 64 KB), positive = a
    /// count of elements.
    pub list_max_listpack_size: i64,
    /// `stream-node-max-entries`: entries (deleted ones too) per stream block; 0 = no limit.
    pub stream_node_max_entries: usize,
    /// `stream-node-max-bytes`: a stream block takes no entry past this size; 0 = Redis's 1 GB.
    pub stream_node_max_bytes: usize,
    /// `hll-sparse-max-bytes`: a sparse HyperLogLog that would grow past this turns dense.
    pub hll_sparse_max_bytes: usize,
}

impl Thresholds {
    /// Vitrine's defaults: Redis's compiled-in ones, except `hash-max-listpack-entries`,
    /// which is 128 as in the redis.conf Redis ships (its compiled-in value is 512).
    pub const DEFAULT: Thresholds = Thresholds {
        hash_max_listpack_entries: 128,
        hash_max_listpack_value: 64,
        zset_max_listpack_entries: 128,
        zset_max_listpack_value: 64,
        set_max_intset_entries: 512,
        set_max_listpack_entries: 128,
        set_max_listpack_value: 64,
        list_max_listpack_size: -2,
        stream_node_max_entries: 100,
        stream_node_max_bytes: 4096,
        hll_sparse_max_bytes: 3000,
    };

    /// The limits of one listpack under `list-max-listpack-size`, as Redis's
    /// `quicklistNodeLimit`: (bytes, elements), `usize::MAX` where that side has no limit.
    pub fn list_limits(&self) -> (usize, usize) {
        let fill = self.list_max_listpack_size;
        if fill >= 0 {
            (usize::MAX, fill.max(1) as usize)
        } else {
            const LEVELS: [usize; 5] = [4096, 8192, 16384, 32768, 65536];
            let level = ((-fill - 1) as usize).min(LEVELS.len() - 1);
            (LEVELS[level], usize::MAX)
        }
    }
}

/// Every `Encodings` gets fresh generations from this counter, so a thread's snapshot is
/// known stale as soon as it belongs to another instance or an older value.
static GENERATIONS: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// The generation of the thresholds in `CURRENT`, apart so the check before each command
    /// reads one word, not the whole set.
    static GENERATION: Cell<u64> = const { Cell::new(0) };
    static CURRENT: Cell<Thresholds> = const { Cell::new(Thresholds::DEFAULT) };
}

/// The thresholds of the command running on this thread (Redis's defaults when no engine has
/// entered one: unit tests of the value types).
pub fn current() -> Thresholds {
    CURRENT.with(|c| c.get())
}

/// The thresholds, shared between `Config` (which writes them) and the engine (which enters
/// them before each command).
#[derive(Debug)]
pub struct Encodings {
    generation: AtomicU64,
    hash_entries: AtomicUsize,
    hash_value: AtomicUsize,
    zset_entries: AtomicUsize,
    zset_value: AtomicUsize,
    intset_entries: AtomicUsize,
    set_entries: AtomicUsize,
    set_value: AtomicUsize,
    list_size: AtomicI64,
    stream_entries: AtomicUsize,
    stream_bytes: AtomicUsize,
    hll_bytes: AtomicUsize,
}

impl Default for Encodings {
    fn default() -> Encodings {
        let d = Thresholds::DEFAULT;
        Encodings {
            generation: AtomicU64::new(GENERATIONS.fetch_add(1, Relaxed)),
            hash_entries: AtomicUsize::new(d.hash_max_listpack_entries),
            hash_value: AtomicUsize::new(d.hash_max_listpack_value),
            zset_entries: AtomicUsize::new(d.zset_max_listpack_entries),
            zset_value: AtomicUsize::new(d.zset_max_listpack_value),
            intset_entries: AtomicUsize::new(d.set_max_intset_entries),
            set_entries: AtomicUsize::new(d.set_max_listpack_entries),
            set_value: AtomicUsize::new(d.set_max_listpack_value),
            list_size: AtomicI64::new(d.list_max_listpack_size),
            stream_entries: AtomicUsize::new(d.stream_node_max_entries),
            stream_bytes: AtomicUsize::new(d.stream_node_max_bytes),
            hll_bytes: AtomicUsize::new(d.hll_sparse_max_bytes),
        }
    }
}

impl Encodings {
    /// The thresholds now.
    pub fn get(&self) -> Thresholds {
        Thresholds {
            hash_max_listpack_entries: self.hash_entries.load(Relaxed),
            hash_max_listpack_value: self.hash_value.load(Relaxed),
            zset_max_listpack_entries: self.zset_entries.load(Relaxed),
            zset_max_listpack_value: self.zset_value.load(Relaxed),
            set_max_intset_entries: self.intset_entries.load(Relaxed),
            set_max_listpack_entries: self.set_entries.load(Relaxed),
            set_max_listpack_value: self.set_value.load(Relaxed),
            list_max_listpack_size: self.list_size.load(Relaxed),
            stream_node_max_entries: self.stream_entries.load(Relaxed),
            stream_node_max_bytes: self.stream_bytes.load(Relaxed),
            hll_sparse_max_bytes: self.hll_bytes.load(Relaxed),
        }
    }

    /// Replaces the thresholds (the caller validated them).
    pub fn set(&self, t: Thresholds) {
        self.hash_entries.store(t.hash_max_listpack_entries, Relaxed);
        self.hash_value.store(t.hash_max_listpack_value, Relaxed);
        self.zset_entries.store(t.zset_max_listpack_entries, Relaxed);
        self.zset_value.store(t.zset_max_listpack_value, Relaxed);
        self.intset_entries.store(t.set_max_intset_entries, Relaxed);
        self.set_entries.store(t.set_max_listpack_entries, Relaxed);
        self.set_value.store(t.set_max_listpack_value, Relaxed);
        self.list_size.store(t.list_max_listpack_size, Relaxed);
        self.stream_entries.store(t.stream_node_max_entries, Relaxed);
        self.stream_bytes.store(t.stream_node_max_bytes, Relaxed);
        self.hll_bytes.store(t.hll_sparse_max_bytes, Relaxed);
        self.generation.store(GENERATIONS.fetch_add(1, Relaxed), Relaxed);
    }

    /// Makes these thresholds the ones [`current`] answers on this thread, copying them only
    /// when they changed since this thread last entered them.
    pub fn enter(&self) {
        let generation = self.generation.load(Relaxed);
        if GENERATION.with(Cell::get) != generation {
            GENERATION.with(|g| g.set(generation));
            CURRENT.with(|c| c.set(self.get()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_sees_what_it_entered_and_changes_after_they_happen() {
        let a = Encodings::default();
        let b = Encodings::default();
        a.set(Thresholds { hash_max_listpack_entries: 3, ..Thresholds::DEFAULT });
        a.enter();
        assert_eq!(current().hash_max_listpack_entries, 3);
        b.enter();
        assert_eq!(current(), Thresholds::DEFAULT, "another instance's values");
        a.enter();
        a.set(Thresholds { hash_max_listpack_entries: 5, ..Thresholds::DEFAULT });
        assert_eq!(current().hash_max_listpack_entries, 3, "a snapshot until the next enter");
        a.enter();
        assert_eq!(current().hash_max_listpack_entries, 5);
    }

    #[test]
    fn list_limits_follow_quicklist_node_limit() {
        let with = |fill| Thresholds { list_max_listpack_size: fill, ..Thresholds::DEFAULT }.list_limits();
        assert_eq!(with(-2), (8192, usize::MAX));
        assert_eq!(with(-1), (4096, usize::MAX));
        assert_eq!(with(-9), (65536, usize::MAX));
        assert_eq!(with(5), (usize::MAX, 5));
        assert_eq!(with(0), (usize::MAX, 1));
    }
}
