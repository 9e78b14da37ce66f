//! Lua scripting as Redis 7 runs it (EVAL, EVALSHA, SCRIPT): the VM and its sandbox (`vm`),
//! reply conversions (`convert`), the script cache (`cache`) and what scripts do (`usage`);
//! function libraries (`functions`) and their DUMP payload (`payload`). The commands are in
//! `cmd::scripting` and `cmd::functions`. Only with the `scripting` feature: the VM is C, which the wasm
//! playground cannot build.

pub mod cache;
pub mod convert;
pub mod functions;
pub mod payload;
pub mod usage;
pub mod vm;

use parking_lot::Mutex;

/// An engine's scripting state: the cache of scripts by SHA and the Lua VM (made on first
/// use, so an engine that never runs a script does not carry one).
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
}

impl Scripts {
    /// Empties the cache and the compiled scripts (SCRIPT FLUSH).
    pub fn flush(&self) {
        self.cache.lock().flush();
        self.usage.lock().forget(usage::Kind::Script);
        if let Some(vm) = self.vm.lock().as_mut() {
            vm.flush();
        }
    }
}
