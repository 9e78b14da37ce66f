//! FUNCTION DUMP / RESTORE's payload, byte for byte as Redis 7.0 writes it: one RDB function
//! record per library (opcode 245, then the library's code as an RDB string, LZF-compressed
//! when that saves room, as Redis's `rdbSaveRawString` does), then the RDB version (10, two
//! bytes little-endian) and the CRC64 (Jones, as Redis's `crc64`) of all that, little-endian.
//! Reading also takes the opcode 246 of 7.0's release candidates. Errors are Redis's texts
//! (without `ERR `), never a panic: the payload is client data.

use crate::rdb_codec::{crc64, lzf_compress, lzf_decompress};

/// The RDB version Redis 7.0 writes; payloads from a newer one are refused.
const RDB_VERSION: u16 = 10;
const OPCODE_FUNCTION2: u8 = 245;
/// 7.0-rc1/rc2's record: name, engine, optional description, then the code without shebang.
const OPCODE_FUNCTION: u8 = 246;
const ENC_INT8: u8 = 0;
const ENC_INT16: u8 = 1;
const ENC_INT32: u8 = 2;
const ENC_LZF: u8 = 3;

/// The payload of these libraries' codes.
pub fn dump<'a>(codes: impl IntoIterator<Item = &'a [u8]>) -> Vec<u8> {
    let mut out = Vec::new();
    for code in codes {
        out.push(OPCODE_FUNCTION2);
        save_string(&mut out, code);
    }
    out.extend_from_slice(&RDB_VERSION.to_le_bytes());
    let crc = crc64(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// Checks a payload's version and checksum (Redis's `verifyDumpPayload`).
pub fn verify(p: &[u8]) -> bool {
    if p.len() < 10 {
        return false;
    }
    let footer = &p[p.len() - 10..];
    if u16::from_le_bytes([footer[0], footer[1]]) > RDB_VERSION {
        return false;
    }
    crc64(&p[..p.len() - 8]).to_le_bytes() == footer[2..]
}

/// The libraries' codes in a verified payload, in its order.
pub fn read(p: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    let body = &p[..p.len().saturating_sub(10)];
    let mut r = Reader { p: body, at: 0 };
    let mut codes = Vec::new();
    while r.at < body.len() {
        let code = match r.byte().ok_or("can not read data type")? {
            OPCODE_FUNCTION2 => r.string().ok_or("Failed loading library payload")?,
            OPCODE_FUNCTION => {
                let name = r.string().ok_or("Failed loading library name")?;
                let engine = r.string().ok_or("Failed loading engine name")?;
                let has_desc = r.len().ok_or("Failed loading library description indicator")?.0;
                if has_desc != 0 {
                    r.string().ok_or("Failed loading library description")?;
                }
                let blob = r.string().ok_or("Failed loading library blob")?;
                [&b"#!"[..], &engine, b" name=", &name, b"\n", &blob].concat()
            }
            _ => return Err("given type is not a function".into()),
        };
        codes.push(code);
    }
    Ok(codes)
}

/// An RDB string: its length, or a compressed or integer encoding (Redis's
/// `rdbSaveRawString`; a library's code starts with `#!`, so it is never an integer).
fn save_string(out: &mut Vec<u8>, s: &[u8]) {
    if s.len() > 20 {
        if let Some(packed) = lzf_compress(s, s.len() - 4) {
            out.push(0xC0 | ENC_LZF);
            save_len(out, packed.len() as u64);
            save_len(out, s.len() as u64);
            out.extend_from_slice(&packed);
            return;
        }
    }
    save_len(out, s.len() as u64);
    out.extend_from_slice(s);
}

fn save_len(out: &mut Vec<u8>, n: u64) {
    if n < 1 << 6 {
        out.push(n as u8);
    } else if n < 1 << 14 {
        out.extend_from_slice(&[0x40 | (n >> 8) as u8, n as u8]);
    } else if n <= u32::MAX as u64 {
        out.push(0x80);
        out.extend_from_slice(&(n as u32).to_be_bytes());
    } else {
        out.push(0x81);
        out.extend_from_slice(&n.to_be_bytes());
    }
}

struct Reader<'a> {
    p: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> Option<u8> {
        let b = *self.p.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let end = self.at.checked_add(n)?;
        let s = self.p.get(self.at..end)?;
        self.at = end;
        Some(s)
    }

    /// A length, or `(encoding, true)` for a special encoding.
    fn len(&mut self) -> Option<(u64, bool)> {
        let b = self.byte()?;
        Some(match b >> 6 {
            0 => ((b & 0x3F) as u64, false),
            1 => ((((b & 0x3F) as u64) << 8) | self.byte()? as u64, false),
            3 => ((b & 0x3F) as u64, true),
            _ if b == 0x80 => (u32::from_be_bytes(self.take(4)?.try_into().ok()?) as u64, false),
            _ if b == 0x81 => (u64::from_be_bytes(self.take(8)?.try_into().ok()?), false),
            _ => return None,
        })
    }

    fn string(&mut self) -> Option<Vec<u8>> {
        let (n, encoded) = self.len()?;
        if !encoded {
            return Some(self.take(usize::try_from(n).ok()?)?.to_vec());
        }
        match n as u8 {
            ENC_INT8 => Some((self.byte()? as i8).to_string().into_bytes()),
            ENC_INT16 => Some(i16::from_le_bytes(self.take(2)?.try_into().ok()?).to_string().into_bytes()),
            ENC_INT32 => Some(i32::from_le_bytes(self.take(4)?.try_into().ok()?).to_string().into_bytes()),
            ENC_LZF => {
                let (clen, e1) = self.len()?;
                let (len, e2) = self.len()?;
                if e1 || e2 {
                    return None;
                }
                let packed = self.take(usize::try_from(clen).ok()?)?;
                lzf_decompress(packed, usize::try_from(len).ok()?)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_round_trip_and_bad_ones_are_refused() {
        let codes: Vec<&[u8]> =
            vec![b"#!lua name=a\nredis.register_function('f', function() return 1 end)", b"#!lua name=b\n"];
        let p = dump(codes.iter().copied());
        assert!(verify(&p));
        assert_eq!(read(&p).unwrap(), codes.iter().map(|c| c.to_vec()).collect::<Vec<_>>());
        let mut bad = p.clone();
        bad[3] ^= 1;
        assert!(!verify(&bad));
        assert!(!verify(b"short"));
        // A newer RDB version is refused even with a right checksum.
        let mut newer = dump([]);
        newer[0] = 11;
        let crc = crc64(&newer[..2]);
        newer[2..].copy_from_slice(&crc.to_le_bytes());
        assert!(!verify(&newer));
        // Records that are not functions, or cut short.
        assert_eq!(read(&[0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), Err("given type is not a function".into()));
        assert_eq!(read(&[245, 0x45, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), Err("Failed loading library payload".into()));
        // The release candidates' record.
        let mut old = vec![246, 1, b'n', 3, b'L', b'U', b'A', 0, 2, b'x', b'y'];
        old.extend_from_slice(&[0; 10]);
        assert_eq!(read(&old).unwrap(), vec![b"#!LUA name=n\nxy".to_vec()]);
    }
}
