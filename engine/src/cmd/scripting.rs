//! Scripting commands: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT LOAD / EXISTS / FLUSH /
//! KILL / HELP.
//!
//! Atomicity: these rows carry `ALL_SHARDS`, so a script holds every shard's lock while it
//! runs and the commands it calls (`redis.call`) run on those locks. Nothing interleaves
//! with it, and it may touch keys it did not declare and other databases, as Redis allows;
//! the cost is that every other client waits for the whole script, on every shard (as in
//! Redis, whose scripts stop the one thread). Scripts also take turns on the one Lua VM.
//!
//! Without the `scripting` feature (the wasm playground, which has no C compiler for the Lua
//! VM) the rows stay in the table and answer that scripting runs on the server.

use crate::args::Args;
#[cfg(feature = "scripting")]
use crate::busy::RunningScript;
use crate::busy::ScriptKind;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::reply::Reply;
#[cfg(feature = "scripting")]
use crate::script::cache::{sha1hex, Origin};
#[cfg(feature = "scripting")]
use crate::script::vm::Vm;
#[cfg(feature = "scripting")]
use crate::Engine;
#[cfg(feature = "scripting")]
use parking_lot::{MappedMutexGuard, MutexGuard};

#[cfg(not(feature = "scripting"))]
pub(crate) fn no_vm() -> CmdError {
    CmdError::Other("ERR scripting runs on the server; the browser playground has no Lua VM".into())
}

/// Runs a script. `EVAL script numkeys [key ...] [arg ...]`
pub fn eval(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    run(ctx, args, Source::Body, false)
}

/// Runs a cached script by its SHA1. `EVALSHA sha1 numkeys [key ...] [arg ...]`
pub fn evalsha(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    run(ctx, args, Source::Sha, false)
}

/// EVAL that may not write. `EVAL_RO script numkeys [key ...] [arg ...]`
pub fn eval_ro(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    run(ctx, args, Source::Body, true)
}

/// EVALSHA that may not write. `EVALSHA_RO sha1 numkeys [key ...] [arg ...]`
pub fn evalsha_ro(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    run(ctx, args, Source::Sha, true)
}

/// What EVAL's first argument is.
#[derive(Clone, Copy)]
enum Source {
    Body,
    Sha,
}

#[cfg(not(feature = "scripting"))]
fn run(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>, _source: Source, _read_only: bool) -> Result<Reply, CmdError> {
    Err(no_vm())
}

#[cfg(feature = "scripting")]
fn run(ctx: &mut Ctx<'_>, args: &mut Args<'_>, source: Source, read_only: bool) -> Result<Reply, CmdError> {
    let first = args.bytes()?;
    let numkeys = args.int()?;
    if numkeys < 0 {
        return Err(CmdError::err("Number of keys can't be negative"));
    }
    let rest = args.rest();
    if numkeys as usize > rest.len() {
        return Err(CmdError::err("Number of keys can't be greater than number of args"));
    }
    let (keys, argv) = rest.split_at(numkeys as usize);
    let engine = ctx.engine;
    let scripts = &engine.scripts;
    let cached = match source {
        Source::Body => scripts.cache.lock().get(sha1hex(first).as_bytes()),
        Source::Sha => Some(
            scripts
                .cache
                .lock()
                .get(first)
                .ok_or_else(|| CmdError::Other("NOSCRIPT No matching script. Please use EVAL.".into()))?,
        ),
    };
    let mut vm = lock_vm(engine)?;
    let script = match cached {
        Some(s) => s,
        None => scripts.admit(&mut vm, first, Origin::Eval, engine.propagation()).map_err(CmdError::Other)?,
    };
    let read_only = read_only || script.flags.no_writes;
    // Memory over the limit as the script begins (eviction cannot run while it holds every
    // shard): a script that declared flags and may write is refused outright, and without
    // `allow-oom` the commands inside that may grow memory are, as in Redis 7.
    let oom = !script.flags.allow_oom && engine.store.over_limit();
    if oom && script.flags.shebang && !read_only {
        return Err(CmdError::Oom);
    }
    let name = script.sha.clone();
    let result = with_effects(ctx, ScriptKind::Eval, name, &mut vm, |vm, ctx| {
        crate::script::usage::observe(ctx, crate::script::usage::Kind::Script, &script.sha, keys, |ctx| {
            vm.run(&script, ctx, keys, argv, read_only, oom)
        })
    });
    drop(vm);
    // An EVAL script moves to the young end of the LRU order after each run (Redis 7.4); a
    // loaded one has no place in it, so EVALSHA of one takes no lock here.
    if script.origin == Origin::Eval {
        scripts.cache.lock().touch(&script.sha);
    }
    result
}

/// Runs a script or a function (`cmd::functions`) on `vm`, as the running script others see
/// (`busy`: BUSY past the threshold, SCRIPT KILL / FUNCTION KILL), so that its writes go to
/// the log as its effects, wrapped in MULTI ... EXEC when there are several (Redis 7's
/// effects replication). Inside EXEC they join its batch. Stopped by SHUTDOWN NOSAVE, the
/// server ends without its effects, as Redis's.
#[cfg(feature = "scripting")]
pub(crate) fn with_effects<T>(
    ctx: &mut Ctx<'_>,
    kind: ScriptKind,
    name: String,
    vm: &mut Vm,
    run: impl FnOnce(&mut Vm, &mut Ctx<'_>) -> T,
) -> T {
    let engine = ctx.engine;
    let own_batch = engine.propagation().enabled() && ctx.session.prop_batch.is_none();
    if own_batch {
        ctx.session.prop_batch = Some(crate::propagate::Batch::default());
    }
    vm.watch(&engine.script_run, || engine.timing().clock());
    let busy = engine.script_run();
    // Kept for FUNCTION STATS only: an EVALSHA does not pay for the copy.
    let command = match kind {
        ScriptKind::Function => ctx.argv.iter().take(32).map(|a| a.to_vec()).collect(),
        ScriptKind::Eval => Vec::new(),
    };
    let running = RunningScript { kind, name, client_id: ctx.session.client.id, started_ms: ctx.now, command };
    busy.begin(running, engine.timing().now_us(), engine.config().busy_reply_threshold_ms());
    let result = run(vm, ctx);
    let for_shutdown = busy.killed_for_shutdown();
    if busy.kill_requested() {
        // The kill left the hook firing on every line: the next run sets it back.
        vm.unwatch();
    }
    busy.end();
    if own_batch {
        if let Some(batch) = ctx.session.prop_batch.take() {
            if !for_shutdown {
                engine.propagation().append_effects(batch);
            }
        }
    }
    result
}

/// The eval VM, locked, made on first use, with the `lua-maxmemory` cap to apply.
#[cfg(feature = "scripting")]
fn lock_vm(engine: &Engine) -> Result<MappedMutexGuard<'_, Vm>, CmdError> {
    let mut slot = engine.scripts.vm.lock();
    if slot.is_none() {
        let vm = Vm::new().map_err(|e| CmdError::Other(format!("ERR cannot start the Lua VM: {e}")))?;
        *slot = Some(vm);
    }
    let mut vm =
        MutexGuard::try_map(slot, Option::as_mut).map_err(|_| CmdError::Other("ERR cannot start the Lua VM".into()))?;
    vm.set_memory_limit(engine.config().lua_maxmemory().min(usize::MAX as u64) as usize);
    Ok(vm)
}

#[cfg(feature = "scripting")]
impl Engine {
    /// Caches `body` as EVAL does, without running it (so it is evictable, unlike SCRIPT
    /// LOAD's): how the AOF loader restores a script an EVAL cached, which the log marks
    /// with [`crate::EVAL_SCRIPT_ANNOTATION`]. Answers its SHA1, or Redis's error text.
    pub fn cache_eval_script(&self, body: &[u8]) -> Result<String, String> {
        let mut vm = lock_vm(self).map_err(|e| e.to_string())?;
        self.scripts.admit(&mut vm, body, Origin::Eval, self.propagation()).map(|s| s.sha.clone())
    }
}
/// Caches a script without running it and answers its SHA1. `SCRIPT LOAD script`
pub fn script_load(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let body = args.bytes()?;
    #[cfg(feature = "scripting")]
    {
        let engine = ctx.engine;
        let mut vm = lock_vm(engine)?;
        let script =
            engine.scripts.admit(&mut vm, body, Origin::Load, engine.propagation()).map_err(CmdError::Other)?;
        Ok(Reply::bulk(&script.sha))
    }
    #[cfg(not(feature = "scripting"))]
    {
        let _ = (ctx, body);
        Err(no_vm())
    }
}

/// Answers 1 or 0 for each SHA1: whether it is cached. `SCRIPT EXISTS sha1 [sha1 ...]`
pub fn script_exists(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let shas = args.rest();
    #[cfg(feature = "scripting")]
    {
        let cache = ctx.engine.scripts.cache.lock();
        Ok(Reply::Array(shas.iter().map(|s| Reply::Int(cache.get(s).is_some() as i64)).collect()))
    }
    #[cfg(not(feature = "scripting"))]
    {
        let _ = (ctx, shas);
        Err(no_vm())
    }
}

/// Empties the script cache. `SCRIPT FLUSH [ASYNC | SYNC]` (both are immediate here: the
/// cache is small next to the keyspace).
pub fn script_flush(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let mode = args.rest();
    let valid = match mode {
        [] => true,
        [m] => m.eq_ignore_ascii_case(b"ASYNC") || m.eq_ignore_ascii_case(b"SYNC"),
        _ => false,
    };
    if !valid {
        return Err(CmdError::err("SCRIPT FLUSH only support SYNC|ASYNC option"));
    }
    #[cfg(feature = "scripting")]
    {
        ctx.engine.scripts.flush(ctx.engine.propagation());
        Ok(Reply::Ok)
    }
    #[cfg(not(feature = "scripting"))]
    {
        let _ = ctx;
        Err(no_vm())
    }
}

/// Stops the busy script if it has not written. `SCRIPT KILL`. Served while the script runs
/// on another thread (an `allow-busy` command locks nothing); the script stops at its VM's
/// next hook and its caller gets Redis's "Script killed" error.
pub fn script_kill(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    ctx.engine.script_run().kill(ScriptKind::Eval).map(|()| Reply::Ok)
}

/// `SCRIPT HELP`
pub fn script_help(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(super::help_reply(&[
        "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "EXISTS <sha1> [<sha1> ...]",
        "    Return information about the existence of the scripts in the script cache.",
        "FLUSH [ASYNC|SYNC]",
        "    Flush the Lua scripts cache. Very dangerous on replicas.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the scripts cache.",
        "    * SYNC: Synchronously flush the scripts cache.",
        "KILL",
        "    Kill the currently executing Lua script.",
        "LOAD <script>",
        "    Load a script into the scripts cache without executing it.",
        "HELP",
        "    Prints this help.",
    ]))
}

#[cfg(test)]
#[cfg(feature = "scripting")]
mod tests {
    use crate::testing::*;
    use crate::Reply;

    fn eval(t: &mut TestEngine, script: &str, keys: &[&str], args: &[&str]) -> Reply {
        let n = keys.len().to_string();
        let mut argv = vec!["EVAL", script, n.as_str()];
        argv.extend_from_slice(keys);
        argv.extend_from_slice(args);
        t.run(&argv)
    }

    fn error_text(r: Reply) -> String {
        match r {
            Reply::Error(e) => e,
            other => panic!("not an error: {other:?}"),
        }
    }

    #[test]
    fn keys_argv_and_redis_call_work_on_the_keyspace() {
        let mut t = TestEngine::default();
        let r = eval(&mut t, "redis.call('SET', KEYS[1], ARGV[1]); return redis.call('GET', KEYS[1])", &["k"], &["v"]);
        assert_eq!(r, bulk("v"));
        assert_eq!(t.run(&["GET", "k"]), bulk("v"));
        let r = eval(&mut t, "redis.call('HSET', 'h', 'f', 1); return redis.call('HGETALL', 'h')", &[], &[]);
        assert_eq!(r, bulks(&["f", "1"]));
        let r = eval(&mut t, "redis.call('RPUSH', 'l', 'a', 'b'); return redis.call('LRANGE', 'l', 0, -1)", &[], &[]);
        assert_eq!(r, bulks(&["a", "b"]));
        // Undeclared keys are allowed (Redis's lax rule).
        assert_eq!(eval(&mut t, "return redis.call('INCR', 'undeclared')", &[], &[]), int(1));
        assert_eq!(eval(&mut t, "return {#KEYS, #ARGV}", &["a", "b"], &["c"]), arr(vec![int(2), int(1)]));
    }

    /// cjson, cmsgpack, struct and bit are globals of every script, read-only as the rest
    /// (expected replies from redis-server 7.0.15).
    #[test]
    fn scripts_have_redis_libraries_read_only() {
        let mut t = TestEngine::default();
        assert_eq!(eval(&mut t, "return cjson.encode({1,2,{a=1}})", &[], &[]), bulk("[1,2,{\"a\":1}]"));
        let r = eval(&mut t, "return bit.band(0xff, 0x0f) + struct.size('i') + #cmsgpack.pack({1,2})", &[], &[]);
        assert_eq!(r, int(22));
        let sha = crate::script::cache::sha1hex(b"cjson.encode = nil");
        assert_eq!(
            eval(&mut t, "cjson.encode = nil", &[], &[]),
            err(&format!("ERR user_script:1: Attempt to modify a readonly table script: {sha}, on @user_script:1."))
        );
    }

    #[test]
    fn replies_convert_as_redis_tabulates() {
        let mut t = TestEngine::default();
        assert_eq!(eval(&mut t, "return redis.call('GET', 'missing')", &[], &[]), nil());
        assert_eq!(eval(&mut t, "return type(redis.call('GET', 'missing'))", &[], &[]), bulk("boolean"));
        assert_eq!(eval(&mut t, "return redis.call('PING')", &[], &[]), Reply::status("PONG"));
        assert_eq!(eval(&mut t, "return redis.call('SET', 'a', 1).ok", &[], &[]), bulk("OK"));
        assert_eq!(eval(&mut t, "return 3.99", &[], &[]), int(3));
        assert_eq!(eval(&mut t, "return {1, 2, nil, 3}", &[], &[]), arr(vec![int(1), int(2)]));
        assert_eq!(eval(&mut t, "return redis.status_reply('FINE')", &[], &[]), Reply::status("FINE"));
        assert_eq!(eval(&mut t, "return redis.error_reply('-MY bad')", &[], &[]), err("MY bad"));
        assert_eq!(eval(&mut t, "return true", &[], &[]), int(1));
        assert_eq!(eval(&mut t, "redis.setresp(3); return true", &[], &[]), Reply::Bool(true));
        assert_eq!(
            eval(&mut t, "redis.setresp(3); return redis.call('HGETALL', 'none')", &[], &[]),
            Reply::Map(vec![])
        );
        assert_eq!(
            eval(&mut t, "return redis.sha1hex('')", &[], &[]),
            bulk("da39a3ee5e6b4b0d3255bfef95601890afd80709")
        );
        assert_eq!(eval(&mut t, "return redis.REDIS_VERSION", &[], &[]), bulk("7.0.15"));
        assert_eq!(eval(&mut t, "return redis.replicate_commands()", &[], &[]), int(1));
        assert_eq!(eval(&mut t, "return redis.acl_check_cmd('get', 'a')", &[], &[]), int(1));
        // As the caller's user: its commands and keys decide.
        t.run(&["ACL", "SETUSER", "app", "on", ">pw", "~a*", "+@read", "+eval"]);
        t.run(&["AUTH", "app", "pw"]);
        let check = |t: &mut TestEngine, args: &str| eval(t, &format!("return redis.acl_check_cmd({args})"), &[], &[]);
        assert_eq!(check(&mut t, "'get', 'apple'"), int(1));
        assert_eq!(check(&mut t, "'get', 'pear'"), Reply::Nil, "a key outside ~a*");
        assert_eq!(check(&mut t, "'set', 'apple', 'x'"), Reply::Nil, "not @read");
        assert_eq!(check(&mut t, "'config', 'get', 'x'"), Reply::Nil);
        let Reply::Error(text) = check(&mut t, "'nosuch'") else { panic!("an unknown command is an error") };
        assert!(text.starts_with("ERR Invalid command passed to redis.acl_check_cmd() script: "), "{text}");
        assert_eq!(
            eval(&mut t, "return {redis.LOG_WARNING, redis.REPL_ALL, redis.REPL_NONE}", &[], &[]),
            arr(vec![int(3), int(3), int(0)])
        );
    }

    #[test]
    fn errors_read_as_redis_7s() {
        let mut t = TestEngine::default();
        let sha = crate::script::cache::sha1hex(b"return x");
        assert_eq!(
            error_text(eval(&mut t, "return x", &[], &[])),
            format!("ERR user_script:1: Script attempted to access nonexistent global variable 'x' script: {sha}, on @user_script:1.")
        );
        let e = error_text(eval(&mut t, "x = 1", &[], &[]));
        assert!(e.starts_with("ERR user_script:1: Attempt to modify a readonly table script: "), "{e}");
        t.run(&["SET", "s", "v"]);
        let e = error_text(eval(&mut t, "local a = 1\nreturn redis.call('HGET', 's', 'f')", &[], &[]));
        assert!(e.starts_with("WRONGTYPE Operation against a key holding the wrong kind of value script: "), "{e}");
        assert!(e.ends_with(", on @user_script:2."), "{e}");
        assert_eq!(
            eval(&mut t, "return redis.pcall('HGET', 's', 'f')", &[], &[]),
            err("WRONGTYPE Operation against a key holding the wrong kind of value")
        );
        // Lua's pcall of redis.call catches the error (an mlua error value here, where Redis
        // 7.0 hands a string: its text is there, followed by a traceback).
        let r = eval(
            &mut t,
            "local ok, e = pcall(redis.call, 'HGET', 's', 'f'); return {tostring(ok), tostring(e)}",
            &[],
            &[],
        );
        let Reply::Array(items) = r else { panic!("{r:?}") };
        assert_eq!(items[0], bulk("false"));
        assert!(matches!(&items[1], Reply::Bulk(b) if String::from_utf8_lossy(b).contains("WRONGTYPE Operation")));
        let e = error_text(eval(&mut t, "error('boom')", &[], &[]));
        assert!(e.starts_with("ERR user_script:1: boom script: "), "{e}");
        let e = error_text(eval(&mut t, "error({err='MY x'})", &[], &[]));
        assert!(e.starts_with("MY x script: "), "{e}");
        let e = error_text(eval(&mut t, "return redis.call('nosuch')", &[], &[]));
        assert!(e.starts_with("ERR Unknown Redis command called from script script: "), "{e}");
        let e = error_text(eval(&mut t, "return redis.call('GET')", &[], &[]));
        assert!(e.starts_with("ERR Wrong number of args calling Redis command from script script: "), "{e}");
        let e = error_text(eval(&mut t, "return redis.call('MULTI')", &[], &[]));
        assert!(e.starts_with("ERR This Redis command is not allowed from script script: "), "{e}");
        let e = error_text(eval(&mut t, "return redis.call('SET', 'a', {})", &[], &[]));
        assert!(e.starts_with("ERR Lua redis lib command arguments must be strings or integers script: "), "{e}");
        let e = error_text(eval(&mut t, "return redis.setresp(4)", &[], &[]));
        assert!(e.starts_with("ERR RESP version must be 2 or 3. script: "), "{e}");
        assert_eq!(
            error_text(eval(&mut t, "return syntax error(", &[], &[])),
            "ERR Error compiling script (new function): user_script:1: '<eof>' expected near 'error'"
        );
        assert_eq!(t.run(&["EVAL", "return 1", "-1"]), err("ERR Number of keys can't be negative"));
        assert_eq!(
            t.run(&["EVAL", "return 1", "2", "a"]),
            err("ERR Number of keys can't be greater than number of args")
        );
        assert_eq!(t.run(&["EVAL", "return 1", "x"]), err("ERR value is not an integer or out of range"));
    }

    #[test]
    fn the_sandbox_hides_what_redis_hides() {
        let mut t = TestEngine::default();
        for name in ["io", "os", "loadfile", "dofile", "require", "package", "debug"] {
            let e = error_text(eval(&mut t, &format!("return {name}"), &[], &[]));
            assert!(e.contains(&format!("nonexistent global variable '{name}'")), "{name}: {e}");
        }
        for script in [
            "redis.call = nil",
            "string.rep = nil",
            "redis = nil",
            "KEYS = 1",
            "rawset(_G, 'x', 1)",
            "setmetatable(_G, nil)",
        ] {
            let e = error_text(eval(&mut t, script, &[], &[]));
            assert!(e.contains("Attempt to modify a readonly table script: "), "{script}: {e}");
        }
        for name in ["print", "newproxy", "getfenv", "setfenv"] {
            let e = error_text(eval(&mut t, &format!("return {name}"), &[], &[]));
            assert!(e.contains(&format!("nonexistent global variable '{name}'")), "{name}: {e}");
        }
        assert_eq!(eval(&mut t, "return ('ab'):rep(2)", &[], &[]), bulk("abab"));
        assert_eq!(eval(&mut t, "return redis.call('PING').ok", &[], &[]), bulk("PONG"));
        for expr in ["string.rep('a', 2)", "table.concat({'a', 'b'})", "tostring(math.floor(2.5))"] {
            let r = eval(&mut t, &format!("return {expr}"), &[], &[]);
            assert!(matches!(r, Reply::Bulk(_)), "{expr}: {r:?}");
        }
    }

    #[test]
    fn evalsha_and_the_script_cache() {
        let mut t = TestEngine::default();
        let sha = "e0e1f9fabfc9d4800c877a703b823ac0578ff8db";
        assert_eq!(t.run(&["EVALSHA", sha, "0"]), err("NOSCRIPT No matching script. Please use EVAL."));
        assert_eq!(t.run(&["SCRIPT", "LOAD", "return 1"]), bulk(sha));
        assert_eq!(t.run(&["EVALSHA", &sha.to_ascii_uppercase(), "0"]), int(1));
        assert_eq!(t.run(&["SCRIPT", "EXISTS", sha, "nope"]), arr(vec![int(1), int(0)]));
        // EVAL caches too.
        assert_eq!(eval(&mut t, "return 2", &[], &[]), int(2));
        let two = crate::script::cache::sha1hex(b"return 2");
        assert_eq!(t.run(&["EVALSHA_RO", &two, "0"]), int(2));
        assert_eq!(t.run(&["SCRIPT", "FLUSH", "bogus"]), err("ERR SCRIPT FLUSH only support SYNC|ASYNC option"));
        assert_eq!(t.run(&["SCRIPT", "FLUSH", "ASYNC"]), ok());
        assert_eq!(t.run(&["SCRIPT", "EXISTS", sha]), arr(vec![int(0)]));
        assert_eq!(t.run(&["SCRIPT", "KILL"]), err("NOTBUSY No scripts in execution right now."));
        assert!(
            matches!(t.run(&["SCRIPT", "LOAD", "return ("]), Reply::Error(e) if e.starts_with("ERR Error compiling script"))
        );
        assert_eq!(t.run(&["SCRIPT", "EXISTS", &crate::script::cache::sha1hex(b"return (")]), arr(vec![int(0)]));
    }

    #[test]
    fn shebang_flags_and_eval_ro_refuse_writes() {
        let mut t = TestEngine::default();
        let e = error_text(eval(&mut t, "#!lua flags=no-writes\nreturn redis.call('SET', 'a', 'b')", &[], &[]));
        assert!(e.starts_with("ERR Write commands are not allowed from read-only scripts. script: "), "{e}");
        assert!(e.ends_with("on @user_script:2."), "{e}");
        let e = error_text(t.run(&["EVAL_RO", "return redis.call('SET', 'a', 'b')", "0"]));
        assert!(e.starts_with("ERR Write commands are not allowed from read-only scripts. script: "), "{e}");
        assert_eq!(t.run(&["EXISTS", "a"]), int(0));
        assert_eq!(t.run(&["EVAL_RO", "return redis.call('EXISTS', 'a')", "0"]), int(0));
        assert_eq!(
            eval(&mut t, "#!lua flags=bogus\nreturn 1", &[], &[]),
            err("ERR Unexpected flag in script shebang: bogus")
        );
        assert_eq!(eval(&mut t, "#!lua\nreturn redis.call('SET', 'a', 'b')", &[], &[]), Reply::status("OK"));
    }

    #[test]
    fn select_inside_a_script_leaves_the_caller_where_it_was() {
        let mut t = TestEngine::default();
        let r = eval(
            &mut t,
            "redis.call('SELECT', 1); redis.call('SET', 'k', 'in1'); return redis.call('GET', 'k')",
            &[],
            &[],
        );
        assert_eq!(r, bulk("in1"));
        assert_eq!(t.run(&["GET", "k"]), nil());
        assert_eq!(t.run(&["SELECT", "1"]), ok());
        assert_eq!(t.run(&["GET", "k"]), bulk("in1"));
    }

    #[test]
    fn a_blocking_command_answers_at_once() {
        let mut t = TestEngine::default();
        let e = error_text(eval(&mut t, "return redis.call('BLPOP', 'empty', 0)", &[], &[]));
        assert!(e.starts_with("ERR This Redis command is not allowed from script script: "), "{e}");
        assert_eq!(eval(&mut t, "return redis.call('BLMPOP', 0, 1, 'empty', 'LEFT')", &[], &[]), nil());
        assert!(t.session.blocked.is_none());
    }

    fn log(t: &TestEngine) -> String {
        String::from_utf8_lossy(&t.engine.propagation().take().0).replace("\r\n", " ")
    }

    #[test]
    fn effects_not_scripts_go_to_the_log() {
        let mut t = TestEngine::default();
        t.engine.propagation().set_enabled(true);
        eval(&mut t, "redis.call('SET', 'a', '1'); redis.call('GET', 'a'); return redis.call('INCR', 'a')", &[], &[]);
        let l = log(&t);
        assert!(
            l.contains("MULTI") && l.contains("SET $1 a $1 1") && l.contains("INCR $1 a") && l.ends_with("EXEC "),
            "{l}"
        );
        assert!(!l.contains("EVAL"), "{l}");
        eval(&mut t, "return redis.call('DEL', 'a')", &[], &[]);
        let l = log(&t);
        assert!(l.contains("DEL") && !l.contains("MULTI"), "{l}");
        // Only the script itself, the first time it is cached.
        let get = "return redis.call('GET', 'a')";
        eval(&mut t, get, &[], &[]);
        assert_eq!(log(&t), record(get));
        eval(&mut t, get, &[], &[]);
        assert_eq!(log(&t), "");
        let hidden = "redis.set_repl(redis.REPL_NONE); return redis.call('SET', 'hidden', 1)";
        eval(&mut t, hidden, &[], &[]);
        assert_eq!(log(&t), record(hidden));
    }

    /// The log record of a script EVAL cached, as `log` shows it.
    fn record(body: &str) -> String {
        format!("#vitrine:eval-script *3 $6 SCRIPT $4 LOAD ${} {body} ", body.len())
    }

    #[test]
    fn the_cache_is_logged_once_per_script_and_flush_too() {
        let mut t = TestEngine::default();
        t.engine.propagation().set_enabled(true);
        for _ in 0..1000 {
            assert_eq!(eval(&mut t, "return 1", &[], &[]), int(1));
        }
        assert_eq!(log(&t), "#vitrine:eval-script *3 $6 SCRIPT $4 LOAD $8 return 1 ");
        assert_eq!(t.run(&["SCRIPT", "LOAD", "return 2"]), bulk(&crate::script::cache::sha1hex(b"return 2")));
        t.run(&["SCRIPT", "LOAD", "return 2"]);
        // A cached EVAL script loaded again keeps its record: nothing more is logged.
        t.run(&["SCRIPT", "LOAD", "return 1"]);
        assert_eq!(log(&t), "*3 $6 SCRIPT $4 LOAD $8 return 2 ");
        // What does not compile is neither cached nor logged, by EVAL or SCRIPT LOAD.
        assert!(
            matches!(eval(&mut t, "return (", &[], &[]), Reply::Error(e) if e.starts_with("ERR Error compiling script"))
        );
        assert!(matches!(t.run(&["SCRIPT", "LOAD", "return ("]), Reply::Error(_)));
        let bad = crate::script::cache::sha1hex(b"return (");
        assert_eq!(t.run(&["SCRIPT", "EXISTS", &bad]), arr(vec![int(0)]));
        assert_eq!(log(&t), "");
        assert_eq!(t.run(&["SCRIPT", "FLUSH"]), ok());
        assert_eq!(log(&t), "*2 $6 SCRIPT $5 FLUSH ");
        // After a flush the same body is cached, and logged, again.
        eval(&mut t, "return 1", &[], &[]);
        assert_eq!(log(&t), "#vitrine:eval-script *3 $6 SCRIPT $4 LOAD $8 return 1 ");
    }

    #[test]
    fn a_rewrite_writes_the_cache_before_the_keys() {
        let mut t = TestEngine::default();
        t.run(&["SET", "k", "v"]);
        t.run(&["SCRIPT", "LOAD", "return 'loaded'"]);
        eval(&mut t, "return 'eval'", &[], &[]);
        let (image, _) = t.engine.rewrite_image(t.now);
        let image = String::from_utf8_lossy(&image).replace("\r\n", " ");
        let loaded = image.find("return 'loaded'").expect("the loaded script");
        let evaled =
            image.find("#vitrine:eval-script *3 $6 SCRIPT $4 LOAD $13 return 'eval'").expect("the EVAL script");
        let key = image.find("SELECT").expect("the keys");
        assert!(loaded < evaled && evaled < key, "{image}");
    }

    fn info(t: &mut TestEngine, section: &str) -> String {
        match t.run(&["INFO", section]) {
            Reply::Bulk(b) => String::from_utf8_lossy(&b).to_string(),
            Reply::Verbatim(s) => s,
            other => panic!("INFO: {other:?}"),
        }
    }

    fn field(info: &str, name: &str) -> u64 {
        let line = info.lines().find(|l| l.starts_with(&format!("{name}:"))).unwrap_or_else(|| panic!("{name}"));
        line[name.len() + 1..].parse().unwrap_or_else(|_| panic!("{line}"))
    }

    #[test]
    fn evicted_eval_scripts_answer_noscript_and_are_counted() {
        let mut t = TestEngine::default();
        let loaded = crate::script::cache::sha1hex(b"return 'kept'");
        t.run(&["SCRIPT", "LOAD", "return 'kept'"]);
        let first = crate::script::cache::sha1hex(b"return 0");
        for i in 0..crate::script::cache::EVAL_SCRIPTS_MAX + 5 {
            assert_eq!(eval(&mut t, &format!("return {i}"), &[], &[]), int(i as i64));
        }
        assert_eq!(t.run(&["EVALSHA", &first, "0"]), err("NOSCRIPT No matching script. Please use EVAL."));
        assert_eq!(t.run(&["EVALSHA", &loaded, "0"]), bulk("kept"));
        let stats = info(&mut t, "stats");
        assert_eq!(field(&stats, "evicted_scripts"), 5);
        let mem = info(&mut t, "memory");
        assert_eq!(field(&mem, "number_of_cached_scripts"), crate::script::cache::EVAL_SCRIPTS_MAX as u64 + 1);
        let vm = field(&mem, "used_memory_vm_eval");
        assert!(vm > 10_000, "{mem}");
        assert_eq!(field(&mem, "used_memory_lua"), vm);
        assert_eq!(field(&mem, "used_memory_vm_total"), vm);
        let cache = field(&mem, "used_memory_scripts_eval");
        assert!(cache > 501 * 48, "{mem}");
        assert_eq!(field(&mem, "used_memory_scripts"), cache);
        assert!(mem.contains("used_memory_lua_human:") && mem.contains("used_memory_scripts_human:"), "{mem}");
        let snap = t.engine.snapshot(t.now);
        assert_eq!(snap.scripting.evicted_scripts, 5);
        assert_eq!(snap.scripting.number_of_cached_scripts, 501);
        // Restoring from the log caches as EVAL did: evictable.
        assert!(t.engine.cache_eval_script(b"return (").is_err());
        let sha = t.engine.cache_eval_script(b"return 'restored'").unwrap();
        assert_eq!(t.run(&["EVALSHA", &sha, "0"]), bulk("restored"));
        assert_eq!(field(&info(&mut t, "stats"), "evicted_scripts"), 6);
    }

    #[test]
    fn lua_maxmemory_stops_a_script_that_allocates_without_end() {
        let mut t = TestEngine::default();
        assert_eq!(t.engine.config().get("lua-maxmemory").as_deref(), Some("268435456"));
        assert_eq!(t.run(&["CONFIG", "SET", "lua-maxmemory", "16mb"]), ok());
        let hog = "local t = {} for i = 1, 1e9 do t[i] = string.rep('x', 1000) .. i end return #t";
        let e = error_text(eval(&mut t, hog, &[], &[]));
        assert!(e.starts_with("ERR Lua VM out of memory (lua-maxmemory is 16777216 bytes) script: "), "{e}");
        // Building one huge string, and inside a redis.call, fail the same way.
        let e = error_text(eval(&mut t, "local s = 'x' for i = 1, 40 do s = s .. s end return #s", &[], &[]));
        assert!(e.starts_with("ERR Lua VM out of memory"), "{e}");
        let mem = field(&info(&mut t, "memory"), "used_memory_vm_eval");
        assert!(mem < 4 * 1024 * 1024, "the VM still holds {mem} bytes");
        assert_eq!(eval(&mut t, "return redis.call('SET', 'after', 'ok')", &[], &[]), Reply::status("OK"));
        assert_eq!(eval(&mut t, "return #string.rep('y', 1000000)", &[], &[]), int(1_000_000));
        // 0 lifts the cap.
        assert_eq!(t.run(&["CONFIG", "SET", "lua-maxmemory", "0"]), ok());
        assert_eq!(eval(&mut t, "return #string.rep('z', 20000000)", &[], &[]), int(20_000_000));
    }

    #[test]
    fn over_maxmemory_writes_inside_a_script_get_oom() {
        let mut t = TestEngine::default();
        t.run(&["SET", "big", &"x".repeat(2000)]);
        assert_eq!(t.run(&["CONFIG", "SET", "maxmemory", "1"]), ok());
        let e = error_text(eval(&mut t, "return redis.call('SET', 'a', 'b')", &[], &[]));
        assert!(e.starts_with("OOM command not allowed when used memory > 'maxmemory'. script: "), "{e}");
        assert_eq!(
            eval(&mut t, "return redis.pcall('SET', 'a', 'b')", &[], &[]),
            err("OOM command not allowed when used memory > 'maxmemory'.")
        );
        assert!(matches!(eval(&mut t, "return redis.call('GET', 'big')", &[], &[]), Reply::Bulk(_)));
        assert_eq!(eval(&mut t, "return redis.call('DEL', 'nokey')", &[], &[]), int(0));
        assert_eq!(
            eval(&mut t, "#!lua\nreturn 1", &[], &[]),
            err("OOM command not allowed when used memory > 'maxmemory'.")
        );
        assert_eq!(eval(&mut t, "#!lua flags=no-writes\nreturn 1", &[], &[]), int(1));
        assert_eq!(
            eval(&mut t, "#!lua flags=allow-oom\nreturn redis.call('SET', 'a', 'b')", &[], &[]),
            Reply::status("OK")
        );
    }

    #[test]
    fn commands_a_script_runs_count_in_commandstats() {
        let mut t = TestEngine::default();
        eval(
            &mut t,
            "redis.call('SET', 'a', '1'); redis.call('SET', 'b', '2'); return redis.pcall('HGET', 'a', 'f')",
            &[],
            &[],
        );
        let info = match t.run(&["INFO", "commandstats"]) {
            Reply::Bulk(b) => String::from_utf8_lossy(&b).to_string(),
            Reply::Verbatim(s) => s,
            other => panic!("INFO: {other:?}"),
        };
        assert!(info.contains("cmdstat_set:calls=2,"), "{info}");
        assert!(info.contains("cmdstat_hget:calls=1,"), "{info}");
        assert!(info.contains("failed_calls=1"), "{info}");
        assert!(info.contains("cmdstat_eval:calls=1,"), "{info}");
    }

    /// Numbers passed to redis.call print as Redis 7.0's `%.17g` (checked against
    /// redis-server 7.0.15; `limits`' moving window stores such timestamps).
    #[test]
    fn number_arguments_print_as_redis_7_0() {
        let mut t = TestEngine::default();
        for (lua, stored) in [
            ("0.1", "0.10000000000000001"),
            ("1795000000.1", "1795000000.0999999"),
            ("1e20", "1e+20"),
            ("123456789012345678", "1.2345678901234568e+17"),
            ("1e-5", "1.0000000000000001e-05"),
            ("0/0", "-nan"),
            ("-1/0", "-inf"),
            ("42", "42"),
        ] {
            let script = format!("redis.call('SET', 'n', {lua}) return redis.call('GET', 'n')");
            assert_eq!(eval(&mut t, &script, &[], &[]), bulk(stored), "{lua}");
        }
    }

    #[test]
    fn a_script_inside_multi_runs_at_exec() {
        let mut t = TestEngine::default();
        t.run(&["MULTI"]);
        assert_eq!(eval(&mut t, "return redis.call('INCR', 'c')", &[], &[]), Reply::status("QUEUED"));
        assert_eq!(t.run(&["EXEC"]), arr(vec![int(1)]));
    }
}

#[cfg(test)]
#[cfg(not(feature = "scripting"))]
mod tests_without_a_vm {
    use crate::testing::*;

    #[test]
    fn without_a_vm_the_commands_answer_that_scripting_runs_on_the_server() {
        let mut t = TestEngine::default();
        let e = err("ERR scripting runs on the server; the browser playground has no Lua VM");
        assert_eq!(t.run(&["EVAL", "return 1", "0"]), e);
        assert_eq!(t.run(&["SCRIPT", "LOAD", "return 1"]), e);
    }
}
