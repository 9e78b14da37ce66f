//! The files that carry exported keys between servers and playgrounds: each key's DUMP payload
//! (Redis's RDB value encoding with its version and CRC64 trailer, as `DUMP` answers it) with
//! its name, type and remaining TTL, in one of two formats.
//!
//! **JSON** (`.json`, `application/json`):
//!
//! ```json
//! {"format": "vitrine-keys", "version": 1, "db": 0, "exported_at_ms": 1764201600000,
//!  "keys": [{"key": "user:1", "type": "hash", "pttl": -1, "payload": "<base64 of DUMP>"},
//!           {"key": {"base64": "/wA="}, "type": "string", "pttl": 5000, "payload": "..."}]}
//! ```
//!
//! A key that is valid UTF-8 is a JSON string; any other is `{"base64": "..."}` (standard
//! alphabet, padded). `pttl` is the milliseconds the key had left when it was exported, or -1
//! for none; an import gives the key that much time from the moment it is imported.
//!
//! **Binary** (`.vtrkeys`, `application/octet-stream`), every integer little-endian:
//!
//! ```text
//! "VTRKEYS1"                       8 bytes of magic (the 1 is the version)
//! db               u32
//! exported_at_ms   u64
//! count            u32             number of records that follow
//! count times:
//!   key_len u32, key bytes
//!   type_len u8, type name (ASCII: string, list, set, zset, hash, stream)
//!   pttl i64                       -1 for no TTL, else > 0
//!   payload_len u32, payload bytes (DUMP's reply)
//! ```
//!
//! Nothing may follow the last record. Reading checks everything before anything is written:
//! the magic or JSON shape, the version, the count (at most [`MAX_KEYS`]), each length against
//! the bytes left, the type names, the TTLs and the base64; a file refused says where.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use ts_rs::TS;

use super::{Bytes, Refusal, Status};
use crate::reply_json::bytes_from_json;
use crate::store::entry::Value;

/// The `format` of a JSON file.
pub const FORMAT_NAME: &str = "vitrine-keys";
/// The version both formats carry (the binary one in its magic).
pub const VERSION: u32 = 1;
/// The first bytes of a binary file.
pub const MAGIC: &[u8; 8] = b"VTRKEYS1";
/// Most keys one file carries (an export of more is refused, and so is a file that says more).
pub const MAX_KEYS: usize = 10_000;
/// Largest file an export produces or an import reads: the admin API's request body limit, so
/// whatever one server exports, another accepts.
pub const MAX_FILE_BYTES: usize = 1024 * 1024;

/// Which of the two formats a file is in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum FileFormat {
    #[default]
    Json,
    Binary,
}

impl FileFormat {
    pub fn content_type(self) -> &'static str {
        match self {
            FileFormat::Json => "application/json",
            FileFormat::Binary => "application/octet-stream",
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            FileFormat::Json => "json",
            FileFormat::Binary => "vtrkeys",
        }
    }
}

/// One exported key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub key: Vec<u8>,
    pub type_name: String,
    /// Milliseconds left, or -1 for no TTL.
    pub pttl: i64,
    /// What `DUMP key` answered.
    pub payload: Vec<u8>,
}

/// A whole file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeysFile {
    /// The database the keys came from.
    pub db: u32,
    pub exported_at_ms: u64,
    pub records: Vec<Record>,
}

fn invalid(message: impl Into<String>) -> Refusal {
    Refusal::new(Status::Unprocessable, "invalid_file", message)
}

#[derive(Serialize)]
struct JsonFileOut<'a> {
    format: &'static str,
    version: u32,
    db: u32,
    exported_at_ms: u64,
    keys: Vec<JsonRecordOut<'a>>,
}

#[derive(Serialize)]
struct JsonRecordOut<'a> {
    key: Bytes,
    #[serde(rename = "type")]
    type_name: &'a str,
    pttl: i64,
    payload: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonFileIn {
    format: String,
    version: u32,
    db: u32,
    exported_at_ms: u64,
    keys: Vec<JsonRecordIn>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonRecordIn {
    key: Json,
    #[serde(rename = "type")]
    type_name: String,
    pttl: i64,
    payload: String,
}

impl KeysFile {
    /// The file in `format`.
    pub fn encode(&self, format: FileFormat) -> Vec<u8> {
        match format {
            FileFormat::Json => self.encode_json(),
            FileFormat::Binary => self.encode_binary(),
        }
    }

    fn encode_json(&self) -> Vec<u8> {
        let out = JsonFileOut {
            format: FORMAT_NAME,
            version: VERSION,
            db: self.db,
            exported_at_ms: self.exported_at_ms,
            keys: self
                .records
                .iter()
                .map(|r| JsonRecordOut {
                    key: Bytes(r.key.clone()),
                    type_name: &r.type_name,
                    pttl: r.pttl,
                    payload: BASE64.encode(&r.payload),
                })
                .collect(),
        };
        // Serializing plain structs of strings and numbers cannot fail.
        serde_json::to_vec(&out).unwrap_or_default()
    }

    fn encode_binary(&self) -> Vec<u8> {
        let mut out =
            Vec::with_capacity(24 + self.records.iter().map(|r| 21 + r.key.len() + r.payload.len()).sum::<usize>());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&self.db.to_le_bytes());
        out.extend_from_slice(&self.exported_at_ms.to_le_bytes());
        out.extend_from_slice(&(self.records.len() as u32).to_le_bytes());
        for r in &self.records {
            out.extend_from_slice(&(r.key.len() as u32).to_le_bytes());
            out.extend_from_slice(&r.key);
            out.push(r.type_name.len() as u8);
            out.extend_from_slice(r.type_name.as_bytes());
            out.extend_from_slice(&r.pttl.to_le_bytes());
            out.extend_from_slice(&(r.payload.len() as u32).to_le_bytes());
            out.extend_from_slice(&r.payload);
        }
        out
    }

    /// Reads a file in either format (binary when it starts with [`MAGIC`], else JSON),
    /// validating all of it; says which format it was.
    pub fn decode(bytes: &[u8]) -> Result<(KeysFile, FileFormat), Refusal> {
        if bytes.len() > MAX_FILE_BYTES {
            return Err(invalid(format!("the file is {} bytes, more than the limit of {MAX_FILE_BYTES}", bytes.len())));
        }
        let file = if bytes.starts_with(b"VTRKEYS") {
            (decode_binary(bytes)?, FileFormat::Binary)
        } else {
            (decode_json(bytes)?, FileFormat::Json)
        };
        for (i, r) in file.0.records.iter().enumerate() {
            check_record(i, r)?;
        }
        Ok(file)
    }
}

fn check_record(i: usize, r: &Record) -> Result<(), Refusal> {
    if !Value::TYPE_NAMES.contains(&r.type_name.as_str()) {
        return Err(invalid(format!(
            "key {i}: type must be one of {}, not {:?}",
            Value::TYPE_NAMES.join(", "),
            r.type_name.chars().take(40).collect::<String>()
        )));
    }
    if r.pttl != -1 && r.pttl <= 0 {
        return Err(invalid(format!("key {i}: pttl must be -1 (no TTL) or a positive number of milliseconds")));
    }
    if r.payload.is_empty() {
        return Err(invalid(format!("key {i}: the payload is empty")));
    }
    Ok(())
}

fn check_count(count: usize) -> Result<(), Refusal> {
    if count > MAX_KEYS {
        return Err(invalid(format!("the file has {count} keys, more than the limit of {MAX_KEYS}")));
    }
    Ok(())
}

fn decode_json(bytes: &[u8]) -> Result<KeysFile, Refusal> {
    let file: JsonFileIn = serde_json::from_slice(bytes).map_err(|e| {
        invalid(format!(
            "not a keys file: expected JSON ({{\"format\": \"{FORMAT_NAME}\", ...}}) or a binary file starting with VTRKEYS1: {e}"
        ))
    })?;
    if file.format != FORMAT_NAME {
        return Err(invalid(format!("format must be \"{FORMAT_NAME}\"")));
    }
    if file.version != VERSION {
        return Err(invalid(format!(
            "version {} is not supported (this server reads version {VERSION})",
            file.version
        )));
    }
    check_count(file.keys.len())?;
    let records = file
        .keys
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            let key = bytes_from_json(&r.key)
                .ok_or_else(|| invalid(format!("key {i}: key must be a string or {{\"base64\": \"...\"}}")))?;
            let payload = BASE64
                .decode(r.payload.as_bytes())
                .map_err(|e| invalid(format!("key {i}: payload is not base64: {e}")))?;
            Ok(Record { key, type_name: r.type_name, pttl: r.pttl, payload })
        })
        .collect::<Result<Vec<_>, Refusal>>()?;
    Ok(KeysFile { db: file.db, exported_at_ms: file.exported_at_ms, records })
}

/// A cursor over a binary file that names what it was reading when the bytes ran out.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], Refusal> {
        let end = self.at.checked_add(n).filter(|&end| end <= self.bytes.len()).ok_or_else(|| {
            invalid(format!(
                "the file is truncated: {what} needs {n} bytes at offset {}, {} are left",
                self.at,
                self.bytes.len() - self.at
            ))
        })?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], Refusal> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N, what)?);
        Ok(out)
    }

    fn u32(&mut self, what: &str) -> Result<u32, Refusal> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }
}

fn decode_binary(bytes: &[u8]) -> Result<KeysFile, Refusal> {
    let mut r = Reader { bytes, at: 0 };
    let magic = r.take(MAGIC.len(), "the magic")?;
    if magic != MAGIC {
        return Err(invalid(format!(
            "version {:?} of the binary format is not supported (this server reads VTRKEYS1)",
            String::from_utf8_lossy(&magic[7..])
        )));
    }
    let db = r.u32("the database")?;
    let exported_at_ms = u64::from_le_bytes(r.array("the export time")?);
    let count = r.u32("the key count")? as usize;
    check_count(count)?;
    let mut records = Vec::with_capacity(count.min(bytes.len() / 21));
    for i in 0..count {
        let what = format!("key {i}");
        let len = r.u32(&what)? as usize;
        let key = r.take(len, &what)?.to_vec();
        let len = r.array::<1>(&what)?[0] as usize;
        let type_name = String::from_utf8_lossy(r.take(len, &what)?).into_owned();
        let pttl = i64::from_le_bytes(r.array(&what)?);
        let len = r.u32(&what)? as usize;
        let payload = r.take(len, &what)?.to_vec();
        records.push(Record { key, type_name, pttl, payload });
    }
    if r.at != bytes.len() {
        return Err(invalid(format!("{} bytes follow the last of the {count} keys", bytes.len() - r.at)));
    }
    Ok(KeysFile { db, exported_at_ms, records })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> KeysFile {
        KeysFile {
            db: 3,
            exported_at_ms: 1_764_201_600_000,
            records: vec![
                Record { key: b"user:1".to_vec(), type_name: "hash".into(), pttl: -1, payload: vec![4, 1, 2, 3] },
                Record { key: b"\xff\x00bin".to_vec(), type_name: "string".into(), pttl: 5000, payload: vec![0, 9] },
                Record { key: Vec::new(), type_name: "zset".into(), pttl: 1, payload: b"\x00\xff".to_vec() },
            ],
        }
    }

    #[test]
    fn both_formats_round_trip_binary_keys() {
        for format in [FileFormat::Json, FileFormat::Binary] {
            let bytes = sample().encode(format);
            assert_eq!(KeysFile::decode(&bytes).unwrap(), (sample(), format));
        }
        let json: Json = serde_json::from_slice(&sample().encode(FileFormat::Json)).unwrap();
        assert_eq!(json["format"], "vitrine-keys");
        assert_eq!(json["keys"][0]["key"], "user:1");
        assert_eq!(json["keys"][1]["key"]["base64"], "/wBiaW4=");
        assert_eq!(json["keys"][1]["payload"], "AAk=");
        assert!(sample().encode(FileFormat::Binary).starts_with(b"VTRKEYS1\x03\x00\x00\x00"));
    }

    fn refused(bytes: &[u8]) -> String {
        let e = KeysFile::decode(bytes).expect_err("a hostile file must be refused");
        assert_eq!((e.status, e.code), (Status::Unprocessable, "invalid_file"));
        e.message
    }

    #[test]
    fn every_truncation_of_a_binary_file_is_refused() {
        let bytes = sample().encode(FileFormat::Binary);
        for n in 0..bytes.len() {
            let m = refused(&bytes[..n]);
            assert!(n < 7 || m.contains("truncated"), "{n}: {m}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(refused(&longer).contains("1 bytes follow"));
    }

    #[test]
    fn hostile_binary_files_are_refused_cleanly() {
        let bytes = sample().encode(FileFormat::Binary);
        // A count far past the limit, and one within it but past the bytes.
        let mut huge = bytes.clone();
        huge[20..24].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(refused(&huge).contains("more than the limit"));
        let mut more = bytes.clone();
        more[20..24].copy_from_slice(&4u32.to_le_bytes());
        assert!(refused(&more).contains("truncated"));
        // A key length of 4 GiB.
        let mut long_key = bytes.clone();
        long_key[24..28].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(refused(&long_key).contains("truncated"));
        let mut version = bytes.clone();
        version[7] = b'9';
        assert!(refused(&version).contains("not supported"));
        // The first record's type "hash" turned into "hasx".
        let mut kind = bytes.clone();
        kind[24 + 4 + 6 + 1 + 3] = b'x';
        assert!(refused(&kind).contains("type must be one of"));
        // Its pttl -1 turned into -2.
        let mut ttl = bytes;
        ttl[24 + 4 + 6 + 1 + 4] = 0xFE;
        assert!(refused(&ttl).contains("pttl"));
        assert!(refused(&vec![b' '; MAX_FILE_BYTES + 1]).contains("more than the limit"));
    }

    #[test]
    fn hostile_json_files_are_refused_cleanly() {
        let ok = String::from_utf8(sample().encode(FileFormat::Json)).unwrap();
        for (bad, says) in [
            (String::new(), "not a keys file"),
            ("[]".to_string(), "not a keys file"),
            (ok.replace("vitrine-keys", "other"), "format must be"),
            (ok.replace("\"version\":1", "\"version\":2"), "version 2"),
            (ok.replace("\"payload\":\"AAk=\"", "\"payload\":\"AA!k\""), "not base64"),
            (ok.replace("\"payload\":\"AAk=\"", "\"payload\":\"\""), "payload is empty"),
            (ok.replace("\"key\":\"user:1\"", "\"key\":7"), "key must be a string"),
            (ok.replace("\"key\":\"user:1\"", "\"key\":{\"base64\":\"%%\"}"), "key must be a string"),
            (ok.replace("\"pttl\":5000", "\"pttl\":0"), "pttl"),
            (ok.replace("\"type\":\"hash\"", "\"type\":\"hash\",\"extra\":1"), "unknown field"),
            (ok[..ok.len() - 3].to_string(), "not a keys file"),
        ] {
            let m = refused(bad.as_bytes());
            assert!(m.contains(says), "{bad}: {m}");
        }
        let many = format!(
            r#"{{"format":"vitrine-keys","version":1,"db":0,"exported_at_ms":0,"keys":[{}]}}"#,
            vec![r#"{"key":"k","type":"string","pttl":-1,"payload":"AA=="}"#; MAX_KEYS + 1].join(",")
        );
        assert!(refused(many.as_bytes()).contains("more than the limit"));
    }
}
