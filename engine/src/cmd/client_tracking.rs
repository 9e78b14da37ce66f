//! CLIENT's client-side caching subcommands: TRACKING, CACHING, GETREDIR and TRACKINGINFO,
//! with Redis's checks and error texts. The table and the invalidations are `crate::tracking`.

use std::sync::atomic::Ordering::Relaxed;

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::reply::Reply;
use crate::tracking::{Mode, FLAG_BROKEN_REDIRECT};

/// Turns client-side caching on or off for this connection.
///
/// ```text
/// CLIENT TRACKING <ON | OFF> [REDIRECT client-id] [PREFIX prefix [PREFIX prefix ...]]
///   [BCAST] [OPTIN] [OPTOUT] [NOLOOP]
/// ```
pub fn tracking(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let switch = args.bytes()?;
    let mut mode = Mode::default();
    let mut prefixes: Vec<&[u8]> = Vec::new();
    // Every option is checked before ON or OFF is looked at, as Redis does.
    while !args.is_empty() {
        let more = args.len() > 1;
        if more && args.flag("REDIRECT") {
            if mode.redirect != 0 {
                return Err(CmdError::err("A client can only redirect to a single other client"));
            }
            let id = args.int()?;
            if id <= 0 || ctx.engine.clients.get(id as u64).is_none() {
                return Err(CmdError::err("The client ID you want redirect to does not exist"));
            }
            mode.redirect = id as u64;
        } else if args.flag("BCAST") {
            mode.bcast = true;
        } else if args.flag("OPTIN") {
            mode.optin = true;
        } else if args.flag("OPTOUT") {
            mode.optout = true;
        } else if args.flag("NOLOOP") {
            mode.noloop = true;
        } else if more && args.flag("PREFIX") {
            prefixes.push(args.bytes()?);
        } else {
            return Err(CmdError::Syntax);
        }
    }
    if switch.eq_ignore_ascii_case(b"OFF") {
        if ctx.session.tracking.mode.take().is_some() {
            ctx.engine.tracking.disable(ctx.session.id());
        }
        ctx.session.tracking.caching = false;
        return Ok(Reply::Ok);
    }
    if !switch.eq_ignore_ascii_case(b"ON") {
        return Err(CmdError::Syntax);
    }
    if !mode.bcast && !prefixes.is_empty() {
        return Err(CmdError::err("PREFIX option requires BCAST mode to be enabled"));
    }
    let current = ctx.session.tracking.mode;
    if current.is_some_and(|c| c.bcast != mode.bcast) {
        return Err(CmdError::err(
            "You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.",
        ));
    }
    if mode.bcast && (mode.optin || mode.optout) {
        return Err(CmdError::err("OPTIN and OPTOUT are not compatible with BCAST"));
    }
    if mode.optin && mode.optout {
        return Err(CmdError::err("You can't specify both OPTIN mode and OPTOUT mode"));
    }
    if current.is_some_and(|c| (mode.optin && c.optout) || (mode.optout && c.optin)) {
        return Err(CmdError::err(
            "You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.",
        ));
    }
    if mode.bcast {
        if let Some(text) = ctx.engine.tracking.prefix_collision(ctx.session.id(), &prefixes) {
            return Err(CmdError::Other(text));
        }
    }
    ctx.engine.tracking.enable(&ctx.session.client, mode, &prefixes);
    ctx.session.tracking.mode = Some(mode);
    // Re-enabling clears the CACHING flag with the other options, as Redis's flags.
    ctx.session.tracking.caching = false;
    Ok(Reply::Ok)
}

/// In OPTIN mode, caches the next command's keys (YES); in OPTOUT mode, does not (NO).
///
/// ```text
/// CLIENT CACHING <YES | NO>
/// ```
pub fn caching(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let Some(mode) = ctx.session.tracking.mode else {
        return Err(CmdError::err(
            "CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled",
        ));
    };
    let opt = args.bytes()?;
    if opt.eq_ignore_ascii_case(b"YES") {
        if !mode.optin {
            return Err(CmdError::err("CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode."));
        }
    } else if opt.eq_ignore_ascii_case(b"NO") {
        if !mode.optout {
            return Err(CmdError::err("CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode."));
        }
    } else {
        return Err(CmdError::Syntax);
    }
    ctx.session.tracking.caching = true;
    Ok(Reply::Ok)
}

/// The id invalidations are redirected to: 0 for none, -1 when tracking is off.
///
/// ```text
/// CLIENT GETREDIR
/// ```
pub fn getredir(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(Reply::Int(ctx.session.tracking.mode.map_or(-1, |m| m.redirect as i64)))
}

/// This connection's tracking: its flags (a set), redirect and BCAST prefixes.
///
/// ```text
/// CLIENT TRACKINGINFO
/// ```
pub fn trackinginfo(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let t = &ctx.session.tracking;
    let mut flags = Vec::new();
    let mut flag = |f: &str| flags.push(Reply::bulk(f));
    match t.mode {
        None => flag("off"),
        Some(m) => {
            flag("on");
            if m.bcast {
                flag("bcast");
            }
            for (on, name, caching) in [(m.optin, "optin", "caching-yes"), (m.optout, "optout", "caching-no")] {
                if on {
                    flag(name);
                    if t.caching {
                        flag(caching);
                    }
                }
            }
            if m.noloop {
                flag("noloop");
            }
            if ctx.session.client.tracking.load(Relaxed) & FLAG_BROKEN_REDIRECT != 0 {
                flag("broken_redirect");
            }
        }
    }
    let prefixes = ctx.engine.tracking.prefixes_of(ctx.session.id());
    Ok(Reply::Map(vec![
        (Reply::bulk("flags"), Reply::Set(flags)),
        (Reply::bulk("redirect"), Reply::Int(t.mode.map_or(-1, |m| m.redirect as i64))),
        (Reply::bulk("prefixes"), Reply::Array(prefixes.into_iter().map(Reply::Bulk).collect())),
    ]))
}

#[cfg(test)]
mod tests;
