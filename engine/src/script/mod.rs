//! Lua scripting as Redis 7 runs it (EVAL, EVALSHA, SCRIPT): the VM and its sandbox (`vm`),
//! reply conversions (`convert`), the script cache (`cache`) and what scripts do (`usage`);
//! function libraries (`functions`) and their DUMP payload (`payload`). The commands are in
//! `cmd::scripting` and `cmd::functions`. Only with the `scripting` feature: the VM is C, which the wasm
//! playground cannot build.
//!
//! The cache is persisted (Vitrine's own, beyond Redis): a body is logged once, when it
//! enters the cache, as `SCRIPT LOAD <body>` (after the annotation line
//! [`crate::EVAL_SCRIPT_ANNOTATION`] when EVAL cached it, so it stays evictable after a
//! restart), SCRIPT FLUSH is logged, and an AOF rewrite writes the whole cache first.

pub mod cache;
pub mod convert;
pub mod functions;
pub mod payload;
pub mod usage;
pub mod vm;

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use parking_lot::Mutex;

use cache::{Origin, Script};

use crate::propagate::{encode_command, Propagation, EVAL_SCRIPT_ANNOTATION};

/// An engine's scripting state: the cache of scripts by SHA and the Lua VM (made on first
/// use, so an engine that never runs a script does not carry one). Lock order: shards, then
/// `vm`, then `cache`.
#[derive(Default)]
pub struct Scripts {
    pub cache: Mutex<cache::Cache>,
    pub vm: Mutex<Option<vm::Vm>>,
    /// The function libraries and their own Lua state (FUNCTION, FCALL).
    pub functions: Mutex<functions::Functions>,
    /// What INFO shows of them, readable while a function runs (and holds `functions`).
    pub function_figures: functions::Figures,
    /// What each script has done (the dashboard's Scripts page).
    pub usage: Mutex<usage::Usage>,
    /// The figures INFO shows, kept beside the locks: INFO may run inside a script, which
    /// holds the VM.
    pub figures: Figures,
}

/// INFO's scripting figures (see `StatsSnapshot::scripts`).
#[derive(Default)]
pub struct Figures {
    pub vm_bytes: AtomicU64,
    pub cache_bytes: AtomicU64,
    pub cached: AtomicU64,
    pub evicted: AtomicU64,
}

impl Scripts {
    /// Empties the cache, the compiled scripts and their usage records (SCRIPT FLUSH),
    /// logging it when the log is on.
    pub fn flush(&self, log: &Propagation) {
        let mut cache = self.cache.lock();
        cache.flush();
        if log.enabled() {
            let mut out = Vec::new();
            encode_command(&mut out, &["SCRIPT", "FLUSH"]);
            log.append_anywhere(&out);
        }
        self.publish(&cache);
        drop(cache);
        self.usage.lock().forget(usage::Kind::Script);
        if let Some(vm) = self.vm.lock().as_mut() {
            vm.flush();
            self.figures.vm_bytes.store(vm.used_memory() as u64, Relaxed);
        }
    }

    /// Caches `body` (compiled first: a body that does not compile is neither cached nor
    /// logged, as Redis caches only what compiles), logging it the first time it enters and
    /// dropping the functions of the EVAL scripts it evicts. `vm` is the locked VM.
    pub fn admit(
        &self,
        vm: &mut vm::Vm,
        body: &[u8],
        origin: Origin,
        log: &Propagation,
    ) -> Result<Arc<Script>, String> {
        let sha = cache::sha1hex(body);
        if let Some(s) = self.cache.lock().get(sha.as_bytes()) {
            return Ok(s);
        }
        let flags = cache::parse_shebang(body)?;
        vm.compile(&Script { sha, body: body.to_vec(), flags, origin })?;
        let mut cache = self.cache.lock();
        let inserted = cache.insert(body, origin)?;
        for sha in &inserted.evicted {
            vm.forget(sha);
        }
        // Logged under the cache's lock, so a rewrite (which reads the cache and the log's
        // position under it) sees each script either in its image or after it.
        if inserted.new && log.enabled() {
            let mut out = Vec::new();
            encode_record(&mut out, &inserted.script);
            log.append_anywhere(&out);
        }
        self.publish(&cache);
        drop(cache);
        self.figures.vm_bytes.store(vm.used_memory() as u64, Relaxed);
        Ok(inserted.script)
    }

    /// Copies the cache's figures where INFO reads them.
    fn publish(&self, cache: &cache::Cache) {
        let f = &self.figures;
        f.cached.store(cache.len() as u64, Relaxed);
        f.cache_bytes.store(cache.memory() as u64, Relaxed);
        f.evicted.store(cache.evicted(), Relaxed);
    }
}

/// The log record of one cached script: `SCRIPT LOAD <body>`, after the annotation line when
/// EVAL cached it. redis-server skips `#` lines in an AOF, so it would load both.
pub fn encode_record(out: &mut Vec<u8>, script: &Script) {
    if script.origin == Origin::Eval {
        out.extend_from_slice(EVAL_SCRIPT_ANNOTATION);
        out.extend_from_slice(b"\r\n");
    }
    encode_command(out, &[&b"SCRIPT"[..], b"LOAD", &script.body]);
}
