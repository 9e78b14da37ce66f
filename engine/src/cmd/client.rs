//! CLIENT's subcommands: the connection's id, name and description, the list of
//! connections, and killing them. Each is a row of the command table under CLIENT.

use std::sync::atomic::Ordering::Relaxed;

use crate::args::Args;
use crate::clients::{Client, ClientType};
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::reply::Reply;
use crate::session::ReplyMode;
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
    Ok(Reply::Verbatim(format!("{}\n", ctx.session.client.describe(ctx.now, table::name_of, argv_mem(ctx)))))
}

/// CLIENT LIST's `argv-mem` for the caller: the bytes of the command it is running.
fn argv_mem(ctx: &Ctx<'_>) -> usize {
    ctx.argv.iter().map(|a| a.len()).sum()
}

/// CLIENT LIST/KILL's `TYPE` value, with Redis's error for anything else (as typed).
fn client_type(name: &[u8]) -> Result<ClientType, CmdError> {
    ClientType::parse(name)
        .ok_or_else(|| CmdError::err(format!("Unknown client type '{}'", String::from_utf8_lossy(name))))
}

/// One line per connection, with Redis's field names.
///
/// ```text
/// CLIENT LIST [TYPE <NORMAL | MASTER | REPLICA | PUBSUB>] [ID client-id [client-id ...]]
/// ```
pub fn list(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    // Redis's forms: TYPE alone, or ID with one or more ids (any integer; those that name
    // no client are skipped).
    let (mut ids, mut kind): (Option<Vec<i64>>, Option<ClientType>) = (None, None);
    let rest = args.rest();
    match rest {
        [] => {}
        [opt, t] if opt.eq_ignore_ascii_case(b"TYPE") => kind = Some(client_type(t)?),
        [opt, list @ ..] if opt.eq_ignore_ascii_case(b"ID") && !list.is_empty() => {
            let parsed: Option<Vec<i64>> = list.iter().map(|a| crate::num::parse_i64(a)).collect();
            ids = Some(parsed.ok_or_else(|| CmdError::err("Invalid client ID"))?);
        }
        _ => return Err(CmdError::Syntax),
    }
    let mut out = String::new();
    let me = ctx.session.id();
    for c in ctx.engine.clients.all() {
        if ids.as_ref().is_none_or(|ids| ids.contains(&(c.id as i64))) && kind.is_none_or(|k| k == c.kind()) {
            let argv_mem = if c.id == me { argv_mem(ctx) } else { 0 };
            out.push_str(&c.describe(ctx.now, table::name_of, argv_mem));
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

/// Closes connections: the old form by address (OK or an error; it may close the caller),
/// the new one by filters, all of which must match (the number closed; the caller itself is
/// spared unless SKIPME no). MAXAGE (Redis 7.4) closes connections older than that many
/// seconds.
///
/// ```text
/// CLIENT KILL <ip:port | <[ID client-id] | [TYPE <NORMAL | MASTER | SLAVE | REPLICA | PUBSUB>] |
///   [USER username] | [ADDR ip:port] | [LADDR ip:port] | [SKIPME <YES | NO>] | [MAXAGE maxage]>
///   [[ID client-id] | ...]>
/// ```
pub fn kill(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    if args.len() == 1 {
        let addr = args.bytes()?;
        let found: Vec<_> = ctx.engine.clients.all().into_iter().filter(|c| c.addr.as_bytes() == addr).collect();
        if found.is_empty() {
            return Err(CmdError::err("No such client"));
        }
        found.iter().for_each(|c| c.kill());
        return Ok(Reply::Ok);
    }
    let mut filter = KillFilter { skipme: true, ..KillFilter::default() };
    let rest = args.rest();
    for pair in rest.chunks(2) {
        let [opt, val] = pair else { return Err(CmdError::Syntax) };
        match opt.to_ascii_uppercase().as_slice() {
            b"ID" => {
                filter.id = Some(
                    crate::num::parse_i64(val)
                        .filter(|n| *n > 0)
                        .ok_or_else(|| CmdError::err("client-id should be greater than 0"))? as u64,
                )
            }
            b"TYPE" => filter.kind = Some(client_type(val)?),
            b"ADDR" => filter.addr = Some(val.to_vec()),
            b"LADDR" => filter.laddr = Some(val.to_vec()),
            b"USER" => {
                if ctx.engine.acl().user(val).is_none() {
                    return Err(CmdError::err(format!("No such user '{}'", String::from_utf8_lossy(val))));
                }
                filter.user = Some(val.to_vec());
            }
            b"SKIPME" => {
                filter.skipme = match val.to_ascii_lowercase().as_slice() {
                    b"yes" => true,
                    b"no" => false,
                    _ => return Err(CmdError::Syntax),
                }
            }
            b"MAXAGE" => {
                filter.max_age =
                    Some(crate::num::parse_i64(val).filter(|n| *n >= 0).ok_or(CmdError::NotInteger)? as u64)
            }
            _ => return Err(CmdError::Syntax),
        }
    }
    let mut killed = 0;
    for c in ctx.engine.clients.all() {
        // A client already killed is gone, as in Redis.
        if !c.is_killed() && filter.matches(&c, ctx.session.id(), ctx.now) {
            c.kill();
            killed += 1;
        }
    }
    Ok(Reply::Int(killed))
}

/// CLIENT KILL's filters (new form); `None` = any.
#[derive(Default)]
struct KillFilter {
    id: Option<u64>,
    kind: Option<ClientType>,
    addr: Option<Vec<u8>>,
    laddr: Option<Vec<u8>>,
    max_age: Option<u64>,
    user: Option<Vec<u8>>,
    skipme: bool,
}

impl KillFilter {
    fn matches(&self, c: &Client, me: u64, now_ms: u64) -> bool {
        self.id.is_none_or(|id| c.id == id)
            && self.kind.is_none_or(|k| c.kind() == k)
            && self.addr.as_deref().is_none_or(|a| c.addr.as_bytes() == a)
            && self.laddr.as_deref().is_none_or(|a| c.laddr.as_bytes() == a)
            && self.max_age.is_none_or(|age| c.age_s(now_ms) >= age)
            && self.user.as_deref().is_none_or(|u| c.user.lock().as_bytes() == u)
            && !(self.skipme && c.id == me)
    }
}

/// Pauses clients for `timeout` milliseconds: every command (ALL, the default), or only
/// those that write (WRITE). Their connections hold their input until the pause ends.
///
/// ```text
/// CLIENT PAUSE timeout [WRITE | ALL]
/// ```
pub fn pause(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    if args.len() > 2 {
        return Err(too_many(ctx));
    }
    let timeout = args.bytes()?;
    let write_only = match args.rest().first() {
        None => false,
        Some(m) if m.eq_ignore_ascii_case(b"WRITE") => true,
        Some(m) if m.eq_ignore_ascii_case(b"ALL") => false,
        Some(_) => return Err(CmdError::err("CLIENT PAUSE mode must be WRITE or ALL")),
    };
    let ms =
        crate::num::parse_i64(timeout).ok_or_else(|| CmdError::err("timeout is not an integer or out of range"))?;
    if ms < 0 {
        return Err(CmdError::err("timeout is negative"));
    }
    let until = (ms as u64).checked_add(ctx.now).ok_or_else(|| CmdError::err("timeout is out of range"))?;
    if ms > 0 {
        ctx.engine.pause_clients(until, write_only, ctx.now);
    }
    Ok(Reply::Ok)
}

/// Ends a CLIENT PAUSE.
///
/// ```text
/// CLIENT UNPAUSE
/// ```
pub fn unpause(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    ctx.engine.unpause_clients();
    Ok(Reply::Ok)
}

/// Which replies the connection gets: all (ON, answered OK), none (OFF), or none for the
/// next command (SKIP). OFF and SKIP are not answered.
///
/// ```text
/// CLIENT REPLY <ON | OFF | SKIP>
/// ```
pub fn reply(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let mode = &mut ctx.session.reply_mode;
    match args.option()?.as_str() {
        "ON" => {
            *mode = ReplyMode::On;
            Ok(Reply::Ok)
        }
        "OFF" => {
            *mode = ReplyMode::Off;
            Ok(Reply::Ok)
        }
        "SKIP" => {
            if *mode != ReplyMode::Off {
                *mode = ReplyMode::SkipNext;
            }
            Ok(Reply::Ok)
        }
        _ => Err(CmdError::Syntax),
    }
}

/// Exempts the connection from client eviction (flag `e`; Vitrine evicts no clients, so
/// this is the flag alone).
///
/// ```text
/// CLIENT NO-EVICT <ON | OFF>
/// ```
pub fn no_evict(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let on = on_or_off(args)?;
    ctx.session.client.no_evict.store(on, Relaxed);
    Ok(Reply::Ok)
}

/// With ON, the connection's commands leave the LRU/LFU of the keys they access as they
/// were (flag `T`), except TOUCH, which is meant to.
///
/// ```text
/// CLIENT NO-TOUCH <ON | OFF>
/// ```
pub fn no_touch(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let on = on_or_off(args)?;
    ctx.session.client.no_touch.store(on, Relaxed);
    Ok(Reply::Ok)
}

fn on_or_off(args: &mut Args<'_>) -> Result<bool, CmdError> {
    match args.option()?.as_str() {
        "ON" => Ok(true),
        "OFF" => Ok(false),
        _ => Err(CmdError::Syntax),
    }
}

/// Puts the connection in monitor mode: every command run from then on (by anyone, not the
/// administrative ones) is sent to it as a line (see `crate::monitor`). Again: no reply.
///
/// ```text
/// MONITOR
/// ```
pub fn monitor(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    if ctx.session.tx.executing {
        return Err(CmdError::err("MONITOR isn't allowed for DENY BLOCKING client"));
    }
    if ctx.session.client.monitor.load(Relaxed) {
        return Ok(Reply::Many(vec![]));
    }
    ctx.engine.monitors.add(ctx.session.client.clone(), ctx.now);
    Ok(Reply::Ok)
}

/// Ends another connection's blocking command: as a timeout would (TIMEOUT, the default),
/// or with an UNBLOCKED error (ERROR). 1 if that client was blocked, else 0.
///
/// ```text
/// CLIENT UNBLOCK client-id [TIMEOUT | ERROR]
/// ```
pub fn unblock(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    if args.len() > 2 {
        return Err(too_many(ctx));
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

/// Redis's error for a subcommand whose own check counts its arguments (arity allows more),
/// naming the subcommand as sent.
fn too_many(ctx: &Ctx<'_>) -> CmdError {
    CmdError::err(format!(
        "unknown subcommand or wrong number of arguments for '{}'. Try CLIENT HELP.",
        String::from_utf8_lossy(ctx.argv[1]),
    ))
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
        "KILL <ip:port>",
        "    Kill connection made from <ip:port>.",
        "KILL <option> <value> [<option> <value> [...]]",
        "    Kill connections. Options are:",
        "    * ADDR (<ip:port>|<unixsocket>:0)",
        "      Kill connections made from the specified address",
        "    * LADDR (<ip:port>|<unixsocket>:0)",
        "      Kill connections made to specified local address",
        "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
        "      Kill connections by type.",
        "    * USER <username>",
        "      Kill connections authenticated by <username>.",
        "    * SKIPME (YES|NO)",
        "      Skip killing current connection (default: yes).",
        "    * ID <client-id>",
        "      Kill connections by client id.",
        "    * MAXAGE <maxage>",
        "      Kill connections older than the specified age.",
        "PAUSE <timeout> [WRITE|ALL]",
        "    Suspend all, or just write, clients for <timeout> milliseconds.",
        "UNPAUSE",
        "    Stop the current client pause, resuming traffic.",
        "REPLY (ON|OFF|SKIP)",
        "    Control the replies sent to the current connection.",
        "NO-EVICT (ON|OFF)",
        "    Protect current client connection from eviction.",
        "NO-TOUCH (ON|OFF)",
        "    Will not touch LRU/LFU stats when this mode is on.",
        "UNBLOCK <clientid> [TIMEOUT|ERROR]",
        "    Unblock the specified blocked client.",
        "CACHING (YES|NO)",
        "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
        "GETREDIR",
        "    Return the client ID we are redirecting to when tracking is enabled.",
        "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
        "         [OPTIN] [OPTOUT] [NOLOOP]",
        "    Control server assisted client side caching.",
        "TRACKINGINFO",
        "    Report tracking status for the current connection.",
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

    /// Feeds raw RESP for `session` and returns (bytes consumed, replies as text).
    fn feed(t: &TestEngine, s: &mut crate::Session, input: &str) -> (usize, String) {
        let mut out = Vec::new();
        let used = t.engine.feed(s, input.as_bytes(), &mut out, t.now).unwrap();
        (used, String::from_utf8_lossy(&out).into_owned())
    }

    #[test]
    fn pause_holds_writes_or_everything_until_it_ends() {
        let mut t = TestEngine::default();
        let mut other = t.engine.new_session("127.0.0.1:9", "127.0.0.1:6379", t.now);
        assert_eq!(t.run(&["CLIENT", "PAUSE", "x"]), err("ERR timeout is not an integer or out of range"));
        assert_eq!(t.run(&["CLIENT", "PAUSE", "-1"]), err("ERR timeout is negative"));
        assert_eq!(t.run(&["CLIENT", "PAUSE", "10", "READ"]), err("ERR CLIENT PAUSE mode must be WRITE or ALL"));
        assert_eq!(t.run(&["CLIENT", "PAUSE", "1000", "WRITE"]), ok());
        // Reads run; the write and what follows it wait, unconsumed.
        let input = "GET a\r\nSET a 1\r\nGET a\r\n";
        let (used, out) = feed(&t, &mut other, input);
        assert_eq!((used, out.as_str()), ("GET a\r\n".len(), "$-1\r\n"));
        assert!(other.paused);
        assert_eq!(t.engine.pause_end(t.now), Some(t.now + 1000));
        // PUBLISH may replicate, so it waits too; so does an EXEC with a write queued.
        let (used, _) = feed(&t, &mut other, "PUBLISH c m\r\n");
        assert_eq!(used, 0);
        // When the pause ends, the held commands run.
        t.advance(1000);
        assert_eq!(t.engine.pause_end(t.now), None);
        let (used, out) = feed(&t, &mut other, &input["GET a\r\n".len()..]);
        assert_eq!((used, out.as_str()), (input.len() - "GET a\r\n".len(), "+OK\r\n$1\r\n1\r\n"));
        assert!(!other.paused);
        // ALL holds every command, until UNPAUSE.
        assert_eq!(t.run(&["CLIENT", "PAUSE", "5000"]), ok());
        assert_eq!(feed(&t, &mut other, "PING\r\n").0, 0);
        assert_eq!(t.run(&["CLIENT", "UNPAUSE"]), ok());
        assert_eq!(feed(&t, &mut other, "PING\r\n"), (6, "+PONG\r\n".into()));
        // A transaction: queuing a write waits under WRITE, a read-only EXEC does not.
        feed(&t, &mut other, "MULTI\r\nGET a\r\n");
        assert_eq!(t.run(&["CLIENT", "PAUSE", "5000", "WRITE"]), ok());
        assert_eq!(feed(&t, &mut other, "EXEC\r\n"), (6, "*1\r\n$1\r\n1\r\n".into()));
        assert_eq!(feed(&t, &mut other, "MULTI\r\nSET a 2\r\n").1, "+OK\r\n");
        t.run(&["CLIENT", "UNPAUSE"]);
    }

    /// The admin API and the playground run commands through `call`: a pause refuses their
    /// writes with a clear error (an HTTP call cannot be held), and leaves reads and UNPAUSE.
    #[test]
    fn a_pause_refuses_writes_made_through_call() {
        let mut t = TestEngine::default();
        let mut admin = t.engine.new_session("127.0.0.1:9", "127.0.0.1:8080", t.now);
        t.run(&["SET", "a", "1"]);
        assert_eq!(t.run(&["CLIENT", "PAUSE", "1000", "ALL"]), ok());
        let refused = t.engine.call(&mut admin, &["SET", "a", "2"], t.now);
        assert_eq!(refused, err("ERR writes are paused by CLIENT PAUSE for 1000 ms more (CLIENT UNPAUSE ends it)"));
        assert!(t.engine.call(&mut admin, &["PUBLISH", "c", "m"], t.now).is_error());
        assert_eq!(t.engine.call(&mut admin, &["GET", "a"], t.now), bulk("1"));
        assert_eq!(t.engine.call(&mut admin, &["CLIENT", "UNPAUSE"], t.now), ok());
        assert_eq!(t.engine.call(&mut admin, &["SET", "a", "2"], t.now), ok());
        // And the pause's own end lets writes through.
        assert_eq!(t.run(&["CLIENT", "PAUSE", "50", "WRITE"]), ok());
        assert!(t.engine.call(&mut admin, &["DEL", "a"], t.now).is_error());
        t.advance(50);
        assert_eq!(t.engine.call(&mut admin, &["DEL", "a"], t.now), int(1));
    }

    #[test]
    fn reply_off_and_skip_drop_replies() {
        let t = TestEngine::default();
        let mut s = t.engine.new_session("127.0.0.1:9", "127.0.0.1:6379", t.now);
        let (_, out) = feed(&t, &mut s, "CLIENT REPLY OFF\r\nSET a 1\r\nGET a\r\nCLIENT REPLY ON\r\nGET a\r\n");
        assert_eq!(out, "+OK\r\n$1\r\n1\r\n");
        let (_, out) = feed(&t, &mut s, "CLIENT REPLY SKIP\r\nGET a\r\nPING\r\n");
        assert_eq!(out, "+PONG\r\n");
        let (_, out) = feed(&t, &mut s, "CLIENT REPLY MAYBE\r\n");
        assert_eq!(out, "-ERR syntax error\r\n");
        // RESET brings the replies back, its own first.
        let (_, out) = feed(&t, &mut s, "CLIENT REPLY OFF\r\nRESET\r\nPING\r\n");
        assert_eq!(out, "+RESET\r\n+PONG\r\n");
    }

    #[test]
    fn reply_off_and_skip_silence_a_blocked_commands_late_reply() {
        let mut t = TestEngine::default();
        let mut s = t.engine.new_session("127.0.0.1:9", "127.0.0.1:6379", t.now);
        let retry = |t: &TestEngine, s: &mut crate::Session| {
            let mut out = Vec::new();
            let served = t.engine.retry_blocked(s, &mut out, t.now);
            (served, String::from_utf8_lossy(&out).into_owned())
        };
        // OFF: served by another client's push, the pop happens and nothing is sent.
        assert_eq!(feed(&t, &mut s, "CLIENT REPLY OFF\r\nBLPOP q 0\r\n").1, "");
        assert!(s.blocked.is_some());
        t.run(&["RPUSH", "q", "a"]);
        assert_eq!(retry(&t, &mut s), (true, String::new()));
        assert_eq!(t.run(&["LLEN", "q"]), Reply::Int(0));
        // Timed out, unblocked, or served at once: silent too.
        feed(&t, &mut s, "BLPOP q 1\r\n");
        let mut out = Vec::new();
        t.engine.unblock_timeout(&mut s, &mut out);
        assert!(out.is_empty() && s.blocked.is_none());
        t.run(&["RPUSH", "q", "b"]);
        assert_eq!(feed(&t, &mut s, "BLPOP q 0\r\n").1, "");
        assert_eq!(t.run(&["LLEN", "q"]), Reply::Int(0));
        // SKIP: the blocked command is the one skipped, the next one is answered.
        assert_eq!(feed(&t, &mut s, "CLIENT REPLY ON\r\nCLIENT REPLY SKIP\r\nBLPOP q 0\r\n").1, "+OK\r\n");
        t.run(&["RPUSH", "q", "c"]);
        assert_eq!(retry(&t, &mut s), (true, String::new()));
        assert_eq!(feed(&t, &mut s, "PING\r\n").1, "+PONG\r\n");
        // ON: the late reply is sent.
        feed(&t, &mut s, "BLPOP q 0\r\n");
        t.run(&["RPUSH", "q", "d"]);
        assert_eq!(retry(&t, &mut s), (true, "*2\r\n$1\r\nq\r\n$1\r\nd\r\n".into()));
        t.engine.end_session(&s);
    }

    #[test]
    fn no_touch_leaves_idle_time_and_flags_show_modes() {
        let mut t = TestEngine::default();
        t.run(&["SET", "k", "v"]);
        t.advance(20_000);
        assert_eq!(t.run(&["CLIENT", "NO-TOUCH", "ON"]), ok());
        assert_eq!(t.run(&["CLIENT", "NO-EVICT", "ON"]), ok());
        t.run(&["GET", "k"]);
        assert_eq!(t.run(&["OBJECT", "IDLETIME", "k"]), int(20));
        let Reply::Verbatim(me) = t.run(&["CLIENT", "INFO"]) else { panic!("not text") };
        assert!(me.contains(" flags=eT "), "{me}");
        // TOUCH still touches.
        t.run(&["TOUCH", "k"]);
        assert_eq!(t.run(&["OBJECT", "IDLETIME", "k"]), int(0));
        t.advance(5_000);
        assert_eq!(t.run(&["CLIENT", "NO-TOUCH", "OFF"]), ok());
        t.run(&["GET", "k"]);
        assert_eq!(t.run(&["OBJECT", "IDLETIME", "k"]), int(0));
    }

    #[test]
    fn kill_filters() {
        let mut t = TestEngine::default();
        let a = t.engine.new_session("10.0.0.1:1", "127.0.0.1:6379", t.now);
        t.advance(10_000);
        let mut b = t.engine.new_session("10.0.0.2:2", "127.0.0.1:6380", t.now);
        assert!(!t.engine.call(&mut b, &["SUBSCRIBE", "c"], t.now).is_error());
        assert_eq!(t.run(&["CLIENT", "KILL", "TYPE", "bogus"]), err("ERR Unknown client type 'bogus'"));
        assert_eq!(t.run(&["CLIENT", "LIST", "TYPE", "Bogus"]), err("ERR Unknown client type 'Bogus'"));
        assert_eq!(t.run(&["CLIENT", "KILL", "USER", "nobody"]), err("ERR No such user 'nobody'"));
        assert_eq!(t.run(&["CLIENT", "KILL", "ID", "0"]), err("ERR client-id should be greater than 0"));
        assert_eq!(t.run(&["CLIENT", "KILL", "ID", "1", "SKIPME"]), err("ERR syntax error"));
        assert_eq!(t.run(&["CLIENT", "KILL", "FOO", "bar"]), err("ERR syntax error"));
        assert_eq!(t.run(&["CLIENT", "KILL", "TYPE", "master"]), int(0));
        let Reply::Verbatim(pubsub) = t.run(&["CLIENT", "LIST", "TYPE", "pubsub"]) else { panic!() };
        assert_eq!(pubsub.lines().count(), 1);
        assert!(pubsub.contains("addr=10.0.0.2:2 ") && pubsub.contains(" flags=P "), "{pubsub}");
        assert_eq!(t.run(&["CLIENT", "KILL", "LADDR", "127.0.0.1:6380", "TYPE", "normal"]), int(0));
        assert_eq!(t.run(&["CLIENT", "KILL", "TYPE", "pubsub", "USER", "default"]), int(1));
        assert!(b.client.is_killed() && !a.client.is_killed());
        // MAXAGE: older than 10 s is `a` and the test's own session, which SKIPME spares.
        assert_eq!(t.run(&["CLIENT", "KILL", "MAXAGE", "10"]), int(1));
        assert!(a.client.is_killed() && !t.session.client.is_killed());
        // Killed clients are gone: only the caller is left to close.
        assert_eq!(t.run(&["CLIENT", "KILL", "TYPE", "normal", "SKIPME", "no"]), int(1));
        assert!(t.session.client.is_killed());
    }

    #[test]
    fn monitor_lines_reach_monitors_and_the_ring() {
        let mut t = TestEngine::default();
        let mut m = t.engine.new_session("127.0.0.1:7", "127.0.0.1:6379", t.now);
        let (_, out) = feed(&t, &mut m, "MONITOR\r\nMONITOR\r\n");
        assert_eq!(out, "+OK\r\n", "a second MONITOR is not answered");
        // Refused before it runs, so not shown either.
        assert_eq!(feed(&t, &mut m, "GET a\r\n").1, "-ERR Replica can't interact with the keyspace\r\n");
        assert!(t.engine.monitor_events(0, t.now).is_empty());
        t.run(&["SELECT", "2"]);
        t.run(&["SET", "k", "a b\n"]);
        t.run(&["AUTH", "secret"]);
        t.run(&["CONFIG", "GET", "maxmemory"]);
        let mut pushes = Vec::new();
        m.client.take_pushes(&mut pushes);
        let text = String::from_utf8_lossy(&pushes);
        let lines: Vec<&str> = text.lines().map(|l| l.split_once(' ').map_or(l, |(_, rest)| rest)).collect();
        assert_eq!(
            lines,
            [
                "[2 127.0.0.1:1] \"SELECT\" \"2\"",
                "[2 127.0.0.1:1] \"SET\" \"k\" \"a b\\n\"",
                "[2 127.0.0.1:1] \"AUTH\" \"(redacted)\"",
            ]
        );
        assert!(text.starts_with(&format!("+{}.000000 ", t.now / 1000)), "{text}");
        // The ring records once read (the first read above), and gives what came after the
        // last event seen.
        t.run(&["GET", "k"]);
        let events = t.engine.monitor_events(0, t.now);
        assert_eq!(events.len(), 4);
        let last = events.last().unwrap();
        assert_eq!((last.args.clone(), last.client_id), (vec!["\"GET\"".to_string(), "\"k\"".into()], t.session.id()));
        t.run(&["PING"]);
        let more = t.engine.monitor_events(last.seq, t.now);
        assert_eq!(more.len(), 1);
        assert_eq!((more[0].db, more[0].args.clone()), (2, vec!["\"PING\"".to_string()]));
        // RESET leaves monitor mode; the console cannot monitor.
        assert!(feed(&t, &mut m, "RESET\r\n").1.ends_with("\"PING\"\r\n+RESET\r\n"));
        assert!(!m.client.monitor.load(std::sync::atomic::Ordering::Relaxed));
        assert_eq!(t.run(&["MONITOR"]), err("ERR MONITOR isn't allowed for DENY BLOCKING client"));
        assert_eq!(t.engine.monitor_count(), 0);
    }
}
