//! Listpacks, Redis's compact encoding of small collections (listpack.md): a header (total
//! bytes, element count), entries that each end with their own length (for walking
//! backwards), and an end byte 0xFF. Reading validates as Redis's deep sanitization does
//! (sizes, back lengths, count, end marker); writing picks the encodings Redis picks, so a
//! listpack Vitrine writes is byte for byte the one Redis would.

use crate::num::parse_i64;

/// A listpack's header (total bytes, element count) and end marker.
const HEADER: usize = 6;

/// One entry as a listpack holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry<'a> {
    Int(i64),
    Str(&'a [u8]),
}

impl Entry<'_> {
    /// The entry as the string it stands for.
    pub fn to_vec(self) -> Vec<u8> {
        match self {
            Entry::Int(n) => n.to_string().into_bytes(),
            Entry::Str(s) => s.to_vec(),
        }
    }

    /// The entry as an integer, when it is one (stream listpacks hold IDs and counts).
    pub fn int(self) -> Option<i64> {
        match self {
            Entry::Int(n) => Some(n),
            Entry::Str(s) => parse_i64(s),
        }
    }
}

/// Bytes of an entry's back length, for an entry of `size` bytes (encoding and data).
fn backlen_size(size: usize) -> usize {
    match size {
        0..=127 => 1,
        128..=16_382 => 2,
        16_383..=2_097_150 => 3,
        2_097_151..=268_435_454 => 4,
        _ => 5,
    }
}

fn put_backlen(out: &mut Vec<u8>, size: usize) {
    let n = backlen_size(size);
    for i in (0..n).rev() {
        let seven = ((size >> (7 * i)) & 127) as u8;
        // The first byte written (the most significant) has no continuation bit.
        out.push(if i == n - 1 { seven } else { seven | 128 });
    }
}

/// The entries of listpack `lp`, validated (None when anything is off).
pub fn read(lp: &[u8]) -> Option<Vec<Entry<'_>>> {
    if lp.len() < HEADER + 1 || u32::from_le_bytes(lp[..4].try_into().ok()?) as usize != lp.len() {
        return None;
    }
    let count = usize::from(u16::from_le_bytes([lp[4], lp[5]]));
    if *lp.last()? != 0xFF {
        return None;
    }
    // Every entry takes at least 2 bytes: a listpack cannot justify more than that many.
    let mut out = Vec::with_capacity(count.min(lp.len() / 2));
    let mut i = HEADER;
    let get = |from: usize, n: usize| from.checked_add(n).and_then(|end| lp.get(from..end));
    loop {
        let b = *lp.get(i)?;
        if b == 0xFF {
            if i + 1 != lp.len() {
                return None;
            }
            break;
        }
        let sign = |v: u64, bits: u32| -> i64 {
            let shift = 64 - bits;
            ((v << shift) as i64) >> shift
        };
        let (entry, size) = if b & 0x80 == 0 {
            (Entry::Int(i64::from(b & 0x7f)), 1)
        } else if b & 0xc0 == 0x80 {
            let n = usize::from(b & 0x3f);
            (Entry::Str(get(i + 1, n)?), 1 + n)
        } else if b & 0xe0 == 0xc0 {
            let v = (u64::from(b & 0x1f) << 8) | u64::from(*get(i + 1, 1)?.first()?);
            (Entry::Int(sign(v, 13)), 2)
        } else if b & 0xf0 == 0xe0 {
            let n = (usize::from(b & 0x0f) << 8) | usize::from(*get(i + 1, 1)?.first()?);
            (Entry::Str(get(i + 2, n)?), 2 + n)
        } else {
            match b {
                0xf0 => {
                    let n = u32::from_le_bytes(get(i + 1, 4)?.try_into().ok()?) as usize;
                    (Entry::Str(get(i + 5, n)?), 5 + n)
                }
                0xf1..=0xf4 => {
                    let n = [2, 3, 4, 8][usize::from(b - 0xf1)];
                    let mut v = 0u64;
                    for (k, &x) in get(i + 1, n)?.iter().enumerate() {
                        v |= u64::from(x) << (8 * k);
                    }
                    (Entry::Int(sign(v, 8 * n as u32)), 1 + n)
                }
                _ => return None,
            }
        };
        // The back length must say the entry's size, in exactly the bytes listpack uses.
        let mut expect = Vec::with_capacity(5);
        put_backlen(&mut expect, size);
        if get(i + size, expect.len())? != expect.as_slice() {
            return None;
        }
        i += size + expect.len();
        out.push(entry);
    }
    // 65535 means "count them"; any other count must be right.
    if count != usize::from(u16::MAX) && count != out.len() {
        return None;
    }
    Some(out)
}

/// The entries of a listpack as strings.
pub fn read_strings(lp: &[u8]) -> Option<Vec<Vec<u8>>> {
    Some(read(lp)?.into_iter().map(Entry::to_vec).collect())
}

/// Builds a listpack, entry by entry.
#[derive(Debug)]
pub struct Writer {
    buf: Vec<u8>,
    count: usize,
}

impl Default for Writer {
    fn default() -> Writer {
        Writer::new()
    }
}

impl Writer {
    pub fn new() -> Writer {
        Writer { buf: vec![0; HEADER], count: 0 }
    }

    /// Entries so far.
    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Bytes the listpack will have once finished.
    pub fn bytes(&self) -> usize {
        self.buf.len() + 1
    }

    /// Appends a string, integer-encoded when it is a canonical integer (as listpack does).
    pub fn push(&mut self, s: &[u8]) {
        match parse_i64(s) {
            Some(n) => self.push_int(n),
            None => self.push_str(s),
        }
    }

    pub fn push_int(&mut self, n: i64) {
        let start = self.buf.len();
        if (0..=127).contains(&n) {
            self.buf.push(n as u8);
        } else if (-4096..=4095).contains(&n) {
            let v = (n as u64) & 0x1fff;
            self.buf.extend_from_slice(&[0xc0 | (v >> 8) as u8, v as u8]);
        } else {
            let (code, width) = if i16::try_from(n).is_ok() {
                (0xf1, 2)
            } else if (-(1 << 23)..(1 << 23)).contains(&n) {
                (0xf2, 3)
            } else if i32::try_from(n).is_ok() {
                (0xf3, 4)
            } else {
                (0xf4, 8)
            };
            self.buf.push(code);
            self.buf.extend_from_slice(&n.to_le_bytes()[..width]);
        }
        self.end_entry(start);
    }

    pub fn push_str(&mut self, s: &[u8]) {
        let start = self.buf.len();
        let n = s.len();
        if n < 64 {
            self.buf.push(0x80 | n as u8);
        } else if n < 4096 {
            self.buf.extend_from_slice(&[0xe0 | (n >> 8) as u8, n as u8]);
        } else {
            self.buf.push(0xf0);
            self.buf.extend_from_slice(&(n as u32).to_le_bytes());
        }
        self.buf.extend_from_slice(s);
        self.end_entry(start);
    }

    fn end_entry(&mut self, start: usize) {
        let size = self.buf.len() - start;
        put_backlen(&mut self.buf, size);
        self.count += 1;
    }

    /// The finished listpack.
    pub fn finish(mut self) -> Vec<u8> {
        self.buf.push(0xff);
        let total = self.buf.len() as u32;
        self.buf[..4].copy_from_slice(&total.to_le_bytes());
        let count = self.count.min(usize::from(u16::MAX)) as u16;
        self.buf[4..6].copy_from_slice(&count.to_le_bytes());
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_encoding_round_trips() {
        let items: Vec<Vec<u8>> = [
            "0",
            "127",
            "128",
            "-1",
            "4095",
            "-4096",
            "4096",
            "-32768",
            "32767",
            "8388607",
            "-8388608",
            "2147483647",
            "-2147483648",
            "9223372036854775807",
            "-9223372036854775808",
            "012",
            "",
            "abc",
        ]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .chain([vec![b'x'; 63], vec![b'y'; 64], vec![b'z'; 4095], vec![b'w'; 4096], vec![b'v'; 20_000]])
        .collect();
        let mut w = Writer::new();
        for i in &items {
            w.push(i);
        }
        let lp = w.finish();
        assert_eq!(read_strings(&lp).unwrap(), items);
        // Redis's bytes for a small one: header, 7-bit uint 5, "ab", end.
        let mut w = Writer::new();
        w.push(b"5");
        w.push(b"ab");
        assert_eq!(w.finish(), vec![13, 0, 0, 0, 2, 0, 5, 1, 0x82, b'a', b'b', 3, 0xff]);
    }

    #[test]
    fn damage_is_refused() {
        let mut w = Writer::new();
        w.push(b"hello");
        w.push(b"300");
        let lp = w.finish();
        for i in 0..lp.len() {
            let mut bad = lp.clone();
            bad[i] ^= 0x01;
            let got = read_strings(&bad);
            assert!(got.is_none() || got.as_deref() != Some(&[b"hello".to_vec(), b"300".to_vec()][..]), "{i}");
        }
        assert!(read(&lp[..lp.len() - 1]).is_none());
    }

    #[test]
    fn hand_built_entries_of_every_encoding_read_back() {
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
        let got = read_strings(&lp).unwrap();
        assert_eq!(got, [&b"5"[..], b"abc", b"-1", b"-32768", b"1"]);
        lp[0] ^= 1;
        assert!(read(&lp).is_none());
    }

    #[test]
    fn back_lengths_grow_a_byte_at_16383() {
        // Entries of 16,382 and 16,383 bytes (32-bit string headers) carry 2- and 3-byte back
        // lengths; a misjudged one would shift the entry after them.
        let mut lp = vec![0u8; 6];
        for size in [16_382usize, 16_383] {
            let n = size - 5;
            lp.push(0xf0);
            lp.extend((n as u32).to_le_bytes());
            lp.extend(std::iter::repeat_n(b'x', n));
            put_backlen(&mut lp, size);
        }
        lp.extend([0x07, 0x01, 0xff]);
        let total = lp.len() as u32;
        lp[..4].copy_from_slice(&total.to_le_bytes());
        lp[4..6].copy_from_slice(&3u16.to_le_bytes());
        let got = read_strings(&lp).unwrap();
        assert_eq!(got.iter().map(Vec::len).collect::<Vec<_>>(), [16_377, 16_378, 1]);
        assert_eq!(got[2], b"7");
        let mut w = Writer::new();
        w.push(&[b'x'; 16_377]);
        w.push(&[b'x'; 16_378]);
        w.push(b"7");
        assert_eq!(w.finish(), lp);
    }
}
