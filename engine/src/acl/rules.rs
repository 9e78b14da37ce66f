//! ACL rules: one word (`on`, `>pass`, `~k*`, `%R~k*`, `&ch`, `+@read`, `-config|set`, `(...)`,
//! `reset`, ...) applied to a draft user, with Redis's error for each bad one.
//!
//! The order in which a word is recognised follows Redis 7.0.15's `ACLSetUser` and
//! `ACLSetSelector`, because that order decides which error a malformed word gets (`allkeys
//! %X~k` is the "pattern after *" error, not a syntax error).

use std::fmt;
use std::sync::OnceLock;

use crate::error::CmdError;
use crate::table;

use super::password;
use super::user::{category_index, category_masks, Channels, KeyPattern, Keys, Selector, User};

/// Why one rule word was refused; `Display` is Redis's reason text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RuleError {
    Syntax,
    UnknownCommand,
    FirstArgOfSubcommand,
    BadHash,
    NoSuchPassword,
    KeyAfterAll,
    ChannelAfterAll,
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RuleError::Syntax => "Syntax error",
            RuleError::UnknownCommand => "Unknown command or category name in ACL",
            RuleError::FirstArgOfSubcommand => "Allowing first-arg of a subcommand is not supported",
            RuleError::BadHash => {
                "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"
            }
            RuleError::NoSuchPassword => "The password you are trying to remove from the user does not exist",
            RuleError::KeyAfterAll => {
                "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any \
                 effect. Try 'resetkeys' to start with an empty list of patterns"
            }
            RuleError::ChannelAfterAll => {
                "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have \
                 any effect. Try 'resetchannels' to start with an empty list of channels"
            }
        })
    }
}

/// Applies `ACL SETUSER`'s words to `base` (or a new user `name`), merging `(`...`)` selector
/// words that span several arguments, all or nothing: the draft is only returned whole.
pub(crate) fn apply_words(
    base: Option<User>,
    name: &[u8],
    words: &[&[u8]],
    pubsub_all: bool,
) -> Result<User, CmdError> {
    let merged = merge_selector_words(words).map_err(|start| {
        CmdError::err(format!("Unmatched parenthesis in acl selector starting at '{}'.", lossy(start)))
    })?;
    let mut user = base.unwrap_or_else(|| User::new(name, pubsub_all));
    for word in &merged {
        apply_rule(&mut user, word, pubsub_all)
            .map_err(|e| CmdError::err(format!("Error in ACL SETUSER modifier '{}': {e}", lossy(word))))?;
    }
    Ok(user)
}

/// `ACL SETUSER`'s own check of the name: `ERR Usernames can't contain spaces or null characters`.
pub(crate) fn valid_username(name: &[u8]) -> Result<(), CmdError> {
    if has_spaces(name) {
        return Err(CmdError::err("Usernames can't contain spaces or null characters"));
    }
    Ok(())
}

/// Joins the words of a selector given over several arguments (`(~x*` `+get)`) into one
/// `(~x* +get)` word, as Redis does before applying them. A word that starts with `(` and does
/// not end with `)` opens a selector (dropping one still open, as Redis does); the first word
/// ending with `)` closes it. `Err` carries the word that opened a selector never closed.
pub(crate) fn merge_selector_words<'a>(words: &[&'a [u8]]) -> Result<Vec<Vec<u8>>, &'a [u8]> {
    let mut merged = Vec::with_capacity(words.len());
    let mut open: Option<(&'a [u8], Vec<u8>)> = None;
    for &word in words {
        if word.first() == Some(&b'(') && word.last() != Some(&b')') {
            open = Some((word, word.to_vec()));
            continue;
        }
        if let Some((_, selector)) = open.as_mut() {
            selector.push(b' ');
            selector.extend_from_slice(word);
            if word.last() == Some(&b')') {
                if let Some((_, selector)) = open.take() {
                    merged.push(selector);
                }
            }
            continue;
        }
        merged.push(word.to_vec());
    }
    match open {
        Some((start, _)) => Err(start),
        None => Ok(merged),
    }
}

/// One rule word (already merged if it is a selector) applied to `user`.
pub(crate) fn apply_rule(user: &mut User, op: &[u8], pubsub_all: bool) -> Result<(), RuleError> {
    if op.is_empty() {
        return Ok(());
    }
    let is = |kw: &str| op.eq_ignore_ascii_case(kw.as_bytes());
    if is("on") {
        user.on = true;
    } else if is("off") {
        user.on = false;
    } else if is("skip-sanitize-payload") {
        user.sanitize_payload = Some(false);
    } else if is("sanitize-payload") {
        user.sanitize_payload = Some(true);
    } else if is("nopass") {
        user.nopass = true;
        user.passwords.clear();
    } else if is("resetpass") {
        user.nopass = false;
        user.passwords.clear();
    } else if op[0] == b'>' || op[0] == b'#' {
        let hash = if op[0] == b'>' { password::hash(&op[1..]) } else { parse_hash(&op[1..])? };
        if !user.passwords.contains(&hash) {
            user.passwords.push(hash);
        }
        user.nopass = false;
    } else if op[0] == b'<' || op[0] == b'!' {
        let hash = if op[0] == b'<' { password::hash(&op[1..]) } else { parse_hash(&op[1..])? };
        let at = user.passwords.iter().position(|h| *h == hash).ok_or(RuleError::NoSuchPassword)?;
        user.passwords.remove(at);
    } else if op[0] == b'(' && op.last() == Some(&b')') {
        let selector = selector_from_words(&op[1..op.len() - 1], pubsub_all)?;
        user.selectors.push(selector);
    } else if is("clearselectors") {
        user.selectors.truncate(1);
    } else if is("reset") {
        user.nopass = false;
        user.passwords.clear();
        user.on = false;
        user.sanitize_payload = Some(true);
        user.selectors.truncate(1);
        let root = &mut user.selectors[0];
        root.keys = Keys::Patterns(Vec::new());
        root.channels = if pubsub_all { Channels::All } else { Channels::Patterns(Vec::new()) };
        set_all_commands(root, false);
    } else {
        apply_selector_rule(&mut user.selectors[0], op)?;
    }
    Ok(())
}

/// A `(...)` selector: its inside split as Redis splits it (quotes allowed; unbalanced quotes
/// give an empty selector, as Redis's split then yields no words), each word applied to a new
/// selector.
fn selector_from_words(inside: &[u8], pubsub_all: bool) -> Result<Selector, RuleError> {
    let mut selector = Selector::empty();
    if pubsub_all {
        selector.channels = Channels::All;
    }
    for word in crate::resp::split_args(inside).unwrap_or_default() {
        apply_selector_rule(&mut selector, &word)?;
    }
    Ok(selector)
}

/// A rule about commands, keys or channels, applied to one selector.
pub(crate) fn apply_selector_rule(s: &mut Selector, op: &[u8]) -> Result<(), RuleError> {
    if op.is_empty() {
        // Only reachable inside a selector; Redis compares op[0] with the rule prefixes and
        // finds none.
        return Err(RuleError::Syntax);
    }
    let is = |kw: &str| op.eq_ignore_ascii_case(kw.as_bytes());
    if is("allkeys") || op == b"~*" {
        s.keys = Keys::All;
    } else if is("resetkeys") {
        s.keys = Keys::Patterns(Vec::new());
    } else if is("allchannels") || op == b"&*" {
        s.channels = Channels::All;
    } else if is("resetchannels") {
        s.channels = Channels::Patterns(Vec::new());
    } else if is("allcommands") || is("+@all") {
        set_all_commands(s, true);
    } else if is("nocommands") || is("-@all") {
        set_all_commands(s, false);
    } else if op[0] == b'~' || op[0] == b'%' {
        add_key_pattern(s, op)?;
    } else if op[0] == b'&' {
        let Channels::Patterns(list) = &mut s.channels else {
            return Err(RuleError::ChannelAfterAll);
        };
        let pattern = &op[1..];
        if has_spaces(pattern) {
            return Err(RuleError::Syntax);
        }
        if !list.iter().any(|p| p == pattern) {
            list.push(pattern.to_vec());
        }
    } else if op[0] == b'+' && op.get(1) != Some(&b'@') {
        allow_command(s, &op[1..])?;
    } else if op[0] == b'-' && op.get(1) != Some(&b'@') {
        let row = lookup_row(&op[1..]).ok_or(RuleError::UnknownCommand)?;
        change_perm(s, row, false);
    } else if op[0] == b'+' || op[0] == b'-' {
        let cat = category_index(&op[2..]).ok_or(RuleError::UnknownCommand)?;
        set_category(s, cat, op[0] == b'+');
    } else {
        return Err(RuleError::Syntax);
    }
    Ok(())
}

/// `~pat`, `%R~pat`, `%W~pat`, `%RW~pat`: a pattern given again gains the new permissions
/// (`%R~c %W~c` is `~c`).
fn add_key_pattern(s: &mut Selector, op: &[u8]) -> Result<(), RuleError> {
    let Keys::Patterns(list) = &mut s.keys else {
        return Err(RuleError::KeyAfterAll);
    };
    let (mut read, mut write) = (op[0] == b'~', op[0] == b'~');
    let mut offset = 1;
    if op[0] == b'%' {
        // Letters until `~`; running out of letters leaves an empty pattern (`%R` is `%R~`),
        // as in Redis.
        while offset < op.len() {
            let c = op[offset];
            offset += 1;
            match c.to_ascii_uppercase() {
                b'R' if !read => read = true,
                b'W' if !write => write = true,
                b'~' => break,
                _ => return Err(RuleError::Syntax),
            }
        }
        if !read && !write {
            return Err(RuleError::Syntax);
        }
    }
    let pattern = &op[offset..];
    if has_spaces(pattern) {
        return Err(RuleError::Syntax);
    }
    match list.iter_mut().find(|p| p.pattern == pattern) {
        Some(p) => {
            p.read |= read;
            p.write |= write;
        }
        None => list.push(KeyPattern { pattern: pattern.to_vec(), read, write }),
    }
    Ok(())
}

/// `+cmd`, `+container|sub`, or the deprecated first-argument form `+select|0`.
fn allow_command(s: &mut Selector, name: &[u8]) -> Result<(), RuleError> {
    let Some(bar) = name.iter().rposition(|&b| b == b'|') else {
        let row = lookup_row(name).ok_or(RuleError::UnknownCommand)?;
        change_perm(s, row, true);
        return Ok(());
    };
    let (head, arg) = (&name[..bar], &name[bar + 1..]);
    let row = lookup_row(head).ok_or(RuleError::UnknownCommand)?;
    let cmd = table::row(row);
    if cmd.container().is_some() {
        return Err(RuleError::FirstArgOfSubcommand);
    }
    if arg.is_empty() {
        return Err(RuleError::Syntax);
    }
    if cmd.is_container() {
        let sub = lookup_row(name).ok_or(RuleError::UnknownCommand)?;
        change_perm(s, sub, true);
    } else {
        add_first_arg(s, row, arg);
    }
    Ok(())
}

/// The row of a command or `container|sub`, as Redis's ACL looks names up: a `|` on a command
/// without subcommands, or more than one `|`, names nothing.
pub(crate) fn lookup_row(name: &[u8]) -> Option<usize> {
    let mut parts = name.split(|&b| b == b'|');
    let base = parts.next()?;
    let (index, cmd) = table::lookup(base)?;
    match (parts.next(), parts.next()) {
        (None, _) => Some(index),
        (Some(sub), None) if cmd.is_container() => table::lookup_subcommand(index, cmd, sub).map(|(i, _)| i),
        _ => None,
    }
}

/// The rows of a container's subcommands (an empty range for any other row).
pub(crate) fn subcommand_rows(row: usize) -> std::ops::Range<usize> {
    static STARTS: OnceLock<Vec<usize>> = OnceLock::new();
    let starts = STARTS.get_or_init(|| {
        table::rows()
            .iter()
            .enumerate()
            .map(|(i, cmd)| match cmd.subcommands.first() {
                Some(first) if cmd.container().is_none() => {
                    table::lookup_subcommand(i, table::row(i), first.sub_name().as_bytes()).map_or(0, |(s, _)| s)
                }
                _ => 0,
            })
            .collect()
    });
    let start = starts.get(row).copied().unwrap_or(0);
    let len = table::rows().get(row).map_or(0, |c| if c.container().is_none() { c.subcommands.len() } else { 0 });
    start..start + len
}

/// Allows or denies one row; a container takes its subcommands along. Its first-argument
/// allowances go either way, and any deny ends the "every command" fast path.
pub(crate) fn change_perm(s: &mut Selector, row: usize, allow: bool) {
    set_bit(s, row, allow);
    s.first_args.retain(|(r, _)| *r != row);
    for sub in subcommand_rows(row) {
        set_bit(s, sub, allow);
    }
}

fn set_bit(s: &mut Selector, row: usize, allow: bool) {
    s.commands.set(row, allow);
    if !allow {
        s.all_commands = false;
    }
}

/// `+@cat` / `-@cat`: every row in the category (a container in it takes all its subcommands).
pub(crate) fn set_category(s: &mut Selector, cat: usize, allow: bool) {
    for (row, mask) in category_masks().iter().enumerate() {
        if mask & (1 << cat) != 0 {
            change_perm(s, row, allow);
        }
    }
}

/// `+@all` / `-@all`: every row, the fast-path flag and the future-commands bit together.
fn set_all_commands(s: &mut Selector, allow: bool) {
    s.commands = if allow { super::user::CmdBits::all() } else { super::user::CmdBits::none() };
    s.all_commands = allow;
    s.future_commands = allow;
    s.first_args.clear();
}

/// Adds an allowed first argument of a denied command, once (compared ignoring case).
fn add_first_arg(s: &mut Selector, row: usize, arg: &[u8]) {
    match s.first_args.iter_mut().find(|(r, _)| *r == row) {
        Some((_, args)) => {
            if !args.iter().any(|a| a.eq_ignore_ascii_case(arg)) {
                args.push(arg.to_vec());
            }
        }
        None => s.first_args.push((row, vec![arg.to_vec()])),
    }
}

/// A `#`/`!` hash: exactly 64 lowercase hex digits.
fn parse_hash(hex: &[u8]) -> Result<[u8; 32], RuleError> {
    fn digit(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            _ => None,
        }
    }
    if hex.len() != 64 {
        return Err(RuleError::BadHash);
    }
    let mut out = [0u8; 32];
    for (i, pair) in hex.chunks_exact(2).enumerate() {
        let (Some(hi), Some(lo)) = (digit(pair[0]), digit(pair[1])) else {
            return Err(RuleError::BadHash);
        };
        out[i] = hi << 4 | lo;
    }
    Ok(out)
}

/// Whether a name or pattern holds whitespace (C's `isspace`) or NUL, which Redis refuses so
/// that `ACL LIST` lines split back into the same words.
pub(crate) fn has_spaces(s: &[u8]) -> bool {
    s.iter().any(|&b| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c | 0))
}

/// Bytes as Redis's `%s` prints them into an error: up to a NUL, non-UTF-8 replaced.
pub(crate) fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(crate::error::c_str(bytes, usize::MAX)).into_owned()
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
