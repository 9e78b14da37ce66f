//! CLIENT's subcommands: the connection's id, name and description, the list of
//! connections, and killing them. Each is a row of the command table under CLIENT.

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::reply::Reply;
use crate::table;

use super::help_reply;

/// The connection's id.
///
/// ```text
/// CLIENT ID
/// ```
pub fn id(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(Reply::Int(ctx.session.id() as i64))
}

/// This connection's line of CLIENT LIST.
///
/// ```text
/// CLIENT INFO
/// ```
pub fn info(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(Reply::Verbatim(format!("{}\n", ctx.session.client.describe(ctx.now, table::name_of))))
}

/// One line per connection, with Redis's field names.
///
/// ```text
/// CLIENT LIST [TYPE <NORMAL | MASTER | REPLICA | PUBSUB>] [ID client-id [client-id ...]]
/// ```
pub fn list(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let mut ids: Option<Vec<u64>> = None;
    // TYPE pubsub: subscribers only; TYPE normal: everyone else.
    let mut subscribers: Option<bool> = None;
    while !args.is_empty() {
        if args.flag("TYPE") {
            let t = args.option()?;
            if !["NORMAL", "MASTER", "REPLICA", "PUBSUB"].contains(&t.as_str()) {
                return Err(CmdError::err(format!("Unknown client type '{}'", t.to_ascii_lowercase())));
            }
            match t.as_str() {
                "NORMAL" => subscribers = Some(false),
                "PUBSUB" => subscribers = Some(true),
                _ => ids = Some(vec![]),
            }
        } else if args.flag("ID") {
            let mut list = vec![];
            while let Some(a) = args.peek() {
                let id =
                    crate::num::parse_i64(a).filter(|n| *n > 0).ok_or_else(|| CmdError::err("Invalid client ID"))?;
                list.push(id as u64);
                args.bytes()?;
            }
            ids = Some(list);
        } else {
            return Err(CmdError::Syntax);
        }
    }
    let mut out = String::new();
    for c in ctx.engine.clients.all() {
        if ids.as_ref().is_none_or(|ids| ids.contains(&c.id)) && subscribers.is_none_or(|s| s == c.is_subscriber()) {
            out.push_str(&c.describe(ctx.now, table::name_of));
            out.push('\n');
        }
    }
    Ok(Reply::Verbatim(out))
}

/// The connection's name, or nil.
///
/// ```text
/// CLIENT GETNAME
/// ```
pub fn getname(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(Reply::opt_bulk(ctx.session.client.name.lock().clone()))
}

/// Names the connection (an empty name removes it).
///
/// ```text
/// CLIENT SETNAME connection-name
/// ```
pub fn setname(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let name = valid_client_name(args.bytes()?)?;
    *ctx.session.client.name.lock() = name;
    Ok(Reply::Ok)
}

/// A client name as Redis accepts it: printable ASCII without spaces; empty = no name.
pub(crate) fn valid_client_name(name: &[u8]) -> Result<Option<Vec<u8>>, CmdError> {
    if name.iter().any(|&c| !(b'!'..=b'~').contains(&c)) {
        return Err(CmdError::err("Client names cannot contain spaces, newlines or special characters."));
    }
    Ok((!name.is_empty()).then(|| name.to_vec()))
}

/// Records the client library's name or version, shown by CLIENT LIST.
///
/// ```text
/// CLIENT SETINFO <LIB-NAME libname | LIB-VER libver>
/// ```
pub fn setinfo(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let attr = args.option()?;
    let value = args.bytes()?;
    if value.iter().any(|&c| !(b'!'..=b'~').contains(&c)) {
        return Err(CmdError::err(format!(
            "{} cannot contain spaces, newlines or special characters.",
            attr.to_ascii_lowercase()
        )));
    }
    let slot = match attr.as_str() {
        "LIB-NAME" => &ctx.session.client.lib_name,
        "LIB-VER" => &ctx.session.client.lib_ver,
        _ => return Err(CmdError::err(format!("Unrecognized option '{}'", attr.to_ascii_lowercase()))),
    };
    *slot.lock() = (!value.is_empty()).then(|| value.to_vec());
    Ok(Reply::Ok)
}

/// Closes connections: the old form by address (OK or an error), the new one by filters
/// (the number closed; the caller itself is spared unless SKIPME no).
///
/// ```text
/// CLIENT KILL <ip:port | [ID client-id] [ADDR ip:port] [LADDR ip:port] [SKIPME <YES | NO>]>
/// ```
pub fn kill(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    if args.len() == 1 {
        let addr = args.bytes()?;
        let found = ctx.engine.clients.all().into_iter().find(|c| c.addr.as_bytes() == addr);
        return match found {
            Some(c) => {
                c.kill();
                Ok(Reply::Ok)
            }
            None => Err(CmdError::err("No such client")),
        };
    }
    let (mut id, mut addr, mut laddr, mut skipme) = (None, None, None, true);
    while !args.is_empty() {
        let opt = args.option()?;
        let val = args.bytes()?;
        match opt.as_str() {
            "ID" => {
                id = Some(
                    crate::num::parse_i64(val)
                        .filter(|n| *n > 0)
                        .ok_or_else(|| CmdError::err("client-id should be greater than 0"))? as u64,
                )
            }
            "ADDR" => addr = Some(val.to_vec()),
            "LADDR" => laddr = Some(val.to_vec()),
            "SKIPME" => {
                skipme = match val.to_ascii_lowercase().as_slice() {
                    b"yes" => true,
                    b"no" => false,
                    _ => return Err(CmdError::Syntax),
                }
            }
            "TYPE" | "USER" | "MAXAGE" => {}
            _ => return Err(CmdError::Syntax),
        }
    }
    let mut killed = 0;
    for c in ctx.engine.clients.all() {
        let matches = id.is_none_or(|id| c.id == id)
            && addr.as_deref().is_none_or(|a| c.addr.as_bytes() == a)
            && laddr.as_deref().is_none_or(|a| c.laddr.as_bytes() == a);
        if matches && !(skipme && c.id == ctx.session.id()) {
            c.kill();
            killed += 1;
        }
    }
    Ok(Reply::Int(killed))
}

/// Accepted for compatibility: Vitrine evicts no clients, so there is no mode to set.
///
/// ```text
/// CLIENT NO-EVICT <ON | OFF>
/// ```
pub fn no_evict(_ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    on_or_off(args)
}

/// Accepted for compatibility: the connection's reads still count as accesses.
///
/// ```text
/// CLIENT NO-TOUCH <ON | OFF>
/// ```
pub fn no_touch(_ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    on_or_off(args)
}

fn on_or_off(args: &mut Args<'_>) -> Result<Reply, CmdError> {
    match args.option()?.as_str() {
        "ON" | "OFF" => Ok(Reply::Ok),
        _ => Err(CmdError::Syntax),
    }
}

/// Ends another connection's blocking command: as a timeout would (TIMEOUT, the default),
/// or with an UNBLOCKED error (ERROR). 1 if that client was blocked, else 0.
///
/// ```text
/// CLIENT UNBLOCK client-id [TIMEOUT | ERROR]
/// ```
pub fn unblock(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    if args.len() > 2 {
        return Err(CmdError::err(format!(
            "unknown subcommand or wrong number of arguments for '{}'. Try CLIENT HELP.",
            String::from_utf8_lossy(ctx.argv[1]),
        )));
    }
    let id = crate::num::parse_i64(args.bytes()?).ok_or(CmdError::NotInteger)?;
    let error = match args.rest().first() {
        None => false,
        Some(reason) if reason.eq_ignore_ascii_case(b"TIMEOUT") => false,
        Some(reason) if reason.eq_ignore_ascii_case(b"ERROR") => true,
        Some(_) => return Err(CmdError::err("CLIENT UNBLOCK reason should be TIMEOUT or ERROR")),
    };
    let unblocked = u64::try_from(id).is_ok_and(|id| ctx.engine.unblock_client(id, error));
    Ok(Reply::Int(unblocked as i64))
}

/// CLIENT's subcommands, as Redis's CLIENT HELP lists them.
///
/// ```text
/// CLIENT HELP
/// ```
pub fn help(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(help_reply(&[
        "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "ID",
        "    Return the ID of the current connection.",
        "INFO",
        "    Return information about the current client connection.",
        "LIST [TYPE <normal|master|replica|pubsub>] [ID <id> [<id> ...]]",
        "    Return information about client connections.",
        "GETNAME",
        "    Return the name of the current connection.",
        "SETNAME <name>",
        "    Assign the name <name> to the current connection.",
        "SETINFO <LIB-NAME|LIB-VER> <value>",
        "    Set client meta attr.",
        "KILL <ip:port> | KILL [ID <id>] [ADDR <ip:port>] [LADDR <ip:port>] [SKIPME yes|no]",
        "    Kill connections.",
        "UNBLOCK <clientid> [TIMEOUT|ERROR]",
        "    Unblock the specified blocked client.",
        "HELP",
        "    Print this help.",
    ]))
}

#[cfg(test)]
mod tests {
    use crate::testing::*;
    use crate::Reply;

    #[test]
    fn client_name_and_list() {
        let mut t = TestEngine::default();
        assert_eq!(t.run(&["CLIENT", "GETNAME"]), nil());
        assert_eq!(t.run(&["CLIENT", "SETNAME", "worker-1"]), ok());
        assert_eq!(t.run(&["CLIENT", "GETNAME"]), bulk("worker-1"));
        assert_eq!(
            t.run(&["CLIENT", "SETNAME", "a b"]),
            err("ERR Client names cannot contain spaces, newlines or special characters.")
        );
        assert_eq!(t.run(&["CLIENT", "SETINFO", "LIB-NAME", "redis-rs"]), ok());
        assert_eq!(t.run(&["CLIENT", "SETINFO", "BOGUS", "x"]), err("ERR Unrecognized option 'bogus'"));
        let Reply::Verbatim(list) = t.run(&["CLIENT", "LIST"]) else { panic!("not text") };
        assert!(list.contains("name=worker-1") && list.contains("lib-name=redis-rs"), "{list}");
        let id = t.session.id() as i64;
        assert_eq!(t.run(&["CLIENT", "ID"]), int(id));
        let other = t.engine.new_session("127.0.0.1:9", "127.0.0.1:6379", t.now);
        assert_eq!(t.run(&["CLIENT", "KILL", "ID", &other.id().to_string()]), int(1));
        assert!(other.client.is_killed());
        assert_eq!(t.run(&["CLIENT", "KILL", "1.2.3.4:5"]), err("ERR No such client"));
    }

    #[test]
    fn subcommands_are_checked_and_named_by_dispatch() {
        let mut t = TestEngine::default();
        assert_eq!(t.run(&["CLIENT"]), err("ERR wrong number of arguments for 'client' command"));
        assert_eq!(t.run(&["client", "foo", "bar"]), err("ERR unknown subcommand 'foo'. Try CLIENT HELP."));
        assert_eq!(t.run(&["CLIENT", "SETNAME"]), err("ERR wrong number of arguments for 'client|setname' command"));
        assert_eq!(
            t.run(&["client", "setname", "a", "b"]),
            err("ERR wrong number of arguments for 'client|setname' command")
        );
        assert_eq!(t.run(&["CLIENT", "HELP", "x"]), err("ERR wrong number of arguments for 'client|help' command"));
        assert_eq!(t.run(&["CLIENT", "KILL"]), err("ERR wrong number of arguments for 'client|kill' command"));
        assert_eq!(t.run(&["CLIENT", "NO-EVICT", "maybe"]), err("ERR syntax error"));
        assert_eq!(t.run(&["Client", "No-Evict", "on"]), ok());
        // The running command is the subcommand: CLIENT LIST shows it, INFO counts it.
        let Reply::Verbatim(me) = t.run(&["CLIENT", "INFO"]) else { panic!("not text") };
        assert!(me.contains(" cmd=client|info "), "{me}");
        let Reply::Verbatim(stats) = t.run(&["INFO", "commandstats"]) else { panic!("not text") };
        assert!(stats.contains("cmdstat_client|info:calls=1,"), "{stats}");
        assert!(
            stats.contains("cmdstat_client|setname:calls=0,usec=0,usec_per_call=0.00,rejected_calls=2,failed_calls=0"),
            "{stats}"
        );
        // Refused before running (arity): rejected, not called, as Redis 7 counts them. CLIENT
        // alone was refused as CLIENT; an unknown subcommand counts for no command.
        assert!(
            stats.contains("cmdstat_client:calls=0,usec=0,usec_per_call=0.00,rejected_calls=1,failed_calls=0"),
            "{stats}"
        );
        assert!(!stats.contains("foo"), "{stats}");
        let Reply::Array(help) = t.run(&["CLIENT", "HELP"]) else { panic!("not an array") };
        assert_eq!(help[0], Reply::status("CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
    }
}
