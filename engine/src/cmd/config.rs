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
    Ok(Reply::Ok)
}

/// Writes the current settings into the config file the server was started with (the host
/// does the writing); without one, Redis's error.
///
/// ```text
/// CONFIG REWRITE
/// ```
pub fn rewrite(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    ctx.engine.config().rewrite().map_err(CmdError::err)?;
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
