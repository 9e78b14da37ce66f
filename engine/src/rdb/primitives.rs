//! The RDB format's building blocks: lengths (6, 14, 32 or 64 bits), strings (raw, integer
//! encoded, LZF compressed), doubles (binary, or the old text form), millisecond times.
//! [`Reader`] reads them from a slice with bounds checks everywhere; the `save_*` functions
//! write them as Redis's `rdbSave*` do, so the bytes match redis-server's.

use super::codec::{lzf_compress, lzf_decompress};
use super::Error;
use crate::num::parse_i64;

const ENC_INT8: u8 = 0;
const ENC_INT16: u8 = 1;
const ENC_INT32: u8 = 2;
const ENC_LZF: u8 = 3;

/// A cursor over RDB bytes. `base` is where `data` starts in the whole input, for offsets in
/// errors.
pub struct Reader<'a> {
    pub data: &'a [u8],
    pub pos: usize,
    pub base: usize,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Reader<'a> {
        Reader { data, pos: 0, base: 0 }
    }

    pub fn err<T>(&self, why: impl Into<String>) -> Result<T, Error> {
        Err(Error { offset: self.base + self.pos, why: why.into() })
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], Error> {
        match self.pos.checked_add(n).filter(|&e| e <= self.data.len()) {
            Some(end) => {
                let s = &self.data[self.pos..end];
                self.pos = end;
                Ok(s)
            }
            None => self.err(format!("the data ends inside a {n}-byte field")),
        }
    }

    pub fn u8(&mut self) -> Result<u8, Error> {
        Ok(self.bytes(1)?[0])
    }

    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.bytes(N)?);
        Ok(a)
    }

    /// A length, or (`Err(kind)`) the kind of a specially encoded string.
    pub fn length_or_encoding(&mut self) -> Result<Result<u64, u8>, Error> {
        let first = self.u8()?;
        Ok(match first >> 6 {
            0 => Ok(u64::from(first & 0x3f)),
            1 => Ok((u64::from(first & 0x3f) << 8) | u64::from(self.u8()?)),
            2 => match first {
                0x80 => Ok(u64::from(u32::from_be_bytes(self.array::<4>()?))),
                0x81 => Ok(u64::from_be_bytes(self.array::<8>()?)),
                _ => return self.err(format!("unknown length encoding 0x{first:02x}")),
            },
            _ => Err(first & 0x3f),
        })
    }

    /// A plain length (a number stored as a length: IDs, counters).
    pub fn length(&mut self) -> Result<u64, Error> {
        match self.length_or_encoding()? {
            Ok(n) => Ok(n),
            Err(_) => self.err("an encoded string where a length belongs"),
        }
    }

    /// A count of things still to read, each at least `min_bytes` long: refused when the
    /// bytes left could not hold them, so no allocation is ever sized by a lie.
    pub fn count(&mut self, min_bytes: usize) -> Result<usize, Error> {
        let n = self.length()?;
        match usize::try_from(n).ok().filter(|&n| n.saturating_mul(min_bytes.max(1)) <= self.remaining()) {
            Some(n) => Ok(n),
            None => self.err(format!("a count of {n}, more than the data holds")),
        }
    }

    pub fn string(&mut self) -> Result<Vec<u8>, Error> {
        let at = self.pos;
        match self.length_or_encoding()? {
            Ok(n) => {
                let n = usize::try_from(n).or_else(|_| self.err("a string too long"))?;
                Ok(self.bytes(n)?.to_vec())
            }
            Err(ENC_INT8) => Ok((self.u8()? as i8).to_string().into_bytes()),
            Err(ENC_INT16) => Ok(i16::from_le_bytes(self.array::<2>()?).to_string().into_bytes()),
            Err(ENC_INT32) => Ok(i32::from_le_bytes(self.array::<4>()?).to_string().into_bytes()),
            Err(ENC_LZF) => {
                let clen = self.length()?;
                let len = self.length()?;
                let clen = usize::try_from(clen).or_else(|_| self.err("a compressed length too long"))?;
                // LZF expands at most 264 bytes per 2-3 input bytes (a longest back
                // reference): anything claiming more is a lie, refused before allocating.
                let len = usize::try_from(len)
                    .ok()
                    .filter(|&l| l > 0 && l <= clen.saturating_mul(132))
                    .ok_or(Error { offset: self.base + at, why: "an LZF length out of bounds".into() })?;
                let packed = self.bytes(clen)?;
                lzf_decompress(packed, len).ok_or(Error {
                    offset: self.base + at,
                    why: "an LZF-compressed string that does not decompress".into(),
                })
            }
            Err(k) => Err(Error { offset: self.base + at, why: format!("unknown string encoding {k}") }),
        }
    }

    /// A binary double (8 bytes little-endian), as RDB_TYPE_ZSET_2 stores scores.
    pub fn double(&mut self) -> Result<f64, Error> {
        Ok(f64::from_le_bytes(self.array::<8>()?))
    }

    /// A score in the old text form: a length byte, then the digits (253-255: nan, +inf, -inf).
    pub fn text_double(&mut self) -> Result<f64, Error> {
        match self.u8()? {
            253 => Ok(f64::NAN),
            254 => Ok(f64::INFINITY),
            255 => Ok(f64::NEG_INFINITY),
            n => {
                let s = self.bytes(usize::from(n))?;
                match std::str::from_utf8(s).ok().and_then(|t| t.parse().ok()) {
                    Some(d) => Ok(d),
                    None => self.err("a score that is not a number"),
                }
            }
        }
    }

    /// A time in milliseconds, 8 bytes little-endian.
    pub fn millis(&mut self) -> Result<u64, Error> {
        Ok(u64::from_le_bytes(self.array::<8>()?))
    }
}

/// A length in the smallest of the four forms.
pub fn save_len(out: &mut Vec<u8>, n: u64) {
    if n < 1 << 6 {
        out.push(n as u8);
    } else if n < 1 << 14 {
        out.extend_from_slice(&[0x40 | (n >> 8) as u8, n as u8]);
    } else if n <= u64::from(u32::MAX) {
        out.push(0x80);
        out.extend_from_slice(&(n as u32).to_be_bytes());
    } else {
        out.push(0x81);
        out.extend_from_slice(&n.to_be_bytes());
    }
}

/// `n` as an integer-encoded string when it fits 32 bits (Redis's `rdbEncodeInteger`).
fn save_small_int(out: &mut Vec<u8>, n: i64) -> bool {
    if let Ok(v) = i8::try_from(n) {
        out.extend_from_slice(&[0xC0 | ENC_INT8, v as u8]);
    } else if let Ok(v) = i16::try_from(n) {
        out.push(0xC0 | ENC_INT16);
        out.extend_from_slice(&v.to_le_bytes());
    } else if let Ok(v) = i32::try_from(n) {
        out.push(0xC0 | ENC_INT32);
        out.extend_from_slice(&v.to_le_bytes());
    } else {
        return false;
    }
    true
}

/// A string as Redis's `rdbSaveRawString`: integer-encoded when it is a canonical integer
/// of 32 bits, LZF-compressed when it is longer than 20 bytes and that saves 4 bytes or
/// more, verbatim otherwise.
pub fn save_string(out: &mut Vec<u8>, s: &[u8]) {
    if s.len() <= 11 {
        if let Some(n) = parse_i64(s) {
            if save_small_int(out, n) {
                return;
            }
        }
    }
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

/// A string value as Redis saves a string object: an integer-encoded object (a canonical
/// integer of at most 20 characters) goes through `rdbSaveLongLongAsStringObject`, which
/// writes integers past 32 bits as their digits; anything else through `save_string`.
pub fn save_string_object(out: &mut Vec<u8>, s: &[u8]) {
    if let Some(n) = parse_i64(s) {
        if !save_small_int(out, n) {
            save_len(out, s.len() as u64);
            out.extend_from_slice(s);
        }
        return;
    }
    save_string(out, s);
}

pub fn save_double(out: &mut Vec<u8>, d: f64) {
    out.extend_from_slice(&d.to_le_bytes());
}

pub fn save_millis(out: &mut Vec<u8>, ms: u64) {
    out.extend_from_slice(&ms.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(s: &[u8]) -> (Vec<u8>, Vec<u8>) {
        let mut out = Vec::new();
        save_string(&mut out, s);
        let back = Reader::new(&out).string().unwrap();
        (out, back)
    }

    #[test]
    fn strings_take_redis_encodings_and_read_back() {
        assert_eq!(round(b"12"), (vec![0xC0, 12], b"12".to_vec()));
        assert_eq!(round(b"-300").0, vec![0xC1, 0xD4, 0xFE]);
        assert_eq!(round(b"70000").0[0], 0xC2);
        // Not canonical: verbatim.
        assert_eq!(round(b"012").0, vec![3, b'0', b'1', b'2']);
        assert_eq!(round(b"+1").0, vec![2, b'+', b'1']);
        let long = b"abcabcabcabcabcabcabcabcabcabc".to_vec();
        let (bytes, back) = round(&long);
        assert_eq!(bytes[0], 0xC3);
        assert_eq!(back, long);
        let mut big = Vec::new();
        save_string_object(&mut big, b"9223372036854775807");
        assert_eq!(big[0], 19);
    }

    #[test]
    fn lengths_of_every_width_round_trip_and_lies_are_refused() {
        for n in [0u64, 63, 64, 16383, 16384, u32::MAX as u64, u32::MAX as u64 + 1] {
            let mut out = Vec::new();
            save_len(&mut out, n);
            assert_eq!(Reader::new(&out).length().unwrap(), n);
        }
        assert!(Reader::new(&[0x82]).length().is_err());
        // A count of 1000 elements in 3 bytes.
        assert!(Reader::new(&[0x43, 0xE8, 0, 0]).count(1).is_err());
        // LZF claiming a huge length.
        assert!(Reader::new(&[0xC3, 2, 0x81, 0, 0, 0, 1, 0, 0, 0, 0, 0, b'a']).string().is_err());
    }
}
