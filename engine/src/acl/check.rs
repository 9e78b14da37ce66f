//! The permission check dispatch runs once per command: may this user run this row on these
//! keys and channels (Redis 7.0's `ACLCheckAllUserCommandPerm`). Each selector is tried in
//! turn; the first that allows everything lets the command through, else the most relevant
//! refusal is reported.

use crate::glob;
use crate::table::keyspec::{ACCESS, DELETE, INSERT, UPDATE};
use crate::table::{Command, NOAUTH};

use super::user::{Channels, Keys, Selector, User};

/// Why a command was refused, in Redis's order of relevance (a key denial outranks a command
/// one when selectors disagree).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum DenyReason {
    Command,
    Key,
    Channel,
}

/// A refusal: the reason and the argv position of the key or channel (0 for a command).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Denied {
    pub reason: DenyReason,
    pub pos: usize,
}

impl User {
    /// Whether this user may run `cmd` (the row at `index` in `table::rows()`) with `argv`.
    pub(crate) fn check(&self, index: usize, cmd: &Command, argv: &[&[u8]]) -> Result<(), Denied> {
        let mut worst: Option<Denied> = None;
        for selector in &self.selectors {
            match selector.check(index, cmd, argv) {
                Ok(()) => return Ok(()),
                // Redis keeps the larger reason, then the later argument, across selectors.
                Err(d) => {
                    if worst.is_none_or(|w| (d.reason, d.pos) > (w.reason, w.pos)) {
                        worst = Some(d);
                    }
                }
            }
        }
        Err(worst.unwrap_or(Denied { reason: DenyReason::Command, pos: 0 }))
    }
}

impl Selector {
    /// One selector's verdict, checked in Redis's order: the command, its keys, its channels.
    pub(crate) fn check(&self, index: usize, cmd: &Command, argv: &[&[u8]]) -> Result<(), Denied> {
        if !self.all_commands && cmd.flags & NOAUTH == 0 && !self.commands.allows(index) && !self.first_arg_allows(index, cmd, argv) {
            return Err(Denied { reason: DenyReason::Command, pos: 0 });
        }
        if let Keys::Patterns(patterns) = &self.keys {
            if cmd.has_keys() {
                for (pos, flags) in cmd.getkeys(argv).unwrap_or_default() {
                    // Only the logical flags say what is needed: ACCESS reads, the others write.
                    let read = flags & ACCESS != 0;
                    let write = flags & (INSERT | DELETE | UPDATE) != 0;
                    let Some(key) = argv.get(pos) else { continue };
                    let ok = patterns
                        .iter()
                        .any(|p| (p.read || !read) && (p.write || !write) && glob::matches(&p.pattern, key));
                    if !ok {
                        return Err(Denied { reason: DenyReason::Key, pos });
                    }
                }
            }
        }
        if let Channels::Patterns(patterns) = &self.channels {
            let (positions, literal) = channel_args(cmd, argv.len());
            for pos in positions {
                let channel = argv[pos];
                // A pattern given to PSUBSCRIBE must be one of the user's patterns as written.
                let ok = if literal {
                    patterns.iter().any(|p| p[..] == channel[..])
                } else {
                    patterns.iter().any(|p| glob::matches(p, channel))
                };
                if !ok {
                    return Err(Denied { reason: DenyReason::Channel, pos });
                }
            }
        }
        Ok(())
    }

    /// The deprecated `+select|0` allowance: the row's first argument (after a subcommand's
    /// name) is one of those allowed, ignoring case.
    fn first_arg_allows(&self, index: usize, cmd: &Command, argv: &[&[u8]]) -> bool {
        let Some((_, allowed)) = self.first_args.iter().find(|(row, _)| *row == index) else { return false };
        let Some(arg) = argv.get(cmd.args_start()) else { return false };
        allowed.iter().any(|a| a.eq_ignore_ascii_case(arg))
    }
}

/// The argv positions Redis checks as channels (publishing and subscribing only; leaving a
/// channel or asking about them is never refused), and whether they are PSUBSCRIBE patterns.
fn channel_args(cmd: &Command, argc: usize) -> (std::ops::Range<usize>, bool) {
    match cmd.name {
        "PUBLISH" | "SPUBLISH" => (1..2.min(argc), false),
        "SUBSCRIBE" | "SSUBSCRIBE" => (1..argc, false),
        "PSUBSCRIBE" => (1..argc, true),
        _ => (0..0, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::acl::user::KeyPattern;
    use crate::table;

    fn row(name: &str) -> (usize, &'static Command) {
        table::lookup(name.as_bytes()).expect("a command")
    }

    fn sub(container: &str, name: &str) -> (usize, &'static Command) {
        let (i, c) = row(container);
        table::lookup_subcommand(i, c, name.as_bytes()).expect("a subcommand")
    }

    /// A selector allowing `commands` on the keys `(pattern, read, write)` and channels.
    fn selector(commands: &[&str], keys: &[(&str, bool, bool)], channels: &[&str]) -> Selector {
        let mut s = Selector::empty();
        for c in commands {
            let (i, _) = match c.split_once('|') {
                Some((a, b)) => sub(a, b),
                None => row(c),
            };
            s.commands.set(i, true);
        }
        s.keys = Keys::Patterns(
            keys.iter().map(|(p, r, w)| KeyPattern { pattern: p.as_bytes().to_vec(), read: *r, write: *w }).collect(),
        );
        s.channels = Channels::Patterns(channels.iter().map(|c| c.as_bytes().to_vec()).collect());
        s
    }

    fn user(selectors: Vec<Selector>) -> User {
        let mut u = User::new(b"u", false);
        u.on = true;
        u.selectors = selectors;
        u
    }

    fn check(u: &User, argv: &[&str]) -> Result<(), Denied> {
        let argv: Vec<&[u8]> = argv.iter().map(|a| a.as_bytes()).collect();
        let (mut i, mut c) = table::lookup(argv[0]).expect("a command");
        if c.is_container() && argv.len() > 1 {
            (i, c) = table::lookup_subcommand(i, c, argv[1]).expect("a subcommand");
        }
        u.check(i, c, &argv)
    }

    const CMD: Result<(), Denied> = Err(Denied { reason: DenyReason::Command, pos: 0 });
    fn key(pos: usize) -> Result<(), Denied> {
        Err(Denied { reason: DenyReason::Key, pos })
    }
    fn chan(pos: usize) -> Result<(), Denied> {
        Err(Denied { reason: DenyReason::Channel, pos })
    }

    #[test]
    fn command_bits_subcommands_and_first_args() {
        let mut s = selector(&["get", "config|get"], &[("*", true, true)], &[]);
        let (select, _) = row("select");
        s.first_args.push((select, vec![b"0".to_vec()]));
        let u = user(vec![s]);
        assert_eq!(check(&u, &["GET", "k"]), Ok(()));
        assert_eq!(check(&u, &["SET", "k", "v"]), CMD);
        assert_eq!(check(&u, &["CONFIG", "GET", "x"]), Ok(()));
        assert_eq!(check(&u, &["CONFIG", "SET", "x", "y"]), CMD);
        assert_eq!(check(&u, &["SELECT", "0"]), Ok(()));
        assert_eq!(check(&u, &["SELECT", "1"]), CMD);
        // AUTH and HELLO need no bit (Redis's `no_auth` commands).
        assert_eq!(check(&u, &["AUTH", "p"]), Ok(()));
        assert_eq!(check(&u, &["HELLO", "3"]), Ok(()));
    }

    #[test]
    fn key_flags_map_to_read_and_write() {
        let all = ["exists", "get", "set", "lmove"];
        let write_only = user(vec![selector(&all, &[("k*", false, true)], &[])]);
        // EXISTS's key has no logical flag: any matching pattern will do.
        assert_eq!(check(&write_only, &["EXISTS", "k1"]), Ok(()));
        assert_eq!(check(&write_only, &["EXISTS", "x"]), key(1));
        assert_eq!(check(&write_only, &["GET", "k1"]), key(1));
        assert_eq!(check(&write_only, &["SET", "k1", "v"]), Ok(()));
        let read_only = user(vec![selector(&all, &[("k*", true, false)], &[])]);
        assert_eq!(check(&read_only, &["GET", "k1"]), Ok(()));
        assert_eq!(check(&read_only, &["SET", "k1", "v"]), key(1));
        // LMOVE reads and writes its source, and writes its destination.
        let split = user(vec![selector(&all, &[("src", true, true), ("dst", false, true)], &[])]);
        assert_eq!(check(&split, &["LMOVE", "src", "dst", "LEFT", "RIGHT"]), Ok(()));
        assert_eq!(check(&split, &["LMOVE", "dst", "src", "LEFT", "RIGHT"]), key(1));
        let src_read = user(vec![selector(&all, &[("src", true, false), ("dst", false, true)], &[])]);
        assert_eq!(check(&src_read, &["LMOVE", "src", "dst", "LEFT", "RIGHT"]), key(1));
        // Keys found by a command's own extraction (EVAL's numkeys) count too.
        let eval = user(vec![selector(&["eval"], &[("k*", true, true)], &[])]);
        assert_eq!(check(&eval, &["EVAL", "return 1", "2", "k1", "x"]), key(4));
        assert_eq!(check(&eval, &["EVAL", "return 1", "1", "k1", "x"]), Ok(()));
    }

    #[test]
    fn channels_and_psubscribe_literal() {
        let cmds = ["publish", "subscribe", "psubscribe", "unsubscribe"];
        let u = user(vec![selector(&cmds, &[], &["news.*"])]);
        assert_eq!(check(&u, &["PUBLISH", "news.a", "m"]), Ok(()));
        assert_eq!(check(&u, &["PUBLISH", "other", "m"]), chan(1));
        assert_eq!(check(&u, &["SUBSCRIBE", "news.a", "other"]), chan(2));
        assert_eq!(check(&u, &["PSUBSCRIBE", "news.*"]), Ok(()));
        assert_eq!(check(&u, &["PSUBSCRIBE", "news.a*"]), chan(1));
        assert_eq!(check(&u, &["UNSUBSCRIBE", "anything"]), Ok(()));
    }

    #[test]
    fn selectors_or_and_most_relevant_denial() {
        let root = selector(&["get"], &[("a*", true, true)], &[]);
        let second = selector(&["get", "set"], &[("b*", true, true)], &[]);
        let u = user(vec![root, second]);
        assert_eq!(check(&u, &["GET", "a1"]), Ok(()));
        assert_eq!(check(&u, &["GET", "b1"]), Ok(()));
        assert_eq!(check(&u, &["SET", "b1", "v"]), Ok(()));
        // Root: command denied; second: key denied. The key denial wins.
        assert_eq!(check(&u, &["SET", "a1", "v"]), key(1));
        assert_eq!(check(&u, &["DEL", "a1"]), CMD);
        // Same reason in both: the later argument is reported.
        let one = selector(&["mget"], &[("x", true, true)], &[]);
        let two = selector(&["mget"], &[("y", true, true), ("x", true, true)], &[]);
        let u = user(vec![one, two]);
        assert_eq!(check(&u, &["MGET", "x", "y", "z"]), key(3));
    }

    #[test]
    fn unrestricted_user_passes_everything() {
        let u = User::unrestricted(b"default");
        assert_eq!(check(&u, &["FLUSHALL"]), Ok(()));
        assert_eq!(check(&u, &["PSUBSCRIBE", "x*"]), Ok(()));
    }
}
