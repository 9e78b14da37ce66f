//! Reading Redis's RDB format, for the base of a Redis 7 append-only file (its default
//! `aof-use-rdb-preamble yes`): the types Vitrine has (strings, lists, sets, sorted sets,
//! hashes) in the encodings Redis 7 writes, expiry times, and the CRC-64 at the end, which is
//! checked before anything is used. Anything else is an error naming its offset.
//!
//! Written from the format's description (Redis's rdb.h opcodes and types, listpack.md,
//! intset and LZF layouts); no Redis code is copied.

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
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    String(Vec<u8>),
    List(Vec<Vec<u8>>),
    Set(Vec<Vec<u8>>),
    /// Members with their scores.
    ZSet(Vec<(Vec<u8>, f64)>),
    /// Fields with their values.
    Hash(Pairs),
}

type Pairs = Vec<(Vec<u8>, Vec<u8>)>;

/// What went wrong, at which byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub offset: usize,
    pub why: String,
}

/// A parsed RDB: its function libraries, its keys and where it ends (after the checksum).
#[derive(Debug)]
pub struct Rdb {
    /// Each library's code (loaded with FUNCTION LOAD), with where its record starts.
    pub functions: Vec<(usize, Vec<u8>)>,
    pub keys: Vec<Key>,
    pub end: usize,
}

const TYPE_STRING: u8 = 0;
const TYPE_LIST: u8 = 1;
const TYPE_SET: u8 = 2;
const TYPE_ZSET: u8 = 3;
const TYPE_HASH: u8 = 4;
const TYPE_ZSET_2: u8 = 5;
const TYPE_SET_INTSET: u8 = 11;
const TYPE_HASH_LISTPACK: u8 = 16;
const TYPE_ZSET_LISTPACK: u8 = 17;
const TYPE_LIST_QUICKLIST_2: u8 = 18;
const TYPE_SET_LISTPACK: u8 = 20;

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

/// CRC-64/Jones as Redis checksums RDB files, and LZF, its compression of long strings (the
/// engine's, which FUNCTION DUMP / RESTORE use too).
pub use vitrine_engine::rdb_codec::crc64;
use vitrine_engine::rdb_codec::lzf_decompress as lzf;

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn err<T>(&self, why: impl Into<String>) -> Result<T, Error> {
        Err(Error { offset: self.pos, why: why.into() })
    }

    fn bytes(&mut self, n: usize) -> Result<&'a [u8], Error> {
        match self.pos.checked_add(n).filter(|&e| e <= self.data.len()) {
            Some(end) => {
                let s = &self.data[self.pos..end];
                self.pos = end;
                Ok(s)
            }
            None => self.err(format!("the file ends inside a {n}-byte field")),
        }
    }

    fn u8(&mut self) -> Result<u8, Error> {
        Ok(self.bytes(1)?[0])
    }

    fn le<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.bytes(N)?);
        Ok(a)
    }

    /// A length, or (`Err(Ok(kind))`) the kind of a specially encoded string.
    fn length_or_encoding(&mut self) -> Result<Result<u64, u8>, Error> {
        let first = self.u8()?;
        Ok(match first >> 6 {
            0 => Ok(u64::from(first & 0x3f)),
            1 => Ok((u64::from(first & 0x3f) << 8) | u64::from(self.u8()?)),
            2 => match first {
                0x80 => Ok(u64::from(u32::from_be_bytes(self.le::<4>()?))),
                0x81 => Ok(u64::from_be_bytes(self.le::<8>()?)),
                _ => return self.err(format!("unknown length encoding 0x{first:02x}")),
            },
            _ => Err(first & 0x3f),
        })
    }

    fn length(&mut self) -> Result<usize, Error> {
        let at = self.pos;
        match self.length_or_encoding()? {
            Ok(n) => usize::try_from(n)
                .ok()
                .filter(|&n| n <= self.data.len())
                .ok_or(Error { offset: at, why: format!("a length of {n}, more than the file holds") }),
            Err(_) => Err(Error { offset: at, why: "an encoded string where a length belongs".into() }),
        }
    }

    fn string(&mut self) -> Result<Vec<u8>, Error> {
        let at = self.pos;
        match self.length_or_encoding()? {
            Ok(n) => {
                let n = usize::try_from(n).map_err(|_| Error { offset: at, why: "a string too long".into() })?;
                Ok(self.bytes(n)?.to_vec())
            }
            Err(0) => Ok((self.u8()? as i8).to_string().into_bytes()),
            Err(1) => Ok(i16::from_le_bytes(self.le::<2>()?).to_string().into_bytes()),
            Err(2) => Ok(i32::from_le_bytes(self.le::<4>()?).to_string().into_bytes()),
            Err(3) => {
                let clen = self.length()?;
                let len = self.length()?;
                let packed = self.bytes(clen)?;
                lzf(packed, len)
                    .ok_or(Error { offset: at, why: "an LZF-compressed string that does not decompress".into() })
            }
            Err(k) => Err(Error { offset: at, why: format!("unknown string encoding {k}") }),
        }
    }

    fn double(&mut self) -> Result<f64, Error> {
        Ok(f64::from_le_bytes(self.le::<8>()?))
    }

    /// A score in the old text form: a length byte, then the digits (253-255: nan, +inf, -inf).
    fn text_double(&mut self) -> Result<f64, Error> {
        let at = self.pos;
        match self.u8()? {
            253 => Ok(f64::NAN),
            254 => Ok(f64::INFINITY),
            255 => Ok(f64::NEG_INFINITY),
            n => {
                let s = self.bytes(usize::from(n))?;
                std::str::from_utf8(s)
                    .ok()
                    .and_then(|t| t.parse().ok())
                    .ok_or(Error { offset: at, why: "a score that is not a number".into() })
            }
        }
    }
}

/// The entries of a listpack (Redis's compact encoding of small collections), as strings.
fn listpack(lp: &[u8], at: usize) -> Result<Vec<Vec<u8>>, Error> {
    let bad = |why: &str| Error { offset: at, why: format!("a damaged listpack: {why}") };
    if lp.len() < 7 || u32::from_le_bytes([lp[0], lp[1], lp[2], lp[3]]) as usize != lp.len() {
        return Err(bad("its total size does not match"));
    }
    let mut out = Vec::new();
    let mut i = 6;
    loop {
        let b = *lp.get(i).ok_or_else(|| bad("no end marker"))?;
        if b == 0xff {
            if i + 1 != lp.len() {
                return Err(bad("bytes after the end marker"));
            }
            break;
        }
        let get = |from: usize, n: usize| lp.get(from..from + n).ok_or_else(|| bad("an entry runs past the end"));
        let sign = |v: u64, bits: u32| -> i64 {
            let shift = 64 - bits;
            ((v << shift) as i64) >> shift
        };
        let (value, size): (Vec<u8>, usize) = if b & 0x80 == 0 {
            ((b & 0x7f).to_string().into_bytes(), 1)
        } else if b & 0xc0 == 0x80 {
            let n = usize::from(b & 0x3f);
            (get(i + 1, n)?.to_vec(), 1 + n)
        } else if b & 0xe0 == 0xc0 {
            let v = (u64::from(b & 0x1f) << 8) | u64::from(*get(i + 1, 1)?.first().unwrap_or(&0));
            (sign(v, 13).to_string().into_bytes(), 2)
        } else if b & 0xf0 == 0xe0 {
            let n = (usize::from(b & 0x0f) << 8) | usize::from(get(i + 1, 1)?[0]);
            (get(i + 2, n)?.to_vec(), 2 + n)
        } else {
            match b {
                0xf0 => {
                    let l = get(i + 1, 4)?;
                    let n = u32::from_le_bytes([l[0], l[1], l[2], l[3]]) as usize;
                    (get(i + 5, n)?.to_vec(), 5 + n)
                }
                0xf1..=0xf4 => {
                    let n = [2, 3, 4, 8][usize::from(b - 0xf1)];
                    let mut v = 0u64;
                    for (k, &x) in get(i + 1, n)?.iter().enumerate() {
                        v |= u64::from(x) << (8 * k);
                    }
                    (sign(v, 8 * n as u32).to_string().into_bytes(), 1 + n)
                }
                _ => return Err(bad(&format!("unknown entry encoding 0x{b:02x}"))),
            }
        };
        // Each entry ends with its own length, in 1 to 5 bytes, for walking backwards (the
        // thresholds are listpack's: 7 bits a byte, one below each power).
        let back = match size {
            0..=127 => 1,
            128..=16_382 => 2,
            16_383..=2_097_150 => 3,
            2_097_151..=268_435_454 => 4,
            _ => 5,
        };
        i += size + back;
        out.push(value);
    }
    Ok(out)
}

fn intset(s: &[u8], at: usize) -> Result<Vec<Vec<u8>>, Error> {
    let bad = || Error { offset: at, why: "a damaged intset".into() };
    if s.len() < 8 {
        return Err(bad());
    }
    let width = u32::from_le_bytes([s[0], s[1], s[2], s[3]]) as usize;
    let n = u32::from_le_bytes([s[4], s[5], s[6], s[7]]) as usize;
    if ![2, 4, 8].contains(&width) || s.len() != 8 + width * n {
        return Err(bad());
    }
    Ok(s[8..]
        .chunks(width)
        .map(|c| {
            let v = match width {
                2 => i64::from(i16::from_le_bytes([c[0], c[1]])),
                4 => i64::from(i32::from_le_bytes([c[0], c[1], c[2], c[3]])),
                _ => i64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]),
            };
            v.to_string().into_bytes()
        })
        .collect())
}

fn pairs(items: Vec<Vec<u8>>, at: usize) -> Result<Pairs, Error> {
    if !items.len().is_multiple_of(2) {
        return Err(Error { offset: at, why: "a listpack of pairs with an odd number of entries".into() });
    }
    let mut out = Vec::with_capacity(items.len() / 2);
    let mut it = items.into_iter();
    while let (Some(a), Some(b)) = (it.next(), it.next()) {
        out.push((a, b));
    }
    Ok(out)
}

fn value(r: &mut Reader<'_>, kind: u8, at: usize) -> Result<Value, Error> {
    Ok(match kind {
        TYPE_STRING => Value::String(r.string()?),
        TYPE_LIST => {
            let n = r.length()?;
            Value::List((0..n).map(|_| r.string()).collect::<Result<_, _>>()?)
        }
        TYPE_SET => {
            let n = r.length()?;
            Value::Set((0..n).map(|_| r.string()).collect::<Result<_, _>>()?)
        }
        TYPE_ZSET | TYPE_ZSET_2 => {
            let n = r.length()?;
            let mut v = Vec::with_capacity(n.min(1 << 16));
            for _ in 0..n {
                let m = r.string()?;
                let score = if kind == TYPE_ZSET_2 { r.double()? } else { r.text_double()? };
                if score.is_nan() {
                    return r.err("a NaN score");
                }
                v.push((m, score));
            }
            Value::ZSet(v)
        }
        TYPE_HASH => {
            let n = r.length()?;
            let mut v = Vec::with_capacity(n.min(1 << 16));
            for _ in 0..n {
                v.push((r.string()?, r.string()?));
            }
            Value::Hash(v)
        }
        TYPE_SET_INTSET => {
            let s = r.string()?;
            Value::Set(intset(&s, at)?)
        }
        TYPE_SET_LISTPACK => Value::Set(listpack(&r.string()?, at)?),
        TYPE_HASH_LISTPACK => Value::Hash(pairs(listpack(&r.string()?, at)?, at)?),
        TYPE_ZSET_LISTPACK => {
            let mut v = Vec::new();
            for (m, s) in pairs(listpack(&r.string()?, at)?, at)? {
                let score = std::str::from_utf8(&s).ok().and_then(|t| t.parse::<f64>().ok()).filter(|f| !f.is_nan());
                v.push((m, score.ok_or(Error { offset: at, why: "a listpack score that is not a number".into() })?));
            }
            Value::ZSet(v)
        }
        TYPE_LIST_QUICKLIST_2 => {
            let nodes = r.length()?;
            let mut v = Vec::new();
            for _ in 0..nodes {
                let container = r.length()?;
                let node = r.string()?;
                match container {
                    // A plain node: one large element.
                    1 => v.push(node),
                    2 => v.extend(listpack(&node, at)?),
                    c => return r.err(format!("unknown quicklist container {c}")),
                }
            }
            Value::List(v)
        }
        other => {
            return Err(Error {
                offset: at,
                why: format!(
                    "a value of RDB type {other} ({}), which Vitrine cannot load",
                    match other {
                        6 | 7 => "a module type",
                        9 | 10 | 12 | 13 | 14 => "an encoding older than Redis 7",
                        15 | 19 | 21 => "a stream",
                        _ => "unknown",
                    }
                ),
            })
        }
    })
}

/// Parses an RDB file (from `REDIS<version>` to its CRC-64) and checks its checksum. Keys
/// already expired are kept with their times: the engine drops them when they are loaded.
pub fn parse(data: &[u8]) -> Result<Rdb, Error> {
    let mut r = Reader { data, pos: 0 };
    let magic = r.bytes(9)?;
    if &magic[..5] != b"REDIS" {
        return Err(Error { offset: 0, why: "not an RDB file (no REDIS signature)".into() });
    }
    let version: u32 = std::str::from_utf8(&magic[5..])
        .ok()
        .and_then(|v| v.parse().ok())
        .ok_or(Error { offset: 5, why: "an RDB version that is not a number".into() })?;
    if !(1..=11).contains(&version) {
        return Err(Error { offset: 5, why: format!("RDB version {version}, newer than Redis 7.2's 11") });
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
                db = r.length()?;
            }
            OP_EXPIRETIME_MS => expire_ms = Some(u64::from_le_bytes(r.le::<8>()?)),
            OP_EXPIRETIME => expire_ms = Some(u64::from(u32::from_le_bytes(r.le::<4>()?)) * 1000),
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
                let value = value(&mut r, kind, at)?;
                keys.push(Key { at, db, key, value, expire_ms: expire_ms.take() });
            }
        }
    }
    let body_end = r.pos;
    if version >= 5 {
        let stored = u64::from_le_bytes(r.le::<8>()?);
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
    fn lzf_runs_and_back_references_decompress() {
        // "aaaaaaaaaa": one literal 'a', then a back reference of 9 bytes at distance 1.
        let packed = [0x00, b'a', 0xe0, 0x00, 0x00];
        assert_eq!(lzf(&packed, 10).as_deref(), Some(&b"aaaaaaaaaa"[..]));
        assert_eq!(lzf(&packed, 9), None);
        assert_eq!(lzf(&[0x05, b'a'], 6), None);
    }

    #[test]
    fn listpack_entries_of_every_encoding_read_back() {
        let mut lp = vec![0u8; 6];
        let entries: Vec<Vec<u8>> = vec![
            vec![0x05],                         // 7-bit uint 5
            vec![0x83, b'a', b'b', b'c'],       // 6-bit string "abc"
            vec![0xdf, 0xff],                   // 13-bit int -1
            vec![0xf1, 0x00, 0x80],             // int16 -32768
            vec![0xf4, 1, 0, 0, 0, 0, 0, 0, 0], // int64 1
        ];
        for e in &entries {
            lp.extend_from_slice(e);
            lp.push(e.len() as u8);
        }
        lp.push(0xff);
        let total = lp.len() as u32;
        lp[..4].copy_from_slice(&total.to_le_bytes());
        lp[4..6].copy_from_slice(&(entries.len() as u16).to_le_bytes());
        let got = listpack(&lp, 0).unwrap();
        assert_eq!(got, [&b"5"[..], b"abc", b"-1", b"-32768", b"1"]);
        lp[0] ^= 1;
        assert!(listpack(&lp, 0).is_err());
    }

    #[test]
    fn listpack_back_lengths_grow_a_byte_at_16383() {
        // Entries of 16,382 and 16,383 bytes (32-bit string headers) carry 2- and 3-byte back
        // lengths; a misjudged one would shift the entry after them.
        let mut lp = vec![0u8; 6];
        for (size, back) in [(16_382usize, 2usize), (16_383, 3)] {
            let n = size - 5;
            lp.push(0xf0);
            lp.extend((n as u32).to_le_bytes());
            lp.extend(std::iter::repeat_n(b'x', n));
            lp.extend(std::iter::repeat_n(0u8, back));
        }
        lp.extend([0x07, 0x01, 0xff]);
        let total = lp.len() as u32;
        lp[..4].copy_from_slice(&total.to_le_bytes());
        let got = listpack(&lp, 0).unwrap();
        assert_eq!(got.iter().map(Vec::len).collect::<Vec<_>>(), [16_377, 16_378, 1]);
        assert_eq!(got[2], b"7");
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
        f.extend([TYPE_STRING, 0x01, b'k', 0xc0, 0x7b]); // k = int8 123
        f.extend([TYPE_SET_INTSET, 0x01, b's', 0x0c, 2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0xff, 0xff]);
        f.push(OP_EOF);
        let crc = crc64(&f);
        f.extend(crc.to_le_bytes());
        let rdb = parse(&f).unwrap();
        assert_eq!(rdb.end, f.len());
        assert_eq!(rdb.keys[0].value, Value::String(b"123".to_vec()));
        assert_eq!(rdb.keys[0].expire_ms, Some(1_700_000_000_000));
        assert_eq!(rdb.keys[1].value, Value::Set(vec![b"1".to_vec(), b"-1".to_vec()]));
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
