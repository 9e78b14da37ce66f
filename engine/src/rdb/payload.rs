//! DUMP's framing, shared by DUMP / RESTORE and FUNCTION DUMP / RESTORE: the serialized
//! value, then the RDB version (2 bytes little-endian), then the CRC64 of everything before
//! it (8 bytes little-endian), as Redis's `createDumpPayload` and `verifyDumpPayload`.

use super::codec::crc64;
use super::RDB_VERSION;

/// Frames `body` as a payload of Vitrine's RDB version.
pub fn frame(body: Vec<u8>) -> Vec<u8> {
    frame_version(body, RDB_VERSION)
}

/// Frames `body` as a payload of RDB version `version`.
pub fn frame_version(mut body: Vec<u8>, version: u16) -> Vec<u8> {
    body.extend_from_slice(&version.to_le_bytes());
    let crc = crc64(&body);
    body.extend_from_slice(&crc.to_le_bytes());
    body
}

/// The body and RDB version of a payload whose version is at most `max_version` and whose
/// checksum is right; `None` otherwise (Redis: `DUMP payload version or checksum are wrong`).
pub fn verify(p: &[u8], max_version: u16) -> Option<(&[u8], u16)> {
    let body_len = p.len().checked_sub(10)?;
    let version = u16::from_le_bytes([p[body_len], p[body_len + 1]]);
    if version > max_version {
        return None;
    }
    let crc = u64::from_le_bytes(p[body_len + 2..].try_into().ok()?);
    (crc64(&p[..body_len + 2]) == crc).then_some((&p[..body_len], version))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_verify_and_damage_or_newer_versions_do_not() {
        let p = frame(vec![0, 1, b'x']);
        assert_eq!(p.len(), 13);
        assert_eq!(verify(&p, 10), Some((&[0u8, 1, b'x'][..], 10)));
        for i in 0..p.len() {
            let mut bad = p.clone();
            bad[i] ^= 4;
            assert_eq!(verify(&bad, 10), None, "flip at {i}");
        }
        assert_eq!(verify(&p, 9), None);
        assert_eq!(verify(&p[..9], 10), None);
    }
}
