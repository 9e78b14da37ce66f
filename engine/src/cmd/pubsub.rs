//! Pub/sub: SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE, PUBLISH, the sharded SSUBSCRIBE,
//! SUNSUBSCRIBE and SPUBLISH (Redis 7; one node here, so every shard channel is local), and
//! PUBSUB. Each session's subscriptions and delivery live in `crate::pubsub`.
//!
//! Over RESP2 a subscribed connection may only (un)subscribe, PING, QUIT and RESET (dispatch
//! enforces it with Redis's error); over RESP3 it runs any command, and messages arrive as
//! `>` pushes between replies. Confirmations are pushes too (plain arrays in RESP2), one per
//! channel, so `SUBSCRIBE a b` answers two of them.

use std::sync::atomic::Ordering::Relaxed;

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::pubsub::Subscriptions;
use crate::reply::Reply;
use crate::table::Command;

/// Commands a RESP2 connection may run while subscribed.
pub(crate) fn allowed_while_subscribed(cmd: &Command) -> bool {
    matches!(
        cmd.name,
        "SUBSCRIBE"
            | "UNSUBSCRIBE"
            | "PSUBSCRIBE"
            | "PUNSUBSCRIBE"
            | "SSUBSCRIBE"
            | "SUNSUBSCRIBE"
            | "PING"
            | "QUIT"
            | "RESET"
    )
}

/// Redis's refusal of any other command in the RESP2 subscribed context, naming the
/// command by its full name (`client|list` for a subcommand).
pub(crate) fn not_allowed_while_subscribed(cmd: &Command) -> CmdError {
    let name = cmd.full_name();
    CmdError::err(format!(
        "Can't execute '{name}': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"
    ))
}

fn confirmation(kind: &str, name: Option<&[u8]>, count: i64) -> Reply {
    Reply::Push(vec![Reply::bulk(kind), Reply::opt_bulk(name), Reply::Int(count)])
}

/// One confirmation as itself, several in a row.
fn confirmations(mut replies: Vec<Reply>) -> Reply {
    if replies.len() == 1 {
        replies.pop().unwrap_or(Reply::Nil)
    } else {
        Reply::Many(replies)
    }
}

fn sync_counts(ctx: &Ctx<'_>) {
    let client = &ctx.session.client;
    client.sub.store(ctx.session.subs.channels.len(), Relaxed);
    client.psub.store(ctx.session.subs.patterns.len(), Relaxed);
    client.ssub.store(ctx.session.subs.shard_channels.len(), Relaxed);
}

/// The three kinds of subscription, each with its own set, registry and confirmations.
#[derive(Clone, Copy)]
enum Kind {
    Channel,
    Pattern,
    Shard,
}

impl Kind {
    /// The confirmations' names: on subscribing, on unsubscribing.
    fn names(self) -> (&'static str, &'static str) {
        match self {
            Kind::Channel => ("subscribe", "unsubscribe"),
            Kind::Pattern => ("psubscribe", "punsubscribe"),
            Kind::Shard => ("ssubscribe", "sunsubscribe"),
        }
    }

    fn set(self, subs: &mut Subscriptions) -> &mut indexmap::IndexSet<Vec<u8>> {
        match self {
            Kind::Channel => &mut subs.channels,
            Kind::Pattern => &mut subs.patterns,
            Kind::Shard => &mut subs.shard_channels,
        }
    }

    /// The count a confirmation reports: channels and patterns together, shard channels
    /// apart (as Redis 7).
    fn count(self, subs: &Subscriptions) -> i64 {
        match self {
            Kind::Channel | Kind::Pattern => subs.count(),
            Kind::Shard => subs.shard_count(),
        }
    }
}

/// SUBSCRIBE, PSUBSCRIBE, SSUBSCRIBE: each name confirmed with the count so far.
fn subscribe_to(ctx: &mut Ctx<'_>, args: &mut Args<'_>, kind: Kind) -> Result<Reply, CmdError> {
    let mut replies = Vec::with_capacity(args.len());
    for &name in args.rest() {
        if kind.set(&mut ctx.session.subs).insert(name.to_vec()) {
            let (pubsub, client) = (&ctx.engine.pubsub, &ctx.session.client);
            match kind {
                Kind::Channel => pubsub.subscribe(name, client),
                Kind::Pattern => pubsub.psubscribe(name, client),
                Kind::Shard => pubsub.ssubscribe(name, client),
            }
        }
        replies.push(confirmation(kind.names().0, Some(name), kind.count(&ctx.session.subs)));
    }
    sync_counts(ctx);
    Ok(confirmations(replies))
}

/// UNSUBSCRIBE, PUNSUBSCRIBE, SUNSUBSCRIBE: the names given, or every one subscribed (one
/// confirmation with no name when there is none).
fn unsubscribe_from(ctx: &mut Ctx<'_>, args: &mut Args<'_>, kind: Kind) -> Result<Reply, CmdError> {
    let named: Vec<Vec<u8>> = args.rest().iter().map(|c| c.to_vec()).collect();
    let names = if named.is_empty() { kind.set(&mut ctx.session.subs).iter().cloned().collect() } else { named };
    let mut replies = Vec::with_capacity(names.len().max(1));
    let id = ctx.session.id();
    for name in &names {
        if kind.set(&mut ctx.session.subs).shift_remove(name) {
            let pubsub = &ctx.engine.pubsub;
            match kind {
                Kind::Channel => pubsub.unsubscribe(name, id),
                Kind::Pattern => pubsub.punsubscribe(name, id),
                Kind::Shard => pubsub.sunsubscribe(name, id),
            }
        }
        replies.push(confirmation(kind.names().1, Some(name), kind.count(&ctx.session.subs)));
    }
    if replies.is_empty() {
        replies.push(confirmation(kind.names().1, None, kind.count(&ctx.session.subs)));
    }
    sync_counts(ctx);
    Ok(confirmations(replies))
}

/// Subscribes to channels; each is confirmed with the number of subscriptions so far.
///
/// ```text
/// SUBSCRIBE channel [channel ...]
/// ```
pub fn subscribe(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    subscribe_to(ctx, args, Kind::Channel)
}

/// Unsubscribes from the given channels, or from all of them.
///
/// ```text
/// UNSUBSCRIBE [channel [channel ...]]
/// ```
pub fn unsubscribe(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    unsubscribe_from(ctx, args, Kind::Channel)
}

/// Subscribes to glob patterns: messages to every matching channel arrive as `pmessage`.
///
/// ```text
/// PSUBSCRIBE pattern [pattern ...]
/// ```
pub fn psubscribe(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    subscribe_to(ctx, args, Kind::Pattern)
}

/// Unsubscribes from the given patterns, or from all of them.
///
/// ```text
/// PUNSUBSCRIBE [pattern [pattern ...]]
/// ```
pub fn punsubscribe(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    unsubscribe_from(ctx, args, Kind::Pattern)
}

/// Subscribes to shard channels; each is confirmed with the number of shard channels so far.
/// Refused inside EXEC, as Redis refuses it to a client that may not block.
///
/// ```text
/// SSUBSCRIBE shardchannel [shardchannel ...]
/// ```
pub fn ssubscribe(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    if ctx.session.tx.executing() {
        return Err(CmdError::err("SSUBSCRIBE isn't allowed for a DENY BLOCKING client"));
    }
    subscribe_to(ctx, args, Kind::Shard)
}

/// Unsubscribes from the given shard channels, or from all of them.
///
/// ```text
/// SUNSUBSCRIBE [shardchannel [shardchannel ...]]
/// ```
pub fn sunsubscribe(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    unsubscribe_from(ctx, args, Kind::Shard)
}

/// Posts a message to a shard channel; answers how many subscribers received it.
///
/// ```text
/// SPUBLISH shardchannel message
/// ```
pub fn spublish(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let channel = args.bytes()?;
    let message = args.bytes()?;
    let limit = ctx.engine.config().pubsub_output_limit();
    Ok(Reply::Int(ctx.engine.pubsub.spublish(channel, message, limit, ctx.now) as i64))
}

/// Leaves every channel and pattern without replying (RESET, and the end of a session).
pub(crate) fn unsubscribe_all(ctx: &mut Ctx<'_>) {
    ctx.engine.pubsub.forget(ctx.session);
    ctx.session.subs = Subscriptions::default();
    sync_counts(ctx);
}

/// Posts a message to a channel; answers how many subscribers received it.
///
/// ```text
/// PUBLISH channel message
/// ```
pub fn publish(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let channel = args.bytes()?;
    let message = args.bytes()?;
    let limit = ctx.engine.config().pubsub_output_limit();
    Ok(Reply::Int(ctx.engine.pubsub.publish(channel, message, limit, ctx.now) as i64))
}

/// PUBSUB CHANNELS and SHARDCHANNELS take at most a pattern; more is Redis's combined
/// "unknown subcommand or wrong number of arguments" error, quoting the subcommand.
fn at_most_a_pattern<'a>(ctx: &Ctx<'_>, args: &mut Args<'a>) -> Result<Option<&'a [u8]>, CmdError> {
    if args.len() > 1 {
        return Err(CmdError::err(format!(
            "unknown subcommand or wrong number of arguments for '{}'. Try {} HELP.",
            String::from_utf8_lossy(ctx.argv[1]),
            ctx.cmd.container().unwrap_or(ctx.cmd.name),
        )));
    }
    Ok(args.rest().first().copied())
}

/// The channels with subscribers, optionally only those matching a pattern.
///
/// ```text
/// PUBSUB CHANNELS [pattern]
/// ```
pub fn channels(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let pattern = at_most_a_pattern(ctx, args)?;
    Ok(Reply::Array(ctx.engine.pubsub.channels(false, pattern).into_iter().map(Reply::Bulk).collect()))
}

/// The shard channels with subscribers, optionally only those matching a pattern.
///
/// ```text
/// PUBSUB SHARDCHANNELS [pattern]
/// ```
pub fn shardchannels(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let pattern = at_most_a_pattern(ctx, args)?;
    Ok(Reply::Array(ctx.engine.pubsub.channels(true, pattern).into_iter().map(Reply::Bulk).collect()))
}

/// Each channel with its number of subscribers (pattern subscriptions not counted).
///
/// ```text
/// PUBSUB NUMSUB [channel [channel ...]]
/// ```
pub fn numsub(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(numsub_of(ctx, args, false))
}

/// Each shard channel with its number of subscribers.
///
/// ```text
/// PUBSUB SHARDNUMSUB [shardchannel [shardchannel ...]]
/// ```
pub fn shardnumsub(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(numsub_of(ctx, args, true))
}

fn numsub_of(ctx: &Ctx<'_>, args: &mut Args<'_>, shard: bool) -> Reply {
    let pubsub = &ctx.engine.pubsub;
    Reply::Array(
        args.rest().iter().flat_map(|&c| [Reply::bulk(c), Reply::Int(pubsub.numsub(shard, c) as i64)]).collect(),
    )
}

/// The number of patterns subscribed to, across all connections.
///
/// ```text
/// PUBSUB NUMPAT
/// ```
pub fn numpat(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(Reply::Int(ctx.engine.pubsub.numpat() as i64))
}

/// PUBSUB's subcommands.
///
/// ```text
/// PUBSUB HELP
/// ```
pub fn help(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(super::help_reply(PUBSUB_HELP))
}

const PUBSUB_HELP: &[&str] = &[
    "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "CHANNELS [<pattern>]",
    "    Return the currently active channels matching a <pattern> (default: '*').",
    "NUMPAT",
    "    Return number of subscriptions to patterns.",
    "NUMSUB [<channel> ...]",
    "    Return the number of subscribers for the specified channels, excluding",
    "    pattern subscriptions(default: no channels).",
    "SHARDCHANNELS [<pattern>]",
    "    Return the currently active shard level channels matching a <pattern> (default: '*').",
    "SHARDNUMSUB [<shardchannel> ...]",
    "    Return the number of subscribers for the specified shard level channel(s)",
    "HELP",
    "    Prints this help.",
];

#[cfg(test)]
mod tests {
    use crate::session::Session;
    use crate::testing::*;
    use crate::Reply;

    fn confirm(kind: &str, name: &str, n: i64) -> Reply {
        Reply::Push(vec![bulk(kind), bulk(name), int(n)])
    }

    fn other(t: &TestEngine) -> Session {
        t.engine.new_session("127.0.0.1:2", "127.0.0.1:6379", t.now)
    }

    fn pushes(s: &Session) -> String {
        let mut out = Vec::new();
        s.client.take_pushes(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn subscribe_publish_unsubscribe() {
        let mut t = TestEngine::default();
        let mut sub = other(&t);
        let r = t.engine.call(&mut sub, &["SUBSCRIBE", "a", "b", "a"], t.now);
        assert_eq!(
            r,
            Reply::Many(vec![confirm("subscribe", "a", 1), confirm("subscribe", "b", 2), confirm("subscribe", "a", 2)])
        );
        assert_eq!(t.run(&["PUBLISH", "a", "hello"]), int(1));
        assert_eq!(t.run(&["PUBLISH", "zzz", "hello"]), int(0));
        assert_eq!(pushes(&sub), "*3\r\n$7\r\nmessage\r\n$1\r\na\r\n$5\r\nhello\r\n");
        assert_eq!(pushes(&sub), "");
        assert_eq!(
            t.engine.call(&mut sub, &["UNSUBSCRIBE", "a", "nope"], t.now),
            Reply::Many(vec![confirm("unsubscribe", "a", 1), confirm("unsubscribe", "nope", 1)])
        );
        assert_eq!(t.run(&["PUBLISH", "a", "hello"]), int(0));
        assert_eq!(t.engine.call(&mut sub, &["UNSUBSCRIBE"], t.now), confirm("unsubscribe", "b", 0));
        assert_eq!(
            t.engine.call(&mut sub, &["UNSUBSCRIBE"], t.now),
            Reply::Push(vec![bulk("unsubscribe"), nil(), int(0)])
        );
    }

    #[test]
    fn patterns_deliver_pmessages_and_count_each_delivery() {
        let mut t = TestEngine::default();
        let mut sub = other(&t);
        t.engine.call(&mut sub, &["SUBSCRIBE", "news.1"], t.now);
        assert_eq!(t.engine.call(&mut sub, &["PSUBSCRIBE", "news.*"], t.now), confirm("psubscribe", "news.*", 2));
        assert_eq!(t.run(&["PUBLISH", "news.1", "x"]), int(2));
        assert_eq!(
            pushes(&sub),
            "*3\r\n$7\r\nmessage\r\n$6\r\nnews.1\r\n$1\r\nx\r\n*4\r\n$8\r\npmessage\r\n$6\r\nnews.*\r\n$6\r\nnews.1\r\n$1\r\nx\r\n"
        );
        assert_eq!(t.run(&["PUBLISH", "news.2", "y"]), int(1));
        assert_eq!(t.run(&["PUBSUB", "NUMPAT"]), int(1));
        assert_eq!(t.engine.call(&mut sub, &["PUNSUBSCRIBE"], t.now), confirm("punsubscribe", "news.*", 1));
        assert_eq!(t.run(&["PUBLISH", "news.2", "y"]), int(0));
    }

    #[test]
    fn resp3_subscribers_get_pushes_and_may_run_any_command() {
        let mut t = TestEngine::default();
        let mut sub = other(&t);
        t.engine.call(&mut sub, &["HELLO", "3"], t.now);
        assert_eq!(
            t.engine.call(&mut sub, &["SUBSCRIBE", "c"], t.now).to_resp(true),
            b">3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:1\r\n"
        );
        assert_eq!(t.engine.call(&mut sub, &["GET", "k"], t.now), nil());
        assert_eq!(t.engine.call(&mut sub, &["PING"], t.now), Reply::status("PONG"));
        t.run(&["PUBLISH", "c", "m"]);
        assert_eq!(pushes(&sub), ">3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$1\r\nm\r\n");
    }

    #[test]
    fn resp2_subscribed_context_allows_only_a_few_commands() {
        let t = TestEngine::default();
        let mut sub = other(&t);
        t.engine.call(&mut sub, &["SUBSCRIBE", "c"], t.now);
        let refused = |name: &str| {
            err(&format!("ERR Can't execute '{name}': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"))
        };
        assert_eq!(t.engine.call(&mut sub, &["GET", "k"], t.now), refused("get"));
        assert_eq!(t.engine.call(&mut sub, &["CONFIG", "GET", "x"], t.now), refused("config|get"));
        assert_eq!(t.engine.call(&mut sub, &["client", "list"], t.now), refused("client|list"));
        // The subcommand must exist first, as in Redis.
        assert_eq!(
            t.engine.call(&mut sub, &["CLIENT", "NOPE"], t.now),
            err("ERR unknown subcommand 'NOPE'. Try CLIENT HELP.")
        );
        // Arity is checked first.
        assert_eq!(t.engine.call(&mut sub, &["GET"], t.now), err("ERR wrong number of arguments for 'get' command"));
        assert_eq!(t.engine.call(&mut sub, &["PING"], t.now), arr(vec![bulk("pong"), bulk("")]));
        assert_eq!(t.engine.call(&mut sub, &["PING", "hi"], t.now), arr(vec![bulk("pong"), bulk("hi")]));
        assert_eq!(t.engine.call(&mut sub, &["RESET"], t.now), Reply::status("RESET"));
        assert_eq!(t.engine.call(&mut sub, &["GET", "k"], t.now), nil());
        assert_eq!(t.engine.call(&mut sub, &["PING"], t.now), Reply::status("PONG"));
    }

    #[test]
    fn pubsub_introspection() {
        let mut t = TestEngine::default();
        let (mut a, mut b) = (other(&t), other(&t));
        t.engine.call(&mut a, &["SUBSCRIBE", "c1", "c2"], t.now);
        t.engine.call(&mut b, &["SUBSCRIBE", "c1"], t.now);
        t.engine.call(&mut b, &["PSUBSCRIBE", "c*", "d*"], t.now);
        let Reply::Array(mut all) = t.run(&["PUBSUB", "CHANNELS"]) else { panic!() };
        all.sort_by_key(|r| format!("{r:?}"));
        assert_eq!(all, vec![bulk("c1"), bulk("c2")]);
        assert_eq!(t.run(&["PUBSUB", "CHANNELS", "*2"]), arr(vec![bulk("c2")]));
        assert_eq!(t.run(&["PUBSUB", "NUMSUB", "c1", "c9"]), arr(vec![bulk("c1"), int(2), bulk("c9"), int(0)]));
        assert_eq!(t.run(&["PUBSUB", "NUMSUB"]), arr(vec![]));
        assert_eq!(t.run(&["PUBSUB", "NUMPAT"]), int(2));
        assert_eq!(t.run(&["PUBSUB", "NUMPAT", "x"]), err("ERR wrong number of arguments for 'pubsub|numpat' command"));
        assert_eq!(
            t.run(&["PUBSUB", "CHANNELS", "a", "b"]),
            err("ERR unknown subcommand or wrong number of arguments for 'CHANNELS'. Try PUBSUB HELP.")
        );
        assert_eq!(t.run(&["PUBSUB", "FOO"]), err("ERR unknown subcommand 'FOO'. Try PUBSUB HELP."));
        assert_eq!(t.run(&["PUBSUB"]), err("ERR wrong number of arguments for 'pubsub' command"));
        // A closed session leaves every channel and pattern.
        t.engine.end_session(&b);
        assert_eq!(t.run(&["PUBSUB", "NUMSUB", "c1"]), arr(vec![bulk("c1"), int(1)]));
        assert_eq!(t.run(&["PUBSUB", "NUMPAT"]), int(0));
        assert_eq!(t.run(&["PUBLISH", "c1", "x"]), int(1));
    }

    #[test]
    fn shard_channels_are_their_own_namespace_with_their_own_count() {
        let mut t = TestEngine::default();
        let mut sub = other(&t);
        assert_eq!(
            t.engine.call(&mut sub, &["SSUBSCRIBE", "x", "y"], t.now),
            Reply::Many(vec![confirm("ssubscribe", "x", 1), confirm("ssubscribe", "y", 2)])
        );
        // (P)SUBSCRIBE count channels and patterns, SSUBSCRIBE shard channels (Redis 7.0).
        assert_eq!(t.engine.call(&mut sub, &["SUBSCRIBE", "x"], t.now), confirm("subscribe", "x", 1));
        assert_eq!(t.engine.call(&mut sub, &["PSUBSCRIBE", "p*"], t.now), confirm("psubscribe", "p*", 2));
        assert_eq!(t.engine.call(&mut sub, &["SSUBSCRIBE", "z"], t.now), confirm("ssubscribe", "z", 3));
        // A RESP2 subscriber may (un)subscribe shard channels, not publish.
        assert_eq!(
            t.engine.call(&mut sub, &["SPUBLISH", "x", "m"], t.now),
            err("ERR Can't execute 'spublish': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context")
        );
        assert_eq!(t.run(&["SPUBLISH", "x", "hi"]), int(1));
        assert_eq!(pushes(&sub), "*3\r\n$8\r\nsmessage\r\n$1\r\nx\r\n$2\r\nhi\r\n");
        assert_eq!(t.run(&["PUBLISH", "y", "m"]), int(0));
        assert_eq!(t.run(&["SPUBLISH", "p1", "m"]), int(0));
        assert_eq!(pushes(&sub), "");
        let Reply::Array(mut all) = t.run(&["PUBSUB", "SHARDCHANNELS"]) else { panic!() };
        all.sort_by_key(|r| format!("{r:?}"));
        assert_eq!(all, vec![bulk("x"), bulk("y"), bulk("z")]);
        assert_eq!(
            t.run(&["PUBSUB", "SHARDCHANNELS", "[xy]"]).to_resp(false).len(),
            "*2\r\n$1\r\nx\r\n$1\r\ny\r\n".len()
        );
        assert_eq!(t.run(&["PUBSUB", "CHANNELS"]), arr(vec![bulk("x")]));
        assert_eq!(t.run(&["PUBSUB", "SHARDNUMSUB", "x", "nope"]), arr(vec![bulk("x"), int(1), bulk("nope"), int(0)]));
        let Reply::Verbatim(list) = t.run(&["CLIENT", "LIST", "TYPE", "pubsub"]) else { panic!() };
        assert!(list.contains(" sub=1 psub=1 ssub=3 "), "{list}");
        assert_eq!(
            t.engine.call(&mut sub, &["SUNSUBSCRIBE", "x", "nope"], t.now),
            Reply::Many(vec![confirm("sunsubscribe", "x", 2), confirm("sunsubscribe", "nope", 2)])
        );
        assert_eq!(
            t.engine.call(&mut sub, &["SUNSUBSCRIBE"], t.now),
            Reply::Many(vec![confirm("sunsubscribe", "y", 1), confirm("sunsubscribe", "z", 0)])
        );
        assert_eq!(
            t.engine.call(&mut sub, &["SUNSUBSCRIBE"], t.now),
            Reply::Push(vec![bulk("sunsubscribe"), nil(), int(0)])
        );
        // Still in the subscribed context through the plain channel and the pattern.
        assert!(matches!(t.engine.call(&mut sub, &["GET", "k"], t.now), Reply::Error(_)));
        t.engine.call(&mut sub, &["UNSUBSCRIBE"], t.now);
        t.engine.call(&mut sub, &["PUNSUBSCRIBE"], t.now);
        assert_eq!(t.engine.call(&mut sub, &["GET", "k"], t.now), nil());
        // Only shard channels also make the context; a closed session leaves them.
        t.engine.call(&mut sub, &["SSUBSCRIBE", "q"], t.now);
        assert!(matches!(t.engine.call(&mut sub, &["GET", "k"], t.now), Reply::Error(_)));
        t.engine.end_session(&sub);
        assert_eq!(t.run(&["SPUBLISH", "q", "m"]), int(0));
    }

    #[test]
    fn shard_pushes_in_resp3_and_no_ssubscribe_inside_exec() {
        let mut t = TestEngine::default();
        t.run(&["HELLO", "3"]);
        assert_eq!(t.run(&["SSUBSCRIBE", "r"]).to_resp(true), b">3\r\n$10\r\nssubscribe\r\n$1\r\nr\r\n:1\r\n");
        assert_eq!(t.run(&["SPUBLISH", "r", "m"]), int(1));
        assert_eq!(pushes(&t.session), ">3\r\n$8\r\nsmessage\r\n$1\r\nr\r\n$1\r\nm\r\n");
        assert_eq!(t.run(&["SUNSUBSCRIBE"]).to_resp(true), b">3\r\n$12\r\nsunsubscribe\r\n$1\r\nr\r\n:0\r\n");
        assert_eq!(t.run(&["SUNSUBSCRIBE"]).to_resp(true), b">3\r\n$12\r\nsunsubscribe\r\n_\r\n:0\r\n");
        t.run(&["MULTI"]);
        t.run(&["SSUBSCRIBE", "t"]);
        assert_eq!(t.run(&["EXEC"]), arr(vec![err("ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client")]));
        assert_eq!(t.run(&["PUBSUB", "SHARDNUMSUB", "t"]), arr(vec![bulk("t"), int(0)]));
    }

    #[test]
    fn client_list_shows_subscriptions() {
        let mut t = TestEngine::default();
        t.run(&["HELLO", "3"]);
        t.run(&["SUBSCRIBE", "a", "b"]);
        t.run(&["PSUBSCRIBE", "p*"]);
        let Reply::Verbatim(info) = t.run(&["CLIENT", "INFO"]) else { panic!() };
        assert!(info.contains(" flags=P ") && info.contains(" sub=2 psub=1 "), "{info}");
        let listed = |t: &mut TestEngine, kind: &str| match t.run(&["CLIENT", "LIST", "TYPE", kind]) {
            Reply::Verbatim(list) => list.lines().count(),
            other => panic!("{other:?}"),
        };
        assert_eq!((listed(&mut t, "pubsub"), listed(&mut t, "normal")), (1, 0));
        t.run(&["RESET"]);
        let Reply::Verbatim(info) = t.run(&["CLIENT", "INFO"]) else { panic!() };
        assert!(info.contains(" flags=N ") && info.contains(" sub=0 psub=0 "), "{info}");
    }

    #[test]
    fn a_slow_subscriber_is_disconnected_at_the_output_limit() {
        let mut t = TestEngine::default();
        t.run(&["CONFIG", "SET", "client-output-buffer-limit", "pubsub 1000 0 0"]);
        let mut sub = other(&t);
        t.engine.call(&mut sub, &["SUBSCRIBE", "c"], t.now);
        let msg = "x".repeat(100);
        let mut delivered = 0;
        for _ in 0..20 {
            delivered += match t.run(&["PUBLISH", "c", &msg]) {
                Reply::Int(n) => n,
                other => panic!("{other:?}"),
            };
        }
        // Each message is about 130 bytes encoded: 7 fit under 1000, the 8th breaks it.
        assert_eq!(delivered, 7);
        assert!(sub.client.is_killed());
        assert_eq!(sub.client.pending_pushes(), 0, "its queue is freed at once");
    }

    #[test]
    fn the_soft_limit_allows_a_burst_for_its_seconds() {
        let mut t = TestEngine::default();
        t.run(&["CONFIG", "SET", "client-output-buffer-limit", "pubsub 0 200 2"]);
        let mut sub = other(&t);
        t.engine.call(&mut sub, &["SUBSCRIBE", "c"], t.now);
        let msg = "x".repeat(100);
        for _ in 0..5 {
            assert_eq!(t.run(&["PUBLISH", "c", &msg]), int(1));
        }
        t.advance(2_000);
        assert_eq!(t.run(&["PUBLISH", "c", &msg]), int(1), "over the soft limit for 2 s: still allowed");
        t.advance(1_000);
        assert_eq!(t.run(&["PUBLISH", "c", &msg]), int(0));
        assert!(sub.client.is_killed());
    }

    #[test]
    fn messages_to_self_come_before_the_publish_reply_in_feed() {
        let t = TestEngine::default();
        let mut s = other(&t);
        let mut out = Vec::new();
        t.engine.feed(&mut s, b"HELLO 3\r\n", &mut out, t.now).unwrap();
        out.clear();
        t.engine.feed(&mut s, b"SUBSCRIBE c\r\nPUBLISH c m\r\n", &mut out, t.now).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out),
            ">3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:1\r\n>3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$1\r\nm\r\n:1\r\n"
        );
    }
}
