//! THE command table: every command's wire name, arity, flags, key positions, group, summary
//! and handler. Dispatch, COMMAND, the admin API's help and the playground read it from here.
//!
//! A container (CLIENT, CONFIG, OBJECT, MEMORY, COMMAND, PUBSUB) is a row whose subcommands
//! are rows too, each with its own arity, flags, key positions, summary and handler, as in
//! Valkey's `src/commands/*.json` (`"container": "CLIENT"`). A subcommand row's name is the
//! container's and its own joined by `|` (`CLIENT|LIST`): lower-cased, that is Redis's
//! full name, which arity errors, INFO commandstats and CLIENT LIST's `cmd=` show.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::args::Args;
use crate::cmd::{
    acl, bitmap, client, client_tracking, command, config, functions, geo, hash, hll, keys, list, pubsub, scripting, server,
    set, stream, string, timing, tx, zset,
};
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::reply::Reply;

pub mod keyspec;
mod meta;

use keyspec::{key, keynum, keyword, range, unknown, KeyLayout, KeySpec, Keys};
#[allow(unused_imports)]
use keyspec::{ACCESS, DELETE, INSERT, NOT_KEY, OW, RM, RO, RW, UPDATE, VARIABLE_FLAGS};

/// A command's own key extraction (`Command::getkeys`): positions and key-spec flags.
pub type GetKeys = fn(&[&[u8]]) -> Vec<(usize, u16)>;

/// One argument of a command, as COMMAND DOCS describes it (Redis's argument structure).
#[derive(Debug)]
pub struct Arg {
    pub name: &'static str,
    /// `string`, `integer`, `double`, `key`, `pattern`, `unix-time`, `pure-token`, `oneof`, `block`.
    pub kind: &'static str,
    /// Which key spec a `key` argument is found by; -1 for none.
    pub key_spec_index: i32,
    pub token: Option<&'static str>,
    pub summary: Option<&'static str>,
    pub since: Option<&'static str>,
    pub deprecated_since: Option<&'static str>,
    /// `optional`, `multiple`, `multiple_token`.
    pub flags: &'static [&'static str],
    /// A `oneof`'s or `block`'s own arguments.
    pub args: &'static [Arg],
}

/// Redis's documentation and ACL data for a row (generated into `meta.rs`).
#[derive(Debug)]
pub struct Meta {
    pub since: Option<&'static str>,
    pub complexity: Option<&'static str>,
    /// COMMAND INFO's flags, Redis's (without `movablekeys`, which the key specs decide).
    pub flags: &'static [&'static str],
    /// `@write`, `@string`, `@slow`, ... in Redis's order.
    pub acl_categories: &'static [&'static str],
    pub tips: &'static [&'static str],
    pub doc_flags: &'static [&'static str],
    pub deprecated_since: Option<&'static str>,
    pub replaced_by: Option<&'static str>,
    /// (version, change).
    pub history: &'static [(&'static str, &'static str)],
    pub args: &'static [Arg],
}

static NO_META: Meta = Meta::new(None, None);

// Builders for the generated `meta.rs`: each entry names only what it has.
impl Meta {
    const fn new(since: Option<&'static str>, complexity: Option<&'static str>) -> Meta {
        Meta {
            since,
            complexity,
            flags: &[],
            acl_categories: &[],
            tips: &[],
            doc_flags: &[],
            deprecated_since: None,
            replaced_by: None,
            history: &[],
            args: &[],
        }
    }
    const fn flags(self, flags: &'static [&'static str]) -> Meta {
        Meta { flags, ..self }
    }
    const fn acl(self, acl_categories: &'static [&'static str]) -> Meta {
        Meta { acl_categories, ..self }
    }
    const fn tips(self, tips: &'static [&'static str]) -> Meta {
        Meta { tips, ..self }
    }
    const fn doc_flags(self, doc_flags: &'static [&'static str]) -> Meta {
        Meta { doc_flags, ..self }
    }
    const fn deprecated(self, since: &'static str, replaced_by: &'static str) -> Meta {
        Meta { deprecated_since: Some(since), replaced_by: Some(replaced_by), ..self }
    }
    const fn history(self, history: &'static [(&'static str, &'static str)]) -> Meta {
        Meta { history, ..self }
    }
    const fn args(self, args: &'static [Arg]) -> Meta {
        Meta { args, ..self }
    }
}

/// An argument of type `kind` (see `Arg`), for the generated `meta.rs`.
const fn arg(name: &'static str, kind: &'static str) -> Arg {
    Arg {
        name,
        kind,
        key_spec_index: -1,
        token: None,
        summary: None,
        since: None,
        deprecated_since: None,
        flags: &[],
        args: &[],
    }
}

impl Arg {
    const fn key_spec(self, key_spec_index: i32) -> Arg {
        Arg { key_spec_index, ..self }
    }
    const fn token(self, token: &'static str) -> Arg {
        Arg { token: Some(token), ..self }
    }
    // Redis's JSON gives some arguments a summary; none of the commands Vitrine has, yet.
    #[allow(dead_code)]
    const fn summary(self, summary: &'static str) -> Arg {
        Arg { summary: Some(summary), ..self }
    }
    const fn since(self, since: &'static str) -> Arg {
        Arg { since: Some(since), ..self }
    }
    const fn deprecated_since(self, deprecated_since: &'static str) -> Arg {
        Arg { deprecated_since: Some(deprecated_since), ..self }
    }
    const fn flags(self, flags: &'static [&'static str]) -> Arg {
        Arg { flags, ..self }
    }
    const fn args(self, args: &'static [Arg]) -> Arg {
        Arg { args, ..self }
    }
}

/// A command handler: parses its arguments, does its work on the locked shards, answers.
pub type Handler = fn(&mut Ctx<'_>, &mut Args<'_>) -> Result<Reply, CmdError>;
/// Extra bytes a write may add beyond its arguments, computed from its argv.
pub type GrowthEstimate = fn(&[&[u8]]) -> usize;

/// Changes data (logged, counted as a write, checked against maxmemory afterwards).
pub const WRITE: u32 = 1;
/// Only reads data.
pub const READONLY: u32 = 1 << 1;
/// May grow memory: refused with OOM when the limit cannot be met (Redis's `denyoom`).
pub const DENYOOM: u32 = 1 << 2;
/// O(1) or O(log n).
pub const FAST: u32 = 1 << 3;
/// Allowed before authentication (AUTH, HELLO, QUIT).
pub const NOAUTH: u32 = 1 << 4;
/// Administrative (CONFIG, FLUSHALL, CLIENT KILL); the dashboard asks before running these.
pub const ADMIN: u32 = 1 << 5;
/// Touches the whole keyspace (KEYS, FLUSHALL): may be slow on a large one.
pub const SLOW: u32 = 1 << 6;
/// May wait for data (BLPOP, BLMOVE): a connection's later commands wait with it.
pub const BLOCKING: u32 = 1 << 7;
/// Reads keys its key spec cannot name (SORT's BY and GET patterns): dispatch and EXEC lock
/// every shard for it. Vitrine's own; COMMAND does not list it (Redis has no such flag).
pub const ALL_SHARDS: u32 = 1 << 8;

pub const FLAG_NAMES: &[(u32, &str)] = &[
    (WRITE, "write"),
    (READONLY, "readonly"),
    (DENYOOM, "denyoom"),
    (FAST, "fast"),
    (NOAUTH, "no_auth"),
    (ADMIN, "admin"),
    (SLOW, "slow"),
    (BLOCKING, "blocking"),
];

pub struct Command {
    /// Upper-case wire name; `CONTAINER|SUB` for a subcommand.
    pub name: &'static str,
    /// Argument count including the name (and the subcommand's, for a subcommand row);
    /// `-N` means at least N.
    pub arity: i32,
    pub flags: u32,
    /// Where the keys are in argv, as Redis's key specs (see `keyspec`).
    pub key_specs: &'static [KeySpec],
    /// What the key specs come to (legacy range, movablekeys), computed at compile time.
    pub key_layout: KeyLayout,
    /// The command's own key extraction, for GETKEYS, where its specs cannot tell (SORT's
    /// STORE, SET's flags with GET), as Redis's `getkeys_proc`.
    pub getkeys: Option<GetKeys>,
    pub group: &'static str,
    pub summary: &'static str,
    /// Syntax after the name, as Redis's docs write it.
    pub syntax: &'static str,
    pub handler: Handler,
    /// Bytes a write may add beyond its arguments (SETRANGE's offset), for memory admission.
    pub grow: Option<GrowthEstimate>,
    /// A container's subcommands (empty for any other command).
    pub subcommands: &'static [Command],
    /// Where the handler's arguments start in argv: 1, or 2 for a subcommand (after its
    /// name). A field, not derived from the name, as dispatch reads it on every command.
    args_start: usize,
}

impl Command {
    /// Redis's full name, lower case: `get`, `client|list` (arity errors, stats, COMMAND).
    pub fn full_name(&self) -> String {
        self.name.to_ascii_lowercase()
    }

    /// For a subcommand row, its container's name (`CLIENT` for `CLIENT|LIST`).
    pub fn container(&self) -> Option<&'static str> {
        self.name.split_once('|').map(|(c, _)| c)
    }

    /// A subcommand row's own name (`LIST` for `CLIENT|LIST`); a command's whole name.
    pub fn sub_name(&self) -> &'static str {
        self.name.split_once('|').map_or(self.name, |(_, s)| s)
    }

    pub fn is_container(&self) -> bool {
        !self.subcommands.is_empty()
    }

    /// Where this command's arguments start in argv: after the name, and after the
    /// subcommand's name for a subcommand row.
    pub fn args_start(&self) -> usize {
        self.args_start
    }

    /// The keys this invocation names, per the key specs (what dispatch locks).
    pub fn keys<'a>(&self, argv: &'a [&'a [u8]]) -> Keys<'a> {
        Keys::new(argv, self.key_specs, &self.key_layout)
    }

    /// The key of a command whose specs name exactly one argument (GET, SET, INCR, HSET):
    /// dispatch locks it alone. `None` for any other shape, or when argv is too short.
    #[inline]
    pub fn single_key<'a>(&self, argv: &[&'a [u8]]) -> Option<&'a [u8]> {
        let layout = &self.key_layout;
        if layout.plain && layout.first == layout.last && layout.first > 0 {
            argv.get(layout.first as usize).copied()
        } else {
            None
        }
    }

    /// Whether COMMAND GETKEYS has anything to find (Redis's `doesCommandHaveKeys`).
    pub fn has_keys(&self) -> bool {
        self.getkeys.is_some() || self.key_specs.iter().any(|s| s.flags & keyspec::NOT_KEY == 0)
    }

    /// COMMAND GETKEYS's answer: each key's argv position and key-spec flags, as Redis finds
    /// them (the specs, unless they cannot tell or their flags vary, then the command's own
    /// extraction); `None` when the arguments do not name the keys.
    pub fn getkeys(&self, argv: &[&[u8]]) -> Option<Vec<(usize, u16)>> {
        let varies = self.key_specs.iter().any(|s| s.flags & keyspec::VARIABLE_FLAGS != 0);
        if !varies {
            if let Ok(found) = keyspec::positions(self.key_specs, argv) {
                return Some(found);
            }
        }
        self.getkeys.map(|f| f(argv))
    }

    /// Redis's documentation and ACL data for this row.
    pub fn meta(&self) -> &'static Meta {
        let name = self.full_name();
        let at = meta::META.binary_search_by(|(n, _)| (*n).cmp(name.as_str()));
        // Every row has an entry: the `every_row_has_redis_meta` test.
        at.map_or(&NO_META, |i| &meta::META[i].1)
    }

    /// COMMAND INFO's flags: Redis's, with `movablekeys` from the key specs.
    pub fn info_flags(&self) -> Vec<&'static str> {
        let mut flags = self.meta().flags.to_vec();
        if self.key_layout.movable {
            let at = flags.iter().position(|f| *f == "allow_busy").unwrap_or(flags.len());
            flags.insert(at, "movablekeys");
        }
        flags
    }

    pub fn flag_names(&self) -> Vec<&'static str> {
        FLAG_NAMES.iter().filter(|(f, _)| self.flags & f != 0).map(|(_, n)| *n).collect()
    }
}

/// Rows of the table (`args from 2` for subcommands): `name, arity, flags, [key specs], group, handler, syntax,
/// summary`, then optionally `grow = f`, `getkeys = f` and `subcommands = ROWS`. The key specs
/// are Redis 7.2's (`src/commands/*.json`), in `keyspec`'s notation: `key(RO | ACCESS, 1)`.
macro_rules! rows {
    (args from $start:literal; $( $name:literal, $arity:expr, $flags:expr, [$($spec:expr),* $(,)?], $group:literal, $handler:path, $syntax:literal, $summary:literal $(, grow = $grow:expr)? $(, getkeys = $getkeys:expr)? $(, subcommands = $subs:expr)? ; )*) => {
        &[
            $( Command { name: $name, arity: $arity, flags: $flags, key_specs: &[$($spec),*], key_layout: keyspec::layout(&[$($spec),*]), getkeys: rows!(@opt $($getkeys)?), group: $group, handler: $handler, syntax: $syntax, summary: $summary, grow: rows!(@opt $($grow)?), subcommands: rows!(@subs $($subs)?), args_start: $start }, )*
        ]
    };
    (@opt) => { None };
    (@opt $g:expr) => { Some($g) };
    (@subs) => { &[] };
    (@subs $s:expr) => { $s };
}

pub static COMMANDS: &[Command] = rows! { args from 1;
    // Strings
    "GET", 2, READONLY | FAST, [key(RO | ACCESS, 1)], "string", string::get, "key", "Returns the string value of a key.";
    "SET", -3, WRITE | DENYOOM, [key(RW | ACCESS | UPDATE | VARIABLE_FLAGS, 1).notes("RW and ACCESS due to the optional `GET` argument")], "string", string::set, "key value [NX | XX | IFEQ ifeq-value | IFNE ifne-value | IFDEQ ifdeq-digest | IFDNE ifdne-digest] [GET] [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL]", "Sets the string value of a key, ignoring its type. The key is created if it doesn't exist.", getkeys = keyspec::set_keys;
    "SETNX", 3, WRITE | DENYOOM | FAST, [key(OW | INSERT, 1)], "string", string::setnx, "key value", "Set the string value of a key only when the key doesn't exist.";
    "SETEX", 4, WRITE | DENYOOM, [key(OW | UPDATE, 1)], "string", string::setex, "key seconds value", "Sets the string value and expiration time of a key. Creates the key if it doesn't exist.";
    "PSETEX", 4, WRITE | DENYOOM, [key(OW | UPDATE, 1)], "string", string::psetex, "key milliseconds value", "Sets both string value and expiration time in milliseconds of a key. The key is created if it doesn't exist.";
    "MGET", -2, READONLY | FAST, [range(RO | ACCESS, 1, -1, 1, 0)], "string", string::mget, "key [key ...]", "Atomically returns the string values of one or more keys.";
    "MSET", -3, WRITE | DENYOOM, [range(OW | UPDATE, 1, -1, 2, 0)], "string", string::mset, "key value [key value ...]", "Atomically creates or modifies the string values of one or more keys.";
    "MSETNX", -3, WRITE | DENYOOM, [range(OW | INSERT, 1, -1, 2, 0)], "string", string::msetnx, "key value [key value ...]", "Atomically modifies the string values of one or more keys only when all keys don't exist.";
    "GETSET", 3, WRITE | DENYOOM | FAST, [key(RW | ACCESS | UPDATE, 1)], "string", string::getset, "key value", "Returns the previous string value of a key after setting it to a new value.";
    "GETDEL", 2, WRITE | FAST, [key(RW | ACCESS | DELETE, 1)], "string", string::getdel, "key", "Returns the string value of a key after deleting the key.";
    "GETEX", -2, WRITE | FAST, [key(RW | ACCESS | UPDATE, 1).notes("RW and UPDATE because it changes the TTL")], "string", string::getex, "key [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | PERSIST]", "Returns the string value of a key after setting its expiration time.";
    "APPEND", 3, WRITE | DENYOOM | FAST, [key(RW | INSERT, 1)], "string", string::append, "key value", "Appends a string to the value of a key. Creates the key if it doesn't exist.";
    "STRLEN", 2, READONLY | FAST, [key(RO, 1)], "string", string::strlen, "key", "Returns the length of a string value.";
    "GETRANGE", 4, READONLY, [key(RO | ACCESS, 1)], "string", string::getrange, "key start end", "Returns a substring of the string stored at a key.";
    "SETRANGE", 4, WRITE | DENYOOM, [key(RW | UPDATE, 1)], "string", string::setrange, "key offset value", "Overwrites a part of a string value with another by an offset. Creates the key if it doesn't exist.", grow = string::setrange_growth;
    "SUBSTR", 4, READONLY, [key(RO | ACCESS, 1)], "string", string::substr, "key start end", "Returns a substring from a string value.";
    "LCS", -3, READONLY, [range(RO | ACCESS, 1, 1, 1, 0)], "string", string::lcs, "key1 key2 [LEN] [IDX] [MINMATCHLEN min-match-len] [WITHMATCHLEN]", "Finds the longest common substring.";
    "DELIFEQ", 3, WRITE | FAST, [key(RM | ACCESS | DELETE, 1)], "string", string::delifeq, "key value", "Deletes a key only if its value is the given string.";
    "DELEX", -2, WRITE | FAST, [key(RW | DELETE, 1)], "string", string::delex, "key [IFEQ ifeq-value | IFNE ifne-value | IFDEQ ifdeq-digest | IFDNE ifdne-digest]", "Conditionally removes the specified key based on value or digest comparison.";
    "DIGEST", 2, READONLY | FAST, [key(RO | ACCESS, 1)], "string", string::digest, "key", "Returns the XXH3 hash of a string value.";
    "INCR", 2, WRITE | DENYOOM | FAST, [key(RW | ACCESS | UPDATE, 1)], "string", string::incr, "key", "Increments the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.";
    "DECR", 2, WRITE | DENYOOM | FAST, [key(RW | ACCESS | UPDATE, 1)], "string", string::decr, "key", "Decrements the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.";
    "INCRBY", 3, WRITE | DENYOOM | FAST, [key(RW | ACCESS | UPDATE, 1)], "string", string::incrby, "key increment", "Increments the integer value of a key by a number. Uses 0 as initial value if the key doesn't exist.";
    "DECRBY", 3, WRITE | DENYOOM | FAST, [key(RW | ACCESS | UPDATE, 1)], "string", string::decrby, "key decrement", "Decrements a number from the integer value of a key. Uses 0 as initial value if the key doesn't exist.";
    "INCRBYFLOAT", 3, WRITE | DENYOOM | FAST, [key(RW | ACCESS | UPDATE, 1)], "string", string::incrbyfloat, "key increment", "Increment the floating point value of a key by a number. Uses 0 as initial value if the key doesn't exist.";
    // Keys
    "DEL", -2, WRITE, [range(RM | DELETE, 1, -1, 1, 0)], "generic", keys::del, "key [key ...]", "Deletes one or more keys.";
    "UNLINK", -2, WRITE | FAST, [range(RM | DELETE, 1, -1, 1, 0)], "generic", keys::unlink, "key [key ...]", "Asynchronously deletes one or more keys.";
    "EXISTS", -2, READONLY | FAST, [range(RO, 1, -1, 1, 0)], "generic", keys::exists, "key [key ...]", "Determines whether one or more keys exist.";
    "TYPE", 2, READONLY | FAST, [key(RO, 1)], "generic", keys::type_, "key", "Determines the type of value stored at a key.";
    "EXPIRE", -3, WRITE | FAST, [key(RW | UPDATE, 1)], "generic", keys::expire, "key seconds [NX | XX | GT | LT]", "Sets the expiration time of a key in seconds.";
    "PEXPIRE", -3, WRITE | FAST, [key(RW | UPDATE, 1)], "generic", keys::pexpire, "key milliseconds [NX | XX | GT | LT]", "Sets the expiration time of a key in milliseconds.";
    "EXPIREAT", -3, WRITE | FAST, [key(RW | UPDATE, 1)], "generic", keys::expireat, "key unix-time-seconds [NX | XX | GT | LT]", "Sets the expiration time of a key to a Unix timestamp.";
    "PEXPIREAT", -3, WRITE | FAST, [key(RW | UPDATE, 1)], "generic", keys::pexpireat, "key unix-time-milliseconds [NX | XX | GT | LT]", "Sets the expiration time of a key to a Unix milliseconds timestamp.";
    "TTL", 2, READONLY | FAST, [key(RO | ACCESS, 1)], "generic", keys::ttl, "key", "Returns the expiration time in seconds of a key.";
    "PTTL", 2, READONLY | FAST, [key(RO | ACCESS, 1)], "generic", keys::pttl, "key", "Returns the expiration time in milliseconds of a key.";
    "EXPIRETIME", 2, READONLY | FAST, [key(RO | ACCESS, 1)], "generic", keys::expiretime, "key", "Returns the expiration time of a key as a Unix timestamp.";
    "PEXPIRETIME", 2, READONLY | FAST, [key(RO | ACCESS, 1)], "generic", keys::pexpiretime, "key", "Returns the expiration time of a key as a Unix milliseconds timestamp.";
    "PERSIST", 2, WRITE | FAST, [key(RW | UPDATE, 1)], "generic", keys::persist, "key", "Removes the expiration time of a key.";
    "RENAME", 3, WRITE, [key(RW | ACCESS | DELETE, 1), key(OW | UPDATE, 2)], "generic", keys::rename, "key newkey", "Renames a key and overwrites the destination.";
    "RENAMENX", 3, WRITE | FAST, [key(RW | ACCESS | DELETE, 1), key(OW | INSERT, 2)], "generic", keys::renamenx, "key newkey", "Renames a key only when the target key name doesn't exist.";
    "COPY", -3, WRITE | DENYOOM, [key(RO | ACCESS, 1), key(OW | UPDATE, 2)], "generic", keys::copy, "source destination [DB destination-db] [REPLACE]", "Copies the value of a key to a new key.";
    "DUMP", 2, READONLY, [key(RO | ACCESS, 1)], "generic", keys::dump, "key", "Returns a serialized representation of the value stored at a key.";
    "RESTORE", -4, WRITE | DENYOOM, [key(OW | UPDATE, 1)], "generic", keys::restore, "key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency]", "Creates a key from the serialized representation of a value.", grow = keys::restore_growth;
    "MOVE", 3, WRITE | FAST, [key(RW | ACCESS | UPDATE, 1)], "generic", keys::move_key, "key db", "Moves a key to another database.";
    "SWAPDB", 3, WRITE | FAST, [], "server", keys::swapdb, "index1 index2", "Swaps two Redis databases.";
    "KEYS", 2, READONLY | SLOW, [], "generic", keys::keys, "pattern", "Returns all key names that match a pattern.";
    "SCAN", -2, READONLY, [], "generic", keys::scan, "cursor [MATCH pattern] [COUNT count] [TYPE type]", "Iterates over the key names in the database.";
    "RANDOMKEY", 1, READONLY, [], "generic", keys::randomkey, "", "Returns a random key name from the database.";
    "DBSIZE", 1, READONLY | FAST, [], "server", keys::dbsize, "", "Returns the number of keys in the database.";
    "FLUSHDB", -1, WRITE | ADMIN | SLOW, [], "server", keys::flushdb, "[ASYNC | SYNC]", "Remove all keys from the current database.";
    "FLUSHALL", -1, WRITE | ADMIN | SLOW, [], "server", keys::flushall, "[ASYNC | SYNC]", "Removes all keys from all databases.";
    "TOUCH", -2, READONLY | FAST, [range(RO, 1, -1, 1, 0)], "generic", keys::touch, "key [key ...]", "Returns the number of existing keys out of those specified after updating the time they were last accessed.";
    "SORT", -2, WRITE | DENYOOM | ALL_SHARDS, [key(RO | ACCESS, 1), unknown(RO | ACCESS).notes("For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort"), unknown(OW | UPDATE).notes("For the optional STORE keyword. It is marked 'unknown' because the keyword can appear anywhere in the argument array")], "generic", keys::sort, "key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [ASC | DESC] [ALPHA] [STORE destination]", "Sorts the elements in a list, a set, or a sorted set, optionally storing the result.", getkeys = keyspec::sort_keys;
    "SORT_RO", -2, READONLY | ALL_SHARDS, [key(RO | ACCESS, 1), unknown(RO | ACCESS).notes("For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort")], "generic", keys::sort_ro, "key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [ASC | DESC] [ALPHA]", "Returns the sorted elements of a list, a set, or a sorted set.", getkeys = keyspec::sort_ro_keys;
    "OBJECT", -2, READONLY, [], "generic", container, "<ENCODING | FREQ | IDLETIME | REFCOUNT | HELP> key", "A container for object introspection commands.", subcommands = OBJECT_SUBCOMMANDS;
    "MEMORY", -2, READONLY, [], "server", container, "<USAGE key [SAMPLES count] | STATS | DOCTOR | HELP>", "A container for memory diagnostics commands.", subcommands = MEMORY_SUBCOMMANDS;
    // Hashes (cmd::hash)
    "HSET", -4, WRITE | DENYOOM | FAST, [key(RW | UPDATE, 1)], "hash", hash::hset, "key field value [field value ...]", "Creates or modifies the value of a field in a hash.", grow = hash::pairs_growth;
    "HSETNX", 4, WRITE | DENYOOM | FAST, [key(RW | INSERT, 1)], "hash", hash::hsetnx, "key field value", "Sets the value of a field in a hash only when the field doesn't exist.", grow = hash::field_growth;
    "HGET", 3, READONLY | FAST, [key(RO | ACCESS, 1)], "hash", hash::hget, "key field", "Returns the value of a field in a hash.";
    "HMGET", -3, READONLY | FAST, [key(RO | ACCESS, 1)], "hash", hash::hmget, "key field [field ...]", "Returns the values of all fields in a hash.";
    "HMSET", -4, WRITE | DENYOOM | FAST, [key(RW | UPDATE, 1)], "hash", hash::hmset, "key field value [field value ...]", "Sets the values of multiple fields.", grow = hash::pairs_growth;
    "HDEL", -3, WRITE | FAST, [key(RW | DELETE, 1)], "hash", hash::hdel, "key field [field ...]", "Deletes one or more fields and their values from a hash. Deletes the hash if no fields remain.";
    "HEXISTS", 3, READONLY | FAST, [key(RO, 1)], "hash", hash::hexists, "key field", "Determines whether a field exists in a hash.";
    "HLEN", 2, READONLY | FAST, [key(RO, 1)], "hash", hash::hlen, "key", "Returns the number of fields in a hash.";
    "HSTRLEN", 3, READONLY | FAST, [key(RO, 1)], "hash", hash::hstrlen, "key field", "Returns the length of the value of a field.";
    "HKEYS", 2, READONLY, [key(RO | ACCESS, 1)], "hash", hash::hkeys, "key", "Returns all fields in a hash.";
    "HVALS", 2, READONLY, [key(RO | ACCESS, 1)], "hash", hash::hvals, "key", "Returns all values in a hash.";
    "HGETALL", 2, READONLY, [key(RO | ACCESS, 1)], "hash", hash::hgetall, "key", "Returns all fields and values in a hash.";
    "HINCRBY", 4, WRITE | DENYOOM | FAST, [key(RW | ACCESS | UPDATE, 1)], "hash", hash::hincrby, "key field increment", "Increments the integer value of a field in a hash by a number. Uses 0 as initial value if the field doesn't exist.", grow = hash::field_growth;
    "HINCRBYFLOAT", 4, WRITE | DENYOOM | FAST, [key(RW | ACCESS | UPDATE, 1)], "hash", hash::hincrbyfloat, "key field increment", "Increments the floating point value of a field by a number. Uses 0 as initial value if the field doesn't exist.", grow = hash::field_growth;
    "HRANDFIELD", -2, READONLY, [key(RO | ACCESS, 1)], "hash", hash::hrandfield, "key [count [WITHVALUES]]", "Returns one or more random fields from a hash.";
    "HSCAN", -3, READONLY, [key(RO | ACCESS, 1)], "hash", hash::hscan, "key cursor [MATCH pattern] [COUNT count]", "Iterates over fields and values of a hash.";
    "HEXPIRE", -6, WRITE | DENYOOM | FAST, [key(RW | UPDATE, 1)], "hash", hash::hexpire, "key seconds [NX | XX | GT | LT] FIELDS numfields field [field ...]", "Set expiry for hash field using relative time to expire (seconds).", grow = hash::ttl_growth;
    "HPEXPIRE", -6, WRITE | DENYOOM | FAST, [key(RW | UPDATE, 1)], "hash", hash::hpexpire, "key milliseconds [NX | XX | GT | LT] FIELDS numfields field [field ...]", "Set expiry for hash field using relative time to expire (milliseconds).", grow = hash::ttl_growth;
    "HEXPIREAT", -6, WRITE | DENYOOM | FAST, [key(RW | UPDATE, 1)], "hash", hash::hexpireat, "key unix-time-seconds [NX | XX | GT | LT] FIELDS numfields field [field ...]", "Set expiry for hash field using an absolute Unix timestamp (seconds).", grow = hash::ttl_growth;
    "HPEXPIREAT", -6, WRITE | DENYOOM | FAST, [key(RW | UPDATE, 1)], "hash", hash::hpexpireat, "key unix-time-milliseconds [NX | XX | GT | LT] FIELDS numfields field [field ...]", "Set expiry for hash field using an absolute Unix timestamp (milliseconds).", grow = hash::ttl_growth;
    "HTTL", -5, READONLY | FAST, [key(RO | ACCESS, 1)], "hash", hash::httl, "key FIELDS numfields field [field ...]", "Returns the TTL in seconds of a hash field.";
    "HPTTL", -5, READONLY | FAST, [key(RO | ACCESS, 1)], "hash", hash::hpttl, "key FIELDS numfields field [field ...]", "Returns the TTL in milliseconds of a hash field.";
    "HEXPIRETIME", -5, READONLY | FAST, [key(RO | ACCESS, 1)], "hash", hash::hexpiretime, "key FIELDS numfields field [field ...]", "Returns the expiration time of a hash field as a Unix timestamp, in seconds.";
    "HPEXPIRETIME", -5, READONLY | FAST, [key(RO | ACCESS, 1)], "hash", hash::hpexpiretime, "key FIELDS numfields field [field ...]", "Returns the expiration time of a hash field as a Unix timestamp, in msec.";
    "HPERSIST", -5, WRITE | FAST, [key(RW | UPDATE, 1)], "hash", hash::hpersist, "key FIELDS numfields field [field ...]", "Removes the expiration time for each specified field.";
    "HGETEX", -5, WRITE | FAST, [key(RW | ACCESS | UPDATE, 1).notes("RW and UPDATE because it changes the TTL")], "hash", hash::hgetex, "key [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | PERSIST] FIELDS numfields field [field ...]", "Get the value of one or more fields of a given hash key, and optionally set their expiration.";
    "HSETEX", -6, WRITE | DENYOOM | FAST, [key(RW | UPDATE, 1)], "hash", hash::hsetex, "key [FNX | FXX] [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL] FIELDS numfields field value [field value ...]", "Set the value of one or more fields of a given hash key, and optionally set their expiration.", grow = hash::hsetex_growth;
    "HGETDEL", -5, WRITE | FAST, [key(RW | ACCESS | DELETE, 1)], "hash", hash::hgetdel, "key FIELDS numfields field [field ...]", "Returns the value of a field and deletes it from the hash.";
    // Lists (cmd::list)
    "LPUSH", -3, WRITE | DENYOOM | FAST, [key(RW | INSERT, 1)], "list", list::lpush, "key element [element ...]", "Prepends one or more elements to a list. Creates the key if it doesn't exist.", grow = list::push_growth;
    "RPUSH", -3, WRITE | DENYOOM | FAST, [key(RW | INSERT, 1)], "list", list::rpush, "key element [element ...]", "Appends one or more elements to a list. Creates the key if it doesn't exist.", grow = list::push_growth;
    "LPUSHX", -3, WRITE | DENYOOM | FAST, [key(RW | INSERT, 1)], "list", list::lpushx, "key element [element ...]", "Prepends one or more elements to a list only when the list exists.", grow = list::push_growth;
    "RPUSHX", -3, WRITE | DENYOOM | FAST, [key(RW | INSERT, 1)], "list", list::rpushx, "key element [element ...]", "Appends an element to a list only when the list exists.", grow = list::push_growth;
    "LPOP", -2, WRITE | FAST, [key(RW | ACCESS | DELETE, 1)], "list", list::lpop, "key [count]", "Returns the first elements in a list after removing it. Deletes the list if the last element was popped.";
    "RPOP", -2, WRITE | FAST, [key(RW | ACCESS | DELETE, 1)], "list", list::rpop, "key [count]", "Returns and removes the last elements of a list. Deletes the list if the last element was popped.";
    "LLEN", 2, READONLY | FAST, [key(RO, 1)], "list", list::llen, "key", "Returns the length of a list.";
    "LRANGE", 4, READONLY, [key(RO | ACCESS, 1)], "list", list::lrange, "key start stop", "Returns a range of elements from a list.";
    "LINDEX", 3, READONLY, [key(RO | ACCESS, 1)], "list", list::lindex, "key index", "Returns an element from a list by its index.";
    "LSET", 4, WRITE | DENYOOM, [key(RW | UPDATE, 1)], "list", list::lset, "key index element", "Sets the value of an element in a list by its index.", grow = list::push_growth;
    "LINSERT", 5, WRITE | DENYOOM, [key(RW | INSERT, 1)], "list", list::linsert, "key <BEFORE | AFTER> pivot element", "Inserts an element before or after another element in a list.", grow = list::push_growth;
    "LREM", 4, WRITE, [key(RW | DELETE, 1)], "list", list::lrem, "key count element", "Removes elements from a list. Deletes the list if the last element was removed.";
    "LTRIM", 4, WRITE, [key(RW | DELETE, 1)], "list", list::ltrim, "key start stop", "Removes elements from both ends a list. Deletes the list if all elements were trimmed.";
    "LPOS", -3, READONLY, [key(RO | ACCESS, 1)], "list", list::lpos, "key element [RANK rank] [COUNT num-matches] [MAXLEN len]", "Returns the index of matching elements in a list.";
    "LMOVE", 5, WRITE | DENYOOM, [key(RW | ACCESS | DELETE, 1), key(RW | INSERT, 2)], "list", list::lmove, "source destination <LEFT | RIGHT> <LEFT | RIGHT>", "Returns an element after popping it from one list and pushing it to another. Deletes the list if the last element was moved.", grow = list::move_growth;
    "RPOPLPUSH", 3, WRITE | DENYOOM, [key(RW | ACCESS | DELETE, 1), key(RW | INSERT, 2)], "list", list::rpoplpush, "source destination", "Returns the last element of a list after removing and pushing it to another list. Deletes the list if the last element was popped.", grow = list::move_growth;
    "LMPOP", -4, WRITE, [keynum(RW | ACCESS | DELETE, 1, 0, 1, 1)], "list", list::lmpop, "numkeys key [key ...] <LEFT | RIGHT> [COUNT count]", "Returns multiple elements from a list after removing them. Deletes the list if the last element was popped.";
    "BLMPOP", -5, WRITE | BLOCKING, [keynum(RW | ACCESS | DELETE, 2, 0, 1, 1)], "list", list::blmpop, "timeout numkeys key [key ...] <LEFT | RIGHT> [COUNT count]", "Pops the first element from one of multiple lists. Blocks until an element is available otherwise. Deletes the list if the last element was popped.";
    "BLPOP", -3, WRITE | BLOCKING, [range(RW | ACCESS | DELETE, 1, -2, 1, 0)], "list", list::blpop, "key [key ...] timeout", "Removes and returns the first element in a list. Blocks until an element is available otherwise. Deletes the list if the last element was popped.";
    "BRPOP", -3, WRITE | BLOCKING, [range(RW | ACCESS | DELETE, 1, -2, 1, 0)], "list", list::brpop, "key [key ...] timeout", "Removes and returns the last element in a list. Blocks until an element is available otherwise. Deletes the list if the last element was popped.";
    "BLMOVE", 6, WRITE | DENYOOM | BLOCKING, [key(RW | ACCESS | DELETE, 1), key(RW | INSERT, 2)], "list", list::blmove, "source destination <LEFT | RIGHT> <LEFT | RIGHT> timeout", "Pops an element from a list, pushes it to another list and returns it. Blocks until an element is available otherwise. Deletes the list if the last element was moved.", grow = list::move_growth;
    "BRPOPLPUSH", 4, WRITE | DENYOOM | BLOCKING, [key(RW | ACCESS | DELETE, 1), key(RW | INSERT, 2)], "list", list::brpoplpush, "source destination timeout", "Pops an element from a list, pushes it to another list and returns it. Block until an element is available otherwise. Deletes the list if the last element was popped.", grow = list::move_growth;
    // Sets (cmd::set)
    "SADD", -3, WRITE | DENYOOM | FAST, [key(RW | INSERT, 1)], "set", set::sadd, "key member [member ...]", "Adds one or more members to a set. Creates the key if it doesn't exist.", grow = set::members_growth;
    "SREM", -3, WRITE | FAST, [key(RW | DELETE, 1)], "set", set::srem, "key member [member ...]", "Removes one or more members from a set. Deletes the set if the last member was removed.";
    "SMEMBERS", 2, READONLY, [key(RO | ACCESS, 1)], "set", set::smembers, "key", "Returns all members of a set.";
    "SISMEMBER", 3, READONLY | FAST, [key(RO, 1)], "set", set::sismember, "key member", "Determines whether a member belongs to a set.";
    "SMISMEMBER", -3, READONLY | FAST, [key(RO | ACCESS, 1)], "set", set::smismember, "key member [member ...]", "Determines whether multiple members belong to a set.";
    "SCARD", 2, READONLY | FAST, [key(RO, 1)], "set", set::scard, "key", "Returns the number of members in a set.";
    "SPOP", -2, WRITE | FAST, [key(RW | ACCESS | DELETE, 1)], "set", set::spop, "key [count]", "Returns one or more random members from a set after removing them. Deletes the set if the last member was popped.";
    "SRANDMEMBER", -2, READONLY, [key(RO | ACCESS, 1)], "set", set::srandmember, "key [count]", "Get one or multiple random members from a set";
    "SINTER", -2, READONLY, [range(RO | ACCESS, 1, -1, 1, 0)], "set", set::sinter, "key [key ...]", "Returns the intersect of multiple sets.";
    "SUNION", -2, READONLY, [range(RO | ACCESS, 1, -1, 1, 0)], "set", set::sunion, "key [key ...]", "Returns the union of multiple sets.";
    "SDIFF", -2, READONLY, [range(RO | ACCESS, 1, -1, 1, 0)], "set", set::sdiff, "key [key ...]", "Returns the difference of multiple sets.";
    "SINTERSTORE", -3, WRITE | DENYOOM, [key(RW | UPDATE, 1), range(RO | ACCESS, 2, -1, 1, 0)], "set", set::sinterstore, "destination key [key ...]", "Stores the intersect of multiple sets in a key.";
    "SUNIONSTORE", -3, WRITE | DENYOOM, [key(OW | UPDATE, 1), range(RO | ACCESS, 2, -1, 1, 0)], "set", set::sunionstore, "destination key [key ...]", "Stores the union of multiple sets in a key.";
    "SDIFFSTORE", -3, WRITE | DENYOOM, [key(OW | UPDATE, 1), range(RO | ACCESS, 2, -1, 1, 0)], "set", set::sdiffstore, "destination key [key ...]", "Stores the difference of multiple sets in a key.";
    "SINTERCARD", -3, READONLY, [keynum(RO | ACCESS, 1, 0, 1, 1)], "set", set::sintercard, "numkeys key [key ...] [LIMIT limit]", "Returns the number of members of the intersect of multiple sets.";
    "SMOVE", 4, WRITE | FAST, [key(RW | ACCESS | DELETE, 1), key(RW | INSERT, 2)], "set", set::smove, "source destination member", "Moves a member from one set to another.";
    "SSCAN", -3, READONLY, [key(RO | ACCESS, 1)], "set", set::sscan, "key cursor [MATCH pattern] [COUNT count]", "Iterates over members of a set.";
    // Sorted sets (cmd::zset)
    "ZADD", -4, WRITE | DENYOOM | FAST, [key(RW | UPDATE, 1)], "sorted-set", zset::zadd, "key [NX | XX] [GT | LT] [CH] [INCR] score member [score member ...]", "Adds one or more members to a sorted set, or updates their scores. Creates the key if it doesn't exist.";
    "ZINCRBY", 4, WRITE | DENYOOM | FAST, [key(RW | ACCESS | UPDATE, 1)], "sorted-set", zset::zincrby, "key increment member", "Increments the score of a member in a sorted set.";
    "ZREM", -3, WRITE | FAST, [key(RW | DELETE, 1)], "sorted-set", zset::zrem, "key member [member ...]", "Removes one or more members from a sorted set. Deletes the sorted set if all members were removed.";
    "ZSCORE", 3, READONLY | FAST, [key(RO | ACCESS, 1)], "sorted-set", zset::zscore, "key member", "Returns the score of a member in a sorted set.";
    "ZMSCORE", -3, READONLY | FAST, [key(RO | ACCESS, 1)], "sorted-set", zset::zmscore, "key member [member ...]", "Returns the score of one or more members in a sorted set.";
    "ZCARD", 2, READONLY | FAST, [key(RO, 1)], "sorted-set", zset::zcard, "key", "Returns the number of members in a sorted set.";
    "ZCOUNT", 4, READONLY | FAST, [key(RO | ACCESS, 1)], "sorted-set", zset::zcount, "key min max", "Returns the count of members in a sorted set that have scores within a range.";
    "ZLEXCOUNT", 4, READONLY | FAST, [key(RO | ACCESS, 1)], "sorted-set", zset::zlexcount, "key min max", "Returns the number of members in a sorted set within a lexicographical range.";
    "ZRANK", 3, READONLY | FAST, [key(RO | ACCESS, 1)], "sorted-set", zset::zrank, "key member", "Returns the index of a member in a sorted set ordered by ascending scores.";
    "ZREVRANK", 3, READONLY | FAST, [key(RO | ACCESS, 1)], "sorted-set", zset::zrevrank, "key member", "Returns the index of a member in a sorted set ordered by descending scores.";
    "ZRANGE", -4, READONLY, [key(RO | ACCESS, 1)], "sorted-set", zset::zrange, "key start stop [BYSCORE | BYLEX] [REV] [LIMIT offset count] [WITHSCORES]", "Returns members in a sorted set within a range of indexes, scores or lexicographical values.";
    "ZREVRANGE", -4, READONLY, [key(RO | ACCESS, 1)], "sorted-set", zset::zrevrange, "key start stop [WITHSCORES]", "Returns members in a sorted set within a range of indexes in reverse order.";
    "ZRANGEBYSCORE", -4, READONLY, [key(RO | ACCESS, 1)], "sorted-set", zset::zrangebyscore, "key min max [WITHSCORES] [LIMIT offset count]", "Returns members in a sorted set within a range of scores.";
    "ZREVRANGEBYSCORE", -4, READONLY, [key(RO | ACCESS, 1)], "sorted-set", zset::zrevrangebyscore, "key max min [WITHSCORES] [LIMIT offset count]", "Returns members in a sorted set within a range of scores in reverse order.";
    "ZRANGEBYLEX", -4, READONLY, [key(RO | ACCESS, 1)], "sorted-set", zset::zrangebylex, "key min max [LIMIT offset count]", "Returns members in a sorted set within a lexicographical range.";
    "ZREVRANGEBYLEX", -4, READONLY, [key(RO | ACCESS, 1)], "sorted-set", zset::zrevrangebylex, "key max min [LIMIT offset count]", "Returns members in a sorted set within a lexicographical range in reverse order.";
    "ZPOPMIN", -2, WRITE | FAST, [key(RW | ACCESS | DELETE, 1)], "sorted-set", zset::zpopmin, "key [count]", "Returns the lowest-scoring members from a sorted set after removing them. Deletes the sorted set if the last member was popped.";
    "ZPOPMAX", -2, WRITE | FAST, [key(RW | ACCESS | DELETE, 1)], "sorted-set", zset::zpopmax, "key [count]", "Returns the highest-scoring members from a sorted set after removing them. Deletes the sorted set if the last member was popped.";
    "ZMPOP", -4, WRITE, [keynum(RW | ACCESS | DELETE, 1, 0, 1, 1)], "sorted-set", zset::zmpop, "numkeys key [key ...] <MIN | MAX> [COUNT count]", "Returns the highest- or lowest-scoring members from one or more sorted sets after removing them. Deletes the sorted set if the last member was popped.";
    "BZMPOP", -5, WRITE | BLOCKING, [keynum(RW | ACCESS | DELETE, 2, 0, 1, 1)], "sorted-set", zset::bzmpop, "timeout numkeys key [key ...] <MIN | MAX> [COUNT count]", "Removes and returns a member by score from one or more sorted sets. Blocks until a member is available otherwise. Deletes the sorted set if the last element was popped.";
    "BZPOPMIN", -3, WRITE | BLOCKING | FAST, [range(RW | ACCESS | DELETE, 1, -2, 1, 0)], "sorted-set", zset::bzpopmin, "key [key ...] timeout", "Removes and returns the member with the lowest score from one or more sorted sets. Blocks until a member is available otherwise. Deletes the sorted set if the last element was popped.";
    "BZPOPMAX", -3, WRITE | BLOCKING | FAST, [range(RW | ACCESS | DELETE, 1, -2, 1, 0)], "sorted-set", zset::bzpopmax, "key [key ...] timeout", "Removes and returns the member with the highest score from one or more sorted sets. Blocks until a member is available otherwise. Deletes the sorted set if the last element was popped.";
    "ZREMRANGEBYRANK", 4, WRITE, [key(RW | DELETE, 1)], "sorted-set", zset::zremrangebyrank, "key start stop", "Removes members in a sorted set within a range of indexes. Deletes the sorted set if all members were removed.";
    "ZREMRANGEBYSCORE", 4, WRITE, [key(RW | DELETE, 1)], "sorted-set", zset::zremrangebyscore, "key min max", "Removes members in a sorted set within a range of scores. Deletes the sorted set if all members were removed.";
    "ZREMRANGEBYLEX", 4, WRITE, [key(RW | DELETE, 1)], "sorted-set", zset::zremrangebylex, "key min max", "Removes members in a sorted set within a lexicographical range. Deletes the sorted set if all members were removed.";
    "ZUNIONSTORE", -4, WRITE | DENYOOM, [key(OW | UPDATE, 1), keynum(RO | ACCESS, 2, 0, 1, 1)], "sorted-set", zset::zunionstore, "destination numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE <SUM | MIN | MAX>]", "Stores the union of multiple sorted sets in a key.";
    "ZINTERSTORE", -4, WRITE | DENYOOM, [key(OW | UPDATE, 1), keynum(RO | ACCESS, 2, 0, 1, 1)], "sorted-set", zset::zinterstore, "destination numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE <SUM | MIN | MAX>]", "Stores the intersect of multiple sorted sets in a key.";
    "ZDIFFSTORE", -4, WRITE | DENYOOM, [key(OW | UPDATE, 1), keynum(RO | ACCESS, 2, 0, 1, 1)], "sorted-set", zset::zdiffstore, "destination numkeys key [key ...]", "Stores the difference of multiple sorted sets in a key.";
    "ZUNION", -3, READONLY, [keynum(RO | ACCESS, 1, 0, 1, 1)], "sorted-set", zset::zunion, "numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE <SUM | MIN | MAX>] [WITHSCORES]", "Returns the union of multiple sorted sets.";
    "ZINTER", -3, READONLY, [keynum(RO | ACCESS, 1, 0, 1, 1)], "sorted-set", zset::zinter, "numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE <SUM | MIN | MAX>] [WITHSCORES]", "Returns the intersect of multiple sorted sets.";
    "ZDIFF", -3, READONLY, [keynum(RO | ACCESS, 1, 0, 1, 1)], "sorted-set", zset::zdiff, "numkeys key [key ...] [WITHSCORES]", "Returns the difference between multiple sorted sets.";
    "ZINTERCARD", -3, READONLY, [keynum(RO | ACCESS, 1, 0, 1, 1)], "sorted-set", zset::zintercard, "numkeys key [key ...] [LIMIT limit]", "Returns the number of members of the intersect of multiple sorted sets.";
    "ZRANDMEMBER", -2, READONLY, [key(RO | ACCESS, 1)], "sorted-set", zset::zrandmember, "key [count [WITHSCORES]]", "Returns one or more random members from a sorted set.";
    "ZRANGESTORE", -5, WRITE | DENYOOM, [key(OW | UPDATE, 1), key(RO | ACCESS, 2)], "sorted-set", zset::zrangestore, "dst src min max [BYSCORE | BYLEX] [REV] [LIMIT offset count]", "Stores a range of members from sorted set in a key.";
    // Geospatial indexes (sorted sets of geohashes)
    "GEOADD", -5, WRITE | DENYOOM, [key(RW | UPDATE, 1)], "geo", geo::geoadd, "key [NX | XX] [CH] longitude latitude member [longitude latitude member ...]", "Adds one or more members to a geospatial index. The key is created if it doesn't exist.";
    "GEOPOS", -2, READONLY, [key(RO | ACCESS, 1)], "geo", geo::geopos, "key [member [member ...]]", "Returns the longitude and latitude of members from a geospatial index.";
    "GEODIST", -4, READONLY, [key(RO | ACCESS, 1)], "geo", geo::geodist, "key member1 member2 [M | KM | FT | MI]", "Returns the distance between two members of a geospatial index.";
    "GEOHASH", -2, READONLY, [key(RO | ACCESS, 1)], "geo", geo::geohash, "key [member [member ...]]", "Returns members from a geospatial index as geohash strings.";
    "GEOSEARCH", -7, READONLY, [key(RO | ACCESS, 1)], "geo", geo::geosearch, "key <FROMMEMBER member | FROMLONLAT longitude latitude> <BYRADIUS radius <M | KM | FT | MI> | BYBOX width height <M | KM | FT | MI>> [ASC | DESC] [COUNT count [ANY]] [WITHCOORD] [WITHDIST] [WITHHASH]", "Queries a geospatial index for members inside an area of a box or a circle.";
    "GEOSEARCHSTORE", -8, WRITE | DENYOOM, [key(OW | UPDATE, 1), key(RO | ACCESS, 2)], "geo", geo::geosearchstore, "destination source <FROMMEMBER member | FROMLONLAT longitude latitude> <BYRADIUS radius <M | KM | FT | MI> | BYBOX width height <M | KM | FT | MI>> [ASC | DESC] [COUNT count [ANY]] [STOREDIST]", "Queries a geospatial index for members inside an area of a box or a circle, optionally stores the result.";
    // The STORE keywords can repeat and the last wins, which their specs cannot say: these
    // two lock every shard, so whichever key the handler writes is held.
    "GEORADIUS", -6, WRITE | DENYOOM | ALL_SHARDS, [key(RO | ACCESS, 1), keyword(OW | UPDATE, "STORE", 6, 0, 1, 0), keyword(OW | UPDATE, "STOREDIST", 6, 0, 1, 0)], "geo", geo::georadius, "key longitude latitude radius <M | KM | FT | MI> [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC | DESC] [STORE key | STOREDIST key]", "Queries a geospatial index for members within a distance from a coordinate, optionally stores the result.";
    "GEORADIUSBYMEMBER", -5, WRITE | DENYOOM | ALL_SHARDS, [key(RO | ACCESS, 1), keyword(OW | UPDATE, "STORE", 5, 0, 1, 0), keyword(OW | UPDATE, "STOREDIST", 5, 0, 1, 0)], "geo", geo::georadiusbymember, "key member radius <M | KM | FT | MI> [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC | DESC] [STORE key | STOREDIST key]", "Queries a geospatial index for members within a distance from a member, optionally stores the result.";
    "GEORADIUS_RO", -6, READONLY, [key(RO | ACCESS, 1)], "geo", geo::georadius_ro, "key longitude latitude radius <M | KM | FT | MI> [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC | DESC]", "Returns members from a geospatial index that are within a distance from a coordinate.";
    "GEORADIUSBYMEMBER_RO", -5, READONLY, [key(RO | ACCESS, 1)], "geo", geo::georadiusbymember_ro, "key member radius <M | KM | FT | MI> [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC | DESC]", "Returns members from a geospatial index that are within a distance from a member.";
    "ZSCAN", -3, READONLY, [key(RO | ACCESS, 1)], "sorted-set", zset::zscan, "key cursor [MATCH pattern] [COUNT count]", "Iterates over members and scores of a sorted set.";
    // Transactions (cmd::tx)
    "MULTI", 1, FAST, [], "transactions", tx::multi, "", "Starts a transaction.";
    "EXEC", 1, 0, [], "transactions", tx::exec, "", "Executes all commands in a transaction.";
    "DISCARD", 1, FAST, [], "transactions", tx::discard_cmd, "", "Discards a transaction.";
    "WATCH", -2, FAST, [range(RO, 1, -1, 1, 0)], "transactions", tx::watch, "key [key ...]", "Monitors changes to keys to determine the execution of a transaction.";
    "UNWATCH", 1, FAST, [], "transactions", tx::unwatch, "", "Forgets about watched keys of a transaction.";
    // Pub/sub (cmd::pubsub)
    "SUBSCRIBE", -2, 0, [], "pubsub", pubsub::subscribe, "channel [channel ...]", "Listens for messages published to channels.";
    "UNSUBSCRIBE", -1, 0, [], "pubsub", pubsub::unsubscribe, "[channel [channel ...]]", "Stops listening to messages posted to channels.";
    "PSUBSCRIBE", -2, 0, [], "pubsub", pubsub::psubscribe, "pattern [pattern ...]", "Listens for messages published to channels that match one or more patterns.";
    "PUNSUBSCRIBE", -1, 0, [], "pubsub", pubsub::punsubscribe, "[pattern [pattern ...]]", "Stops listening to messages published to channels that match one or more patterns.";
    "PUBLISH", 3, FAST, [], "pubsub", pubsub::publish, "channel message", "Posts a message to a channel.";
    // Redis gives the shard channels key specs flagged `not_key` (for cluster slots only):
    // COMMAND INFO shows their range, dispatch locks nothing for them.
    "SSUBSCRIBE", -2, 0, [range(NOT_KEY, 1, -1, 1, 0)], "pubsub", pubsub::ssubscribe, "shardchannel [shardchannel ...]", "Listens for messages published to shard channels.";
    "SUNSUBSCRIBE", -1, 0, [range(NOT_KEY, 1, -1, 1, 0)], "pubsub", pubsub::sunsubscribe, "[shardchannel [shardchannel ...]]", "Stops listening to messages posted to shard channels.";
    "SPUBLISH", 3, FAST, [key(NOT_KEY, 1)], "pubsub", pubsub::spublish, "shardchannel message", "Posts a message to a shard channel.";
    "PUBSUB", -2, 0, [], "pubsub", container, "<CHANNELS [pattern] | NUMSUB [channel ...] | NUMPAT | SHARDCHANNELS [pattern] | SHARDNUMSUB [shardchannel ...] | HELP>", "A container for Pub/Sub commands.", subcommands = PUBSUB_SUBCOMMANDS;
    // Streams
    "XADD", -5, WRITE | DENYOOM | FAST, [key(RW | UPDATE, 1).notes("UPDATE instead of INSERT because of the optional trimming feature")], "stream", stream::xadd, "key [NOMKSTREAM] [<MAXLEN | MINID> [= | ~] threshold [LIMIT count]] <* | id> field value [field value ...]", "Appends a new message to a stream. Creates the key if it doesn't exist.", grow = stream::add_growth;
    "XTRIM", -4, WRITE, [key(RW | DELETE, 1)], "stream", stream::xtrim, "key <MAXLEN | MINID> [= | ~] threshold [LIMIT count]", "Deletes messages from the beginning of a stream.";
    "XDEL", -3, WRITE | FAST, [key(RW | DELETE, 1)], "stream", stream::xdel, "key id [id ...]", "Returns the number of messages after removing them from a stream.";
    "XSETID", -3, WRITE | DENYOOM | FAST, [key(RW | UPDATE, 1)], "stream", stream::xsetid, "key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id]", "An internal command for replicating stream values.";
    "XRANGE", -4, READONLY, [key(RO | ACCESS, 1)], "stream", stream::xrange, "key start end [COUNT count]", "Returns the messages from a stream within a range of IDs.";
    "XREVRANGE", -4, READONLY, [key(RO | ACCESS, 1)], "stream", stream::xrevrange, "key end start [COUNT count]", "Returns the messages from a stream within a range of IDs in reverse order.";
    "XLEN", 2, READONLY | FAST, [key(RO, 1)], "stream", stream::xlen, "key", "Return the number of messages in a stream.";
    "XREAD", -4, READONLY | BLOCKING, [keyword(RO | ACCESS, "STREAMS", 1, -1, 1, 2)], "stream", stream::xread, "[COUNT count] [BLOCK milliseconds] STREAMS key [key ...] id [id ...]", "Returns messages from multiple streams with IDs greater than the ones requested. Blocks until a message is available otherwise.";
    // Stream consumer groups (cmd::stream)
    "XGROUP", -2, 0, [], "stream", container, "<CREATE key group <id | $> [MKSTREAM] [ENTRIESREAD n] | SETID key group <id | $> [ENTRIESREAD n] | DESTROY key group | CREATECONSUMER key group consumer | DELCONSUMER key group consumer | HELP>", "A container for consumer groups commands.", subcommands = XGROUP_SUBCOMMANDS;
    "XREADGROUP", -7, WRITE | BLOCKING, [keyword(RO | ACCESS, "STREAMS", 4, -1, 1, 2)], "stream", stream::xreadgroup, "GROUP group consumer [COUNT count] [BLOCK milliseconds] [NOACK] STREAMS key [key ...] id [id ...]", "Returns new or historical messages from a stream for a consumer in a group. Blocks until a message is available otherwise.";
    "XACK", -4, WRITE | FAST, [key(RW | UPDATE, 1)], "stream", stream::xack, "key group id [id ...]", "Returns the number of messages that were successfully acknowledged by the consumer group member of a stream.";
    "XPENDING", -3, READONLY, [key(RO | ACCESS, 1)], "stream", stream::xpending, "key group [[IDLE min-idle-time] start end count [consumer]]", "Returns the information and entries from a stream consumer group's pending entries list.";
    "XCLAIM", -6, WRITE | FAST, [key(RW | UPDATE, 1)], "stream", stream::xclaim, "key group consumer min-idle-time id [id ...] [IDLE ms] [TIME unix-time-milliseconds] [RETRYCOUNT count] [FORCE] [JUSTID] [LASTID lastid]", "Changes, or acquires, ownership of a message in a consumer group, as if the message was delivered a consumer group member.";
    "XAUTOCLAIM", -6, WRITE | FAST, [key(RW | DELETE, 1)], "stream", stream::xautoclaim, "key group consumer min-idle-time start [COUNT count] [JUSTID]", "Changes, or acquires, ownership of messages in a consumer group, as if the messages were delivered to as consumer group member.";
    "XINFO", -2, 0, [], "stream", container, "<CONSUMERS key group | GROUPS key | STREAM key [FULL [COUNT count]] | HELP>", "A container for stream introspection commands.", subcommands = XINFO_SUBCOMMANDS;
    // HyperLogLog (cmd::hll)
    "PFADD", -2, WRITE | DENYOOM | FAST, [key(RW | INSERT, 1)], "hyperloglog", hll::pfadd, "key [element [element ...]]", "Adds elements to a HyperLogLog key. Creates the key if it doesn't exist.";
    "PFCOUNT", -2, READONLY, [range(RW | ACCESS, 1, -1, 1, 0).notes("RW because it may change the internal representation of the key, and propagate to replicas")], "hyperloglog", hll::pfcount, "key [key ...]", "Returns the approximated cardinality of the set(s) observed by the HyperLogLog key(s).";
    "PFMERGE", -2, WRITE | DENYOOM, [key(RW | ACCESS | INSERT, 1), range(RO | ACCESS, 2, -1, 1, 0)], "hyperloglog", hll::pfmerge, "destkey [sourcekey [sourcekey ...]]", "Merges one or more HyperLogLog values into a single key.";
    "PFDEBUG", 3, WRITE | DENYOOM | ADMIN, [key(RW | ACCESS, 2)], "hyperloglog", hll::pfdebug, "subcommand key", "Internal commands for debugging HyperLogLog values.";
    "PFSELFTEST", 1, ADMIN, [], "hyperloglog", hll::pfselftest, "", "An internal command for testing HyperLogLog values.";
    // Bitmaps (on strings)
    "SETBIT", 4, WRITE | DENYOOM, [key(RW | ACCESS | UPDATE, 1)], "bitmap", bitmap::setbit, "key offset value", "Sets or clears the bit at offset of the string value. Creates the key if it doesn't exist.", grow = bitmap::setbit_growth;
    "GETBIT", 3, READONLY | FAST, [key(RO | ACCESS, 1)], "bitmap", bitmap::getbit, "key offset", "Returns a bit value by offset.";
    "BITCOUNT", -2, READONLY, [key(RO | ACCESS, 1)], "bitmap", bitmap::bitcount, "key [start end [BYTE | BIT]]", "Counts the number of set bits (population counting) in a string.";
    "BITPOS", -3, READONLY, [key(RO | ACCESS, 1)], "bitmap", bitmap::bitpos, "key bit [start [end [BYTE | BIT]]]", "Finds the first set (1) or clear (0) bit in a string.";
    "BITOP", -4, WRITE | DENYOOM, [key(OW | UPDATE, 2), range(RO | ACCESS, 3, -1, 1, 0)], "bitmap", bitmap::bitop, "<AND | OR | XOR | NOT> destkey key [key ...]", "Performs bitwise operations on multiple strings, and stores the result.";
    "BITFIELD", -2, WRITE | DENYOOM, [key(RW | UPDATE | ACCESS | VARIABLE_FLAGS, 1).notes("This command allows both access and modification of the key")], "bitmap", bitmap::bitfield, "key [GET encoding offset | [OVERFLOW <WRAP | SAT | FAIL>] <SET encoding offset value | INCRBY encoding offset increment> [GET encoding offset | [OVERFLOW <WRAP | SAT | FAIL>] <SET encoding offset value | INCRBY encoding offset increment> ...]]", "Performs arbitrary bitfield integer operations on strings.", grow = bitmap::bitfield_growth, getkeys = keyspec::bitfield_keys;
    "BITFIELD_RO", -2, READONLY | FAST, [key(RO | ACCESS, 1)], "bitmap", bitmap::bitfield_ro, "key [GET encoding offset [GET encoding offset ...]]", "Performs arbitrary read-only bitfield integer operations on strings.";
    // Scripting: every shard is locked while a script runs (see `cmd::scripting`).
    "EVAL", -3, ALL_SHARDS, [keynum(RW | ACCESS | UPDATE, 2, 0, 1, 1).notes("We cannot tell how the keys will be used so we assume the worst, RW and UPDATE")], "scripting", scripting::eval, "script numkeys [key [key ...]] [arg [arg ...]]", "Executes a server-side Lua script.";
    "EVALSHA", -3, ALL_SHARDS, [keynum(RW | ACCESS | UPDATE, 2, 0, 1, 1)], "scripting", scripting::evalsha, "sha1 numkeys [key [key ...]] [arg [arg ...]]", "Executes a server-side Lua script by SHA1 digest.";
    "EVAL_RO", -3, READONLY | ALL_SHARDS, [keynum(RO | ACCESS, 2, 0, 1, 1).notes("We cannot tell how the keys will be used so we assume the worst, RO and ACCESS")], "scripting", scripting::eval_ro, "script numkeys [key [key ...]] [arg [arg ...]]", "Executes a read-only server-side Lua script.";
    "EVALSHA_RO", -3, READONLY | ALL_SHARDS, [keynum(RO | ACCESS, 2, 0, 1, 1)], "scripting", scripting::evalsha_ro, "sha1 numkeys [key [key ...]] [arg [arg ...]]", "Executes a read-only server-side Lua script by SHA1 digest.";
    "FCALL", -3, ALL_SHARDS, [keynum(RW | ACCESS | UPDATE, 2, 0, 1, 1).notes("We cannot tell how the keys will be used so we assume the worst, RW and UPDATE")], "scripting", functions::fcall, "function numkeys [key [key ...]] [arg [arg ...]]", "Invokes a function.";
    "FCALL_RO", -3, READONLY | ALL_SHARDS, [keynum(RO | ACCESS, 2, 0, 1, 1).notes("We cannot tell how the keys will be used so we assume the worst, RO and ACCESS")], "scripting", functions::fcall_ro, "function numkeys [key [key ...]] [arg [arg ...]]", "Invokes a read-only function.";
    "FUNCTION", -2, 0, [], "scripting", container, "<LOAD [REPLACE] code | DELETE library | LIST [LIBRARYNAME pattern] [WITHCODE] | DUMP | RESTORE payload [FLUSH | APPEND | REPLACE] | FLUSH [ASYNC | SYNC] | STATS | KILL | HELP>", "A container for function commands.", subcommands = FUNCTION_SUBCOMMANDS;
    "SCRIPT", -2, 0, [], "scripting", container, "<LOAD script | EXISTS sha1 ... | FLUSH [ASYNC | SYNC] | KILL | HELP>", "A container for Lua scripts management commands.", subcommands = SCRIPT_SUBCOMMANDS;
    // Server and connection
    "PING", -1, FAST, [], "connection", server::ping, "[message]", "Returns the server's liveliness response.";
    "ECHO", 2, FAST, [], "connection", server::echo, "message", "Returns the given string.";
    "MONITOR", 1, ADMIN, [], "server", client::monitor, "", "Listens for all requests received by the server in real-time.";
    "QUIT", -1, FAST | NOAUTH, [], "connection", server::quit, "", "Closes the connection.";
    "RESET", 1, FAST | NOAUTH, [], "connection", server::reset, "", "Resets the connection.";
    "SELECT", 2, FAST, [], "connection", keys::select, "index", "Changes the selected database.";
    "HELLO", -1, FAST | NOAUTH, [], "connection", server::hello, "[protover [AUTH username password] [SETNAME clientname]]", "Handshakes with the Redis server.";
    "AUTH", -2, FAST | NOAUTH, [], "connection", server::auth, "[username] password", "Authenticates the connection.";
    "CLIENT", -2, 0, [], "connection", container, "<ID | INFO | LIST | GETNAME | SETNAME name | SETINFO attr value | KILL ... | UNBLOCK client-id [TIMEOUT | ERROR]>", "A container for client connection commands.", subcommands = CLIENT_SUBCOMMANDS;
    "COMMAND", -1, 0, [], "server", command::all, "[COUNT | INFO name ... | DOCS name ... | LIST | GETKEYS command ... | GETKEYSANDFLAGS command ...]", "Returns detailed information about all commands.", subcommands = COMMAND_SUBCOMMANDS;
    "INFO", -1, 0, [], "server", server::info, "[section [section ...]]", "Returns information and statistics about the server.";
    "ACL", -2, 0, [], "server", container, "<SETUSER username [rule ...] | GETUSER username | DELUSER username ... | USERS | WHOAMI | LIST | CAT [category] | DRYRUN username command [arg ...] | GENPASS [bits] | LOG [count | RESET] | SAVE | LOAD | HELP>", "A container for Access List Control commands.", subcommands = ACL_SUBCOMMANDS;
    "CONFIG", -2, ADMIN, [], "server", container, "<GET parameter ... | SET parameter value ... | RESETSTAT>", "A container for server configuration commands.", subcommands = CONFIG_SUBCOMMANDS;
    "TIME", 1, FAST, [], "server", server::time, "", "Returns the server time.";
    "LASTSAVE", 1, FAST, [], "server", server::lastsave, "", "Returns the Unix timestamp of the last successful save to disk.";
    "BGREWRITEAOF", 1, ADMIN, [], "server", server::bgrewriteaof, "", "Asynchronously rewrites the append-only file to disk.";
    "SHUTDOWN", -1, ADMIN, [], "server", server::shutdown, "[NOSAVE | SAVE] [NOW] [FORCE] [ABORT]", "Synchronously saves the database(s) to disk and shuts down the Redis server.";
    "SLOWLOG", -2, ADMIN, [], "server", container, "<GET [count] | LEN | RESET | HELP>", "A container for slow log commands.", subcommands = SLOWLOG_SUBCOMMANDS;
    "LATENCY", -2, ADMIN, [], "server", container, "<LATEST | HISTORY event | RESET [event ...] | GRAPH event | DOCTOR | HISTOGRAM [command ...] | HELP>", "A container for latency diagnostics commands.", subcommands = LATENCY_SUBCOMMANDS;
};

// Subcommands, by container. Arity counts the container and the subcommand, and key
// spec positions are argv indexes, as Redis 7's COMMAND INFO reports them (OBJECT ENCODING's key
// is argument 2).

const CLIENT_SUBCOMMANDS: &[Command] = rows! { args from 2;
    "CLIENT|ID", 2, 0, [], "connection", client::id, "", "Returns the unique client ID of the connection.";
    "CLIENT|INFO", 2, 0, [], "connection", client::info, "", "Returns information about the connection.";
    "CLIENT|LIST", -2, ADMIN, [], "connection", client::list, "[TYPE <NORMAL | MASTER | REPLICA | PUBSUB>] [ID client-id [client-id ...]]", "Lists open connections.";
    "CLIENT|GETNAME", 2, 0, [], "connection", client::getname, "", "Returns the name of the connection.";
    "CLIENT|SETNAME", 3, 0, [], "connection", client::setname, "connection-name", "Sets the connection name.";
    "CLIENT|SETINFO", 4, 0, [], "connection", client::setinfo, "<LIB-NAME libname | LIB-VER libver>", "Sets information specific to the client or connection.";
    "CLIENT|KILL", -3, ADMIN, [], "connection", client::kill, "<ip:port | [ID client-id] [ADDR ip:port] [LADDR ip:port] [SKIPME <YES | NO>]>", "Terminates open connections.";
    "CLIENT|UNBLOCK", -3, ADMIN, [], "connection", client::unblock, "client-id [TIMEOUT | ERROR]", "Unblocks a client blocked by a blocking command from a different connection.";
    "CLIENT|NO-EVICT", 3, ADMIN, [], "connection", client::no_evict, "<ON | OFF>", "Sets the client eviction mode of the connection.";
    "CLIENT|NO-TOUCH", 3, 0, [], "connection", client::no_touch, "<ON | OFF>", "Controls whether commands sent by the client affect the LRU/LFU of accessed keys.";
    "CLIENT|PAUSE", -3, ADMIN, [], "connection", client::pause, "timeout [WRITE | ALL]", "Suspends commands processing.";
    "CLIENT|UNPAUSE", 2, ADMIN, [], "connection", client::unpause, "", "Resumes processing commands from paused clients.";
    "CLIENT|REPLY", 3, 0, [], "connection", client::reply, "<ON | OFF | SKIP>", "Instructs the server whether to reply to commands.";
    "CLIENT|TRACKING", -3, 0, [], "connection", client_tracking::tracking, "<ON | OFF> [REDIRECT client-id] [PREFIX prefix [PREFIX prefix ...]] [BCAST] [OPTIN] [OPTOUT] [NOLOOP]", "Controls server-assisted client-side caching for the connection.";
    "CLIENT|CACHING", 3, 0, [], "connection", client_tracking::caching, "<YES | NO>", "Instructs the server whether to track the keys in the next request.";
    "CLIENT|GETREDIR", 2, 0, [], "connection", client_tracking::getredir, "", "Returns the client ID to which the connection's tracking notifications are redirected.";
    "CLIENT|TRACKINGINFO", 2, 0, [], "connection", client_tracking::trackinginfo, "", "Returns information about server-assisted client-side caching for the connection.";
    "CLIENT|HELP", 2, 0, [], "connection", client::help, "", "Returns helpful text about the different subcommands.";
};

const SLOWLOG_SUBCOMMANDS: &[Command] = rows! { args from 2;
    "SLOWLOG|GET", -2, ADMIN, [], "server", timing::slowlog_get, "[count]", "Returns the slow log's entries.";
    "SLOWLOG|LEN", 2, ADMIN, [], "server", timing::slowlog_len, "", "Returns the number of entries in the slow log.";
    "SLOWLOG|RESET", 2, ADMIN, [], "server", timing::slowlog_reset, "", "Clears all entries from the slow log.";
    "SLOWLOG|HELP", 2, 0, [], "server", timing::slowlog_help, "", "Show helpful text about the different subcommands.";
};

const LATENCY_SUBCOMMANDS: &[Command] = rows! { args from 2;
    "LATENCY|LATEST", 2, ADMIN, [], "server", timing::latency_latest, "", "Returns the latest latency samples for all events.";
    "LATENCY|HISTORY", 3, ADMIN, [], "server", timing::latency_history, "event", "Returns timestamp-latency samples for an event.";
    "LATENCY|RESET", -2, ADMIN, [], "server", timing::latency_reset, "[event [event ...]]", "Resets the latency data for one or more events.";
    "LATENCY|GRAPH", 3, ADMIN, [], "server", timing::latency_graph, "event", "Returns a latency graph for an event.";
    "LATENCY|DOCTOR", 2, ADMIN, [], "server", timing::latency_doctor, "", "Returns a human-readable latency analysis report.";
    "LATENCY|HISTOGRAM", -2, ADMIN, [], "server", timing::latency_histogram, "[command [command ...]]", "Returns the cumulative distribution of latencies of a subset or all commands.";
    "LATENCY|HELP", 2, 0, [], "server", timing::latency_help, "", "Returns helpful text about the latency monitor subcommands.";
};

const ACL_SUBCOMMANDS: &[Command] = rows! { args from 2;
    "ACL|SETUSER", -3, ADMIN, [], "server", acl::setuser, "username [rule [rule ...]]", "Creates and modifies an ACL user and its rules.";
    "ACL|GETUSER", 3, ADMIN, [], "server", acl::getuser, "username", "Lists the ACL rules of a user.";
    "ACL|DELUSER", -3, ADMIN, [], "server", acl::deluser, "username [username ...]", "Deletes ACL users, and terminates their connections.";
    "ACL|USERS", 2, ADMIN, [], "server", acl::users, "", "Lists all ACL users.";
    "ACL|WHOAMI", 2, 0, [], "server", acl::whoami, "", "Returns the authenticated username of the current connection.";
    "ACL|LIST", 2, ADMIN, [], "server", acl::list, "", "Dumps the effective rules in ACL file format.";
    "ACL|CAT", -2, 0, [], "server", acl::cat, "[category]", "Lists the ACL categories, or the commands inside a category.";
    "ACL|DRYRUN", -4, ADMIN, [], "server", acl::dryrun, "username command [arg [arg ...]]", "Simulates the execution of a command by a user, without executing the command.";
    "ACL|GENPASS", -2, 0, [], "server", acl::genpass, "[bits]", "Generates a pseudorandom, secure password that can be used to identify ACL users.";
    "ACL|LOG", -2, ADMIN, [], "server", acl::log, "[count | RESET]", "Lists recent security events generated due to ACL rules.";
    "ACL|SAVE", 2, ADMIN, [], "server", acl::save, "", "Saves the effective ACL rules in the configured ACL file.";
    "ACL|LOAD", 2, ADMIN, [], "server", acl::load, "", "Reloads the rules from the configured ACL file.";
    "ACL|HELP", 2, 0, [], "server", acl::help, "", "Returns helpful text about the different subcommands.";
};

const CONFIG_SUBCOMMANDS: &[Command] = rows! { args from 2;
    "CONFIG|GET", -3, ADMIN, [], "server", config::get, "parameter [parameter ...]", "Returns the effective values of configuration parameters.";
    "CONFIG|SET", -4, ADMIN, [], "server", config::set, "parameter value [parameter value ...]", "Sets configuration parameters in-flight.";
    "CONFIG|RESETSTAT", 2, ADMIN, [], "server", config::resetstat, "", "Resets the server's statistics.";
    "CONFIG|REWRITE", 2, ADMIN, [], "server", config::rewrite, "", "Persists the effective configuration to file.";
    "CONFIG|HELP", 2, 0, [], "server", config::help, "", "Returns helpful text about the different subcommands.";
};

const OBJECT_SUBCOMMANDS: &[Command] = rows! { args from 2;
    "OBJECT|ENCODING", 3, READONLY, [key(RO, 2)], "generic", keys::object_encoding, "key", "Returns the internal encoding of a Redis object.";
    "OBJECT|FREQ", 3, READONLY, [key(RO, 2)], "generic", keys::object_freq, "key", "Returns the logarithmic access frequency counter of a Redis object.";
    "OBJECT|IDLETIME", 3, READONLY, [key(RO, 2)], "generic", keys::object_idletime, "key", "Returns the time since the last access to a Redis object.";
    "OBJECT|REFCOUNT", 3, READONLY, [key(RO, 2)], "generic", keys::object_refcount, "key", "Returns the reference count of a value of a key.";
    "OBJECT|HELP", 2, 0, [], "generic", keys::object_help, "", "Returns helpful text about the different subcommands.";
};

const MEMORY_SUBCOMMANDS: &[Command] = rows! { args from 2;
    "MEMORY|USAGE", -3, READONLY, [key(RO, 2)], "server", keys::memory_usage, "key [SAMPLES count]", "Estimates the memory usage of a key.";
    "MEMORY|STATS", 2, 0, [], "server", keys::memory_stats, "", "Returns details about memory usage.";
    "MEMORY|DOCTOR", 2, 0, [], "server", keys::memory_doctor, "", "Outputs a memory problems report.";
    "MEMORY|MALLOC-STATS", 2, 0, [], "server", keys::memory_malloc_stats, "", "Returns the allocator statistics.";
    "MEMORY|PURGE", 2, 0, [], "server", keys::memory_purge, "", "Asks the allocator to release memory.";
    "MEMORY|HELP", 2, 0, [], "server", keys::memory_help, "", "Returns helpful text about the different subcommands.";
};

const COMMAND_SUBCOMMANDS: &[Command] = rows! { args from 2;
    "COMMAND|COUNT", 2, 0, [], "server", command::count, "", "Returns a count of commands.";
    "COMMAND|LIST", -2, 0, [], "server", command::list, "[FILTERBY <MODULE module-name | ACLCAT category | PATTERN pattern>]", "Returns a list of command names.";
    "COMMAND|INFO", -2, 0, [], "server", command::info, "[command-name [command-name ...]]", "Returns information about one, multiple or all commands.";
    "COMMAND|DOCS", -2, 0, [], "server", command::docs, "[command-name [command-name ...]]", "Returns documentary information about one, multiple or all commands.";
    "COMMAND|GETKEYS", -3, 0, [], "server", command::getkeys, "command [arg [arg ...]]", "Extracts the key names from an arbitrary command.";
    "COMMAND|GETKEYSANDFLAGS", -3, 0, [], "server", command::getkeysandflags, "command [arg [arg ...]]", "Extracts the key names and access flags for an arbitrary command.";
    "COMMAND|HELP", 2, 0, [], "server", command::help, "", "Returns helpful text about the different subcommands.";
};

// FUNCTION LOAD, DELETE, FLUSH and RESTORE are writes: dispatch logs them as they ran
// (see `cmd::functions`), holding every shard so an AOF rewrite's image (taken under every
// shard) has them exactly when its offset does.
const FUNCTION_SUBCOMMANDS: &[Command] = rows! { args from 2;
    "FUNCTION|LOAD", -3, WRITE | DENYOOM | ALL_SHARDS, [], "scripting", functions::function_load, "[REPLACE] function-code", "Creates a library.";
    "FUNCTION|DELETE", 3, WRITE | ALL_SHARDS, [], "scripting", functions::function_delete, "library-name", "Deletes a library and its functions.";
    "FUNCTION|DUMP", 2, 0, [], "scripting", functions::function_dump, "", "Dumps all libraries into a serialized binary payload.";
    "FUNCTION|FLUSH", -2, WRITE | ALL_SHARDS, [], "scripting", functions::function_flush, "[ASYNC | SYNC]", "Deletes all libraries and functions.";
    "FUNCTION|HELP", 2, 0, [], "scripting", functions::function_help, "", "Returns helpful text about the different subcommands.";
    "FUNCTION|KILL", 2, 0, [], "scripting", functions::function_kill, "", "Terminates a function during execution.";
    "FUNCTION|LIST", -2, 0, [], "scripting", functions::function_list, "[LIBRARYNAME library-name-pattern] [WITHCODE]", "Returns information about all libraries.";
    "FUNCTION|RESTORE", -3, WRITE | DENYOOM | ALL_SHARDS, [], "scripting", functions::function_restore, "serialized-value [FLUSH | APPEND | REPLACE]", "Restores all libraries from a payload.";
    "FUNCTION|STATS", 2, 0, [], "scripting", functions::function_stats, "", "Returns information about a function during execution.";
};

const XGROUP_SUBCOMMANDS: &[Command] = rows! { args from 2;
    "XGROUP|CREATE", -5, WRITE | DENYOOM, [key(RW | INSERT, 2)], "stream", stream::xgroup_create, "key group <id | $> [MKSTREAM] [ENTRIESREAD entries-read]", "Creates a consumer group.";
    "XGROUP|CREATECONSUMER", 5, WRITE | DENYOOM, [key(RW | INSERT, 2)], "stream", stream::xgroup_createconsumer, "key group consumer", "Creates a consumer in a consumer group.";
    "XGROUP|DELCONSUMER", 5, WRITE, [key(RW | DELETE, 2)], "stream", stream::xgroup_delconsumer, "key group consumer", "Deletes a consumer from a consumer group.";
    "XGROUP|DESTROY", 4, WRITE, [key(RW | DELETE, 2)], "stream", stream::xgroup_destroy, "key group", "Destroys a consumer group.";
    "XGROUP|SETID", -5, WRITE, [key(RW | UPDATE, 2)], "stream", stream::xgroup_setid, "key group <id | $> [ENTRIESREAD entries-read]", "Sets the last-delivered ID of a consumer group.";
    "XGROUP|HELP", 2, 0, [], "stream", stream::xgroup_help, "", "Returns helpful text about the different subcommands.";
};

const XINFO_SUBCOMMANDS: &[Command] = rows! { args from 2;
    "XINFO|CONSUMERS", 4, READONLY, [key(RO | ACCESS, 2)], "stream", stream::xinfo_consumers, "key group", "Returns a list of the consumers in a consumer group.";
    "XINFO|GROUPS", 3, READONLY, [key(RO | ACCESS, 2)], "stream", stream::xinfo_groups, "key", "Returns a list of the consumer groups of a stream.";
    "XINFO|STREAM", -3, READONLY, [key(RO | ACCESS, 2)], "stream", stream::xinfo_stream, "key [FULL [COUNT count]]", "Returns information about a stream.";
    "XINFO|HELP", 2, 0, [], "stream", stream::xinfo_help, "", "Returns helpful text about the different subcommands.";
};

const SCRIPT_SUBCOMMANDS: &[Command] = rows! { args from 2;
    "SCRIPT|LOAD", 3, 0, [], "scripting", scripting::script_load, "script", "Loads a server-side Lua script to the script cache.";
    "SCRIPT|EXISTS", -3, 0, [], "scripting", scripting::script_exists, "sha1 [sha1 ...]", "Determines whether server-side Lua scripts exist in the script cache.";
    "SCRIPT|FLUSH", -2, 0, [], "scripting", scripting::script_flush, "[ASYNC | SYNC]", "Removes all server-side Lua scripts from the script cache.";
    "SCRIPT|KILL", 2, 0, [], "scripting", scripting::script_kill, "", "Terminates a server-side Lua script during execution.";
    "SCRIPT|HELP", 2, 0, [], "scripting", scripting::script_help, "", "Returns helpful text about the different subcommands.";
};

const PUBSUB_SUBCOMMANDS: &[Command] = rows! { args from 2;
    "PUBSUB|CHANNELS", -2, 0, [], "pubsub", pubsub::channels, "[pattern]", "Returns the active channels.";
    "PUBSUB|NUMSUB", -2, 0, [], "pubsub", pubsub::numsub, "[channel [channel ...]]", "Returns a count of subscribers to channels.";
    "PUBSUB|NUMPAT", 2, 0, [], "pubsub", pubsub::numpat, "", "Returns a count of unique pattern subscriptions.";
    "PUBSUB|SHARDCHANNELS", -2, 0, [], "pubsub", pubsub::shardchannels, "[pattern]", "Returns the active shard channels.";
    "PUBSUB|SHARDNUMSUB", -2, 0, [], "pubsub", pubsub::shardnumsub, "[shardchannel [shardchannel ...]]", "Returns the count of subscribers of shard channels.";
    "PUBSUB|HELP", 2, 0, [], "pubsub", pubsub::help, "", "Returns helpful text about the different subcommands.";
};

/// A container's own handler. Dispatch runs a subcommand's row whenever a subcommand is
/// named, and a container's arity (-2) refuses it alone; this answers as that refusal would.
fn container(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::WrongArity(ctx.cmd.full_name()))
}

/// Every row, each at the index its stats are counted under: the commands in `COMMANDS`
/// order (so a command's index is its index there), then each container's subcommands.
pub fn rows() -> &'static [&'static Command] {
    &table_index().rows
}

struct Index {
    rows: Vec<&'static Command>,
    /// For each command in `COMMANDS`, where its subcommands start in `rows`.
    sub_start: Vec<usize>,
    /// Upper-case name to index in `COMMANDS`.
    by_name: HashMap<&'static [u8], usize, foldhash::fast::FixedState>,
}

fn table_index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut rows: Vec<&'static Command> = COMMANDS.iter().collect();
        let mut sub_start = Vec::with_capacity(COMMANDS.len());
        for c in COMMANDS {
            sub_start.push(rows.len());
            rows.extend(c.subcommands.iter());
        }
        // foldhash, not std's SipHash: this runs once per command, and names are not secret.
        let by_name = COMMANDS.iter().enumerate().map(|(i, c)| (c.name.as_bytes(), i)).collect();
        Index { rows, sub_start, by_name }
    })
}

/// Finds a command by name, ignoring case. Returns its index in `COMMANDS` too (its index
/// in `rows()`, for stats). A container comes back as itself: see `lookup_subcommand`.
pub fn lookup(name: &[u8]) -> Option<(usize, &'static Command)> {
    let mut buf = [0u8; 32];
    if name.len() > buf.len() {
        return None;
    }
    let upper = &mut buf[..name.len()];
    upper.copy_from_slice(name);
    upper.make_ascii_uppercase();
    table_index().by_name.get(&*upper).map(|&i| (i, &COMMANDS[i]))
}

/// A subcommand of the container at `index` (as `lookup` answered it), ignoring case, with
/// its index in `rows()`. A container has a handful of subcommands: a scan beats hashing.
pub fn lookup_subcommand(index: usize, container: &'static Command, name: &[u8]) -> Option<(usize, &'static Command)> {
    let at = container.subcommands.iter().position(|s| s.sub_name().as_bytes().eq_ignore_ascii_case(name))?;
    Some((table_index().sub_start[index] + at, &container.subcommands[at]))
}

/// A command or subcommand by Redis's full name, ignoring case (`get`, `client|list`), as
/// COMMAND INFO and COMMAND DOCS take them.
pub fn lookup_full_name(name: &[u8]) -> Option<&'static Command> {
    match name.iter().position(|&b| b == b'|') {
        None => lookup(name).map(|(_, c)| c),
        Some(bar) => {
            let (i, container) = lookup(&name[..bar])?;
            lookup_subcommand(i, container, &name[bar + 1..]).map(|(_, s)| s)
        }
    }
}

/// The row at `index` in `rows()` (as `lookup` or `lookup_subcommand` returned it).
pub fn row(index: usize) -> &'static Command {
    rows()[index]
}

/// The name CLIENT LIST shows for the row at `index` in `rows()` (its full name, lower case:
/// `client|list`), or `None` for none; the clients registry keeps only the index (it sits
/// below the table).
pub fn name_of(index: usize) -> Option<String> {
    rows().get(index).map(|c| c.full_name())
}

#[cfg(test)]
mod readme;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_ignores_case_and_rejects_unknown() {
        assert_eq!(lookup(b"get").map(|(_, c)| c.name), Some("GET"));
        assert_eq!(lookup(b"GeT").map(|(_, c)| c.name), Some("GET"));
        assert!(lookup(b"nosuch").is_none());
        assert!(lookup(&[b'a'; 100]).is_none());
    }

    #[test]
    fn names_are_unique_and_upper_case() {
        let mut seen = std::collections::HashSet::new();
        for c in rows() {
            assert!(seen.insert(c.name), "duplicate {}", c.name);
            assert_eq!(c.name, c.name.to_ascii_uppercase());
            assert!(!c.summary.is_empty());
        }
    }

    #[test]
    fn subcommand_rows_sit_under_their_container() {
        for (i, c) in COMMANDS.iter().enumerate() {
            assert_eq!((c.container(), c.args_start()), (None, 1), "{}", c.name);
            for (j, sub) in c.subcommands.iter().enumerate() {
                assert_eq!(sub.container(), Some(c.name), "{}", sub.name);
                assert_eq!(sub.args_start(), 2, "{}", sub.name);
                assert!(sub.subcommands.is_empty(), "one level of subcommands, as Redis");
                // Redis's arity counts the container and the subcommand.
                assert!(sub.arity >= 2 || sub.arity <= -2, "{}: {}", sub.name, sub.arity);
                // The stats index `lookup_subcommand` answers is the row's place in `rows()`.
                let (at, found) = lookup_subcommand(i, c, sub.sub_name().to_ascii_lowercase().as_bytes()).unwrap();
                assert!(std::ptr::eq(found, sub) && std::ptr::eq(rows()[at], sub), "{} {j}", sub.name);
            }
            // Every container but COMMAND needs a subcommand; each answers HELP.
            if c.is_container() {
                assert_eq!(c.arity, if c.name == "COMMAND" { -1 } else { -2 }, "{}", c.name);
                assert!(lookup_subcommand(i, c, b"help").is_some(), "{} HELP", c.name);
            }
        }
        assert_eq!(rows().len(), COMMANDS.len() + COMMANDS.iter().map(|c| c.subcommands.len()).sum::<usize>());
        for (i, c) in COMMANDS.iter().enumerate() {
            assert!(std::ptr::eq(rows()[i], c), "a command's stats index is its index in COMMANDS");
        }
    }

    #[test]
    fn subcommands_are_found_by_name_or_full_name_ignoring_case() {
        let (i, client) = lookup(b"client").unwrap();
        assert_eq!(lookup_subcommand(i, client, b"SetName").map(|(_, c)| c.name), Some("CLIENT|SETNAME"));
        assert!(lookup_subcommand(i, client, b"nosuch").is_none());
        assert!(lookup_subcommand(i, client, b"").is_none());
        assert_eq!(lookup_full_name(b"Object|Encoding").map(|c| c.name), Some("OBJECT|ENCODING"));
        assert_eq!(lookup_full_name(b"get").map(|c| c.name), Some("GET"));
        assert_eq!(lookup_full_name(b"client").map(|c| c.name), Some("CLIENT"));
        for missing in [&b"get|x"[..], b"object|", b"|encoding", b"object|encoding|x", b"client list", b"nosuch|x"] {
            assert!(lookup_full_name(missing).is_none(), "{}", String::from_utf8_lossy(missing));
        }
        let list = lookup_full_name(b"client|list").unwrap();
        assert_eq!(
            (list.full_name(), list.container(), list.sub_name()),
            ("client|list".into(), Some("CLIENT"), "LIST")
        );
    }

    fn keys_of(name: &[u8], argv: &[&str]) -> Vec<String> {
        let c = lookup_full_name(name).unwrap();
        let argv: Vec<&[u8]> = argv.iter().map(|a| a.as_bytes()).collect();
        c.keys(&argv).map(|k| String::from_utf8_lossy(k).into_owned()).collect()
    }

    #[test]
    fn every_row_has_redis_meta_and_agrees_on_flags() {
        for c in rows() {
            let meta = c.meta();
            assert!(!std::ptr::eq(meta, &NO_META), "{} has no Redis meta", c.name);
            assert!(meta.since.is_some() && !meta.acl_categories.is_empty(), "{}", c.name);
            // Vitrine's behavioural flags are Redis's where both have them (containers keep
            // their own: CONFIG admin, OBJECT and MEMORY readonly, for the dashboard).
            if c.is_container() {
                continue;
            }
            for (flag, name) in [
                (WRITE, "write"),
                (READONLY, "readonly"),
                (DENYOOM, "denyoom"),
                (BLOCKING, "blocking"),
                (NOAUTH, "no_auth"),
            ] {
                assert_eq!(c.flags & flag != 0, meta.flags.contains(&name), "{} {name}", c.name);
            }
            // Every key argument of the docs names a key spec the row has.
            fn key_args(args: &[Arg], out: &mut Vec<i32>) {
                for a in args {
                    if a.key_spec_index >= 0 {
                        out.push(a.key_spec_index);
                    }
                    key_args(a.args, out);
                }
            }
            let mut indexes = vec![];
            key_args(meta.args, &mut indexes);
            assert!(indexes.iter().all(|&i| (i as usize) < c.key_specs.len()), "{}: {indexes:?}", c.name);
        }
        let names: Vec<&str> = meta::META.iter().map(|(n, _)| *n).collect();
        assert!(names.windows(2).all(|w| w[0] < w[1]), "META is sorted for binary search");
    }

    #[test]
    fn key_layouts_are_redis_legacy_ranges() {
        let layout = |n: &[u8]| {
            let l = lookup_full_name(n).unwrap().key_layout;
            (l.first, l.last, l.step, l.movable, l.plain)
        };
        assert_eq!(layout(b"get"), (1, 1, 1, false, true));
        assert_eq!(layout(b"set"), (1, 1, 1, false, true), "SET's GET flags do not slow its keys down");
        assert_eq!(layout(b"mset"), (1, -1, 2, false, true));
        assert_eq!(layout(b"blpop"), (1, -2, 1, false, true));
        assert_eq!(layout(b"rename"), (1, 2, 1, false, false));
        assert_eq!(layout(b"sinterstore"), (1, -1, 1, false, false));
        assert_eq!(layout(b"lmpop"), (0, 0, 0, true, false));
        assert_eq!(layout(b"zunionstore"), (1, 1, 1, true, false));
        assert_eq!(layout(b"sort"), (1, 1, 1, true, false));
        assert_eq!(layout(b"spublish"), (1, 1, 1, false, false), "a channel is in the range, not a key");
        assert_eq!(layout(b"object|encoding"), (2, 2, 1, false, true));
        assert_eq!(layout(b"ping"), (0, 0, 0, false, false));
    }

    #[test]
    fn dispatch_locks_what_the_key_specs_name() {
        assert_eq!(keys_of(b"lmpop", &["LMPOP", "2", "a", "b", "LEFT", "COUNT", "3"]), ["a", "b"]);
        assert_eq!(keys_of(b"blmpop", &["BLMPOP", "0", "1", "a", "RIGHT"]), ["a"]);
        assert_eq!(keys_of(b"zunionstore", &["ZUNIONSTORE", "d", "2", "a", "b", "WEIGHTS", "1", "2"]), ["d", "a", "b"]);
        assert_eq!(keys_of(b"zinter", &["ZINTER", "1", "a", "WITHSCORES"]), ["a"]);
        assert_eq!(keys_of(b"sintercard", &["SINTERCARD", "2", "a", "b", "LIMIT", "1"]), ["a", "b"]);
        assert_eq!(keys_of(b"rename", &["RENAME", "a", "b"]), ["a", "b"]);
        assert_eq!(keys_of(b"sinterstore", &["SINTERSTORE", "d", "a", "b"]), ["d", "a", "b"]);
        // A key count the command will refuse locks every argument it might mean.
        assert_eq!(keys_of(b"lmpop", &["LMPOP", "x", "a", "LEFT"]), ["a", "LEFT"]);
        assert_eq!(keys_of(b"lmpop", &["LMPOP", "9", "a", "LEFT"]), ["a", "LEFT"]);
        assert_eq!(keys_of(b"zunionstore", &["ZUNIONSTORE", "d", "-1", "a"]), ["d", "a"]);
        // Channels are not keys; SORT's patterns are not either (it locks every shard).
        assert!(keys_of(b"spublish", &["SPUBLISH", "c", "m"]).is_empty());
        assert_eq!(keys_of(b"sort", &["SORT", "k", "BY", "x", "STORE", "d"]), ["k"]);
        assert_eq!(keys_of(b"mget", &["MGET", "a", "b"]), ["a", "b"]);
    }

    #[test]
    fn getkeys_follows_redis() {
        let getkeys = |argv: &[&str]| {
            let argv: Vec<&[u8]> = argv.iter().map(|a| a.as_bytes()).collect();
            let c = lookup(argv[0]).unwrap().1;
            c.getkeys(&argv).map(|k| {
                k.iter()
                    .map(|&(at, f)| (at, keyspec::key_flag_names(f).collect::<Vec<_>>().join(" ")))
                    .collect::<Vec<_>>()
            })
        };
        let one = |at: usize, f: &str| Some(vec![(at, f.to_string())]);
        assert_eq!(getkeys(&["SET", "k", "v"]), one(1, "OW update"));
        assert_eq!(getkeys(&["SET", "k", "v", "gEt"]), one(1, "RW access update"));
        assert_eq!(getkeys(&["SORT_RO", "k", "BY", "x"]), one(1, "RO access"));
        assert_eq!(
            getkeys(&["SORT", "k", "LIMIT", "0", "1", "GET", "store", "STORE", "d"]),
            Some(vec![(1, "RO access".into()), (8, "OW update".into())])
        );
        assert_eq!(getkeys(&["LMPOP", "0", "a", "LEFT"]), None, "no key: Redis's invalid arguments");
        assert_eq!(getkeys(&["LMPOP", "3", "a", "LEFT"]), None);
        assert_eq!(getkeys(&["ZUNION", "2", "a", "b"]).map(|k| k.len()), Some(2));
    }

    #[test]
    fn keyword_specs_search_from_either_end() {
        use keyspec::*;
        let spec = [keyword(RO | ACCESS, "STREAMS", 1, -1, 1, 2)];
        let argv: Vec<&[u8]> = vec![b"XREAD", b"COUNT", b"2", b"STREAMS", b"a", b"b", b"0", b"0"];
        assert_eq!(positions(&spec, &argv), Ok(vec![(4, RO | ACCESS), (5, RO | ACCESS)]));
        let back = [keyword(RW, "KEYS", -2, -1, 1, 0)];
        let argv: Vec<&[u8]> = vec![b"M", b"h", b"p", b"", b"0", b"5", b"KEYS", b"a", b"b"];
        assert_eq!(positions(&back, &argv), Ok(vec![(7, RW), (8, RW)]));
        let argv: Vec<&[u8]> = vec![b"M", b"h", b"p", b"k"];
        assert_eq!(positions(&back, &argv), Ok(vec![]), "no keyword, no keys");
        assert_eq!(layout(&spec), KeyLayout { first: 0, last: 0, step: 0, movable: true, plain: false });
    }

    #[test]
    fn key_specs_pick_the_right_arguments() {
        let (_, mset) = lookup(b"MSET").unwrap();
        let argv: Vec<&[u8]> = vec![b"MSET", b"a", b"1", b"b", b"2"];
        assert_eq!(mset.keys(&argv).collect::<Vec<_>>(), vec![&b"a"[..], b"b"]);
        // A subcommand's key positions count the container and the subcommand.
        let encoding = lookup_full_name(b"OBJECT|ENCODING").unwrap();
        let argv: Vec<&[u8]> = vec![b"OBJECT", b"ENCODING", b"k"];
        assert_eq!(encoding.keys(&argv).collect::<Vec<_>>(), vec![&b"k"[..]]);
        let usage = lookup_full_name(b"MEMORY|USAGE").unwrap();
        let argv: Vec<&[u8]> = vec![b"MEMORY", b"USAGE", b"k", b"SAMPLES", b"5"];
        assert_eq!(usage.keys(&argv).collect::<Vec<_>>(), vec![&b"k"[..]]);
        let help = lookup_full_name(b"OBJECT|HELP").unwrap();
        assert_eq!(help.keys(&[&b"OBJECT"[..], b"HELP"]).count(), 0);
        let (_, ping) = lookup(b"PING").unwrap();
        assert_eq!(ping.keys(&[&b"PING"[..]]).count(), 0);
    }
}
