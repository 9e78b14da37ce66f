//! FUNCTION DUMP / RESTORE's payload, byte for byte as Redis 7.0 writes it: one RDB function
//! record per library (opcode 245, then the library's code as an RDB string, LZF-compressed
//! when that saves room, as Redis's `rdbSaveRawString` does), then the RDB version (10, two
//! bytes little-endian) and the CRC64 (Jones, as Redis's `crc64`) of all that, little-endian.
//! Reading also takes the opcode 246 of 7.0's release candidates. Errors are Redis's texts
//! (without `ERR `), never a panic: the payload is client data.

use crate::rdb::payload::{frame, verify as verify_frame};
use crate::rdb::primitives::{save_string, Reader};

/// The RDB version Redis 7.0 writes; payloads from a newer one are refused.
const RDB_VERSION: u16 = crate::rdb::RDB_VERSION;
const OPCODE_FUNCTION2: u8 = 245;
/// 7.0-rc1/rc2's record: name, engine, optional description, then the code without shebang.
const OPCODE_FUNCTION: u8 = 246;

/// The payload of these libraries' codes.
pub fn dump<'a>(codes: impl IntoIterator<Item = &'a [u8]>) -> Vec<u8> {
    let mut out = Vec::new();
    for code in codes {
        out.push(OPCODE_FUNCTION2);
        save_string(&mut out, code);
    }
    frame(out)
}

/// Checks a payload's version and checksum (Redis's `verifyDumpPayload`).
pub fn verify(p: &[u8]) -> bool {
    verify_frame(p, RDB_VERSION).is_some()
}

/// A reader error as the text FUNCTION RESTORE answers with.
fn fail(why: &'static str) -> impl Fn(crate::rdb::Error) -> String {
    move |_| why.to_string()
}

/// The libraries' codes in a verified payload, in its order.
pub fn read(p: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    let body = &p[..p.len().saturating_sub(10)];
    let mut r = Reader::new(body);
    let mut codes = Vec::new();
    while r.remaining() > 0 {
        let code = match r.u8().map_err(fail("can not read data type"))? {
            OPCODE_FUNCTION2 => r.string().map_err(fail("Failed loading library payload"))?,
            OPCODE_FUNCTION => {
                let name = r.string().map_err(fail("Failed loading library name"))?;
                let engine = r.string().map_err(fail("Failed loading engine name"))?;
                let has_desc = r.length().map_err(fail("Failed loading library description indicator"))?;
                if has_desc != 0 {
                    r.string().map_err(fail("Failed loading library description"))?;
                }
                let blob = r.string().map_err(fail("Failed loading library blob"))?;
                [&b"#!"[..], &engine, b" name=", &name, b"\n", &blob].concat()
            }
            _ => return Err("given type is not a function".into()),
        };
        codes.push(code);
    }
    Ok(codes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rdb::codec::crc64;

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
