//! CONFIG's subcommands: read and change settings by Redis's parameter names, reset the
//! stats. Each is a row of the command table under CONFIG.

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::glob;
use crate::reply::Reply;

use super::help_reply;

/// The parameters matching any of the glob patterns, with their values.
///
/// ```text
/// CONFIG GET parameter [parameter ...]
/// ```
pub fn get(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let patterns: Vec<Vec<u8>> = args.rest().iter().map(|p| p.to_ascii_lowercase()).collect();
    let pairs = ctx
        .engine
        .config()
        .all()
        .into_iter()
        .filter(|(name, _)| patterns.iter().any(|p| glob::matches(p, name.as_bytes())))
        .map(|(n, v)| (Reply::bulk(n), Reply::bulk(v)))
        .collect();
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
    let cfg = ctx.engine.config();
    let pairs: Vec<(String, String)> = args
        .rest()
        .chunks(2)
        .map(|p| (String::from_utf8_lossy(p[0]).to_ascii_lowercase(), String::from_utf8_lossy(p[1]).into_owned()))
        .collect();
    for (i, (name, _)) in pairs.iter().enumerate() {
        if pairs[..i].iter().any(|(n, _)| n == name) {
            return Err(CmdError::err(format!(
                "CONFIG SET failed (possibly related to argument '{name}') - duplicate parameter"
            )));
        }
        if cfg.get(name).is_none() {
            return Err(CmdError::err(format!("Unknown option or number of arguments for CONFIG SET - '{name}'")));
        }
    }
    // All or nothing: remember the old values and restore them if one fails.
    let old: Vec<(String, String)> = pairs.iter().map(|(n, _)| (n.clone(), cfg.get(n).unwrap_or_default())).collect();
    for (name, value) in &pairs {
        if let Err(reason) = cfg.set(name, value) {
            for (n, v) in &old {
                let _ = cfg.set(n, v);
            }
            return Err(CmdError::err(format!("CONFIG SET failed (possibly related to argument '{name}') - {reason}")));
        }
    }
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

/// Redis's answer when it was started without a config file, which Vitrine always is.
///
/// ```text
/// CONFIG REWRITE
/// ```
pub fn rewrite(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("The server is running without a config file"))
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
        "HELP",
        "    Print this help.",
    ]))
}
