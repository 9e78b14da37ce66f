//! The script cache: scripts by the SHA1 of their body (EVALSHA, SCRIPT LOAD / EXISTS /
//! FLUSH), each with its shebang flags parsed once.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// A script's shebang flags (`#!lua flags=no-writes,allow-oom`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Flags {
    /// The script has a shebang: flags are declared (Redis then applies them strictly).
    pub shebang: bool,
    pub no_writes: bool,
    pub allow_oom: bool,
    pub allow_stale: bool,
    pub no_cluster: bool,
    pub allow_cross_slot_keys: bool,
}

/// One cached script.
#[derive(Debug)]
pub struct Script {
    pub sha: String,
    pub body: Vec<u8>,
    pub flags: Flags,
    /// How it entered the cache (it keeps this until it leaves).
    pub origin: Origin,
}

/// The lower-case hex SHA1 of `body`, as Redis names scripts.
pub fn sha1hex(body: &[u8]) -> String {
    sha1_smol::Sha1::from(body).digest().to_string()
}

/// Parses a script's first line when it is a shebang. Errors are Redis's texts.
pub fn parse_shebang(body: &[u8]) -> Result<Flags, String> {
    if !body.starts_with(b"#!") {
        return Ok(Flags::default());
    }
    let line_end = body.iter().position(|&b| b == b'\n').unwrap_or(body.len());
    let line = String::from_utf8_lossy(&body[..line_end]);
    let mut parts = line.split(' ').filter(|p| !p.is_empty());
    let engine = parts.next().unwrap_or("");
    if engine != "#!lua" {
        return Err(format!("ERR Unexpected engine in script shebang: {line}"));
    }
    let mut flags = Flags { shebang: true, ..Flags::default() };
    for part in parts {
        let Some(list) = part.strip_prefix("flags=") else {
            return Err(format!("ERR Unknown lua shebang option: {part}"));
        };
        for flag in list.split(',').filter(|f| !f.is_empty()) {
            match flag {
                "no-writes" => flags.no_writes = true,
                "allow-oom" => flags.allow_oom = true,
                "allow-stale" => flags.allow_stale = true,
                "no-cluster" => flags.no_cluster = true,
                "allow-cross-slot-keys" => flags.allow_cross_slot_keys = true,
                other => return Err(format!("ERR Unexpected flag in script shebang: {other}")),
            }
        }
    }
    Ok(flags)
}

/// How a script entered the cache: by EVAL / EVAL_RO (evictable, least recently used first)
/// or by SCRIPT LOAD (kept until SCRIPT FLUSH), as Redis 7.4 tells them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Eval,
    Load,
}

/// Most scripts EVAL may keep cached; past it the least recently used one goes (Redis 7.4's
/// `LRU_LIST_LENGTH`). Scripts SCRIPT LOAD added do not count.
pub const EVAL_SCRIPTS_MAX: usize = 500;

/// Heap bytes a cached script costs beyond its body, its SHA and its map slot: the map key's
/// copy of the SHA (40), the `Script` record behind its `Arc` (about 100) and, for an EVAL
/// one, its LRU node and SHA copy (about 80, counted for every script: an estimate, as
/// Redis's own figure is).
const ENTRY_OVERHEAD: usize = 220;

struct Entry {
    script: Arc<Script>,
    /// The LRU tick of an EVAL script (its key in `lru`); `None` for a loaded one.
    tick: Option<u64>,
}

/// What `insert` did.
pub struct Inserted {
    pub script: Arc<Script>,
    /// The body was not cached before (so a host that persists the cache logs it now).
    pub new: bool,
    /// The EVAL scripts evicted to make room, by SHA (their compiled functions go too).
    pub evicted: Vec<String>,
}

/// The cached scripts, by SHA, with the EVAL ones in least-recently-used order.
#[derive(Default)]
pub struct Cache {
    scripts: HashMap<String, Entry>,
    /// EVAL scripts by the tick of their last use, oldest first.
    lru: BTreeMap<u64, String>,
    tick: u64,
    /// SHA and body bytes of every cached script.
    bytes: usize,
    /// EVAL scripts evicted since start (INFO's `evicted_scripts`; SCRIPT FLUSH keeps it).
    evicted: u64,
}

impl Cache {
    /// Adds `body` (parsing its shebang) as SCRIPT LOAD does unless it is cached, and
    /// returns it (the commands go through `Scripts::admit`, which compiles first).
    #[cfg(test)]
    pub fn add(&mut self, body: &[u8]) -> Result<Arc<Script>, String> {
        self.insert(body, Origin::Load).map(|i| i.script)
    }

    /// Adds `body` unless it is cached, evicting the least recently used EVAL script when an
    /// EVAL one would make more than [`EVAL_SCRIPTS_MAX`]. A cached body stays as it
    /// entered (SCRIPT LOAD of an EVAL script leaves it evictable, as in Redis 7.4).
    pub fn insert(&mut self, body: &[u8], origin: Origin) -> Result<Inserted, String> {
        let sha = sha1hex(body);
        if let Some(e) = self.scripts.get(&sha) {
            return Ok(Inserted { script: e.script.clone(), new: false, evicted: Vec::new() });
        }
        let flags = parse_shebang(body)?;
        let mut evicted = Vec::new();
        let tick = match origin {
            Origin::Load => None,
            Origin::Eval => {
                while self.lru.len() >= EVAL_SCRIPTS_MAX {
                    let Some((_, oldest)) = self.lru.pop_first() else { break };
                    if let Some(e) = self.scripts.remove(&oldest) {
                        self.bytes -= e.script.sha.len() + e.script.body.len();
                    }
                    self.evicted += 1;
                    evicted.push(oldest);
                }
                self.tick += 1;
                self.lru.insert(self.tick, sha.clone());
                Some(self.tick)
            }
        };
        let script = Arc::new(Script { sha: sha.clone(), body: body.to_vec(), flags, origin });
        self.bytes += sha.len() + body.len();
        self.scripts.insert(sha, Entry { script: script.clone(), tick });
        Ok(Inserted { script, new: true, evicted })
    }

    /// The script of this SHA (any case, as Redis lower-cases it).
    pub fn get(&self, sha: &[u8]) -> Option<Arc<Script>> {
        self.entry(sha).map(|e| e.script.clone())
    }

    fn entry(&self, sha: &[u8]) -> Option<&Entry> {
        if sha.len() != 40 {
            return None;
        }
        match std::str::from_utf8(sha) {
            Ok(s) if !s.bytes().any(|b| b.is_ascii_uppercase()) => self.scripts.get(s),
            _ => self.scripts.get(&String::from_utf8_lossy(sha).to_ascii_lowercase()),
        }
    }

    /// Marks an EVAL script as just used (after each run, as Redis moves it to the LRU
    /// list's tail); a loaded one has no place to move.
    pub fn touch(&mut self, sha: &str) {
        let Some(e) = self.scripts.get_mut(sha) else { return };
        let Some(old) = e.tick else { return };
        if old == self.tick {
            return;
        }
        self.tick += 1;
        e.tick = Some(self.tick);
        if let Some(s) = self.lru.remove(&old) {
            self.lru.insert(self.tick, s);
        }
    }

    pub fn flush(&mut self) {
        // A new map, not a cleared one: its room goes too.
        self.scripts = HashMap::new();
        self.lru.clear();
        self.bytes = 0;
    }

    /// Every cached script, loaded ones first, then EVAL ones from least to most recently
    /// used: replaying them in this order rebuilds this cache (an AOF rewrite; the
    /// dashboard's Scripts page).
    pub fn scripts(&self) -> Vec<Arc<Script>> {
        let loaded = self.scripts.values().filter(|e| e.tick.is_none()).map(|e| e.script.clone());
        let evals = self.lru.values().filter_map(|sha| self.scripts.get(sha)).map(|e| e.script.clone());
        loaded.chain(evals).collect()
    }

    pub fn len(&self) -> usize {
        self.scripts.len()
    }

    pub fn evicted(&self) -> u64 {
        self.evicted
    }

    /// What the cache holds in bytes, as Redis 7's `used_memory_scripts_eval` counts it:
    /// SHAs and bodies, and each entry's bookkeeping.
    pub fn memory(&self) -> usize {
        let slot = std::mem::size_of::<(String, Entry)>() + 1;
        self.bytes + self.scripts.len() * ENTRY_OVERHEAD + self.scripts.capacity() * slot
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha1hex_matches_redis() {
        assert_eq!(sha1hex(b""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
        assert_eq!(sha1hex(b"return 1"), "e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
    }

    #[test]
    fn shebangs_parse_as_redis() {
        assert_eq!(parse_shebang(b"return 1"), Ok(Flags::default()));
        let f = parse_shebang(b"#!lua flags=no-writes,allow-oom\nreturn 1").unwrap();
        assert!(f.shebang && f.no_writes && f.allow_oom && !f.allow_stale);
        assert!(parse_shebang(b"#!lua\nreturn 1").unwrap().shebang);
        assert_eq!(parse_shebang(b"#!lua flags=bogus\n"), Err("ERR Unexpected flag in script shebang: bogus".into()));
        assert_eq!(parse_shebang(b"#!luax\n"), Err("ERR Unexpected engine in script shebang: #!luax".into()));
    }

    #[test]
    fn the_cache_finds_scripts_by_sha_in_any_case() {
        let mut c = Cache::default();
        let s = c.add(b"return 1").unwrap();
        assert!(c.get(s.sha.to_ascii_uppercase().as_bytes()).is_some());
        assert!(c.get(b"nope").is_none());
        c.flush();
        assert_eq!(c.len(), 0);
    }

    fn body(i: usize) -> Vec<u8> {
        format!("return {i}").into_bytes()
    }

    #[test]
    fn eval_scripts_are_bounded_least_recently_used_first() {
        let mut c = Cache::default();
        for i in 0..EVAL_SCRIPTS_MAX {
            let added = c.insert(&body(i), Origin::Eval).unwrap();
            assert!(added.new && added.evicted.is_empty());
        }
        // Script 0 is used again, so script 1 is now the least recently used.
        let first = sha1hex(&body(0));
        c.touch(&first);
        let again = c.insert(&body(0), Origin::Eval).unwrap();
        assert!(!again.new && again.evicted.is_empty());
        let added = c.insert(&body(EVAL_SCRIPTS_MAX), Origin::Eval).unwrap();
        assert_eq!(added.evicted, vec![sha1hex(&body(1))]);
        assert!(c.get(first.as_bytes()).is_some());
        assert!(c.get(sha1hex(&body(1)).as_bytes()).is_none());
        assert_eq!((c.len(), c.evicted()), (EVAL_SCRIPTS_MAX, 1));
        // 100 more evict the next 100 in order of last use: 2, 3, ... (0 was touched).
        for i in 0..100 {
            let added = c.insert(&body(EVAL_SCRIPTS_MAX + 1 + i), Origin::Eval).unwrap();
            assert_eq!(added.evicted, vec![sha1hex(&body(2 + i))]);
        }
        assert_eq!((c.len(), c.evicted()), (EVAL_SCRIPTS_MAX, 101));
        assert!(c.get(first.as_bytes()).is_some());
    }

    #[test]
    fn loaded_scripts_are_never_evicted_nor_counted_in_the_bound() {
        let mut c = Cache::default();
        for i in 0..1000 {
            c.insert(&body(i), Origin::Load).unwrap();
        }
        for i in 1000..1000 + EVAL_SCRIPTS_MAX + 10 {
            c.insert(&body(i), Origin::Eval).unwrap();
        }
        assert_eq!((c.len(), c.evicted()), (1000 + EVAL_SCRIPTS_MAX, 10));
        assert!((0..1000).all(|i| c.get(sha1hex(&body(i)).as_bytes()).is_some()));
        // SCRIPT LOAD of a cached EVAL script leaves it as it entered (Redis 7.4).
        let eval = c.insert(&body(1500), Origin::Load).unwrap();
        assert!(!eval.new && eval.script.origin == Origin::Eval);
        // The rewrite order: loaded first, then EVAL ones from least recently used.
        let all = c.scripts();
        assert_eq!(all.len(), c.len());
        assert!(all[..1000].iter().all(|s| s.origin == Origin::Load));
        assert_eq!(all[1000].sha, sha1hex(&body(1010)));
        assert_eq!(all.last().map(|s| s.sha.clone()), Some(sha1hex(&body(1000 + EVAL_SCRIPTS_MAX + 9))));
    }

    #[test]
    fn counters_follow_what_is_cached() {
        let mut c = Cache::default();
        assert_eq!((c.len(), c.evicted()), (0, 0));
        let empty = c.memory();
        let long = vec![b'-'; 10_000];
        c.insert(&long, Origin::Load).unwrap();
        let one = c.memory();
        assert!(one >= empty + 10_000 + 40, "{empty} {one}");
        for i in 0..EVAL_SCRIPTS_MAX + 3 {
            c.insert(&body(i), Origin::Eval).unwrap();
        }
        assert_eq!((c.len(), c.evicted()), (EVAL_SCRIPTS_MAX + 1, 3));
        // SCRIPT FLUSH empties the cache; the eviction count stays, as Redis's stat does.
        c.flush();
        assert_eq!((c.len(), c.evicted(), c.scripts().len()), (0, 3, 0));
        assert!(c.memory() < one);
        assert!(c.insert(b"#!lua flags=bogus\n", Origin::Eval).is_err());
        assert_eq!(c.len(), 0);
    }
}
