//! THE command table: every command's wire name, arity, flags, key positions, group, summary
//! and handler. Dispatch, COMMAND, the admin API's help and the playground read it from here.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::args::Args;
use crate::cmd::{keys, server, string};
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::reply::Reply;

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

pub const FLAG_NAMES: &[(u32, &str)] = &[
    (WRITE, "write"),
    (READONLY, "readonly"),
    (DENYOOM, "denyoom"),
    (FAST, "fast"),
    (NOAUTH, "no_auth"),
    (ADMIN, "admin"),
    (SLOW, "slow"),
];

pub struct Command {
    /// Upper-case wire name.
    pub name: &'static str,
    /// Argument count including the name; `-N` means at least N.
    pub arity: i32,
    pub flags: u32,
    /// Key positions in argv, as Redis's legacy key spec: first, last (negative counts from
    /// the end), step. (0, 0, 0) = no keys.
    pub first_key: i32,
    pub last_key: i32,
    pub step: i32,
    pub group: &'static str,
    pub summary: &'static str,
    /// Syntax after the name, as Redis's docs write it.
    pub syntax: &'static str,
    pub handler: Handler,
    /// Bytes a write may add beyond its arguments (SETRANGE's offset), for memory admission.
    pub grow: Option<GrowthEstimate>,
}

impl Command {
    /// The keys this invocation names, per the key spec.
    pub fn keys<'a>(&self, argv: &'a [&'a [u8]]) -> impl Iterator<Item = &'a [u8]> + 'a {
        let argc = argv.len() as i32;
        let (first, step) = (self.first_key, self.step.max(1));
        let last = if self.last_key < 0 { argc + self.last_key } else { self.last_key.min(argc - 1) };
        let range = if first == 0 || first >= argc { 0..0 } else { first..last + 1 };
        range.step_by(step as usize).filter_map(move |i| argv.get(i as usize).copied())
    }

    pub fn has(&self, flag: u32) -> bool {
        self.flags & flag != 0
    }

    pub fn flag_names(&self) -> Vec<&'static str> {
        FLAG_NAMES.iter().filter(|(f, _)| self.flags & f != 0).map(|(_, n)| *n).collect()
    }
}

macro_rules! commands {
    ($( $name:literal, $arity:expr, $flags:expr, ($f:expr, $l:expr, $s:expr), $group:literal, $handler:path, $syntax:literal, $summary:literal $(, grow = $grow:expr)? ; )*) => {
        pub static COMMANDS: &[Command] = &[
            $( Command { name: $name, arity: $arity, flags: $flags, first_key: $f, last_key: $l, step: $s, group: $group, handler: $handler, syntax: $syntax, summary: $summary, grow: commands!(@grow $($grow)?) }, )*
        ];
    };
    (@grow) => { None };
    (@grow $g:expr) => { Some($g) };
}

commands! {
    // Strings
    "GET", 2, READONLY | FAST, (1, 1, 1), "string", string::get, "key", "Returns the string value of a key.";
    "SET", -3, WRITE | DENYOOM, (1, 1, 1), "string", string::set, "key value [NX | XX] [GET] [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL]", "Sets the string value of a key, ignoring its type. The key is created if it doesn't exist.";
    "SETNX", 3, WRITE | DENYOOM | FAST, (1, 1, 1), "string", string::setnx, "key value", "Set the string value of a key only when the key doesn't exist.";
    "SETEX", 4, WRITE | DENYOOM, (1, 1, 1), "string", string::setex, "key seconds value", "Sets the string value and expiration time of a key. Creates the key if it doesn't exist.";
    "PSETEX", 4, WRITE | DENYOOM, (1, 1, 1), "string", string::psetex, "key milliseconds value", "Sets both string value and expiration time in milliseconds of a key. The key is created if it doesn't exist.";
    "MGET", -2, READONLY | FAST, (1, -1, 1), "string", string::mget, "key [key ...]", "Atomically returns the string values of one or more keys.";
    "MSET", -3, WRITE | DENYOOM, (1, -1, 2), "string", string::mset, "key value [key value ...]", "Atomically creates or modifies the string values of one or more keys.";
    "MSETNX", -3, WRITE | DENYOOM, (1, -1, 2), "string", string::msetnx, "key value [key value ...]", "Atomically modifies the string values of one or more keys only when all keys don't exist.";
    "GETSET", 3, WRITE | DENYOOM | FAST, (1, 1, 1), "string", string::getset, "key value", "Returns the previous string value of a key after setting it to a new value.";
    "GETDEL", 2, WRITE | FAST, (1, 1, 1), "string", string::getdel, "key", "Returns the string value of a key after deleting the key.";
    "GETEX", -2, WRITE | FAST, (1, 1, 1), "string", string::getex, "key [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | PERSIST]", "Returns the string value of a key after setting its expiration time.";
    "APPEND", 3, WRITE | DENYOOM | FAST, (1, 1, 1), "string", string::append, "key value", "Appends a string to the value of a key. Creates the key if it doesn't exist.";
    "STRLEN", 2, READONLY | FAST, (1, 1, 1), "string", string::strlen, "key", "Returns the length of a string value.";
    "GETRANGE", 4, READONLY, (1, 1, 1), "string", string::getrange, "key start end", "Returns a substring of the string stored at a key.";
    "SETRANGE", 4, WRITE | DENYOOM, (1, 1, 1), "string", string::setrange, "key offset value", "Overwrites a part of a string value with another by an offset. Creates the key if it doesn't exist.", grow = string::setrange_growth;
    "INCR", 2, WRITE | DENYOOM | FAST, (1, 1, 1), "string", string::incr, "key", "Increments the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.";
    "DECR", 2, WRITE | DENYOOM | FAST, (1, 1, 1), "string", string::decr, "key", "Decrements the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.";
    "INCRBY", 3, WRITE | DENYOOM | FAST, (1, 1, 1), "string", string::incrby, "key increment", "Increments the integer value of a key by a number. Uses 0 as initial value if the key doesn't exist.";
    "DECRBY", 3, WRITE | DENYOOM | FAST, (1, 1, 1), "string", string::decrby, "key decrement", "Decrements a number from the integer value of a key. Uses 0 as initial value if the key doesn't exist.";
    "INCRBYFLOAT", 3, WRITE | DENYOOM | FAST, (1, 1, 1), "string", string::incrbyfloat, "key increment", "Increment the floating point value of a key by a number. Uses 0 as initial value if the key doesn't exist.";
    // Keys
    "DEL", -2, WRITE, (1, -1, 1), "generic", keys::del, "key [key ...]", "Deletes one or more keys.";
    "UNLINK", -2, WRITE | FAST, (1, -1, 1), "generic", keys::unlink, "key [key ...]", "Asynchronously deletes one or more keys.";
    "EXISTS", -2, READONLY | FAST, (1, -1, 1), "generic", keys::exists, "key [key ...]", "Determines whether one or more keys exist.";
    "TYPE", 2, READONLY | FAST, (1, 1, 1), "generic", keys::type_, "key", "Determines the type of value stored at a key.";
    "EXPIRE", -3, WRITE | FAST, (1, 1, 1), "generic", keys::expire, "key seconds [NX | XX | GT | LT]", "Sets the expiration time of a key in seconds.";
    "PEXPIRE", -3, WRITE | FAST, (1, 1, 1), "generic", keys::pexpire, "key milliseconds [NX | XX | GT | LT]", "Sets the expiration time of a key in milliseconds.";
    "EXPIREAT", -3, WRITE | FAST, (1, 1, 1), "generic", keys::expireat, "key unix-time-seconds [NX | XX | GT | LT]", "Sets the expiration time of a key to a Unix timestamp.";
    "PEXPIREAT", -3, WRITE | FAST, (1, 1, 1), "generic", keys::pexpireat, "key unix-time-milliseconds [NX | XX | GT | LT]", "Sets the expiration time of a key to a Unix milliseconds timestamp.";
    "TTL", 2, READONLY | FAST, (1, 1, 1), "generic", keys::ttl, "key", "Returns the expiration time in seconds of a key.";
    "PTTL", 2, READONLY | FAST, (1, 1, 1), "generic", keys::pttl, "key", "Returns the expiration time in milliseconds of a key.";
    "EXPIRETIME", 2, READONLY | FAST, (1, 1, 1), "generic", keys::expiretime, "key", "Returns the expiration time of a key as a Unix timestamp.";
    "PEXPIRETIME", 2, READONLY | FAST, (1, 1, 1), "generic", keys::pexpiretime, "key", "Returns the expiration time of a key as a Unix milliseconds timestamp.";
    "PERSIST", 2, WRITE | FAST, (1, 1, 1), "generic", keys::persist, "key", "Removes the expiration time of a key.";
    "RENAME", 3, WRITE, (1, 2, 1), "generic", keys::rename, "key newkey", "Renames a key and overwrites the destination.";
    "RENAMENX", 3, WRITE | FAST, (1, 2, 1), "generic", keys::renamenx, "key newkey", "Renames a key only when the target key name doesn't exist.";
    "KEYS", 2, READONLY | SLOW, (0, 0, 0), "generic", keys::keys, "pattern", "Returns all key names that match a pattern.";
    "SCAN", -2, READONLY, (0, 0, 0), "generic", keys::scan, "cursor [MATCH pattern] [COUNT count] [TYPE type]", "Iterates over the key names in the database.";
    "RANDOMKEY", 1, READONLY, (0, 0, 0), "generic", keys::randomkey, "", "Returns a random key name from the database.";
    "DBSIZE", 1, READONLY | FAST, (0, 0, 0), "server", keys::dbsize, "", "Returns the number of keys in the database.";
    "FLUSHDB", -1, WRITE | ADMIN | SLOW, (0, 0, 0), "server", keys::flushdb, "[ASYNC | SYNC]", "Remove all keys from the current database.";
    "FLUSHALL", -1, WRITE | ADMIN | SLOW, (0, 0, 0), "server", keys::flushall, "[ASYNC | SYNC]", "Removes all keys from all databases.";
    "TOUCH", -2, READONLY | FAST, (1, -1, 1), "generic", keys::touch, "key [key ...]", "Returns the number of existing keys out of those specified after updating the time they were last accessed.";
    "OBJECT", -2, READONLY, (2, 2, 1), "generic", keys::object, "<ENCODING | FREQ | IDLETIME | REFCOUNT | HELP> key", "A container for object introspection commands.";
    "MEMORY", -2, READONLY, (2, 2, 1), "server", keys::memory, "<USAGE key [SAMPLES count] | STATS | DOCTOR | HELP>", "A container for memory diagnostics commands.";
    // Hashes (cmd::hash)
    // Lists (cmd::list)
    // Sets (cmd::set)
    // Sorted sets (cmd::zset)
    // Transactions (cmd::tx)
    // Pub/sub (cmd::pubsub)
    // Server and connection
    "PING", -1, FAST, (0, 0, 0), "connection", server::ping, "[message]", "Returns the server's liveliness response.";
    "ECHO", 2, FAST, (0, 0, 0), "connection", server::echo, "message", "Returns the given string.";
    "QUIT", -1, FAST | NOAUTH, (0, 0, 0), "connection", server::quit, "", "Closes the connection.";
    "SELECT", 2, FAST, (0, 0, 0), "connection", server::select, "index", "Changes the selected database.";
    "HELLO", -1, FAST | NOAUTH, (0, 0, 0), "connection", server::hello, "[protover [AUTH username password] [SETNAME clientname]]", "Handshakes with the Redis server.";
    "AUTH", -2, FAST | NOAUTH, (0, 0, 0), "connection", server::auth, "[username] password", "Authenticates the connection.";
    "CLIENT", -2, 0, (0, 0, 0), "connection", server::client, "<ID | INFO | LIST | GETNAME | SETNAME name | SETINFO attr value | KILL ...>", "A container for client connection commands.";
    "COMMAND", -1, 0, (0, 0, 0), "server", server::command, "[COUNT | INFO name ... | DOCS name ... | LIST]", "Returns detailed information about all commands.";
    "INFO", -1, 0, (0, 0, 0), "server", server::info, "[section [section ...]]", "Returns information and statistics about the server.";
    "CONFIG", -2, ADMIN, (0, 0, 0), "server", server::config, "<GET parameter ... | SET parameter value ... | RESETSTAT>", "A container for server configuration commands.";
    "TIME", 1, FAST, (0, 0, 0), "server", server::time, "", "Returns the server time.";
    "LASTSAVE", 1, FAST, (0, 0, 0), "server", server::lastsave, "", "Returns the Unix timestamp of the last successful save to disk.";
}

/// Finds a command by name, ignoring case. Returns its index in `COMMANDS` too (for stats).
pub fn lookup(name: &[u8]) -> Option<(usize, &'static Command)> {
    // foldhash, not std's SipHash: this runs once per command, and names are not secret.
    static INDEX: OnceLock<HashMap<&'static [u8], usize, foldhash::fast::FixedState>> = OnceLock::new();
    let index = INDEX.get_or_init(|| COMMANDS.iter().enumerate().map(|(i, c)| (c.name.as_bytes(), i)).collect());
    let mut buf = [0u8; 32];
    if name.len() > buf.len() {
        return None;
    }
    let upper = &mut buf[..name.len()];
    upper.copy_from_slice(name);
    upper.make_ascii_uppercase();
    index.get(&*upper).map(|&i| (i, &COMMANDS[i]))
}

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
        for c in COMMANDS {
            assert!(seen.insert(c.name), "duplicate {}", c.name);
            assert_eq!(c.name, c.name.to_ascii_uppercase());
            assert!(!c.summary.is_empty());
        }
    }

    #[test]
    fn key_specs_pick_the_right_arguments() {
        let (_, mset) = lookup(b"MSET").unwrap();
        let argv: Vec<&[u8]> = vec![b"MSET", b"a", b"1", b"b", b"2"];
        assert_eq!(mset.keys(&argv).collect::<Vec<_>>(), vec![&b"a"[..], b"b"]);
        let (_, obj) = lookup(b"OBJECT").unwrap();
        let argv: Vec<&[u8]> = vec![b"OBJECT", b"HELP"];
        assert_eq!(obj.keys(&argv).count(), 0);
        let (_, ping) = lookup(b"PING").unwrap();
        assert_eq!(ping.keys(&[&b"PING"[..]]).count(), 0);
    }
}
