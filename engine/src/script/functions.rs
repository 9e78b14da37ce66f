//! The function libraries of Redis 7 (FUNCTION LOAD, FCALL): the registry of libraries and
//! the functions they register, and the Lua state they run in, a `Vm` of their own (as in
//! Redis, apart from EVAL's). The commands are in `cmd::functions`; DUMP/RESTORE's payload
//! is `script::payload`.
//!
//! A library's code runs once at load time, with only the load-time API visible (a `redis`
//! table with `register_function`, `log`, the `LOG_*` levels and the version): the globals'
//! `__index` is switched to that API for the load and back to the full sandbox after it, as
//! Redis's `luaEngineCreate` does. The callbacks it registers are kept and run by FCALL with
//! the full runtime API.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use mlua::{Function as LuaFunction, MultiValue, Table, Value};
use parking_lot::Mutex;

use super::cache::Flags;
use super::vm::{raise, Vm};
use crate::clock::Clock;

/// How long a library's code may run at load time (Redis's `LOAD_TIMEOUT_MS`).
const LOAD_TIMEOUT_US: u64 = 500_000;

/// The one engine Redis 7.0 has, as FUNCTION LIST and STATS name it.
pub const ENGINE: &str = "LUA";

const NAME_RULE: &str =
    "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long";

/// One registered function.
pub struct Function {
    pub name: String,
    pub description: Option<Vec<u8>>,
    pub flags: Flags,
    pub callback: LuaFunction,
}

/// One library: its name, its code as loaded (shebang included) and its functions in the
/// order it registered them.
pub struct Library {
    pub name: String,
    pub code: Vec<u8>,
    pub functions: Vec<Arc<Function>>,
}

/// Counts INFO reads without taking the registry's lock (INFO may run inside a function,
/// which holds it).
#[derive(Default)]
pub struct Figures {
    pub functions: AtomicU64,
    pub libraries: AtomicU64,
    /// The functions VM's memory (`used_memory_vm_functions`), as of the last load or call.
    pub vm_memory: AtomicU64,
}

/// A set of libraries: the engine's current one, or one a RESTORE builds before it joins.
#[derive(Default)]
pub struct Libraries {
    /// By name (case-sensitive, as Redis's library dict).
    libraries: BTreeMap<String, Library>,
    /// Function name, lower-cased (FCALL's lookup ignores case) -> its library.
    by_function: HashMap<String, String>,
}

impl Libraries {
    pub fn iter(&self) -> impl Iterator<Item = &Library> {
        self.libraries.values()
    }

    pub fn library_count(&self) -> usize {
        self.libraries.len()
    }

    pub fn function_count(&self) -> usize {
        self.by_function.len()
    }

    pub fn function(&self, name: &[u8]) -> Option<Arc<Function>> {
        let key = String::from_utf8_lossy(name).to_lowercase();
        let lib = self.libraries.get(self.by_function.get(&key)?)?;
        lib.functions.iter().find(|f| f.name.to_lowercase() == key).cloned()
    }

    fn link(&mut self, lib: Library) {
        for f in &lib.functions {
            self.by_function.entry(f.name.to_lowercase()).or_insert_with(|| lib.name.clone());
        }
        self.libraries.insert(lib.name.clone(), lib);
    }

    fn unlink(&mut self, name: &str) -> Option<Library> {
        let lib = self.libraries.remove(name)?;
        for f in &lib.functions {
            if self.by_function.get(&f.name.to_lowercase()) == Some(&lib.name) {
                self.by_function.remove(&f.name.to_lowercase());
            }
        }
        Some(lib)
    }

    /// The first of `lib`'s functions another library here already has (names compare
    /// without case).
    fn collision<'l>(&self, lib: &'l Library) -> Option<&'l str> {
        lib.functions.iter().find(|f| self.by_function.contains_key(&f.name.to_lowercase())).map(|f| f.name.as_str())
    }

    /// Deletes a library (FUNCTION DELETE); false when there is none of that name.
    pub fn delete(&mut self, name: &[u8]) -> bool {
        self.unlink(&String::from_utf8_lossy(name)).is_some()
    }

    /// Adds `lib`, replacing a library of its name when `replace`: Redis's checks and texts.
    fn add(&mut self, lib: Library, replace: bool) -> Result<(), String> {
        let old = match self.libraries.contains_key(&lib.name) {
            true if !replace => return Err(format!("Library '{}' already exists", lib.name)),
            true => self.unlink(&lib.name),
            false => None,
        };
        if let Some(name) = self.collision(&lib) {
            let e = format!("Function {name} already exists");
            if let Some(old) = old {
                self.link(old);
            }
            return Err(e);
        }
        self.link(lib);
        Ok(())
    }

    /// Moves every library of `other` here (FUNCTION RESTORE APPEND / REPLACE), all or
    /// none, with Redis's texts.
    pub fn join(&mut self, other: Libraries, replace: bool) -> Result<(), String> {
        let mut replaced = Vec::new();
        let mut failed = None;
        for name in other.libraries.keys() {
            if self.libraries.contains_key(name) {
                if !replace {
                    failed = Some(format!("Library {name} already exists"));
                    break;
                }
                replaced.extend(self.unlink(name));
            }
        }
        if failed.is_none() {
            failed = other.iter().find_map(|l| self.collision(l)).map(|f| format!("Function {f} already exists"));
        }
        if let Some(e) = failed {
            for old in replaced {
                self.link(old);
            }
            return Err(e);
        }
        for (_, lib) in other.libraries {
            self.link(lib);
        }
        Ok(())
    }
}

/// A library's shebang: `#!<engine> name=<name>`, parsed as Redis's
/// `functionExtractLibMetaData`. Returns the name and the code after the shebang line (from
/// its newline on, so line numbers stay the user's).
fn metadata(code: &[u8]) -> Result<(String, &[u8]), String> {
    if !code.starts_with(b"#!") {
        return Err("Missing library metadata".into());
    }
    let Some(end) = code.iter().position(|&b| b == b'\n') else {
        return Err("Invalid library metadata".into());
    };
    // Split as Redis splits it (`sdssplitargs`: quotes and escapes).
    let parts = crate::resp::split_args(&code[..end]).filter(|p| !p.is_empty());
    let Some(parts) = parts else { return Err("Invalid library metadata".into()) };
    let mut parts = parts.iter().map(|p| String::from_utf8_lossy(p).to_string());
    let engine = parts.next().and_then(|p| p.get(2..).map(str::to_string)).unwrap_or_default();
    let mut name = None;
    for part in parts {
        match part.get(..5) {
            Some(p) if p.eq_ignore_ascii_case("name=") => {
                if name.is_some() {
                    return Err("Invalid metadata value, name argument was given multiple times".into());
                }
                name = Some(part[5..].to_string());
            }
            _ => return Err(format!("Invalid metadata value given: {part}")),
        }
    }
    let Some(name) = name else { return Err("Library name was not given".into()) };
    if !valid_name(&name) {
        return Err(NAME_RULE.into());
    }
    if !engine.eq_ignore_ascii_case(ENGINE) {
        return Err(format!("Engine '{engine}' not found"));
    }
    Ok((name, &code[end..]))
}

/// Letters, digits and underscores, at least one (library and function names).
fn valid_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// What `redis.register_function` collects during one load (`None` outside a load).
type Pending = Arc<Mutex<Option<Vec<Arc<Function>>>>>;

/// The functions' Lua state: the sandbox of `Vm` plus the load-time API.
pub struct FunctionVm {
    vm: Vm,
    /// What the globals read during a load: only `redis` (the load-time API).
    load_api: Table,
    pending: Pending,
    loader: LuaFunction,
}

impl FunctionVm {
    pub fn new() -> mlua::Result<FunctionVm> {
        let vm = Vm::with_chunk("user_function")?;
        let pending: Pending = Arc::default();
        let lua = vm.lua();
        let hooks = vm.hooks().clone();
        // Reading a name the load API lacks raises as a missing global does, in Redis's
        // words (its error metatable on both the globals and the `redis` table).
        let missing: LuaFunction = lua
            .load(
                "local error, tostring = error, tostring; return function(_, k) error(\"Script attempted to access nonexistent global variable '\" .. tostring(k) .. \"'\", 2) end",
            )
            .set_name("=redis")
            .call(())?;
        let redis = lua.create_table()?;
        let runtime: Table = vm.globals().raw_get("redis")?;
        for name in
            ["log", "LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING", "REDIS_VERSION", "REDIS_VERSION_NUM"]
        {
            redis.raw_set(name, runtime.get::<Value>(name)?)?;
        }
        let p = pending.clone();
        let register = lua.create_function(move |lua, args: MultiValue| {
            let f = register_args(lua, &args).map_err(|e| raise(&hooks, &format!("ERR {e}")))?;
            let mut pending = p.lock();
            let Some(list) = pending.as_mut() else {
                return Err(raise(&hooks, "ERR redis.register_function can only be called on FUNCTION LOAD command"));
            };
            if !valid_name(&f.name) {
                return Err(raise(&hooks, &format!("ERR {NAME_RULE}")));
            }
            if list.iter().any(|g| g.name == f.name) {
                return Err(raise(&hooks, "ERR Function already exists in the library"));
            }
            list.push(Arc::new(f));
            Ok(())
        })?;
        redis.raw_set("register_function", register)?;
        let readonly = |t: Table| -> mlua::Result<Table> {
            let proxy = lua.create_table()?;
            let mt = lua.create_table()?;
            mt.raw_set("__index", t.clone())?;
            mt.raw_set(
                "__newindex",
                lua.create_function(|_, ()| -> mlua::Result<()> {
                    Err(mlua::Error::RuntimeError("Attempt to modify a readonly table".into()))
                })?,
            )?;
            mt.raw_set("__metatable", false)?;
            t.set_metatable(Some(lua.create_table_from([("__index", missing.clone())])?));
            proxy.set_metatable(Some(mt));
            Ok(proxy)
        };
        let load_api = lua.create_table()?;
        load_api.raw_set("redis", readonly(redis)?)?;
        load_api.set_metatable(Some(lua.create_table_from([("__index", missing.clone())])?));
        // The load runs in a protected call made in Lua, so its error is the value raised
        // (as Redis's `lua_pcall`), without a traceback.
        let loader =
            lua.load("local pcall = pcall; return function(f) return pcall(f) end").set_name("=loader").call(())?;
        Ok(FunctionVm { vm, load_api, pending, loader })
    }

    /// The VM FCALL runs a function's callback in.
    pub fn vm(&mut self) -> &mut Vm {
        &mut self.vm
    }

    pub fn used_memory(&self) -> usize {
        self.vm.lua().used_memory()
    }

    /// Compiles a library and runs its code to collect the functions it registers (not yet
    /// added anywhere). Errors are Redis's texts, without `ERR `. With a `clock`, the run
    /// stops after `LOAD_TIMEOUT_US` (Redis's 500 ms: loading only registers functions).
    pub fn compile(&mut self, code: &[u8], clock: Option<Arc<dyn Clock>>) -> Result<Library, String> {
        let (name, body) = metadata(code)?;
        let lua = self.vm.lua();
        let chunk =
            lua.load(body).set_name("@user_function").set_mode(mlua::ChunkMode::Text).into_function().map_err(|e| {
                let msg = match &e {
                    mlua::Error::SyntaxError { message, .. } => message.clone(),
                    other => other.to_string(),
                };
                format!("Error compiling function: {msg}")
            })?;
        let globals_mt = lua.globals().metatable();
        let set_index = |t: &Table| {
            if let Some(mt) = &globals_mt {
                mt.raw_set("__index", t.clone()).ok();
            }
        };
        set_index(&self.load_api);
        *self.pending.lock() = Some(Vec::new());
        self.vm.hooks().raw_set("last", Value::Nil).ok();
        if let Some(clock) = clock {
            let hooks = self.vm.hooks().clone();
            let start = clock.now_us();
            lua.set_hook(mlua::HookTriggers::new().every_nth_instruction(100_000), move |_, _| {
                if clock.now_us().saturating_sub(start) > LOAD_TIMEOUT_US {
                    return Err(raise(&hooks, "ERR FUNCTION LOAD timeout"));
                }
                Ok(mlua::VmState::Continue)
            });
        }
        let ran = self.loader.call::<(bool, Value)>(chunk);
        lua.remove_hook();
        self.vm.unwatch();
        set_index(self.vm.globals());
        let functions = self.pending.lock().take().unwrap_or_default();
        let failure = match ran {
            Ok((true, _)) => None,
            Ok((false, e)) => Some(e),
            Err(e) => Some(Value::Error(Box::new(e))),
        };
        if let Some(e) = failure {
            let msg = self.vm.error_message(e, None);
            return Err(format!("Error registering functions: {msg}"));
        }
        if functions.is_empty() {
            return Err("No functions registered".into());
        }
        Ok(Library { name, code: code.to_vec(), functions })
    }
}

/// `redis.register_function`'s arguments, positional `(name, callback)` or a table of
/// named ones, read as Redis reads them (its texts, without `ERR `).
fn register_args(lua: &mlua::Lua, args: &MultiValue) -> Result<Function, String> {
    let string = |v: &Value| -> Option<String> {
        match v {
            Value::String(_) | Value::Integer(_) | Value::Number(_) => lua.coerce_string(v.clone()).ok().flatten(),
            _ => None,
        }
        .map(|s| s.to_string_lossy().to_string())
    };
    match args.len() {
        1 => {}
        2 => {
            let name = string(&args[0]).ok_or("first argument to redis.register_function must be a string")?;
            let Value::Function(callback) = &args[1] else {
                return Err("second argument to redis.register_function must be a function".into());
            };
            return Ok(Function { name, description: None, flags: Flags::default(), callback: callback.clone() });
        }
        _ => return Err("wrong number of arguments to redis.register_function".into()),
    }
    let Value::Table(t) = &args[0] else {
        return Err("calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).".into());
    };
    let (mut name, mut description, mut callback, mut flags) = (None, None, None, Flags::default());
    for pair in t.clone().pairs::<Value, Value>() {
        let (k, v) = pair.map_err(|e| e.to_string())?;
        let key = string(&k).ok_or("named argument key given to redis.register_function is not a string")?;
        match key.to_ascii_lowercase().as_str() {
            "function_name" => {
                name =
                    Some(string(&v).ok_or("function_name argument given to redis.register_function must be a string")?)
            }
            "description" => {
                let d = match &v {
                    Value::String(s) => Some(s.as_bytes().to_vec()),
                    other => string(other).map(String::into_bytes),
                };
                description = Some(d.ok_or("description argument given to redis.register_function must be a string")?);
            }
            "callback" => match v {
                Value::Function(f) => callback = Some(f),
                _ => return Err("callback argument given to redis.register_function must be a function".into()),
            },
            "flags" => {
                let Value::Table(list) = v else {
                    return Err(
                        "flags argument to redis.register_function must be a table representing function flags".into(),
                    );
                };
                flags = read_flags(&list, &string).ok_or("unknown flag given")?;
            }
            _ => return Err("unknown argument given to redis.register_function".into()),
        }
    }
    let name = name.ok_or("redis.register_function must get a function name argument")?;
    let callback = callback.ok_or("redis.register_function must get a callback argument")?;
    Ok(Function { name, description, flags, callback })
}

/// A function's `flags` list (`{'no-writes', ...}`, any case); `None` for an unknown one.
fn read_flags(list: &Table, string: &dyn Fn(&Value) -> Option<String>) -> Option<Flags> {
    let mut flags = Flags::default();
    for i in 1.. {
        let v: Value = list.get(i).ok()?;
        if v.is_nil() {
            break;
        }
        let flag = string(&v)?.to_ascii_lowercase();
        match flag.as_str() {
            "no-writes" => flags.no_writes = true,
            "allow-oom" => flags.allow_oom = true,
            "allow-stale" => flags.allow_stale = true,
            "no-cluster" => flags.no_cluster = true,
            "allow-cross-slot-keys" => flags.allow_cross_slot_keys = true,
            _ => return None,
        }
    }
    Some(flags)
}

/// The flag names FUNCTION LIST shows, in Redis's order.
pub fn flag_names(f: &Flags) -> Vec<&'static str> {
    [
        (f.no_writes, "no-writes"),
        (f.allow_oom, "allow-oom"),
        (f.allow_stale, "allow-stale"),
        (f.no_cluster, "no-cluster"),
        (f.allow_cross_slot_keys, "allow-cross-slot-keys"),
    ]
    .into_iter()
    .filter_map(|(on, name)| on.then_some(name))
    .collect()
}

/// The engine's functions: its libraries and their Lua state (made on first use).
#[derive(Default)]
pub struct Functions {
    pub libraries: Libraries,
    vm: Option<FunctionVm>,
}

impl Functions {
    /// The functions' VM, started on first use.
    pub fn vm(&mut self) -> Result<&mut FunctionVm, String> {
        match &mut self.vm {
            Some(vm) => Ok(vm),
            slot => Ok(slot.insert(FunctionVm::new().map_err(|e| format!("cannot start the Lua VM: {e}"))?)),
        }
    }

    /// FUNCTION LOAD: compiles and adds a library, answering its name.
    pub fn load(&mut self, code: &[u8], replace: bool, clock: Option<Arc<dyn Clock>>) -> Result<String, String> {
        // Redis checks the name against the libraries before it runs the code.
        let (name, _) = metadata(code)?;
        if !replace && self.libraries.libraries.contains_key(&name) {
            return Err(format!("Library '{name}' already exists"));
        }
        let lib = self.vm()?.compile(code, clock)?;
        self.libraries.add(lib, replace)?;
        Ok(name)
    }

    /// Builds a set of libraries from codes (a RESTORE payload's), as Redis loads them into
    /// a fresh context: names must not repeat among them.
    pub fn compile_all(&mut self, codes: &[Vec<u8>], clock: Option<Arc<dyn Clock>>) -> Result<Libraries, String> {
        let mut set = Libraries::default();
        for code in codes {
            let lib = self.vm()?.compile(code, clock.clone())?;
            set.add(lib, false)?;
        }
        Ok(set)
    }

    pub fn flush(&mut self) {
        self.libraries = Libraries::default();
        if let Some(vm) = &self.vm {
            vm.vm.lua().gc_collect().ok();
        }
    }

    /// Updates what INFO reads.
    pub fn publish(&self, figures: &Figures) {
        figures.functions.store(self.libraries.function_count() as u64, Relaxed);
        figures.libraries.store(self.libraries.library_count() as u64, Relaxed);
        figures.vm_memory.store(self.vm.as_ref().map_or(0, |v| v.used_memory()) as u64, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_reads_the_shebang_as_redis() {
        assert_eq!(metadata(b"return 1"), Err("Missing library metadata".into()));
        assert_eq!(metadata(b"#!lua name=a"), Err("Invalid library metadata".into()));
        assert_eq!(metadata(b"#!lua x=1\n"), Err("Invalid metadata value given: x=1".into()));
        assert_eq!(
            metadata(b"#!lua name=a name=b\n"),
            Err("Invalid metadata value, name argument was given multiple times".into())
        );
        assert_eq!(metadata(b"#!lua\n"), Err("Library name was not given".into()));
        assert_eq!(metadata(b"#!lua name=a-b\n"), Err(NAME_RULE.into()));
        assert_eq!(metadata(b"#!luax name=ab\n"), Err("Engine 'luax' not found".into()));
        // Split as sdssplitargs splits (redis-server 7.0.15's answers).
        assert_eq!(metadata(b"#!lua name=\"ab\"\n").unwrap().0, "ab");
        assert_eq!(metadata(b"#!lua name=\"ab\n"), Err("Invalid library metadata".into()));
        assert_eq!(metadata(b"#!\"lua\" name=ef\n").unwrap().0, "ef");
        assert_eq!(metadata(b"#!lua   name=cd  \n").unwrap().0, "cd");
        assert_eq!(metadata(b"#!lua name=\n"), Err(NAME_RULE.into()));
        let (name, body) = metadata(b"#!LUA NAME=lib1\nreturn").unwrap();
        assert_eq!((name.as_str(), body), ("lib1", &b"\nreturn"[..]));
    }

    #[test]
    fn libraries_join_all_or_nothing() {
        let mut fvm = FunctionVm::new().unwrap();
        let mut mine = Libraries::default();
        mine.add(fvm.compile(b"#!lua name=a\nredis.register_function('f', function() end)", None).unwrap(), false)
            .unwrap();
        mine.add(fvm.compile(b"#!lua name=c\nredis.register_function('h', function() end)", None).unwrap(), false)
            .unwrap();
        let mut other = Libraries::default();
        other
            .add(fvm.compile(b"#!lua name=a\nredis.register_function('g', function() end)", None).unwrap(), false)
            .unwrap();
        other
            .add(fvm.compile(b"#!lua name=b\nredis.register_function('H', function() end)", None).unwrap(), false)
            .unwrap();
        // REPLACE takes `a` out first, then finds `H` in `c`: nothing changes.
        assert_eq!(mine.join(other, true), Err("Function H already exists".into()));
        assert!(mine.function(b"f").is_some() && mine.function(b"g").is_none());
        assert_eq!(mine.library_count(), 2);
    }
}
