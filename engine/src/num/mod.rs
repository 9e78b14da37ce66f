//! Number parsing and formatting as Redis does it, in one place for every layer: `string2ll`
//! ([`parse_i64`]), `%.17g` ([`format_double`],
//! [`format_g17`]), integers without allocating ([`format_i64`]), and INCRBYFLOAT's C
//! `long double` ([`long_double`]). A leaf: it imports nothing from the crate.

pub mod long_double;

/// Parses a signed 64-bit integer exactly as Redis's `string2ll`: optional `-`, digits, no
/// `+`, no spaces, no leading zeros (except `0` itself), within range.
pub fn parse_i64(s: &[u8]) -> Option<i64> {
    if s.is_empty() || s.len() > 20 {
        return None;
    }
    let (neg, digits) = match s[0] {
        b'-' => (true, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() || (digits[0] == b'0' && (digits.len() > 1 || neg)) {
        return None;
    }
    let mut v: u64 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add((c - b'0') as u64)?;
    }
    if neg {
        if v > i64::MAX as u64 + 1 {
            None
        } else {
            Some((v as i64).wrapping_neg())
        }
    } else {
        i64::try_from(v).ok()
    }
}

/// Formats an integer without allocating; returns the digits inside `buf`.
pub fn format_i64(n: i64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    let neg = n < 0;
    let mut v = n.unsigned_abs();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    if neg {
        i -= 1;
        buf[i] = b'-';
    }
    &buf[i..]
}

/// Formats a double as Redis 7.0's `addReplyDouble` does (RESP3 doubles, ZSCORE, WITHSCORES):
/// C's `%.17g`, so `1.1` is `1.1000000000000001`, `3` is `3`, `1e20` is `1e+20`, `-0` is
/// `-0`; and `inf`/`-inf`, `nan`. (Redis 7.2 switched to the shortest round-trip text.)
pub fn format_double(d: f64) -> String {
    if d.is_nan() {
        "nan".into()
    } else if d.is_infinite() {
        if d > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        }
    } else {
        format_g17(d)
    }
}

/// Redis's `ld2string` in human mode for a double (GEOPOS's coordinates): `%.17Lf`, then
/// trailing zeros and a bare point trimmed, and "-0" written "0".
pub fn format_human(d: f64) -> String {
    if d.is_infinite() {
        return if d > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let fixed = format!("{d:.17}");
    let trimmed = fixed.trim_end_matches('0').trim_end_matches('.');
    if trimmed == "-0" {
        "0".into()
    } else {
        trimmed.into()
    }
}

/// C's `printf("%.17g", d)` for a finite `d`: 17 significant digits, correctly rounded;
/// fixed notation when the decimal exponent is in -4..17, else `d.ddde+XX`; trailing zeros
/// (and a trailing point) removed.
pub fn format_g17(d: f64) -> String {
    const PRECISION: i32 = 17;
    if d == 0.0 {
        return if d.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    // The exponent after rounding to 17 digits decides the notation, as in C.
    let sci = format!("{:.*e}", (PRECISION - 1) as usize, d);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    fn trim(s: &str) -> &str {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.')
        } else {
            s
        }
    }
    if (-4..PRECISION).contains(&exp) {
        let fixed = format!("{:.*}", (PRECISION - 1 - exp) as usize, d);
        trim(&fixed).to_string()
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exp.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_parse_like_redis() {
        assert_eq!(parse_i64(b"0"), Some(0));
        assert_eq!(parse_i64(b"-1"), Some(-1));
        assert_eq!(parse_i64(b"9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_i64(b"-9223372036854775808"), Some(i64::MIN));
        for bad in
            [&b""[..], b"-", b"+1", b"01", b"-0", b" 1", b"1 ", b"1a", b"9223372036854775808", b"99999999999999999999"]
        {
            assert_eq!(parse_i64(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn integer_edges_the_decoder_relies_on() {
        assert_eq!(parse_i64(b"0"), Some(0));
        assert_eq!(parse_i64(b"-1"), Some(-1));
        assert_eq!(parse_i64(b"9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_i64(b"-9223372036854775808"), Some(i64::MIN));
        for bad in [
            &b""[..],
            b"-",
            b"00",
            b"-0",
            b"+5",
            b"1a",
            b" 1",
            b"9223372036854775808",
            b"-9223372036854775809",
            b"000000000000000000001",
        ] {
            assert_eq!(parse_i64(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn doubles_print_as_redis_7_0_does_with_g17() {
        for (d, text) in [
            (1.1, "1.1000000000000001"),
            (0.1, "0.10000000000000001"),
            (1.5, "1.5"),
            (3.0, "3"),
            (-0.0, "-0"),
            (1e16, "10000000000000000"),
            (1e17, "1e+17"),
            (1e20, "1e+20"),
            (123456789012345680.0, "1.2345678901234568e+17"),
            (1.5e-5, "1.5e-05"),
            (0.0001, "0.0001"),
            (1e-310, "9.9999999999999694e-311"),
            // 2251799813685247.75 exactly: a tie at 17 digits, rounded to even as glibc does.
            (9007199254740991.0 / 4.0, "2251799813685247.8"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
        ] {
            assert_eq!(format_double(d), text, "{d:e}");
        }
    }
}
