//! Intsets, Redis's encoding of small sets of integers: a width (2, 4 or 8 bytes), a count,
//! then the integers little-endian, sorted ascending with no repeats (which reading checks,
//! as Redis's deep sanitization does).

/// The integers of intset `s`, validated (None when anything is off).
pub fn read(s: &[u8]) -> Option<Vec<i64>> {
    let width = u32::from_le_bytes(s.get(..4)?.try_into().ok()?) as usize;
    let n = u32::from_le_bytes(s.get(4..8)?.try_into().ok()?) as usize;
    if ![2, 4, 8].contains(&width) || n == 0 || s.len() != 8usize.checked_add(width.checked_mul(n)?)? {
        return None;
    }
    let mut out: Vec<i64> = Vec::with_capacity(n);
    for c in s[8..].chunks_exact(width) {
        let v = match width {
            2 => i64::from(i16::from_le_bytes([c[0], c[1]])),
            4 => i64::from(i32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            _ => i64::from_le_bytes(c.try_into().ok()?),
        };
        if out.last().is_some_and(|&last| last >= v) {
            return None;
        }
        out.push(v);
    }
    Some(out)
}

/// The intset of `values` (sorted and distinct here), in the narrowest width that holds all.
pub fn write(values: &mut [i64]) -> Vec<u8> {
    values.sort_unstable();
    let width: usize = if values.iter().all(|&v| i16::try_from(v).is_ok()) {
        2
    } else if values.iter().all(|&v| i32::try_from(v).is_ok()) {
        4
    } else {
        8
    };
    let mut out = Vec::with_capacity(8 + width * values.len());
    out.extend_from_slice(&(width as u32).to_le_bytes());
    out.extend_from_slice(&(values.len() as u32).to_le_bytes());
    for v in values.iter() {
        out.extend_from_slice(&v.to_le_bytes()[..width]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_in_each_width_and_refuses_disorder() {
        for mut vals in [vec![3, -1, 2], vec![70_000, 1], vec![i64::MIN, 0, i64::MAX]] {
            let s = write(&mut vals);
            assert_eq!(read(&s).unwrap(), vals);
        }
        assert_eq!(write(&mut [1, 2])[0], 2);
        assert_eq!(write(&mut [1, 1 << 20])[0], 4);
        // Out of order, repeated, a count the bytes do not hold.
        assert!(read(&[2, 0, 0, 0, 2, 0, 0, 0, 2, 0, 1, 0]).is_none());
        assert!(read(&[2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 1, 0]).is_none());
        assert!(read(&[2, 0, 0, 0, 3, 0, 0, 0, 1, 0, 2, 0]).is_none());
        assert!(read(&[3, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0]).is_none());
    }
}
