//! CONFIG's subcommands: read and change settings by Redis's parameter names, reset the
//! stats. Each is a row of the command table under CONFIG.

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::glob;
use crate::reply::Reply;

use super::help_reply;

/// The parameters named or matched by the glob patterns, with their values, as Redis 7: a
/// name without glob characters is looked up directly (hidden parameters too, answered under
/// the name as given); a pattern matches names and aliases in any case.
///
/// ```text
/// CONFIG GET parameter [parameter ...]
/// ```
pub fn get(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let cfg = ctx.engine.config();
    let mut seen: Vec<String> = Vec::new();
    let mut pairs = Vec::new();
    let listed = cfg.all();
    for pattern in args.rest() {
        let pattern = String::from_utf8_lossy(pattern).into_owned();
        if !pattern.contains(['[', '*', '?']) {
            if seen.iter().any(|s| s.eq_ignore_ascii_case(&pattern)) {
                continue;
            }
            if let Some(value) = cfg.get(&pattern) {
                seen.push(pattern.clone());
                pairs.push((Reply::bulk(pattern), Reply::bulk(value)));
            }
            continue;
        }
        let lower = pattern.to_ascii_lowercase();
        for (name, value) in &listed {
            if !seen.contains(name) && glob::matches(lower.as_bytes(), name.as_bytes()) {
                seen.push(name.clone());
                pairs.push((Reply::bulk(name.as_str()), Reply::bulk(value.as_str())));
            }
        }
    }
    Ok(Reply::Map(pairs))
}

/// Sets parameters, all or nothing: if one value is refused, none changes.
///
/// ```text
/// CONFIG SET parameter value [parameter value ...]
/// ```
pub fn set(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    // An odd count passes the arity (-4) and is a syntax error, as in Redis.
    if !args.len().is_multiple_of(2) {
        return Err(CmdError::Syntax);
    }
    let texts: Vec<String> = args.rest().iter().map(|a| String::from_utf8_lossy(a).into_owned()).collect();
    let pairs: Vec<(&str, &str)> = texts.chunks(2).map(|p| (p[0].as_str(), p[1].as_str())).collect();
    ctx.engine.config().set_many(&pairs).map_err(|e| CmdError::err(e.0))?;
    // A lower maxmemory takes effect at once, as in Redis. Inside EXEC the shards are
    // locked by the transaction, which enforces the limit when it is done.
    if !ctx.session.tx.executing() {
        ctx.engine.store().enforce_limit(ctx.now);
    }
    Ok(Reply::Ok)
}

/// Zeroes the counters INFO reports.
///
/// ```text
/// CONFIG RESETSTAT
/// ```
pub fn resetstat(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    ctx.engine.stats().reset();
    ctx.engine.timing().reset_stats();
    Ok(Reply::Ok)
}

/// Writes the current settings into the config file the server was started with (the host
/// does the writing), and every ACL user as a `user` line unless an aclfile keeps them;
/// without a file, Redis's error.
///
/// ```text
/// CONFIG REWRITE
/// ```
pub fn rewrite(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let config = ctx.engine.config();
    let users: Vec<String> = match config.aclfile() {
        Some(_) => Vec::new(),
        None => ctx.engine.acl().users().iter().map(|u| u.describe()).collect(),
    };
    config.rewrite(&users).map_err(CmdError::err)?;
    Ok(Reply::Ok)
}

/// CONFIG's subcommands.
///
/// ```text
/// CONFIG HELP
/// ```
pub fn help(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(help_reply(&[
        "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "GET <pattern>",
        "    Return parameters matching the glob-like <pattern> and their values.",
        "SET <directive> <value>",
        "    Set the configuration <directive> to <value>.",
        "RESETSTAT",
        "    Reset statistics reported by the INFO command.",
        "REWRITE",
        "    Rewrite the configuration file.",
        "HELP",
        "    Prints this help.",
    ]))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use parking_lot::Mutex;

    use crate::config::ConfigFile;
    use crate::reply::Reply;
    use crate::testing::{bulk, err, ok, TestEngine};

    fn encoding(t: &mut TestEngine, key: &str) -> Reply {
        t.run(&["OBJECT", "ENCODING", key])
    }

    #[test]
    fn encoding_thresholds_set_at_run_time_convert_on_growth_only() {
        let mut t = TestEngine::default();
        assert_eq!(t.run(&["CONFIG", "SET", "hash-max-listpack-entries", "2", "zset-max-ziplist-entries", "2"]), ok());
        t.run(&["HSET", "h", "a", "1", "b", "2"]);
        assert_eq!(encoding(&mut t, "h"), bulk("listpack"));
        t.run(&["HSET", "h", "c", "3"]);
        assert_eq!(encoding(&mut t, "h"), bulk("hashtable"));
        t.run(&["HDEL", "h", "a", "b"]);
        assert_eq!(encoding(&mut t, "h"), bulk("hashtable"), "no conversion back");
        // Redis 7.2 counts HSET's pairs before it writes them, repeated fields included.
        t.run(&["HSET", "h1", "a", "1", "a", "2", "a", "3"]);
        assert_eq!(encoding(&mut t, "h1"), bulk("hashtable"));
        // So do ZADD and SADD (its sets presized by the count of elements).
        t.run(&["ZADD", "z1", "1", "a", "2", "a", "3", "a"]);
        assert_eq!(encoding(&mut t, "z1"), bulk("skiplist"));
        t.run(&["ZADD", "z2", "1", "a"]);
        t.run(&["ZADD", "z2", "1", "b", "2", "b", "3", "b"]);
        assert_eq!(encoding(&mut t, "z2"), bulk("skiplist"));
        t.run(&["ZADD", "z", "1", "a", "2", "b", "3", "c"]);
        assert_eq!(encoding(&mut t, "z"), bulk("skiplist"));
        assert_eq!(t.run(&["CONFIG", "SET", "hash-max-listpack-value", "3"]), ok());
        t.run(&["HSET", "h2", "f", "long"]);
        assert_eq!(encoding(&mut t, "h2"), bulk("hashtable"));
        assert_eq!(t.run(&["CONFIG", "SET", "set-max-intset-entries", "2", "set-max-listpack-entries", "3"]), ok());
        t.run(&["SADD", "ints", "1", "2"]);
        assert_eq!(encoding(&mut t, "ints"), bulk("intset"));
        t.run(&["SADD", "ints", "3"]);
        assert_eq!(encoding(&mut t, "ints"), bulk("hashtable"));
        t.run(&["SADD", "words", "a", "b", "c"]);
        assert_eq!(encoding(&mut t, "words"), bulk("listpack"));
        t.run(&["SADD", "words", "d"]);
        assert_eq!(encoding(&mut t, "words"), bulk("hashtable"));
        t.run(&["SADD", "few", "a"]);
        t.run(&["SADD", "few", "b", "b", "b", "b"]);
        assert_eq!(encoding(&mut t, "few"), bulk("hashtable"), "4 members to add, past 3");
        assert_eq!(t.run(&["CONFIG", "SET", "list-max-ziplist-size", "3"]), ok());
        t.run(&["RPUSH", "l", "a", "b", "c"]);
        assert_eq!(encoding(&mut t, "l"), bulk("listpack"));
        t.run(&["RPUSH", "l", "d"]);
        assert_eq!(encoding(&mut t, "l"), bulk("quicklist"));
        t.run(&["RPOP", "l", "3"]);
        assert_eq!(encoding(&mut t, "l"), bulk("listpack"), "back at half the count");
    }

    #[test]
    fn get_takes_several_patterns_and_exact_names_as_given() {
        let mut t = TestEngine::default();
        let Reply::Map(pairs) = t.run(&["CONFIG", "GET", "HZ", "hz", "hash-max-*"]) else { panic!("a map") };
        let names: Vec<Reply> = pairs.iter().map(|(k, _)| k.clone()).collect();
        assert_eq!(names[0], bulk("HZ"));
        assert_eq!(names.len(), 5, "HZ once, then two names and two aliases: {names:?}");
        assert_eq!(t.run(&["CONFIG", "GET", "nosuch"]), Reply::Map(vec![]));
        assert_eq!(
            t.run(&["CONFIG", "SET", "databases", "3"]),
            err("ERR CONFIG SET failed (possibly related to argument 'databases') - can't set immutable config")
        );
    }

    /// A config file in memory.
    struct Memory(Mutex<String>);

    impl ConfigFile for Memory {
        fn read(&self) -> Result<String, String> {
            Ok(self.0.lock().clone())
        }
        fn write(&self, text: &str) -> Result<(), String> {
            *self.0.lock() = text.to_string();
            Ok(())
        }
    }

    #[test]
    fn rewrite_needs_a_file_and_writes_the_current_values() {
        let mut t = TestEngine::default();
        assert_eq!(t.run(&["CONFIG", "REWRITE"]), err("ERR The server is running without a config file"));
        let file = Arc::new(Memory(Mutex::new("# mine\nhz 20\n".into())));
        t.engine.config().set_config_file(file.clone());
        assert_eq!(t.run(&["CONFIG", "SET", "hz", "30", "slowlog-max-len", "5"]), ok());
        assert_eq!(t.run(&["CONFIG", "REWRITE"]), ok());
        assert_eq!(*file.0.lock(), "# mine\nhz 30\n# Generated by CONFIG REWRITE\nslowlog-max-len 5\n");
    }
}
