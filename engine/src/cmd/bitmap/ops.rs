//! The bitmap value operations as plain functions on byte slices: range resolution, population
//! count, first set/clear bit, and BITFIELD's integer reads, writes and overflow rules. Bit 0 is
//! the most significant bit of byte 0, as in Redis.

/// A BITCOUNT/BITPOS range resolved to inclusive bit positions inside a string of `len` bytes,
/// with Redis's rules: negative indexes count from the end, both ends are clamped to the
/// string, `bits` says the indexes are bits rather than bytes. `None` when it is empty.
pub fn bit_window(len: usize, start: i64, end: i64, bits: bool) -> Option<(u64, u64)> {
    let total = if bits { len as i64 * 8 } else { len as i64 };
    let start = if start < 0 { start.saturating_add(total) } else { start }.max(0);
    let end = if end < 0 { end.saturating_add(total) } else { end }.max(0).min(total - 1);
    if start > end {
        return None;
    }
    let (start, end) = (start as u64, end as u64);
    Some(if bits { (start, end) } else { (start * 8, end * 8 + 7) })
}

/// The set bits of `s` between bit positions `first` and `last` inclusive (both inside `s`).
pub fn popcount(s: &[u8], first: u64, last: u64) -> u64 {
    let (fb, lb) = ((first / 8) as usize, (last / 8) as usize);
    let bytes = &s[fb..=lb];
    let mut chunks = bytes.chunks_exact(8);
    let mut n: u64 =
        chunks.by_ref().map(|c| u64::from_ne_bytes(c.try_into().unwrap_or([0; 8])).count_ones() as u64).sum();
    n += chunks.remainder().iter().map(|b| b.count_ones() as u64).sum::<u64>();
    // Bits of the edge bytes outside the window.
    n -= (s[fb] & !(0xffu8 >> (first % 8))).count_ones() as u64;
    n -= (u32::from(s[lb]) & (0xffu32 >> (last % 8 + 1))).count_ones() as u64;
    n
}

/// The first bit equal to `bit` between bit positions `first` and `last` inclusive.
pub fn first_bit(s: &[u8], first: u64, last: u64, bit: bool) -> Option<u64> {
    let (fb, lb) = ((first / 8) as usize, (last / 8) as usize);
    s[fb..=lb].iter().enumerate().find_map(|(i, &b)| {
        let at = fb + i;
        // The bits that match, with those outside the window cleared.
        let mut x = u32::from(if bit { b } else { !b });
        if at == fb {
            x &= 0xff >> (first % 8);
        }
        if at == lb {
            x &= !(0xffu32 >> (last % 8 + 1));
        }
        (x != 0).then(|| at as u64 * 8 + u64::from(x.leading_zeros() - 24))
    })
}

/// The `width`-bit unsigned integer at bit `offset`; bits past the end of `s` read as zero.
pub fn get_unsigned(s: &[u8], offset: u64, width: u32) -> u64 {
    (offset..offset + u64::from(width)).fold(0, |v, pos| (v << 1) | u64::from(bit_at(s, pos)))
}

/// The `width`-bit two's complement integer at bit `offset`, sign-extended.
pub fn get_signed(s: &[u8], offset: u64, width: u32) -> i64 {
    let v = get_unsigned(s, offset, width);
    if width < 64 && v & (1 << (width - 1)) != 0 {
        (v | (u64::MAX << width)) as i64
    } else {
        v as i64
    }
}

/// Whether bit `pos` of `s` is set (false past the end).
pub fn bit_at(s: &[u8], pos: u64) -> bool {
    usize::try_from(pos / 8).ok().and_then(|i| s.get(i)).is_some_and(|b| b & (0x80 >> (pos % 8)) != 0)
}

/// Writes the low `width` bits of `value` at bit `offset`; `s` must reach that far.
pub fn set_bits(s: &mut [u8], offset: u64, width: u32, value: u64) {
    for j in 0..u64::from(width) {
        let pos = offset + j;
        let mask = 0x80u8 >> (pos % 8);
        let byte = &mut s[(pos / 8) as usize];
        if value & (1 << (u64::from(width) - 1 - j)) != 0 {
            *byte |= mask;
        } else {
            *byte &= !mask;
        }
    }
}

/// BITFIELD's OVERFLOW behaviours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overflow {
    Wrap,
    Sat,
    Fail,
}

/// `value + incr` stored in a `width`-bit unsigned field: `Some(result)`, or `None` when it
/// overflows under FAIL. SET passes its value with `incr` 0 (a negative value overflows).
pub fn unsigned_add(value: u64, incr: i64, width: u32, ow: Overflow) -> Option<u64> {
    let max = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
    let wrapped = || {
        let sum = value.wrapping_add(incr as u64);
        if width == 64 {
            sum
        } else {
            sum & max
        }
    };
    // Redis compares in signed arithmetic: the room left above and below the value.
    let up_room = max.wrapping_sub(value) as i64;
    let down_room = (value as i64).wrapping_neg();
    let limit = if value > max || (incr > 0 && incr > up_room) {
        max
    } else if incr < 0 && incr < down_room {
        0
    } else {
        return Some(value.wrapping_add(incr as u64));
    };
    match ow {
        Overflow::Wrap => Some(wrapped()),
        Overflow::Sat => Some(limit),
        Overflow::Fail => None,
    }
}

/// `value + incr` stored in a `width`-bit signed field, as [`unsigned_add`].
pub fn signed_add(value: i64, incr: i64, width: u32, ow: Overflow) -> Option<i64> {
    let max = if width == 64 { i64::MAX } else { (1i64 << (width - 1)) - 1 };
    let min = -max - 1;
    let up_room = (max as u64).wrapping_sub(value as u64) as i64;
    let down_room = min.wrapping_sub(value);
    let narrow = width != 64;
    let limit = if value > max || (narrow && incr > up_room) || (value >= 0 && incr > 0 && incr > up_room) {
        max
    } else if value < min || (narrow && incr < down_room) || (value < 0 && incr < 0 && incr < down_room) {
        min
    } else {
        return Some(value.wrapping_add(incr));
    };
    match ow {
        Overflow::Wrap => {
            let sum = (value as u64).wrapping_add(incr as u64);
            if narrow {
                // Sign-extend from the field's top bit.
                let shift = 64 - width;
                Some(((sum << shift) as i64) >> shift)
            } else {
                Some(sum as i64)
            }
        }
        Overflow::Sat => Some(limit),
        Overflow::Fail => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_follow_redis_index_rules() {
        assert_eq!(bit_window(3, 0, -1, false), Some((0, 23)));
        assert_eq!(bit_window(3, 1, 1, false), Some((8, 15)));
        assert_eq!(bit_window(3, -100, 100, false), Some((0, 23)));
        assert_eq!(bit_window(3, 5, 10, false), None);
        assert_eq!(bit_window(3, 5, 10, true), Some((5, 10)));
        assert_eq!(bit_window(3, -3, -1, true), Some((21, 23)));
        assert_eq!(bit_window(0, 0, -1, false), None);
        assert_eq!(bit_window(2, i64::MIN, i64::MAX, true), Some((0, 15)));
    }

    #[test]
    fn popcount_counts_only_the_window() {
        let s = [0xff, 0x0f, 0xf0];
        assert_eq!(popcount(&s, 0, 23), 16);
        assert_eq!(popcount(&s, 4, 11), 4);
        assert_eq!(popcount(&s, 12, 12), 1);
        assert_eq!(popcount(&s, 11, 11), 0);
        let long = vec![0x55; 100];
        assert_eq!(popcount(&long, 0, 799), 400);
        assert_eq!(popcount(&long, 1, 798), 399);
    }

    #[test]
    fn first_bit_finds_set_and_clear_bits_in_the_window() {
        let s = [0x00, 0x10, 0xff];
        assert_eq!(first_bit(&s, 0, 23, true), Some(11));
        assert_eq!(first_bit(&s, 12, 23, true), Some(16));
        assert_eq!(first_bit(&s, 0, 10, true), None);
        assert_eq!(first_bit(&s, 16, 23, false), None);
        assert_eq!(first_bit(&s, 11, 23, false), Some(12));
        assert_eq!(first_bit(&s, 3, 3, false), Some(3));
    }

    #[test]
    fn fields_read_and_write_across_bytes() {
        let mut s = [0u8; 2];
        set_bits(&mut s, 7, 5, 23);
        assert_eq!(s, [0b0000_0001, 0b0111_0000]);
        assert_eq!(get_unsigned(&s, 7, 5), 23);
        assert_eq!(get_signed(&s, 7, 5), -9);
        assert_eq!(get_unsigned(&s, 12, 64), 0);
        set_bits(&mut s, 0, 16, 0xffff);
        assert_eq!(get_signed(&s, 0, 16), -1);
        assert_eq!(get_signed(&[0xff; 8], 0, 64), -1);
    }

    #[test]
    fn overflow_rules_match_redis() {
        assert_eq!(unsigned_add(250, 10, 8, Overflow::Wrap), Some(4));
        assert_eq!(unsigned_add(250, 10, 8, Overflow::Sat), Some(255));
        assert_eq!(unsigned_add(250, 10, 8, Overflow::Fail), None);
        assert_eq!(unsigned_add(5, -10, 8, Overflow::Sat), Some(0));
        assert_eq!(unsigned_add(5, -10, 8, Overflow::Wrap), Some(251));
        assert_eq!(unsigned_add(-1i64 as u64, 0, 8, Overflow::Sat), Some(255));
        assert_eq!(signed_add(120, 10, 8, Overflow::Wrap), Some(-126));
        assert_eq!(signed_add(120, 10, 8, Overflow::Sat), Some(127));
        assert_eq!(signed_add(-120, -10, 8, Overflow::Sat), Some(-128));
        assert_eq!(signed_add(-120, -10, 8, Overflow::Fail), None);
        assert_eq!(signed_add(200, 0, 8, Overflow::Wrap), Some(-56));
        assert_eq!(signed_add(i64::MAX, 1, 64, Overflow::Wrap), Some(i64::MIN));
        assert_eq!(signed_add(i64::MIN, -1, 64, Overflow::Sat), Some(i64::MIN));
        assert_eq!(signed_add(-1, 0, 1, Overflow::Fail), Some(-1));
        assert_eq!(signed_add(1, 0, 1, Overflow::Wrap), Some(-1));
    }
}
