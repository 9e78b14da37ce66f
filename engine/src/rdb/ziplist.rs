//! The encodings before listpacks, which RESTORE still reads (payloads of Redis 2.6 to 6.2):
//! ziplists (small lists, hashes and sorted sets, and the nodes of 3.2's quicklists) and
//! zipmaps (small hashes before 2.6). Validated as Redis's deep sanitization does: header
//! sizes, each entry's record of the previous one's size, the tail offset, the count.

/// The entries of ziplist `z` as strings (None when anything is off).
pub fn read(z: &[u8]) -> Option<Vec<Vec<u8>>> {
    if z.len() < 11 || u32::from_le_bytes(z[..4].try_into().ok()?) as usize != z.len() || *z.last()? != 0xFF {
        return None;
    }
    let tail = u32::from_le_bytes(z[4..8].try_into().ok()?) as usize;
    let count = usize::from(u16::from_le_bytes([z[8], z[9]]));
    let mut out = Vec::with_capacity(count.min(z.len() / 2));
    let (mut i, mut prev_size, mut last_start) = (10usize, 0usize, 10usize);
    let get = |from: usize, n: usize| from.checked_add(n).and_then(|end| z.get(from..end));
    while *z.get(i)? != 0xFF {
        let start = i;
        let prevlen = if z[i] < 254 {
            i += 1;
            usize::from(z[start])
        } else if z[i] == 254 {
            i += 5;
            u32::from_le_bytes(get(start + 1, 4)?.try_into().ok()?) as usize
        } else {
            return None;
        };
        if prevlen != prev_size {
            return None;
        }
        let b = *z.get(i)?;
        let value = match b >> 6 {
            0 => {
                let n = usize::from(b & 0x3f);
                i += 1;
                get(i, n)?.to_vec().tap(|_| i += n)
            }
            1 => {
                let n = (usize::from(b & 0x3f) << 8) | usize::from(*z.get(i + 1)?);
                i += 2;
                get(i, n)?.to_vec().tap(|_| i += n)
            }
            2 => {
                let n = u32::from_be_bytes(get(i + 1, 4)?.try_into().ok()?) as usize;
                i += 5;
                get(i, n)?.to_vec().tap(|_| i += n)
            }
            _ => {
                let (v, width): (i64, usize) = match b {
                    0xC0 => (i64::from(i16::from_le_bytes(get(i + 1, 2)?.try_into().ok()?)), 2),
                    0xD0 => (i64::from(i32::from_le_bytes(get(i + 1, 4)?.try_into().ok()?)), 4),
                    0xE0 => (i64::from_le_bytes(get(i + 1, 8)?.try_into().ok()?), 8),
                    0xF0 => {
                        let c = get(i + 1, 3)?;
                        ((i32::from_le_bytes([0, c[0], c[1], c[2]]) >> 8).into(), 3)
                    }
                    0xFE => (i64::from(*get(i + 1, 1)?.first()? as i8), 1),
                    0xF1..=0xFD => (i64::from(b & 0x0F) - 1, 0),
                    _ => return None,
                };
                i += 1 + width;
                v.to_string().into_bytes()
            }
        };
        prev_size = i - start;
        last_start = start;
        out.push(value);
    }
    if i + 1 != z.len() || (!out.is_empty() && tail != last_start) || (out.is_empty() && tail != 10) {
        return None;
    }
    if count != usize::from(u16::MAX) && count != out.len() {
        return None;
    }
    Some(out)
}

/// The fields and values of zipmap `z` (None when anything is off).
pub fn read_zipmap(z: &[u8]) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
    let mut i = 1;
    let mut out = Vec::new();
    let len = |i: &mut usize| -> Option<usize> {
        let b = *z.get(*i)?;
        *i += 1;
        match b {
            0..=253 => Some(usize::from(b)),
            254 => {
                let n = u32::from_le_bytes(z.get(*i..*i + 4)?.try_into().ok()?) as usize;
                *i += 4;
                Some(n)
            }
            _ => None,
        }
    };
    loop {
        if *z.get(i)? == 0xFF {
            break;
        }
        let klen = len(&mut i)?;
        let field = z.get(i..i.checked_add(klen)?)?.to_vec();
        i += klen;
        let vlen = len(&mut i)?;
        let free = usize::from(*z.get(i)?);
        i += 1;
        let value = z.get(i..i.checked_add(vlen)?)?.to_vec();
        i += vlen + free;
        out.push((field, value));
    }
    (i + 1 == z.len()).then_some(out)
}

trait Tap: Sized {
    fn tap(self, f: impl FnOnce(&Self)) -> Self {
        f(&self);
        self
    }
}

impl<T> Tap for T {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ziplist_of_each_encoding_reads_and_a_bad_prevlen_does_not() {
        // Entries: "ab" (2-byte string), imm 5, int16 300.
        let mut z = vec![0u8; 10];
        z.extend([0, 0x02, b'a', b'b']);
        z.extend([4, 0xF6]);
        let tail = z.len() as u32;
        z.extend([2, 0xC0, 0x2C, 0x01]);
        z.push(0xFF);
        let total = z.len() as u32;
        z[..4].copy_from_slice(&total.to_le_bytes());
        z[4..8].copy_from_slice(&tail.to_le_bytes());
        z[8] = 3;
        assert_eq!(read(&z).unwrap(), vec![b"ab".to_vec(), b"5".to_vec(), b"300".to_vec()]);
        let mut bad = z.clone();
        bad[14] = 3;
        assert!(read(&bad).is_none());
        let zm = [1, 1, b'f', 2, 0, b'v', b'w', 0xFF];
        assert_eq!(read_zipmap(&zm).unwrap(), vec![(b"f".to_vec(), b"vw".to_vec())]);
        assert!(read_zipmap(&zm[..7]).is_none());
    }
}
