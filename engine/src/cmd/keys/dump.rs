//! DUMP and RESTORE: a key's value as Redis's serialization (the RDB value encoding, the RDB
//! version and a CRC64, see `rdb`), so values move between Vitrine and redis-server in both
//! directions. Also the session-free `Engine::dump_key` / `Engine::restore_key` the admin
//! API's export and import use.

use crate::args::Args;
use crate::engine::{Ctx, Engine};
use crate::error::CmdError;
use crate::notify::class;
use crate::num::parse_i64;
use crate::rdb::{self, payload, RDB_VERSION_MAX};
use crate::reply::Reply;
use crate::session::Session;
use crate::store::entry::ValueRef;

const BAD_PAYLOAD: &str = "DUMP payload version or checksum are wrong";
const BAD_FORMAT: &str = "Bad data format";

/// The DUMP payload of a value.
pub fn dump_value(v: ValueRef<'_>) -> Vec<u8> {
    let (body, version) = rdb::encode::encode(v);
    payload::frame_version(body, version)
}

/// Serializes a key's value as Redis does; nil for a missing key.
///
/// ```text
/// DUMP key
/// ```
pub fn dump(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let now = ctx.now;
    Ok(match ctx.db.lookup(key, now) {
        Some(e) => Reply::Bulk(dump_value(e.value).into()),
        None => Reply::Nil,
    })
}

/// RESTORE's options after the payload.
#[derive(Debug, Default)]
struct Options {
    replace: bool,
    absttl: bool,
    idle: Option<u64>,
    freq: Option<u8>,
}

/// Parses them as Redis's `restoreCommand`: IDLETIME and FREQ exclude each other (the later
/// one is then a syntax error).
fn options(args: &mut Args<'_>) -> Result<Options, CmdError> {
    let mut o = Options::default();
    while !args.is_empty() {
        let more = args.len() >= 2;
        if args.flag("REPLACE") {
            o.replace = true;
        } else if args.flag("ABSTTL") {
            o.absttl = true;
        } else if more && o.freq.is_none() && args.flag("IDLETIME") {
            let n = args.int()?;
            o.idle = Some(u64::try_from(n).map_err(|_| CmdError::err("Invalid IDLETIME value, must be >= 0"))?);
        } else if more && o.idle.is_none() && args.flag("FREQ") {
            let n = args.int()?;
            o.freq = Some(u8::try_from(n).map_err(|_| CmdError::err("Invalid FREQ value, must be >= 0 and <= 255"))?);
        } else {
            return Err(CmdError::Syntax);
        }
    }
    Ok(o)
}

/// Creates a key from a DUMP payload (from Vitrine or redis-server), with a TTL in
/// milliseconds (0: none; with ABSTTL, a unix time in milliseconds).
///
/// ```text
/// RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency]
/// ```
pub fn restore(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let ttl_arg = args.bytes()?;
    let data = args.bytes()?;
    let o = options(args)?;
    let now = ctx.now;
    if !o.replace && ctx.db.shard(key).contains(key, now) {
        return Err(CmdError::Other("BUSYKEY Target key name already exists.".into()));
    }
    let ttl = parse_i64(ttl_arg).ok_or(CmdError::NotInteger)?;
    if ttl < 0 {
        return Err(CmdError::err("Invalid TTL value, must be >= 0"));
    }
    payload::verify(data, RDB_VERSION_MAX).ok_or_else(|| CmdError::err(BAD_PAYLOAD))?;
    // Read from the whole payload, footer included, as Redis does: a value cut short
    // reads on into the version and checksum (so `\0` * 10 is an empty string there too).
    let decoded = rdb::decode::read_body(data).map_err(|_| CmdError::err(BAD_FORMAT))?;
    let value = rdb::build::build(&decoded, now);
    let shard = ctx.db.shard(key);
    let deleted = o.replace && shard.contains(key, now) && shard.remove(key).is_some();
    let expire_at = match (ttl as u64, o.absttl) {
        (0, _) => 0,
        (t, true) => t,
        (t, false) => t.saturating_add(now),
    };
    let Some(value) = value.filter(|_| expire_at == 0 || expire_at > now) else {
        // Already expired (or a hash whose fields all had): nothing is created, and a
        // replaced key is deleted, as Redis logs it.
        ctx.session.log_as = Some(if deleted { vec![vec![b"DEL".to_vec(), key.to_vec()]] } else { vec![] });
        if deleted {
            ctx.notify(class::GENERIC, "del", key);
        } else {
            ctx.leave_unchanged(0);
        }
        return Ok(Reply::Ok);
    };
    let stamps = ctx.engine.store().common.restored_stamps(now, o.idle, o.freq);
    let shard = ctx.db.shard(key);
    shard.insert(key, value, expire_at, now);
    shard.set_stamps(key, stamps);
    if expire_at != 0 && !o.absttl {
        // Logged with the absolute time, as Redis propagates it.
        let mut argv: Vec<Vec<u8>> = ctx.argv.iter().map(|a| a.to_vec()).collect();
        argv[2] = expire_at.to_string().into_bytes();
        argv.push(b"ABSTTL".to_vec());
        ctx.session.log_as = Some(vec![argv]);
    }
    // (The store publishes `new` for the key it adds, the replaced one being gone first.)
    ctx.notify(class::GENERIC, "restore", key);
    Ok(Reply::Ok)
}

/// Bytes a RESTORE may add beyond its arguments: the decoded value's elements cost more
/// than their bytes in the payload (a conservative allowance; the write is checked after).
pub fn restore_growth(argv: &[&[u8]]) -> usize {
    argv.get(3).map_or(0, |p| p.len().saturating_mul(2))
}

impl Engine {
    /// The DUMP payload of `key` in database `db`, without a session (the admin API's
    /// export); `None` when the key is missing. Counts as an access, as DUMP does.
    pub fn dump_key(&self, db: usize, key: &[u8], now_ms: u64) -> Option<Vec<u8>> {
        self.config().encodings().enter();
        let mut locked = self.store().lock_keys(db, [key]);
        locked.lookup(key, now_ms).map(|e| dump_value(e.value))
    }

    /// RESTOREs `payload` into `key` in database `db` through dispatch (so memory
    /// admission, the AOF, notifications, WATCH and tracking all see it), with an absolute
    /// expiry in unix ms (0: none). `session` is the caller's (the admin API's); its
    /// selected database is left as it was. Errors are Redis's texts.
    pub fn restore_key(
        &self,
        session: &mut Session,
        db: usize,
        key: &[u8],
        payload: &[u8],
        expire_at_ms: u64,
        replace: bool,
        now_ms: u64,
    ) -> Result<(), String> {
        let saved = session.db;
        session.db = db;
        let ttl = expire_at_ms.to_string();
        let mut argv: Vec<&[u8]> = vec![b"RESTORE", key, ttl.as_bytes(), payload, b"ABSTTL"];
        if replace {
            argv.push(b"REPLACE");
        }
        let reply = self.call(session, &argv, now_ms);
        session.db = saved;
        match reply {
            Reply::Error(e) => Err(e.to_string()),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
#[path = "dump_tests.rs"]
mod tests;
