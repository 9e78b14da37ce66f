//! Reading Redis's RDB format, for the base of a Redis 7 append-only file (its default
//! `aof-use-rdb-preamble yes`): the file's opcodes (databases, expiry times, functions, aux
//! fields) and the CRC-64 at the end, which is checked before anything is used. Each value is
//! decoded by the engine's RDB module (`vitrine_engine::rdb`, the one decoder DUMP / RESTORE
//! use too), so every type and encoding RESTORE takes loads here as well. Anything else is
//! an error naming its offset.

/// One key as the RDB holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct Key {
    /// Where its record starts in the file (for errors on replay).
    pub at: usize,
    /// The database it is in (the last SELECTDB before it).
    pub db: usize,
    pub key: Vec<u8>,
    pub value: Value,
    /// Absolute expiry, unix milliseconds.
    pub expire_ms: Option<u64>,
    /// For a stream: its DUMP payload, which `commands` RESTOREs.
    pub restore: Option<Vec<u8>>,
}

/// What went wrong, at which byte.
pub use vitrine_engine::rdb::Error;
/// A decoded value (the engine's).
pub use vitrine_engine::rdb::Value;

/// A parsed RDB: its function libraries, its keys and where it ends (after the checksum).
#[derive(Debug)]
pub struct Rdb {
    /// Each library's code (loaded with FUNCTION LOAD), with where its record starts.
    pub functions: Vec<(usize, Vec<u8>)>,
    pub keys: Vec<Key>,
    pub end: usize,
}

const OP_FUNCTION2: u8 = 245;
const OP_MODULE_AUX: u8 = 247;
const OP_IDLE: u8 = 248;
const OP_FREQ: u8 = 249;
const OP_AUX: u8 = 250;
const OP_RESIZEDB: u8 = 251;
const OP_EXPIRETIME_MS: u8 = 252;
const OP_EXPIRETIME: u8 = 253;
const OP_SELECTDB: u8 = 254;
const OP_EOF: u8 = 255;

/// CRC-64/Jones as Redis checksums RDB files (the engine's, which DUMP / RESTORE use too).
pub use vitrine_engine::rdb::codec::crc64;
use vitrine_engine::rdb::primitives::Reader;
use vitrine_engine::rdb::{decode, payload};

/// Parses an RDB file (from `REDIS<version>` to its CRC-64) and checks its checksum. Keys
/// already expired are kept with their times: the engine drops them when they are loaded.
pub fn parse(data: &[u8]) -> Result<Rdb, Error> {
    let mut r = Reader::new(data);
    let magic = r.bytes(9)?;
    if &magic[..5] != b"REDIS" {
        return Err(Error { offset: 0, why: "not an RDB file (no REDIS signature)".into() });
    }
    let version: u32 = std::str::from_utf8(&magic[5..])
        .ok()
        .and_then(|v| v.parse().ok())
        .ok_or(Error { offset: 5, why: "an RDB version that is not a number".into() })?;
    if !(1..=u32::from(vitrine_engine::rdb::RDB_VERSION_MAX)).contains(&version) {
        let max = vitrine_engine::rdb::RDB_VERSION_MAX;
        return Err(Error { offset: 5, why: format!("RDB version {version}, newer than Redis 7.4's {max}") });
    }
    let mut keys = Vec::new();
    let mut functions = Vec::new();
    let mut expire_ms = None;
    let mut db = 0;
    loop {
        let at = r.pos;
        let op = r.u8()?;
        match op {
            OP_EOF => break,
            OP_AUX => {
                r.string()?;
                r.string()?;
            }
            OP_RESIZEDB => {
                r.length()?;
                r.length()?;
            }
            OP_SELECTDB => {
                // Checked against `databases` when the keys are loaded (a SELECT each).
                db = usize::try_from(r.length()?).unwrap_or(usize::MAX);
            }
            OP_EXPIRETIME_MS => expire_ms = Some(u64::from_le_bytes(r.array::<8>()?)),
            OP_EXPIRETIME => expire_ms = Some(u64::from(u32::from_le_bytes(r.array::<4>()?)) * 1000),
            OP_IDLE => {
                r.length()?;
            }
            OP_FREQ => {
                r.u8()?;
            }
            OP_FUNCTION2 => functions.push((at, r.string()?)),
            OP_MODULE_AUX => {
                return Err(Error { offset: at, why: "Redis module data, which Vitrine cannot load".into() });
            }
            kind => {
                let key = r.string()?;
                let start = r.pos;
                let value = decode::read_value(&mut r, kind)?;
                // A stream is rebuilt with RESTORE of its own bytes (no command sequence
                // recreates its groups, PELs and deleted-entry bookkeeping exactly).
                let restore = matches!(value, Value::Stream(_)).then(|| {
                    let mut body = vec![kind];
                    body.extend_from_slice(&data[start..r.pos]);
                    payload::frame_version(body, version.min(u32::from(u16::MAX)) as u16)
                });
                keys.push(Key { at, db, key, value, expire_ms: expire_ms.take(), restore });
            }
        }
    }
    let body_end = r.pos;
    if version >= 5 {
        let stored = u64::from_le_bytes(r.array::<8>()?);
        // Redis writes 0 when `rdbchecksum no`.
        if stored != 0 && stored != crc64(&data[..body_end]) {
            return Err(Error {
                offset: body_end,
                why: format!("the RDB checksum at offset {body_end} does not match its contents (the file is damaged)"),
            });
        }
    }
    Ok(Rdb { functions, keys, end: r.pos })
}

/// The commands that rebuild `key` in Vitrine, in at most `batch` elements each.
pub fn commands(key: &Key, batch: usize) -> Vec<Vec<Vec<u8>>> {
    let k = key.key.clone();
    let with = |name: &str, items: Vec<Vec<u8>>| -> Vec<Vec<Vec<u8>>> {
        items
            .chunks(batch.max(2) & !1)
            .map(|c| {
                let mut argv = vec![name.as_bytes().to_vec(), k.clone()];
                argv.extend(c.iter().cloned());
                argv
            })
            .collect()
    };
    let mut out = match &key.value {
        Value::String(v) => vec![vec![b"SET".to_vec(), k.clone(), v.clone()]],
        Value::List(items) => with("RPUSH", items.clone()),
        Value::Set(items) => with("SADD", items.clone()),
        Value::ZSet(items) => {
            with("ZADD", items.iter().flat_map(|(m, s)| [score_text(*s).into_bytes(), m.clone()]).collect())
        }
        Value::Hash(items) => with("HSET", items.iter().flat_map(|(f, v)| [f.clone(), v.clone()]).collect()),
        Value::HashTtl(items) => {
            let mut out = with("HSET", items.iter().flat_map(|(f, v, _)| [f.clone(), v.clone()]).collect());
            for (f, _, at) in items.iter().filter(|(_, _, at)| *at != 0) {
                let (at, one) = (at.to_string().into_bytes(), b"1".to_vec());
                out.push(vec![b"HPEXPIREAT".to_vec(), k.clone(), at, b"FIELDS".to_vec(), one, f.clone()]);
            }
            out
        }
        Value::Stream(_) => {
            let payload = key.restore.clone().unwrap_or_default();
            vec![vec![b"RESTORE".to_vec(), k.clone(), b"0".to_vec(), payload, b"REPLACE".to_vec()]]
        }
    };
    if let Some(ms) = key.expire_ms {
        out.push(vec![b"PEXPIREAT".to_vec(), k, ms.to_string().into_bytes()]);
    }
    out
}

/// A score as ZADD reads it back exactly (the shortest text that round-trips).
fn score_text(s: f64) -> String {
    if s == f64::INFINITY {
        "+inf".into()
    } else if s == f64::NEG_INFINITY {
        "-inf".into()
    } else {
        format!("{s:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc64_is_redis_jones_variant() {
        // The check value Redis's crc64.c tests against.
        assert_eq!(crc64(b"123456789"), 0xe9c6_d914_c4b8_d9ca);
    }

    #[test]
    fn a_small_rdb_parses_and_a_flip_fails_its_checksum() {
        let mut f = b"REDIS0010".to_vec();
        f.extend([OP_AUX, 0x03]);
        f.extend(b"ver");
        f.extend([0x03]);
        f.extend(b"7.0");
        f.extend([OP_SELECTDB, 0x00, OP_RESIZEDB, 0x02, 0x01]);
        f.push(OP_EXPIRETIME_MS);
        f.extend(1_700_000_000_000u64.to_le_bytes());
        f.extend([0, 0x01, b'k', 0xc0, 0x7b]); // k = int8 123 (type 0, a string)
        f.extend([11, 0x01, b's', 0x0c, 2, 0, 0, 0, 2, 0, 0, 0, 0xff, 0xff, 1, 0]);
        f.push(OP_EOF);
        let crc = crc64(&f);
        f.extend(crc.to_le_bytes());
        let rdb = parse(&f).unwrap();
        assert_eq!(rdb.end, f.len());
        assert_eq!(rdb.keys[0].value, Value::String(b"123".to_vec()));
        assert_eq!(rdb.keys[0].expire_ms, Some(1_700_000_000_000));
        assert_eq!(rdb.keys[1].value, Value::Set(vec![b"-1".to_vec(), b"1".to_vec()]));
        assert_eq!(rdb.keys[1].expire_ms, None);
        for i in 9..f.len() {
            let mut bad = f.clone();
            bad[i] ^= 0x10;
            assert!(parse(&bad).is_err(), "a flip at {i} was not noticed");
        }
        // The same keys in database 3 (a new checksum): each key says so.
        let mut db = f[..f.len() - 8].to_vec();
        assert_eq!(db[18..20], [OP_SELECTDB, 0]);
        db[19] = 3;
        let crc = crc64(&db);
        db.extend(crc.to_le_bytes());
        let rdb = parse(&db).unwrap();
        assert_eq!(rdb.keys.iter().map(|k| k.db).collect::<Vec<_>>(), [3, 3]);
        assert_eq!(rdb.keys[0].key, b"k");
    }
}
