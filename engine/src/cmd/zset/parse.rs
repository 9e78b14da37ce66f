//! Scores and range bounds read as Redis reads them: `strtod` (with hex floats) for scores, score
//! and lex bounds for ranges.

use crate::error::{c_str, CmdError};
use crate::store::zset::{LexBound, ScoreBound};

const NOT_FLOAT_RANGE: &str = "min or max is not a float";

const NOT_LEX_RANGE: &str = "min or max not valid string range item";

/// A score, increment or weight as Redis's `string2d`: the whole argument is one `strtod`
/// number, with no leading space, no NaN, and no overflow (or underflow to zero).
pub(crate) fn parse_score(s: &[u8]) -> Option<f64> {
    if s.first().is_none_or(|&c| is_c_space(c)) {
        return None;
    }
    let n = strtod(s);
    (n.used == s.len() && !n.value.is_nan() && !n.out_of_range).then_some(n.value)
}

/// A score bound as Redis's `zslParseRange` reads it: the argument as a C string (up to a
/// NUL), an optional `(` for an exclusive bound, then `strtod` with nothing left over; NaN
/// refused, but leading spaces, the empty string (0) and overflow (±inf) accepted.
fn score_bound(arg: &[u8]) -> Option<ScoreBound> {
    let s = c_str(arg, usize::MAX);
    let (s, exclusive) = match s.first() {
        Some(b'(') => (&s[1..], true),
        _ => (s, false),
    };
    let n = strtod(s);
    (n.used == s.len() && !n.value.is_nan()).then_some(ScoreBound { value: n.value, exclusive })
}

pub(super) fn score_range(min: &[u8], max: &[u8]) -> Result<(ScoreBound, ScoreBound), CmdError> {
    match (score_bound(min), score_bound(max)) {
        (Some(min), Some(max)) => Ok((min, max)),
        _ => Err(CmdError::err(NOT_FLOAT_RANGE)),
    }
}

/// A lex bound as Redis's `zslParseLexRangeItem`: `-` or `+` alone (read as C strings),
/// `[member` or `(member` (binary-safe).
fn lex_bound(arg: &[u8]) -> Option<LexBound> {
    let alone = arg.get(1).is_none_or(|&c| c == 0);
    match arg.first() {
        Some(b'-') if alone => Some(LexBound::Min),
        Some(b'+') if alone => Some(LexBound::Max),
        Some(b'[') => Some(LexBound::Inclusive(arg[1..].to_vec())),
        Some(b'(') => Some(LexBound::Exclusive(arg[1..].to_vec())),
        _ => None,
    }
}

pub(super) fn lex_range(min: &[u8], max: &[u8]) -> Result<(LexBound, LexBound), CmdError> {
    match (lex_bound(min), lex_bound(max)) {
        (Some(min), Some(max)) => Ok((min, max)),
        _ => Err(CmdError::err(NOT_LEX_RANGE)),
    }
}

/// C's `isspace` in the C locale.
fn is_c_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// What C's `strtod` makes of the start of a string.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Strtod {
    pub(crate) value: f64,
    /// Bytes that make up the number (0 when there is none: `strtod` then sets `endptr` to
    /// the start, before any spaces).
    pub(crate) used: usize,
    /// `errno == ERANGE` with a result of ±HUGE_VAL or zero: overflow, or underflow to zero.
    pub(crate) out_of_range: bool,
}

/// C's `strtod` (glibc, C locale): leading spaces, a sign, then `inf`/`infinity`, `nan`, a
/// hexadecimal float (`0x1.8p3`) or a decimal one (`1.5e-3`), correctly rounded.
pub(crate) fn strtod(s: &[u8]) -> Strtod {
    let none = Strtod { value: 0.0, used: 0, out_of_range: false };
    let mut i = s.iter().take_while(|&&c| is_c_space(c)).count();
    let neg = match s.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let sign = if neg { -1.0 } else { 1.0 };
    let rest = &s[i..];
    let starts = |word: &[u8]| rest.len() >= word.len() && rest[..word.len()].eq_ignore_ascii_case(word);
    if starts(b"infinity") {
        return Strtod { value: sign * f64::INFINITY, used: i + 8, out_of_range: false };
    }
    if starts(b"inf") {
        return Strtod { value: sign * f64::INFINITY, used: i + 3, out_of_range: false };
    }
    if starts(b"nan") {
        // Any NaN is refused by every caller, so `nan(...)`'s payload needs no reading.
        return Strtod { value: f64::NAN, used: i + 3, out_of_range: false };
    }
    if rest.len() >= 2 && rest[0] == b'0' && (rest[1] | 0x20) == b'x' {
        return match hex_float(&rest[2..]) {
            Some((magnitude, used, out_of_range)) => {
                Strtod { value: sign * magnitude, used: i + 2 + used, out_of_range }
            }
            // `0x` without hex digits is the number 0 followed by an `x`.
            None => Strtod { value: sign * 0.0, used: i + 1, out_of_range: false },
        };
    }
    let digits = |from: usize| rest[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let int_digits = digits(0);
    let mut end = int_digits;
    let mut frac_digits = 0;
    if rest.get(end) == Some(&b'.') {
        frac_digits = digits(end + 1);
        if int_digits + frac_digits > 0 {
            end += 1 + frac_digits;
        }
    }
    if int_digits + frac_digits == 0 {
        return none;
    }
    let mantissa_end = end;
    if matches!(rest.get(end), Some(b'e' | b'E')) {
        let mut j = end + 1;
        if matches!(rest.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let exp_digits = digits(j);
        if exp_digits > 0 {
            end = j + exp_digits;
        }
    }
    // The text is ASCII digits, a point and an exponent: Rust's parser reads exactly that
    // grammar, correctly rounded, as glibc does.
    let magnitude: f64 = std::str::from_utf8(&rest[..end]).ok().and_then(|t| t.parse().ok()).unwrap_or(0.0);
    let nonzero = rest[..mantissa_end].iter().any(|c| (b'1'..=b'9').contains(c));
    let out_of_range = magnitude.is_infinite() || (magnitude == 0.0 && nonzero);
    Strtod { value: sign * magnitude, used: i + end, out_of_range }
}

/// The hexadecimal float after `0x`: (magnitude, bytes used, out of range), or `None` when
/// no hex digit follows. Rounded to nearest, ties to even, with subnormals, as glibc does.
fn hex_float(s: &[u8]) -> Option<(f64, usize, bool)> {
    let hex = |c: u8| (c as char).to_digit(16).map(u64::from);
    let (mut mant, mut exp, mut sticky, mut any) = (0u64, 0i64, false, false);
    let mut i = 0;
    while let Some(d) = s.get(i).copied().and_then(hex) {
        any = true;
        if mant >> 60 == 0 {
            mant = mant * 16 + d;
        } else {
            exp += 4;
            sticky |= d != 0;
        }
        i += 1;
    }
    if s.get(i) == Some(&b'.') {
        let mut j = i + 1;
        while let Some(d) = s.get(j).copied().and_then(hex) {
            any = true;
            if mant >> 60 == 0 {
                mant = mant * 16 + d;
                exp -= 4;
            } else {
                sticky |= d != 0;
            }
            j += 1;
        }
        if any {
            i = j;
        }
    }
    if !any {
        return None;
    }
    if matches!(s.get(i), Some(b'p' | b'P')) {
        let mut j = i + 1;
        let neg = match s.get(j) {
            Some(b'-') => {
                j += 1;
                true
            }
            Some(b'+') => {
                j += 1;
                false
            }
            _ => false,
        };
        let n = s[j..].iter().take_while(|c| c.is_ascii_digit()).count();
        if n > 0 {
            let e = s[j..j + n].iter().fold(0i64, |acc, &c| (acc * 10 + i64::from(c - b'0')).min(1 << 20));
            exp += if neg { -e } else { e };
            i = j + n;
        }
    }
    if mant == 0 {
        return Some((0.0, i, false));
    }
    // Round mant × 2^exp (plus the sticky bits below it) to 53 bits, or fewer when subnormal.
    let bits = 64 - i64::from(mant.leading_zeros());
    let top = exp + bits - 1;
    if top > 1023 {
        return Some((f64::INFINITY, i, true));
    }
    let lsb = (top - 52).max(-1074);
    let shift = lsb - exp;
    let (m, e) = if shift > 0 {
        let wide = u128::from(mant);
        let (kept, rest, half) = if shift >= 128 {
            (0, wide, u128::MAX)
        } else {
            (wide >> shift, wide & ((1u128 << shift) - 1), 1u128 << (shift - 1))
        };
        let up = rest > half || (rest == half && (sticky || kept & 1 == 1));
        ((kept + u128::from(up)) as u64, lsb)
    } else {
        (mant, exp)
    };
    if m == 0 {
        return Some((0.0, i, true));
    }
    if e + 64 - i64::from(m.leading_zeros()) - 1 > 1023 {
        return Some((f64::INFINITY, i, true));
    }
    let pow2 = if e >= -1022 { f64::from_bits(((e + 1023) as u64) << 52) } else { f64::from_bits(1u64 << (e + 1074)) };
    Some((m as f64 * pow2, i, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_floats_round_like_glibc() {
        let h = |s: &str| strtod(s.as_bytes());
        assert_eq!(h("0x1p-1074").value, 5e-324);
        assert_eq!(h("0x1p-1075").value, 0.0);
        assert!(h("0x1p-1075").out_of_range);
        assert_eq!(h("0x1.8p-1074").value, 1e-323); // a tie rounds to even: 2 × 2^-1074
        assert_eq!(h("0x1.fffffffffffff8p0").value, 2.0);
        assert_eq!(h("0x1.fffffffffffff7p0").value, f64::from_bits(0x3fff_ffff_ffff_ffff));
        assert_eq!(h("0x1p1023").value, 8.98846567431158e307);
        assert!(h("0x1p1024").out_of_range);
        assert_eq!(h("0x123456789abcdef123p0").value, 0x123456789abcdef123u128 as f64);
        assert_eq!(h("0xg").used, 1);
        assert_eq!(h("  -0x10").value, -16.0);
        assert_eq!(h(" ").used, 0);
    }
}
