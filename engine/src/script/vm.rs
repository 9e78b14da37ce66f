//! The Lua VM scripts run in: Lua 5.1 with Redis's sandbox (base, table, string and math;
//! no io, os, loadfile, dofile or require; globals read-only and reading an undefined one an
//! error), the `redis` library, and the run of one script with `redis.call` bound to the
//! caller's command context for just that run.

use std::cell::RefCell;
use std::collections::HashMap;

use std::sync::Arc;

use mlua::{Function, HookTriggers, Lua, LuaOptions, MultiValue, StdLib, Table, Value, VmState};

use super::cache::Script;
use super::convert::{lua_to_reply, reply_to_lua};
use crate::busy::{ScriptRun, KILLED_TEXT};
use crate::clock::Clock;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::reply::Reply;
use crate::table::{self, BLOCKING, DENYOOM, WRITE};

/// The Redis version scripts see in `redis.REDIS_VERSION` (the version Vitrine answers as).
const REDIS_VERSION: &str = "7.0.15";
const REDIS_VERSION_NUM: i64 = 0x07_00_0f;

/// The `redis` library and the sandbox, in Lua: the parts that need no engine access. `hooks`
/// is a table only this chunk and the engine see: the chunk leaves the script's
/// `setresp`/`set_repl` choices and the last error it raised in it.
const SETUP: &str = r##"
local hooks, sha1hex, version, version_num = ...
local error, type, tostring, setmetatable = error, type, tostring, setmetatable
-- What Redis 7.0 removes from the base library.
loadfile, dofile, print, newproxy, getfenv, setfenv = nil, nil, nil, nil, nil, nil
local function raise(msg)
  hooks.last = msg
  error(msg, 0)
end
hooks.raise = raise
local redis = {}
redis.REDIS_VERSION = version
redis.REDIS_VERSION_NUM = version_num
redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING = 0, 1, 2, 3
redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, redis.REPL_ALL = 0, 1, 2, 2, 3
function redis.error_reply(e)
  if type(e) ~= "string" then raise("ERR wrong number or type of arguments") end
  if e:sub(1, 1) == "-" then e = e:sub(2) end
  return {err = e}
end
function redis.status_reply(s)
  if type(s) ~= "string" then raise("ERR wrong number or type of arguments") end
  return {ok = s}
end
function redis.sha1hex(s)
  if s == nil then raise("ERR wrong number of arguments") end
  return sha1hex(tostring(s))
end
function redis.replicate_commands() return true end
-- redis.call and redis.pcall are set by the engine for each run (they need its context);
-- the functions that raise are the engine's too (see `Vm::new`).

-- Read-only tables, as Redis 7 makes the globals and the libraries: each is an empty proxy
-- whose reads go to the real table and whose writes fail. The globals themselves live in
-- `backing`, which _G reads through (a table as __index: no Lua call per global read).
local raw_set, set_mt, pairs, G = rawset, setmetatable, pairs, _G
local readonly = {}
local function refuse() error("Attempt to modify a readonly table", 2) end
local function protect(t)
  local p = set_mt({}, {__index = t, __newindex = refuse, __metatable = false})
  readonly[p] = true
  return p
end
local backing = {}
for k, v in pairs(G) do backing[k] = v end
for k in pairs(backing) do raw_set(G, k, nil) end
backing.redis = protect(redis)
for _, lib in pairs({"string", "table", "math", "coroutine", "cjson", "cmsgpack", "struct", "bit"}) do backing[lib] = protect(backing[lib]) end
backing._G = G
function backing.rawset(t, k, v)
  if readonly[t] then error("Attempt to modify a readonly table", 0) end
  return raw_set(t, k, v)
end
function backing.setmetatable(t, m)
  if readonly[t] then error("Attempt to modify a readonly table", 0) end
  return set_mt(t, m)
end
readonly[G] = true
set_mt(backing, {__index = function(_, k)
  error("Script attempted to access nonexistent global variable '" .. tostring(k) .. "'", 2)
end})
set_mt(G, {__index = backing, __newindex = refuse, __metatable = false})
return redis, backing
"##;

/// The Lua state and the scripts compiled in it.
pub struct Vm {
    lua: Lua,
    hooks: Table,
    /// The `redis` table, where each run puts its `call` and `pcall`.
    redis: Table,
    /// Where the globals live (KEYS and ARGV are set there; `_G` is a read-only view).
    globals: Table,
    /// `function(f) return xpcall(f, handler) end`: runs a script, answering `false` and
    /// `{e = error, line = where}` when it raises.
    runner: Function,
    /// `function(f, keys, args)`: as `runner`, calling `f(keys, args)` (a function's run).
    fn_runner: Function,
    compiled: HashMap<String, Function>,
    /// The chunk name errors and their line point at: `user_script` (EVAL) or
    /// `user_function` (a library's code, `crate::script::functions`).
    chunk: &'static str,
    /// The cap on the VM's memory in bytes (`lua-maxmemory`; 0: none), as last set.
    limit: usize,
    /// The busy-script hook (`watch_lua`) is set as a run needs it: cleared by a kill (which
    /// leaves it firing on every line) and by a library's load (which sets its own).
    watched: std::sync::atomic::AtomicBool,
}

/// Registers the libraries Redis ships beyond Lua's own (cjson, cmsgpack, struct, bit:
/// `crate::script_libs`), before the sandbox makes them read-only with the rest.
fn load_libraries(lua: &Lua) -> mlua::Result<()> {
    crate::script_libs::register_all(lua)
}

impl Vm {
    pub fn new() -> mlua::Result<Vm> {
        Vm::with_chunk("user_script")
    }

    /// A VM whose code is compiled as `@chunk` (functions have a Lua state of their own,
    /// whose chunks are `user_function`).
    pub fn with_chunk(chunk: &'static str) -> mlua::Result<Vm> {
        let lua = Lua::new_with(StdLib::TABLE | StdLib::STRING | StdLib::MATH, LuaOptions::new())?;
        load_libraries(&lua)?;
        let hooks = lua.create_table()?;
        let sha1hex = lua.create_function(|_, s: mlua::String| Ok(super::cache::sha1hex(&s.as_bytes())))?;
        let (redis, globals): (Table, Table) =
            lua.load(SETUP).set_name("=redis").call((hooks.clone(), sha1hex, REDIS_VERSION, REDIS_VERSION_NUM))?;
        add_raising_functions(&lua, &redis, &hooks)?;
        let handler = lua.create_function(move |lua, e: Value| {
            let info = lua.create_table()?;
            info.raw_set("e", e)?;
            info.raw_set("line", script_line(lua, chunk))?;
            Ok(info)
        })?;
        let runner: Function = lua
            .load("local handler = ...; return function(f) return xpcall(f, handler) end")
            .set_name("=runner")
            .call(handler.clone())?;
        let fn_runner: Function = lua
            .load("local handler = ...; return function(f, k, a) return xpcall(function() return f(k, a) end, handler) end")
            .set_name("=runner")
            .call(handler)?;
        Ok(Vm {
            lua,
            hooks,
            redis,
            globals,
            runner,
            fn_runner,
            compiled: HashMap::new(),
            chunk,
            limit: 0,
            watched: Default::default(),
        })
    }

    /// The Lua state (a library's load runs its chunk here: `crate::script::functions`).
    pub(crate) fn lua(&self) -> &Lua {
        &self.lua
    }

    /// The table the sandbox keeps its state in (`last`: the last error a `redis`
    /// function raised).
    pub(crate) fn hooks(&self) -> &Table {
        &self.hooks
    }

    /// The table the globals are read from (the sandbox's `backing`).
    pub(crate) fn globals(&self) -> &Table {
        &self.globals
    }

    /// Lets `run` watch this VM's scripts (see `watch_lua`), unless its hook is set already:
    /// setting it allocates, and a script runs thousands of times a second.
    pub fn watch(&self, run: &Arc<ScriptRun>, clock: impl FnOnce() -> Option<Arc<dyn Clock>>) {
        use std::sync::atomic::Ordering::Relaxed;
        if !self.watched.swap(true, Relaxed) {
            watch_lua(&self.lua, run.clone(), clock(), false);
        }
    }

    /// The hook is no longer `watch`'s (a kill changed it, a library's load replaced it):
    /// the next run sets it again.
    pub fn unwatch(&self) {
        self.watched.store(false, std::sync::atomic::Ordering::Relaxed);
    }

    /// Drops every compiled script (SCRIPT FLUSH).
    pub fn flush(&mut self) {
        self.compiled.clear();
        self.lua.gc_collect().ok();
    }

    /// Drops the compiled function of an evicted script.
    pub fn forget(&mut self, sha: &str) {
        self.compiled.remove(sha);
    }

    /// Bytes the VM holds (Redis's `used_memory_vm_eval`).
    pub fn used_memory(&self) -> usize {
        self.lua.used_memory()
    }

    /// Caps the VM's memory at `limit` bytes (0: no cap) while scripts run. The cap is in
    /// force only around the script's own code (see `run`): with a cap set, mlua wraps every
    /// call into the VM in a protected call, as any allocation may fail, and that doubled
    /// EVALSHA's CPU when the cap stayed set (measured with `scripts/bench --loads
    /// rb-evalsha`).
    pub fn set_memory_limit(&mut self, limit: usize) {
        self.limit = limit;
    }

    /// Compiles `script` (once), answering Redis's compile error text.
    pub fn compile(&mut self, script: &Script) -> Result<Function, String> {
        if let Some(f) = self.compiled.get(&script.sha) {
            return Ok(f.clone());
        }
        // A shebang line is commented out rather than cut, so line numbers stay the user's.
        let body: std::borrow::Cow<'_, [u8]> = if script.body.starts_with(b"#!") {
            [&b"--"[..], &script.body].concat().into()
        } else {
            (&script.body[..]).into()
        };
        let f =
            self.lua.load(&*body).set_name("@user_script").set_mode(mlua::ChunkMode::Text).into_function().map_err(
                |e| {
                    let msg = match &e {
                        mlua::Error::SyntaxError { message, .. } => message.clone(),
                        mlua::Error::MemoryError(_) => return out_of_memory(self.limit),
                        other => other.to_string(),
                    };
                    format!("ERR Error compiling script (new function): {msg}")
                },
            )?;
        self.compiled.insert(script.sha.clone(), f.clone());
        Ok(f)
    }

    /// Runs a compiled script for the caller in `ctx`, with its KEYS and ARGV. Commands it
    /// calls run on the locks `ctx` holds (all shards: see `cmd::scripting`). `read_only`:
    /// EVAL_RO or a `no-writes` shebang, so writes are refused; `deny_oom`: memory is over
    /// the limit, so commands that may grow it are refused.
    pub fn run(
        &mut self,
        script: &Script,
        ctx: &mut Ctx<'_>,
        keys: &[&[u8]],
        args: &[&[u8]],
        read_only: bool,
        deny_oom: bool,
    ) -> Result<Reply, CmdError> {
        let f = self.compile(script).map_err(CmdError::Other)?;
        self.run_compiled(f, &script.sha, ctx, keys, args, read_only, deny_oom, false)
    }

    /// Runs compiled code for the caller in `ctx` (see `run`), `label` naming it in errors
    /// (a script's SHA, a function's name). `as_arguments`: the keys and args are handed
    /// to `f` as its two parameters (a function's run) rather than as KEYS and ARGV.
    #[allow(clippy::too_many_arguments)]
    pub fn run_compiled(
        &mut self,
        f: Function,
        label: &str,
        ctx: &mut Ctx<'_>,
        keys: &[&[u8]],
        args: &[&[u8]],
        read_only: bool,
        deny_oom: bool,
        as_arguments: bool,
    ) -> Result<Reply, CmdError> {
        let lua = &self.lua;
        let hooks = &self.hooks;
        let redis = &self.redis;
        let g = &self.globals;
        let setup = || -> mlua::Result<(Table, Table)> {
            let k =
                lua.create_sequence_from(keys.iter().map(|k| lua.create_string(k)).collect::<Result<Vec<_>, _>>()?)?;
            let a =
                lua.create_sequence_from(args.iter().map(|a| lua.create_string(a)).collect::<Result<Vec<_>, _>>()?)?;
            if !as_arguments {
                g.raw_set("KEYS", k.clone())?;
                g.raw_set("ARGV", a.clone())?;
            }
            hooks.raw_set("resp", 2)?;
            hooks.raw_set("repl", 3)?;
            hooks.raw_set("last", Value::Nil)?;
            Ok((k, a))
        };
        let (keys_table, args_table) = setup().map_err(|e| self.run_error(&e))?;
        let caller_db = ctx.session.db;
        let cell = RefCell::new(Caller { ctx, read_only, deny_oom, raised: None });
        // One call for both: `raise` says whether a command's error is raised (redis.call)
        // or handed back as an `{err=...}` table (redis.pcall).
        let call = |lua: &Lua, argv: MultiValue, raise: bool| -> mlua::Result<Value> {
            let resp3 = matches!(hooks.raw_get::<Value>("resp")?, Value::Integer(3));
            let repl_aof = !matches!(hooks.raw_get::<Value>("repl")?, Value::Integer(0) | Value::Integer(2));
            let mut caller = cell.borrow_mut();
            match caller.call(&argv, repl_aof) {
                Ok(Reply::Error(text)) | Err(text) if raise => {
                    caller.raised = Some(text.clone());
                    Err(mlua::Error::RuntimeError(text))
                }
                Ok(Reply::Error(text)) | Err(text) => reply_to_lua(lua, &Reply::Error(text), resp3),
                Ok(reply) => reply_to_lua(lua, &reply, resp3),
            }
        };
        // Rust functions, not Lua wrappers: a Lua wrapper in tail position (`return
        // redis.call(...)`) would take the script's frame, and errors its line.
        let outcome = lua.scope(|scope| {
            redis.raw_set("call", scope.create_function(|lua, argv: MultiValue| call(lua, argv, true))?)?;
            redis.raw_set("pcall", scope.create_function(|lua, argv: MultiValue| call(lua, argv, false))?)?;
            redis.raw_set(
                "acl_check_cmd",
                scope.create_function(|_, argv: MultiValue| {
                    cell.borrow().acl_check(&argv).map_err(|text| raise(hooks, &text))
                })?,
            )?;
            // The cap, only while the script's code runs (see `set_memory_limit`).
            if self.limit > 0 {
                lua.set_memory_limit(self.limit)?;
            }
            let result = if as_arguments {
                self.fn_runner.call::<MultiValue>((f, keys_table, args_table))
            } else {
                self.runner.call::<MultiValue>(f)
            };
            if self.limit > 0 {
                lua.set_memory_limit(0)?;
            }
            let result = result?;
            redis.raw_set("call", Value::Nil)?;
            redis.raw_set("pcall", Value::Nil)?;
            redis.raw_set("acl_check_cmd", hooks.raw_get::<Value>("acl_check_cmd")?)?;
            Ok(result)
        });
        // SELECT inside a script does not move its caller (Redis 7).
        let caller = cell.into_inner();
        let raised = caller.raised;
        caller.ctx.session.db = caller_db;
        caller.ctx.session.client.db.store(caller_db, std::sync::atomic::Ordering::Relaxed);
        let mut values = outcome.map_err(|e| self.run_error(&e))?.into_iter();
        let resp3 = matches!(hooks.raw_get::<Value>("resp"), Ok(Value::Integer(3)));
        match values.next() {
            Some(Value::Boolean(true)) => Ok(lua_to_reply(&values.next().unwrap_or(Value::Nil), resp3)),
            _ => {
                let info = values.next();
                if self.limit > 0 && is_memory_error(info.as_ref()) {
                    // What the script built is garbage now: collected at once, so the next
                    // script finds the room.
                    self.lua.gc_collect().ok();
                    return Ok(Reply::Error(format!("{} script: {}", out_of_memory(self.limit), label)));
                }
                Ok(Reply::Error(self.error_text(info, raised, label)))
            }
        }
    }

    /// An error of the VM itself around a run (not the script's own).
    fn run_error(&self, e: &mlua::Error) -> CmdError {
        if matches!(e, mlua::Error::MemoryError(_)) {
            self.lua.gc_collect().ok();
            return CmdError::Other(out_of_memory(self.limit));
        }
        CmdError::Other(format!("ERR {e}"))
    }

    /// The reply to a script that raised, as Redis words it: the error (a `redis.call`
    /// error or an `{err=...}` table as is; anything else after `ERR `), then which script
    /// and the line it stopped at.
    fn error_text(&self, info: Option<Value>, raised: Option<String>, label: &str) -> String {
        let (e, line) = match info {
            Some(Value::Table(t)) => {
                (t.raw_get::<Value>("e").unwrap_or(Value::Nil), t.raw_get::<i64>("line").unwrap_or(0))
            }
            _ => (Value::Nil, 0),
        };
        let text = self.error_message(e, raised.as_deref());
        format!("{text} script: {label}, on @{}:{line}.", self.chunk)
    }

    /// An error raised in Lua as Redis words it: a `redis.call` error (`raised`) or an
    /// `{err=...}` table as is, anything else after `ERR `.
    pub(crate) fn error_message(&self, e: Value, raised: Option<&str>) -> String {
        let last = self.hooks.raw_get::<Option<mlua::String>>("last").ok().flatten();
        let text = match e {
            Value::Table(t) => match t.raw_get::<Option<mlua::String>>("err") {
                Ok(Some(s)) => s.to_string_lossy().to_string(),
                _ => "ERR unknown error".to_string(),
            },
            Value::String(s) => {
                let s = s.to_string_lossy().to_string();
                if last.as_ref().is_some_and(|l| l.to_string_lossy() == s) {
                    s
                } else {
                    format!("ERR {s}")
                }
            }
            Value::Error(e) => {
                let mut root: &mlua::Error = &e;
                while let mlua::Error::CallbackError { cause, .. } = root {
                    root = cause;
                }
                let is_last = |text: &str| last.as_ref().is_some_and(|l| l.as_bytes() == text.as_bytes());
                match root {
                    mlua::Error::RuntimeError(text)
                        if raised == Some(text.as_str()) || is_last(text) || text == KILLED_TEXT =>
                    {
                        text.clone()
                    }
                    mlua::Error::RuntimeError(text) => format!("ERR {text}"),
                    other => format!("ERR {other}"),
                }
            }
            other => format!("ERR {}", other.to_string().unwrap_or_default()),
        };
        text
    }
}

/// Instructions between two looks at the clock and at a kill request (Redis's count).
const HOOK_EVERY: u32 = 100_000;

/// Sets `lua`'s hook: every `HOOK_EVERY` instructions it reads the host's clock, so the
/// script is marked busy once past `busy-reply-threshold`, and raises Redis's error when
/// SCRIPT KILL / FUNCTION KILL (or SHUTDOWN NOSAVE) asked it to stop. After a kill it fires on
/// every line too, so a `pcall` that catches the error cannot keep the script alive. The
/// hook costs nothing between firings (Lua counts instructions anyway).
pub fn watch_lua(lua: &Lua, run: Arc<ScriptRun>, clock: Option<Arc<dyn Clock>>, every_line: bool) {
    let mut triggers = HookTriggers::new().every_nth_instruction(HOOK_EVERY);
    if every_line {
        triggers = triggers.every_line();
    }
    lua.set_hook(triggers, move |lua, _| {
        let now = clock.as_ref().map_or(0, |c| c.now_us());
        if run.check(now) {
            if !every_line {
                watch_lua(lua, run.clone(), clock.clone(), true);
            }
            return Err(mlua::Error::RuntimeError(KILLED_TEXT.to_string()));
        }
        Ok(VmState::Continue)
    });
}

/// The error of a script stopped by the `lua-maxmemory` cap.
fn out_of_memory(limit: usize) -> String {
    format!("ERR Lua VM out of memory (lua-maxmemory is {limit} bytes)")
}

/// Whether a script's error is the VM running out of memory: Lua's own allocation failure
/// (its error handler does not run: the message, or the handler's own failure), or one in a
/// Rust function the script called.
fn is_memory_error(info: Option<&Value>) -> bool {
    match info {
        Some(Value::String(s)) => matches!(&*s.as_bytes(), b"not enough memory" | b"error in error handling"),
        Some(Value::Error(e)) => {
            let mut root: &mlua::Error = e;
            while let mlua::Error::CallbackError { cause, .. } = root {
                root = cause;
            }
            matches!(root, mlua::Error::MemoryError(_))
        }
        Some(Value::Table(t)) => t.raw_get::<Value>("e").is_ok_and(|e| is_memory_error(Some(&e))),
        _ => false,
    }
}

/// The `redis` functions that may raise, in Rust: a Lua function called in tail position
/// (`return redis.setresp(4)`) would take the script's frame, and the error its line.
fn add_raising_functions(lua: &Lua, redis: &Table, hooks: &Table) -> mlua::Result<()> {
    let h = hooks.clone();
    redis.raw_set(
        "setresp",
        lua.create_function(move |_, n: Value| match n {
            Value::Integer(v @ (2 | 3)) => h.raw_set("resp", v),
            Value::Number(v) if v == 2.0 || v == 3.0 => h.raw_set("resp", v as i64),
            _ => Err(raise(&h, "ERR RESP version must be 2 or 3.")),
        })?,
    )?;
    let h = hooks.clone();
    redis.raw_set(
        "set_repl",
        lua.create_function(move |_, flags: Value| match flags {
            Value::Integer(v @ 0..=3) => h.raw_set("repl", v),
            Value::Number(v) if v.fract() == 0.0 && (0.0..=3.0).contains(&v) => h.raw_set("repl", v as i64),
            _ => Err(raise(&h, "ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.")),
        })?,
    )?;
    let h = hooks.clone();
    redis.raw_set(
        "log",
        // The engine has no server log of its own: the message is checked and dropped.
        lua.create_function(move |_, args: MultiValue| {
            if args.len() < 2 {
                return Err(raise(&h, "ERR redis.log() requires two arguments or more."));
            }
            match args.front() {
                Some(Value::Integer(0..=3)) => Ok(()),
                Some(Value::Number(n)) if (0.0..=3.0).contains(n) => Ok(()),
                _ => Err(raise(&h, "ERR Invalid debug level.")),
            }
        })?,
    )?;
    let h = hooks.clone();
    // Outside a run (a library's load-time code) there is no caller: a command that exists
    // is allowed. While a script runs, `run` puts one that asks the caller's user in its place.
    let outside_a_run = lua.create_function(move |_, args: MultiValue| match args.front() {
        Some(Value::String(name)) if table::lookup(&name.as_bytes()).is_some() => Ok(true),
        _ => Err(raise(&h, "ERR Invalid command passed to redis.acl_check_cmd()")),
    })?;
    hooks.raw_set("acl_check_cmd", outside_a_run.clone())?;
    redis.raw_set("acl_check_cmd", outside_a_run)?;
    Ok(())
}

/// An error a `redis` function raises with Redis's text, remembered so the script's error
/// reply shows the text as is (not as a Lua error, after `ERR`).
pub(crate) fn raise(hooks: &Table, text: &str) -> mlua::Error {
    hooks.raw_set("last", text).ok();
    mlua::Error::RuntimeError(text.to_string())
}

/// The line of the script where the error being handled was raised: the innermost frame of
/// the user's chunk on the stack.
fn script_line(lua: &Lua, chunk: &str) -> i64 {
    for level in 0..64 {
        let Some(frame) = lua.inspect_stack(level) else { break };
        if frame.source().short_src.as_deref() == Some(chunk) {
            return frame.curr_line() as i64;
        }
    }
    0
}

/// The caller's context, borrowed by `redis.call` for one script run.
struct Caller<'c, 'a> {
    ctx: &'c mut Ctx<'a>,
    read_only: bool,
    /// Memory was over `maxmemory` when the script began and it has no `allow-oom` flag:
    /// commands that may grow memory are refused (Redis 7's check, made once per script).
    deny_oom: bool,
    /// The last error `redis.call` raised: the script's error reply is its text as is.
    raised: Option<String>,
}

/// A `redis.call`'s arguments as bytes (numbers as Redis formats them).
fn lua_argv(argv: &MultiValue) -> Result<Vec<Vec<u8>>, String> {
    argv.iter()
        .map(|v| match v {
            Value::String(s) => Ok(s.as_bytes().to_vec()),
            Value::Integer(n) => Ok(format_number(*n as f64).into_bytes()),
            Value::Number(n) => Ok(format_number(*n).into_bytes()),
            _ => Err("ERR Lua redis lib command arguments must be strings or integers".into()),
        })
        .collect()
}

impl Caller<'_, '_> {
    /// `redis.acl_check_cmd(command, args...)`: whether the script's caller may run it, keys
    /// and channels included (Redis's `ACLCheckAllPerm`; nothing is logged or counted).
    fn acl_check(&self, argv: &MultiValue) -> Result<bool, String> {
        const INVALID: &str = "ERR Invalid command passed to redis.acl_check_cmd()";
        let owned = lua_argv(argv)?;
        let argv: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
        let Some(&name) = argv.first() else { return Err(INVALID.into()) };
        let Some((mut index, mut cmd)) = table::lookup(name) else { return Err(INVALID.into()) };
        if cmd.is_container() && argv.len() > 1 {
            (index, cmd) = table::lookup_subcommand(index, cmd, argv[1]).ok_or(INVALID)?;
        }
        let user = self.ctx.engine.session_user(self.ctx.session);
        Ok(user.check(index, cmd, &argv).is_ok())
    }

    /// Runs one `redis.call`: the command's reply (errors included), or the error text a
    /// call that cannot run raises, as Redis words it.
    fn call(&mut self, argv: &MultiValue, log_effects: bool) -> Result<Reply, String> {
        if argv.is_empty() {
            return Err("ERR Please specify at least one argument for this redis lib call".into());
        }
        let owned = lua_argv(argv)?;
        let argv: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
        let Some((mut index, mut cmd)) = table::lookup(argv[0]) else {
            return Err("ERR Unknown Redis command called from script".into());
        };
        if cmd.is_container() && argv.len() > 1 {
            match table::lookup_subcommand(index, cmd, argv[1]) {
                Some(sub) => (index, cmd) = sub,
                None => {
                    let name = String::from_utf8_lossy(argv[1]).to_string();
                    return Err(CmdError::UnknownSubcommand { cmd: cmd.name.into(), sub: name }.to_string());
                }
            }
        }
        if (cmd.arity > 0 && argv.len() as i32 != cmd.arity) || (cmd.arity < 0 && (argv.len() as i32) < -cmd.arity) {
            return Err("ERR Wrong number of args calling Redis command from script".into());
        }
        // Redis 7.0 marks the older blocking commands `noscript` too (7.2 lets them run
        // without blocking, as it does BLMPOP and BZMPOP).
        const BLOCKING_NOSCRIPT: &[&str] = &["BLPOP", "BRPOP", "BRPOPLPUSH", "BLMOVE", "BZPOPMIN", "BZPOPMAX"];
        if cmd.meta().flags.contains(&"noscript") || BLOCKING_NOSCRIPT.contains(&cmd.name) {
            return Err("ERR This Redis command is not allowed from script".into());
        }
        let engine = self.ctx.engine;
        // Scripts run as their caller: its user must be allowed this call (logged as `lua`).
        engine
            .acl_admit(self.ctx.session, index, cmd, &argv, crate::engine::AclPlace::Script, self.ctx.now)
            .map_err(|e| e.to_string())?;
        if cmd.flags & WRITE != 0 {
            if self.read_only {
                return Err("ERR Write commands are not allowed from read-only scripts.".into());
            }
            if let Some(why) = engine.propagation().refusal() {
                return Err(why);
            }
            // From here on SCRIPT KILL answers UNKILLABLE (Redis marks the run dirty here too).
            engine.script_run().note_write();
        }
        if self.deny_oom && cmd.flags & DENYOOM != 0 {
            return Err(CmdError::Oom.to_string());
        }
        let session = &mut *self.ctx.session;
        // redis.set_repl(REPL_NONE / REPL_REPLICA): this call's effects stay out of the log.
        let held = (!log_effects).then(|| session.prop_batch.replace(crate::propagate::Batch::default()));
        let db = session.db;
        let locked = self.ctx.db.reborrow_in(db);
        let mut clock = engine.timing().now_us();
        let reply = match engine.run_locked(cmd, session, locked, &argv, self.ctx.now) {
            Ok(r) => r,
            Err(e) => e.into(),
        };
        // Counted in INFO commandstats (and timed) as a call of its own, as Redis counts the
        // commands a script runs.
        engine.record_call(index, cmd, session, &argv, &mut clock, self.ctx.now, false);
        if let Some(log) = session.script_log.as_mut() {
            log.command(cmd.name, &mut cmd.keys(&argv), session.db);
        }
        if reply.is_error() {
            engine.stats().failed_calls.add(index, 1);
        }
        if let Some(held) = held {
            session.prop_batch = held;
        }
        // A blocking command never waits inside a script: it answers its placeholder
        // (nil), as in MULTI.
        if cmd.flags & BLOCKING != 0 {
            session.blocked = None;
        }
        Ok(reply)
    }
}

/// A Lua number as a command argument, as Redis 7.0 prints it: C's `%.17g` (so `0.1` is
/// `0.10000000000000001`, `1e20` is `1e+20`, 0/0 is `-nan`). Lua 5.1 numbers are doubles;
/// mlua hands integral ones over as integers, which print the same way.
fn format_number(n: f64) -> String {
    crate::script_libs::format_g(n, 17)
}
