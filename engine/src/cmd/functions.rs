//! Function commands: FCALL, FCALL_RO and FUNCTION LOAD / DELETE / LIST / DUMP / RESTORE /
//! FLUSH / STATS / KILL / HELP (the libraries and their VM are `script::functions`).
//!
//! FCALL rows carry `ALL_SHARDS` as EVAL's do (see `cmd::scripting`): a function holds every
//! shard while it runs, and its writes go to the log as their effects (`with_effects`).
//! FUNCTION LOAD, DELETE, FLUSH and RESTORE are write rows, so dispatch logs them as they
//! ran and they replay from the append-only file; a rewrite writes one FUNCTION LOAD per
//! library (`load_commands`).
//!
//! Without the `scripting` feature (the wasm playground) the rows answer that scripting
//! runs on the server.

use crate::args::Args;
use crate::busy::ScriptKind;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::reply::Reply;

/// Redis's reply to a subcommand given more arguments than its own check takes.
#[cfg_attr(not(feature = "scripting"), allow(dead_code))]
fn too_many(ctx: &Ctx<'_>) -> CmdError {
    CmdError::err(format!(
        "unknown subcommand or wrong number of arguments for '{}'. Try FUNCTION HELP.",
        String::from_utf8_lossy(ctx.argv[1]),
    ))
}

/// Stops the busy function if it has not written. `FUNCTION KILL`. Served while the function
/// runs on another thread (an `allow-busy` command locks nothing), with Redis's answers:
/// NOTBUSY, UNKILLABLE, or SCRIPT KILL's BUSY text when an EVAL script is what runs.
pub fn function_kill(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    ctx.engine.script_run().kill(ScriptKind::Function).map(|()| Reply::Ok)
}

/// FUNCTION STATS's `running_script`: the function running now (its name, the command that
/// runs it and how long it has run), nil while none runs or an EVAL script does.
#[cfg_attr(not(feature = "scripting"), allow(dead_code))]
fn running(ctx: &Ctx<'_>) -> Reply {
    match ctx.engine.script_run().running() {
        Some((script, _, _)) if script.kind == ScriptKind::Function => Reply::Map(vec![
            (Reply::bulk("name"), Reply::bulk(&script.name)),
            (Reply::bulk("command"), Reply::Array(script.command.iter().map(|a| Reply::Bulk(a.clone())).collect())),
            (Reply::bulk("duration_ms"), Reply::Int(ctx.now.saturating_sub(script.started_ms) as i64)),
        ]),
        _ => Reply::Nil,
    }
}

/// `FUNCTION HELP`
pub fn function_help(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(super::help_reply(&[
        "FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "LOAD [REPLACE] <FUNCTION CODE>",
        "    Create a new library with the given library name and code.",
        "DELETE <LIBRARY NAME>",
        "    Delete the given library.",
        "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
        "    Return general information on all the libraries:",
        "    * Library name",
        "    * The engine used to run the Library",
        "    * Library description",
        "    * Functions list",
        "    * Library code (if WITHCODE is given)",
        "    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
        "STATS",
        "    Return information about the current function running:",
        "    * Function name",
        "    * Command used to run the function",
        "    * Duration in MS that the function is running",
        "    If no function is running, return nil",
        "    In addition, returns a list of available engines.",
        "KILL",
        "    Kill the current running function.",
        "FLUSH [ASYNC|SYNC]",
        "    Delete all the libraries.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the libraries.",
        "    * SYNC: Synchronously flush the libraries.",
        "DUMP",
        "    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
        "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
        "    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
        "    control how to handle existing libraries (default APPEND):",
        "    * FLUSH: delete all existing libraries.",
        "    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
        "    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
        "      libraries with the new libraries (notice that even on this option there is a chance of failure",
        "      in case of functions name collision with another library).",
        "HELP",
        "    Prints this help.",
    ]))
}

/// INFO memory's `number_of_functions`, `number_of_libraries` and
/// `used_memory_vm_functions`.
pub(crate) fn info_figures(engine: &crate::engine::Engine) -> [u64; 3] {
    #[cfg(feature = "scripting")]
    {
        use std::sync::atomic::Ordering::Relaxed;
        let f = &engine.scripts.function_figures;
        [f.functions.load(Relaxed), f.libraries.load(Relaxed), f.vm_memory.load(Relaxed)]
    }
    #[cfg(not(feature = "scripting"))]
    {
        let _ = engine;
        [0; 3]
    }
}

/// What an AOF rewrite writes before the keys: one `FUNCTION LOAD` per library, as Redis's
/// `rewriteFunctions`.
pub(crate) fn load_commands(engine: &crate::engine::Engine, out: &mut Vec<u8>) {
    #[cfg(feature = "scripting")]
    for lib in engine.scripts.functions.lock().libraries.iter() {
        crate::propagate::encode_command(out, &[&b"FUNCTION"[..], b"LOAD", &lib.code]);
    }
    #[cfg(not(feature = "scripting"))]
    let _ = (engine, out);
}

#[cfg(feature = "scripting")]
pub use with_vm::*;

#[cfg(feature = "scripting")]
mod with_vm {
    use super::*;
    use crate::script::functions::{flag_names, Functions, ENGINE};
    use crate::script::payload;
    use parking_lot::MutexGuard;

    fn functions<'e>(ctx: &Ctx<'e>) -> MutexGuard<'e, Functions> {
        ctx.engine.scripts.functions.lock()
    }

    /// Keeps INFO's figures current after a change.
    fn publish(ctx: &Ctx<'_>, f: &Functions) {
        f.publish(&ctx.engine.scripts.function_figures);
    }

    /// Runs a function. `FCALL function numkeys [key ...] [arg ...]`
    pub fn fcall(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
        call(ctx, args, false)
    }

    /// Runs a read-only function. `FCALL_RO function numkeys [key ...] [arg ...]`
    pub fn fcall_ro(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
        call(ctx, args, true)
    }

    fn call(ctx: &mut Ctx<'_>, args: &mut Args<'_>, ro: bool) -> Result<Reply, CmdError> {
        let name = args.bytes()?;
        let numkeys = args.bytes()?;
        let engine = ctx.engine;
        let mut functions = engine.scripts.functions.lock();
        let f = functions.libraries.function(name).ok_or_else(|| CmdError::err("Function not found"))?;
        // A function that may write is a deny-oom write command (Redis's
        // `scriptFlagsToCmdFlags`), refused as one before its arguments are read: over the
        // limit (`no-writes` implies `allow-oom`), or while writes cannot be persisted.
        let oom = !f.flags.allow_oom && engine.store.over_limit();
        if oom && !f.flags.no_writes {
            return Err(CmdError::Oom);
        }
        if let Some(why) = engine.propagation().refusal().filter(|_| !f.flags.no_writes) {
            return Err(CmdError::Other(why));
        }
        let numkeys = crate::num::parse_i64(numkeys).ok_or_else(|| CmdError::err("Bad number of keys provided"))?;
        let rest = args.rest();
        if numkeys > rest.len() as i64 {
            return Err(CmdError::err("Number of keys can't be greater than number of args"));
        }
        if numkeys < 0 {
            return Err(CmdError::err("Number of keys can't be negative"));
        }
        let (keys, argv) = rest.split_at(numkeys as usize);
        if ro && !f.flags.no_writes {
            return Err(CmdError::err("Can not execute a script with write flag using *_ro command."));
        }
        let read_only = ro || f.flags.no_writes;
        let vm = functions.vm().map_err(CmdError::err)?.vm();
        let name = f.name.clone();
        let result = crate::cmd::scripting::with_effects(ctx, ScriptKind::Function, name, vm, |vm, ctx| {
            crate::script::usage::observe(ctx, crate::script::usage::Kind::Function, &f.name, keys, |ctx| {
                vm.run_compiled(f.callback.clone(), &f.name, ctx, keys, argv, read_only, oom, true)
            })
        });
        publish(ctx, &functions);
        result
    }

    /// Creates a library. `FUNCTION LOAD [REPLACE] function-code`
    pub fn function_load(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
        let all = args.rest();
        let Some((code, options)) = all.split_last() else {
            return Err(CmdError::err("Function code is missing"));
        };
        let mut replace = false;
        for o in options {
            if !o.eq_ignore_ascii_case(b"REPLACE") {
                return Err(CmdError::err(format!("Unknown option given: {}", String::from_utf8_lossy(o))));
            }
            replace = true;
        }
        let mut functions = functions(ctx);
        let name = functions.load(code, replace, ctx.engine.timing().clock()).map_err(CmdError::err)?;
        publish(ctx, &functions);
        Ok(Reply::bulk(name))
    }

    /// Deletes a library and its functions. `FUNCTION DELETE library-name`
    pub fn function_delete(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
        let name = args.bytes()?;
        let mut functions = functions(ctx);
        if !functions.libraries.delete(name) {
            return Err(CmdError::err("Library not found"));
        }
        publish(ctx, &functions);
        Ok(Reply::Ok)
    }

    /// Lists the libraries. `FUNCTION LIST [LIBRARYNAME library-name-pattern] [WITHCODE]`
    pub fn function_list(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
        let (mut with_code, mut pattern) = (false, None);
        let all = args.rest();
        let mut i = 0;
        while i < all.len() {
            let a = all[i];
            if !with_code && a.eq_ignore_ascii_case(b"WITHCODE") {
                with_code = true;
            } else if pattern.is_none() && a.eq_ignore_ascii_case(b"LIBRARYNAME") {
                i += 1;
                pattern = Some(*all.get(i).ok_or_else(|| CmdError::err("library name argument was not given"))?);
            } else {
                return Err(CmdError::err(format!("Unknown argument {}", String::from_utf8_lossy(a))));
            }
            i += 1;
        }
        let functions = functions(ctx);
        let libs = functions
            .libraries
            .iter()
            .filter(|l| pattern.is_none_or(|p| crate::glob::matches_case(p, l.name.as_bytes(), true)))
            .map(|l| {
                let fs = l
                    .functions
                    .iter()
                    .map(|f| {
                        Reply::Map(vec![
                            (Reply::bulk("name"), Reply::bulk(&f.name)),
                            (Reply::bulk("description"), f.description.as_ref().map_or(Reply::Nil, Reply::bulk)),
                            (
                                Reply::bulk("flags"),
                                Reply::Set(flag_names(&f.flags).into_iter().map(Reply::status).collect()),
                            ),
                        ])
                    })
                    .collect();
                let mut map = vec![
                    (Reply::bulk("library_name"), Reply::bulk(&l.name)),
                    (Reply::bulk("engine"), Reply::bulk(ENGINE)),
                    (Reply::bulk("functions"), Reply::Array(fs)),
                ];
                if with_code {
                    map.push((Reply::bulk("library_code"), Reply::bulk(&l.code)));
                }
                Reply::Map(map)
            })
            .collect();
        Ok(Reply::Array(libs))
    }

    /// Serializes every library. `FUNCTION DUMP`
    pub fn function_dump(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
        let functions = functions(ctx);
        Ok(Reply::Bulk(payload::dump(functions.libraries.iter().map(|l| &l.code[..]))))
    }

    /// Restores libraries from a DUMP payload. `FUNCTION RESTORE serialized-value [FLUSH |
    /// APPEND | REPLACE]`
    pub fn function_restore(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
        let data = args.bytes()?;
        #[derive(PartialEq)]
        enum Policy {
            Flush,
            Append,
            Replace,
        }
        let policy = match args.rest() {
            [] => Policy::Append,
            [p] if p.eq_ignore_ascii_case(b"APPEND") => Policy::Append,
            [p] if p.eq_ignore_ascii_case(b"REPLACE") => Policy::Replace,
            [p] if p.eq_ignore_ascii_case(b"FLUSH") => Policy::Flush,
            [_] => {
                return Err(CmdError::err(
                    "Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.",
                ))
            }
            _ => return Err(too_many(ctx)),
        };
        if !payload::verify(data) {
            return Err(CmdError::err("DUMP payload version or checksum are wrong"));
        }
        let codes = payload::read(data).map_err(CmdError::err)?;
        let mut functions = functions(ctx);
        let restored = functions.compile_all(&codes, ctx.engine.timing().clock()).map_err(CmdError::err)?;
        if policy == Policy::Flush {
            functions.flush();
        }
        functions.libraries.join(restored, policy == Policy::Replace).map_err(CmdError::err)?;
        publish(ctx, &functions);
        Ok(Reply::Ok)
    }

    /// Deletes every library. `FUNCTION FLUSH [ASYNC | SYNC]` (both at once here).
    pub fn function_flush(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
        match args.rest() {
            [] => {}
            [m] if m.eq_ignore_ascii_case(b"SYNC") || m.eq_ignore_ascii_case(b"ASYNC") => {}
            [_] => return Err(CmdError::err("FUNCTION FLUSH only supports SYNC|ASYNC option")),
            _ => return Err(too_many(ctx)),
        }
        let mut functions = functions(ctx);
        functions.flush();
        publish(ctx, &functions);
        Ok(Reply::Ok)
    }

    /// The running function and the engines' counts. `FUNCTION STATS`
    pub fn function_stats(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
        // The counts published at each change: a running function holds the registry, and
        // FUNCTION STATS is served while it is busy.
        let [functions, libraries, _] = info_figures(ctx.engine);
        let counts = Reply::Map(vec![
            (Reply::bulk("libraries_count"), Reply::Int(libraries as i64)),
            (Reply::bulk("functions_count"), Reply::Int(functions as i64)),
        ]);
        Ok(Reply::Map(vec![
            (Reply::bulk("running_script"), running(ctx)),
            (Reply::bulk("engines"), Reply::Map(vec![(Reply::bulk(ENGINE), counts)])),
        ]))
    }
}

#[cfg(not(feature = "scripting"))]
pub use without_vm::*;

/// The playground has no Lua VM: every row that needs one answers so.
#[cfg(not(feature = "scripting"))]
mod without_vm {
    use super::*;

    macro_rules! no_vm_handlers {
        ($($(#[$doc:meta])* $name:ident),* $(,)?) => {$(
            $(#[$doc])*
            pub fn $name(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
                Err(crate::cmd::scripting::no_vm())
            }
        )*};
    }

    no_vm_handlers!(
        /// `FCALL function numkeys [key ...] [arg ...]`
        fcall,
        /// `FCALL_RO function numkeys [key ...] [arg ...]`
        fcall_ro,
        /// `FUNCTION LOAD [REPLACE] function-code`
        function_load,
        /// `FUNCTION DELETE library-name`
        function_delete,
        /// `FUNCTION LIST [LIBRARYNAME library-name-pattern] [WITHCODE]`
        function_list,
        /// `FUNCTION DUMP`
        function_dump,
        /// `FUNCTION RESTORE serialized-value [FLUSH | APPEND | REPLACE]`
        function_restore,
        /// `FUNCTION FLUSH [ASYNC | SYNC]`
        function_flush,
        /// `FUNCTION STATS`
        function_stats,
    );
}

#[cfg(test)]
#[cfg(feature = "scripting")]
mod tests {
    use crate::testing::*;
    use crate::Reply;

    const LIB: &str = "#!lua name=lib1\n\
        redis.register_function('set_it', function(keys, args) return redis.call('SET', keys[1], args[1]) end)\n\
        redis.register_function{function_name='get_it', callback=function(keys) return redis.call('GET', keys[1]) end, flags={'no-writes'}, description='reads'}\n\
        redis.register_function('boom', function() local x = 1\n error('bad') end)";

    fn error_text(r: Reply) -> String {
        match r {
            Reply::Error(e) => e,
            other => panic!("not an error: {other:?}"),
        }
    }

    #[test]
    fn load_and_call_with_keys_and_args_as_parameters() {
        let mut t = TestEngine::default();
        assert_eq!(t.run(&["FUNCTION", "LOAD", LIB]), bulk("lib1"));
        assert_eq!(t.run(&["FCALL", "set_it", "1", "k", "v"]), Reply::status("OK"));
        // Function names are found without case, as Redis's function dict.
        assert_eq!(t.run(&["FCALL", "GET_IT", "1", "k"]), bulk("v"));
        assert_eq!(t.run(&["FCALL_RO", "get_it", "1", "k"]), bulk("v"));
        assert_eq!(
            t.run(&["FCALL_RO", "set_it", "1", "k", "w"]),
            err("ERR Can not execute a script with write flag using *_ro command.")
        );
        assert_eq!(t.run(&["FCALL", "boom", "0"]), err("ERR user_function:5: bad script: boom, on @user_function:5."));
        assert_eq!(t.run(&["FCALL", "nope", "0"]), err("ERR Function not found"));
        assert_eq!(t.run(&["FCALL", "get_it", "x"]), err("ERR Bad number of keys provided"));
        assert_eq!(
            t.run(&["FCALL", "get_it", "2", "a"]),
            err("ERR Number of keys can't be greater than number of args")
        );
        assert_eq!(t.run(&["FCALL", "get_it", "-1"]), err("ERR Number of keys can't be negative"));
        let e = error_text(t.run(&["FCALL", "get_it", "0"]));
        assert!(e.contains("Lua redis lib command arguments must be strings or integers"), "{e}");
        t.run(&["FUNCTION", "LOAD", "#!lua name=w\nredis.register_function{function_name='w', callback=function(k) return redis.call('DEL', k[1]) end, flags={'no-writes'}}"]);
        let e = error_text(t.run(&["FCALL", "w", "1", "k"]));
        assert_eq!(e, "ERR Write commands are not allowed from read-only scripts. script: w, on @user_function:2.");
    }

    #[test]
    fn load_time_api_and_errors_read_as_redis() {
        let mut t = TestEngine::default();
        let load = |t: &mut TestEngine, body: &str| t.run(&["FUNCTION", "LOAD", &format!("#!lua name=ab\n{body}")]);
        let cases = [
            ("redis.call('set','a','b')", "ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'call'"),
            ("local s = string.format('%d', 1)", "ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'string'"),
            ("x = 1", "ERR Error registering functions: ERR user_function:2: Attempt to modify a readonly table"),
            ("local a = nil + 1", "ERR Error registering functions: ERR user_function:2: attempt to perform arithmetic on a nil value"),
            ("syntax error(", "ERR Error compiling function: user_function:2: '=' expected near 'error'"),
            ("local t = 1", "ERR No functions registered"),
            ("redis.register_function('f1', function() end)\nredis.register_function('f1', function() end)", "ERR Error registering functions: ERR Function already exists in the library"),
            ("redis.register_function('a-b', function() end)", "ERR Error registering functions: ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"),
            ("redis.register_function{function_name='q', callback=function() end, flags={'bogus'}}", "ERR Error registering functions: ERR unknown flag given"),
            ("redis.register_function{function_name='q', callback=function() end, flags='x'}", "ERR Error registering functions: ERR flags argument to redis.register_function must be a table representing function flags"),
            ("redis.register_function{function_name='q', callback=function() end, other=1}", "ERR Error registering functions: ERR unknown argument given to redis.register_function"),
            ("redis.register_function{callback=function() end}", "ERR Error registering functions: ERR redis.register_function must get a function name argument"),
            ("redis.register_function{function_name='q'}", "ERR Error registering functions: ERR redis.register_function must get a callback argument"),
            ("redis.register_function('q')", "ERR Error registering functions: ERR calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments)."),
            ("redis.register_function(1, 2, 3)", "ERR Error registering functions: ERR wrong number of arguments to redis.register_function"),
            ("redis.register_function('q', 1)", "ERR Error registering functions: ERR second argument to redis.register_function must be a function"),
            ("redis.register_function({function_name='x', callback=1})", "ERR Error registering functions: ERR callback argument given to redis.register_function must be a function"),
            ("redis.register_function({[true]='x', callback=function() end})", "ERR Error registering functions: ERR named argument key given to redis.register_function is not a string"),
            ("redis.register_function('x', function() end) redis.setresp(3)", "ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'setresp'"),
        ];
        for (body, want) in cases {
            assert_eq!(load(&mut t, body), err(want), "{body}");
        }
        assert_eq!(t.run(&["FUNCTION", "LOAD", "return 1"]), err("ERR Missing library metadata"));
        assert_eq!(t.run(&["FUNCTION", "LOAD", "bogus", "#!lua name=ab\n"]), err("ERR Unknown option given: bogus"));
        // Numbers are names (Lua's string coercion), the log and the version are there.
        let body =
            "redis.register_function(2, function() return redis.REDIS_VERSION end)\nredis.log(redis.LOG_WARNING, 'hi')";
        assert_eq!(load(&mut t, body), bulk("ab"));
        assert_eq!(t.run(&["FCALL", "2", "0"]), bulk("7.0.15"));
        assert_eq!(load(&mut t, body), err("ERR Library 'ab' already exists"));
        assert_eq!(
            t.run(&["FUNCTION", "LOAD", "#!lua name=other\nredis.register_function('2', function() end)"]),
            err("ERR Function 2 already exists")
        );
        // At run time the full API is there, register_function is not, keys and args are
        // the two parameters and KEYS does not exist.
        let body = "redis.register_function('x', function(keys, args) return {#keys, #args, select('#', keys, args), cjson.encode({1}), tostring(redis.register_function == nil)} end)\nredis.register_function('k', function() return KEYS end)";
        assert_eq!(t.run(&["FUNCTION", "LOAD", "REPLACE", &format!("#!lua name=ab\n{body}")]), bulk("ab"));
        assert_eq!(
            t.run(&["FCALL", "x", "2", "a", "b", "c"]),
            arr(vec![int(2), int(1), int(2), bulk("[1]"), bulk("true")])
        );
        assert_eq!(
            t.run(&["FCALL", "k", "0"]),
            err("ERR user_function:3: Script attempted to access nonexistent global variable 'KEYS' script: k, on @user_function:3.")
        );
        // A failed REPLACE keeps the old library.
        assert_eq!(
            t.run(&["FUNCTION", "LOAD", "REPLACE", "#!lua name=ab\nlocal x = 1"]),
            err("ERR No functions registered")
        );
        assert_eq!(t.run(&["FCALL", "x", "0"]), arr(vec![int(0), int(0), int(2), bulk("[1]"), bulk("true")]));
    }

    #[test]
    fn a_library_whose_code_runs_past_500_ms_at_load_is_refused() {
        let mut t = TestEngine::default();
        // Each clock reading moves it on by a second: the hook's first check is past the limit.
        t.clock.set_step(1_000_000);
        let r = t.run(&["FUNCTION", "LOAD", "#!lua name=slow\nlocal i = 0\nwhile true do i = i + 1 end"]);
        assert_eq!(r, err("ERR Error registering functions: ERR FUNCTION LOAD timeout"));
        t.clock.set_step(0);
        // The hook is gone with the load: a function may run long.
        let lib = "#!lua name=fine\nredis.register_function('spin', function() local i = 0 while i < 300000 do i = i + 1 end return i end)";
        assert_eq!(t.run(&["FUNCTION", "LOAD", lib]), bulk("fine"));
        t.clock.set_step(1_000_000);
        assert_eq!(t.run(&["FCALL", "spin", "0"]), int(300000));
    }

    #[test]
    fn list_delete_flush_stats_and_help() {
        let mut t = TestEngine::default();
        t.run(&["FUNCTION", "LOAD", LIB]);
        let listed = t.run(&["FUNCTION", "LIST", "LIBRARYNAME", "LIB*"]);
        let Reply::Array(libs) = listed else { panic!("{listed:?}") };
        assert_eq!(libs.len(), 1);
        let Reply::Map(fields) = &libs[0] else { panic!() };
        assert_eq!(fields[0], (bulk("library_name"), bulk("lib1")));
        assert_eq!(fields[1], (bulk("engine"), bulk("LUA")));
        let Reply::Array(fs) = &fields[2].1 else { panic!() };
        assert_eq!(
            fs[1],
            Reply::Map(vec![
                (bulk("name"), bulk("get_it")),
                (bulk("description"), bulk("reads")),
                (bulk("flags"), Reply::Set(vec![Reply::status("no-writes")])),
            ])
        );
        assert_eq!(fields.len(), 3);
        let Reply::Array(with_code) = t.run(&["FUNCTION", "LIST", "WITHCODE"]) else { panic!() };
        let Reply::Map(fields) = &with_code[0] else { panic!() };
        assert_eq!(fields[3], (bulk("library_code"), bulk(LIB)));
        assert_eq!(t.run(&["FUNCTION", "LIST", "LIBRARYNAME", "x*"]), arr(vec![]));
        assert_eq!(t.run(&["FUNCTION", "LIST", "bogus"]), err("ERR Unknown argument bogus"));
        assert_eq!(t.run(&["FUNCTION", "LIST", "LIBRARYNAME"]), err("ERR library name argument was not given"));
        assert_eq!(t.run(&["FUNCTION", "LIST", "WITHCODE", "WITHCODE"]), err("ERR Unknown argument WITHCODE"));
        let stats = Reply::Map(vec![
            (bulk("running_script"), nil()),
            (
                bulk("engines"),
                Reply::Map(vec![(
                    bulk("LUA"),
                    Reply::Map(vec![(bulk("libraries_count"), int(1)), (bulk("functions_count"), int(3))]),
                )]),
            ),
        ]);
        assert_eq!(t.run(&["FUNCTION", "STATS"]), stats);
        let info = match t.run(&["INFO", "memory"]) {
            Reply::Bulk(b) => String::from_utf8_lossy(&b).to_string(),
            Reply::Verbatim(s) => s,
            other => panic!("{other:?}"),
        };
        assert!(info.contains("number_of_functions:3\r\nnumber_of_libraries:1\r\nused_memory_vm_functions:"), "{info}");
        assert!(!info.contains("used_memory_vm_functions:0\r\n"), "{info}");
        assert_eq!(t.run(&["FUNCTION", "KILL"]), err("NOTBUSY No scripts in execution right now."));
        assert_eq!(t.run(&["FUNCTION", "DELETE", "LIB1"]), err("ERR Library not found"));
        assert_eq!(t.run(&["FUNCTION", "DELETE", "lib1"]), ok());
        assert_eq!(t.run(&["FCALL", "get_it", "0"]), err("ERR Function not found"));
        t.run(&["FUNCTION", "LOAD", LIB]);
        assert_eq!(t.run(&["FUNCTION", "FLUSH", "bogus"]), err("ERR FUNCTION FLUSH only supports SYNC|ASYNC option"));
        assert_eq!(
            t.run(&["FUNCTION", "FLUSH", "a", "b"]),
            err("ERR unknown subcommand or wrong number of arguments for 'FLUSH'. Try FUNCTION HELP.")
        );
        assert_eq!(t.run(&["FUNCTION", "FLUSH", "async"]), ok());
        assert_eq!(t.run(&["FUNCTION", "LIST"]), arr(vec![]));
        let Reply::Array(help) = t.run(&["FUNCTION", "HELP"]) else { panic!() };
        assert_eq!(help[1], Reply::status("LOAD [REPLACE] <FUNCTION CODE>"));
        assert_eq!(help.last(), Some(&Reply::status("    Prints this help.")));
    }

    #[test]
    fn dump_and_restore_with_each_policy() {
        let mut t = TestEngine::default();
        t.run(&["FUNCTION", "LOAD", LIB]);
        let Reply::Bulk(payload) = t.run(&["FUNCTION", "DUMP"]) else { panic!() };
        let run = |t: &mut TestEngine, args: &[&[u8]]| t.run(args);
        assert_eq!(run(&mut t, &[b"FUNCTION", b"RESTORE", &payload]), err("ERR Library lib1 already exists"));
        assert_eq!(run(&mut t, &[b"FUNCTION", b"RESTORE", &payload, b"REPLACE"]), ok());
        assert_eq!(
            run(&mut t, &[b"FUNCTION", b"RESTORE", &payload, b"bogus"]),
            err("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.")
        );
        assert_eq!(
            run(&mut t, &[b"FUNCTION", b"RESTORE", &payload, b"FLUSH", b"x"]),
            err("ERR unknown subcommand or wrong number of arguments for 'RESTORE'. Try FUNCTION HELP.")
        );
        t.run(&["FUNCTION", "FLUSH"]);
        t.run(&["FUNCTION", "LOAD", "#!lua name=other\nredis.register_function('GET_IT', function() end)"]);
        assert_eq!(run(&mut t, &[b"FUNCTION", b"RESTORE", &payload]), err("ERR Function get_it already exists"));
        assert_eq!(run(&mut t, &[b"FUNCTION", b"RESTORE", &payload, b"FLUSH"]), ok());
        assert_eq!(t.run(&["FCALL", "set_it", "1", "k", "v"]), Reply::status("OK"));
        let Reply::Array(libs) = t.run(&["FUNCTION", "LIST"]) else { panic!() };
        assert_eq!(libs.len(), 1);
        let mut bad = payload.clone();
        bad[5] ^= 0x40;
        assert_eq!(
            run(&mut t, &[b"FUNCTION", b"RESTORE", &bad]),
            err("ERR DUMP payload version or checksum are wrong")
        );
        assert_eq!(t.run(&["FUNCTION", "RESTORE", "xx"]), err("ERR DUMP payload version or checksum are wrong"));
    }

    fn log(t: &TestEngine) -> String {
        String::from_utf8_lossy(&t.engine.propagation().take().0).replace("\r\n", " ")
    }

    #[test]
    fn library_changes_are_logged_as_run_and_calls_as_their_effects() {
        let mut t = TestEngine::default();
        t.engine.propagation().set_enabled(true);
        t.run(&["FUNCTION", "LOAD", LIB]);
        let l = log(&t);
        assert!(l.contains("FUNCTION $4 LOAD") && l.contains("name=lib1"), "{l}");
        t.run(&["FCALL", "set_it", "1", "k", "v"]);
        let l = log(&t);
        assert!(l.contains("SET $1 k $1 v") && !l.contains("FCALL"), "{l}");
        t.run(&["FCALL", "get_it", "1", "k"]);
        assert_eq!(log(&t), "");
        t.run(&["FUNCTION", "DELETE", "nope"]);
        assert_eq!(log(&t), "");
        t.run(&["FUNCTION", "DELETE", "lib1"]);
        assert!(log(&t).contains("FUNCTION $6 DELETE $4 lib1"));
        // A rewrite's image loads the libraries before the keys.
        t.run(&["FUNCTION", "LOAD", LIB]);
        let (image, _) = t.engine.rewrite_image(t.now);
        let image = String::from_utf8_lossy(&image).to_string();
        let (load, set) = (image.find("FUNCTION").unwrap(), image.find("SET").unwrap());
        assert!(load < set, "{image}");
    }

    #[test]
    fn over_maxmemory_only_functions_that_cannot_write_or_allow_oom_run() {
        let mut t = TestEngine::default();
        t.run(&["FUNCTION", "LOAD", LIB]);
        t.run(&["FUNCTION", "LOAD", "#!lua name=oom\nredis.register_function{function_name='oom_ok', callback=function(k, a) return redis.call('SET', k[1], a[1]) end, flags={'allow-oom'}}"]);
        t.run(&["SET", "big", &"x".repeat(2000)]);
        assert_eq!(t.run(&["CONFIG", "SET", "maxmemory", "1"]), ok());
        let oom = err("OOM command not allowed when used memory > 'maxmemory'.");
        assert_eq!(t.run(&["FCALL", "set_it", "1", "k", "v"]), oom);
        assert_eq!(t.run(&["FCALL_RO", "set_it", "1", "k", "v"]), oom);
        assert_eq!(t.run(&["FCALL", "get_it", "1", "big"]), bulk(&"x".repeat(2000)));
        assert_eq!(t.run(&["FCALL", "oom_ok", "1", "k", "v"]), Reply::status("OK"));
        // Refused as a command, before its arguments are read.
        assert_eq!(t.run(&["FCALL", "set_it", "x"]), oom);
        assert_eq!(t.run(&["CONFIG", "SET", "maxmemory", "0"]), ok());
        // While writes cannot be persisted, a function that may write is refused as a write.
        let misconf = "MISCONF Errors writing to the AOF file: No space left on device";
        t.engine.propagation().refuse_writes(Some(misconf.into()));
        assert_eq!(t.run(&["FCALL", "set_it", "1", "k", "v"]), err(misconf));
        assert_eq!(t.run(&["FCALL", "get_it", "1", "big"]), bulk(&"x".repeat(2000)));
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
        assert_eq!(t.run(&["FCALL", "f", "0"]), e);
        assert_eq!(t.run(&["FUNCTION", "LOAD", "#!lua name=a\n"]), e);
        assert_eq!(t.run(&["FUNCTION", "KILL"]), err("NOTBUSY No scripts in execution right now."));
    }
}
