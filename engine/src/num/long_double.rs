//! INCRBYFLOAT's arithmetic: C `long double` (x87 80-bit) emulated exactly.
//!
//! Redis computes INCRBYFLOAT in C `long double`, which on x86-64 is the x87 80-bit format
//! (64-bit significand), parses with `strtold` and prints with `%.17Lf`. Neither `f64` nor
//! its shortest round-trip printing reproduces that (0.1 + 0.2 is "0.3" in Redis, 1e-20 is
//! "0", 1e400 is a valid value), so this emulates the format exactly with a small bignum:
//! correctly rounded parsing (round half to even, with subnormals), exact addition rounded
//! once, and exact fixed-point printing.

use std::cmp::Ordering;

/// Significand bits.
const PREC: i64 = 64;
/// Binary exponent of the leading bit of the largest finite value (about 1.19e4932).
const EMAX: i64 = 16383;
/// Binary exponent of the lowest bit a value can hold (the smallest subnormal, 2^-16445).
const LSB_MIN: i64 = -16382 - (PREC - 1);
/// Redis's `MAX_LONG_DOUBLE_CHARS`: longer text is not a float.
const MAX_CHARS: usize = 5 * 1024;
/// Decimal digits after the point in Redis's output (`%.17Lf`).
const DECIMALS: usize = 17;

/// A finite value: (-1)^neg × mant × 2^exp, with mant < 2^PREC.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ld {
    neg: bool,
    mant: u128,
    exp: i64,
}

/// A parsed number: finite, or an infinity (which `strtold` accepts and any sum with it
/// turns into Redis's NaN-or-Infinity error).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    Finite(Ld),
    Infinite,
}

fn zero(neg: bool) -> Ld {
    Ld { neg, mant: 0, exp: 0 }
}

/// Redis's `string2ld`: the whole text must be a `strtold` number (decimal with optional
/// exponent, hexadecimal, `inf`/`infinity`), with no leading space, no NaN, and no
/// overflow or underflow to zero.
pub fn parse(s: &[u8]) -> Option<Num> {
    if s.is_empty() || s.len() >= MAX_CHARS {
        return None;
    }
    let (neg, rest) = match s[0] {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    if rest.eq_ignore_ascii_case(b"inf") || rest.eq_ignore_ascii_case(b"infinity") {
        return Some(Num::Infinite);
    }
    let finite = if rest.len() >= 2 && rest[0] == b'0' && (rest[1] | 0x20) == b'x' {
        hex(neg, &rest[2..])?
    } else {
        decimal(neg, rest)?
    };
    Some(Num::Finite(finite))
}

/// A run of digits in `radix` starting at `s[*i]`, advancing `i`.
fn digits_at<'a>(s: &'a [u8], i: &mut usize, radix: u32) -> &'a [u8] {
    let start = *i;
    while *i < s.len() && (s[*i] as char).is_digit(radix) {
        *i += 1;
    }
    &s[start..*i]
}

/// An exponent (`[+-]digits`) after its marker at `s[*i - 1]`, saturating far beyond any
/// exponent that could matter. `None` when there are no digits (strtold would stop before
/// the marker, which leaves trailing text).
fn exponent_at(s: &[u8], i: &mut usize) -> Option<i64> {
    let neg = match s.get(*i) {
        Some(b'-') => {
            *i += 1;
            true
        }
        Some(b'+') => {
            *i += 1;
            false
        }
        _ => false,
    };
    let digits = digits_at(s, i, 10);
    if digits.is_empty() {
        return None;
    }
    let v = digits.iter().fold(0i64, |acc, &d| (acc * 10 + (d - b'0') as i64).min(1 << 40));
    Some(if neg { -v } else { v })
}

fn decimal(neg: bool, s: &[u8]) -> Option<Ld> {
    let mut i = 0;
    let int = digits_at(s, &mut i, 10);
    let frac = if s.get(i) == Some(&b'.') {
        i += 1;
        digits_at(s, &mut i, 10)
    } else {
        &[]
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut exp10 = 0;
    if matches!(s.get(i), Some(b'e' | b'E')) {
        i += 1;
        exp10 = exponent_at(s, &mut i)?;
    }
    if i != s.len() {
        return None;
    }
    let all: Vec<u8> = int.iter().chain(frac).map(|d| d - b'0').collect();
    let Some(first) = all.iter().position(|&d| d != 0) else {
        return Some(zero(neg));
    };
    let digits = &all[first..];
    // value = digits × 10^exp10, and 10^(magnitude - 1) <= value < 10^magnitude.
    let exp10 = exp10 - frac.len() as i64;
    let magnitude = exp10 + digits.len() as i64;
    if magnitude > 4933 {
        return None; // >= 1e4933: overflows (ERANGE)
    }
    if magnitude < -4950 {
        return None; // < 1e-4951: below half the smallest subnormal, so zero (ERANGE)
    }
    let n = Big::from_digits(digits);
    let rounded = if exp10 >= 0 {
        let mut n = n;
        n.mul_pow10(exp10 as u64);
        round(neg, &n, 0, false)
    } else {
        let mut d = Big::from_u128(1);
        d.mul_pow10(exp10.unsigned_abs());
        // q = floor(n × 2^s / d) carries PREC + 2 or more bits, so rounding sees its
        // guard bit; the remainder says whether anything lies below.
        let s = PREC + 2 + d.bit_len() as i64 - n.bit_len() as i64;
        let (num, den) = if s >= 0 { (n.shifted_left(s as u64), d) } else { (n, d.shifted_left(s.unsigned_abs())) };
        let (q, inexact) = num.div_rem_nonzero(&den);
        round(neg, &q, -s, inexact)
    };
    nonzero(rounded?)
}

fn hex(neg: bool, s: &[u8]) -> Option<Ld> {
    let mut i = 0;
    let int = digits_at(s, &mut i, 16);
    let frac = if s.get(i) == Some(&b'.') {
        i += 1;
        digits_at(s, &mut i, 16)
    } else {
        &[]
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut exp2 = 0;
    if matches!(s.get(i), Some(b'p' | b'P')) {
        i += 1;
        exp2 = exponent_at(s, &mut i)?;
    }
    if i != s.len() {
        return None;
    }
    let mut n = Big::default();
    let digits: Vec<u32> = int.iter().chain(frac).map(|&c| (c as char).to_digit(16).unwrap_or(0)).collect();
    // Seven hex digits (28 bits) per multiply keep long inputs cheap.
    for chunk in digits.chunks(7) {
        n.mul_small(1 << (4 * chunk.len()));
        n.add_small(chunk.iter().fold(0, |acc, &d| (acc << 4) | d));
    }
    if n.is_zero() {
        return Some(zero(neg));
    }
    nonzero(round(neg, &n, exp2 - 4 * frac.len() as i64, false)?)
}

/// A nonzero input that rounded to zero underflowed: strtold's ERANGE, refused by Redis.
fn nonzero(v: Ld) -> Option<Ld> {
    (v.mant != 0).then_some(v)
}

/// Rounds (-1)^neg × big × 2^exp (plus `inexact`: nonzero bits below big's last) to the
/// nearest representable value, ties to even. `None` when it overflows to infinity.
fn round(neg: bool, big: &Big, exp: i64, inexact: bool) -> Option<Ld> {
    if big.is_zero() {
        return Some(zero(neg));
    }
    let top = exp + big.bit_len() as i64 - 1;
    let mut lsb = (top - (PREC - 1)).max(LSB_MIN);
    let mut mant;
    if lsb <= exp {
        debug_assert!(!inexact, "rounding needs bits below the last kept one");
        mant = big.shifted_left((exp - lsb) as u64).to_u128();
    } else {
        let shift = (lsb - exp) as u64;
        mant = big.shifted_right(shift).to_u128();
        let half = big.bit(shift - 1);
        let below = inexact || big.any_below(shift - 1);
        if half && (below || mant & 1 == 1) {
            mant += 1;
            if mant == 1 << PREC {
                mant >>= 1;
                lsb += 1;
            }
        }
    }
    if mant == 0 {
        return Some(zero(neg));
    }
    let top = lsb + (128 - mant.leading_zeros() as i64) - 1;
    if top > EMAX {
        return None;
    }
    Some(Ld { neg, mant, exp: lsb })
}

/// `a + b` rounded once, as the FPU does. `None` when either is infinite or the sum
/// overflows: Redis's "increment would produce NaN or Infinity".
pub fn add(a: Num, b: Num) -> Option<Ld> {
    let (Num::Finite(a), Num::Finite(b)) = (a, b) else {
        return None;
    };
    if a.mant == 0 && b.mant == 0 {
        return Some(zero(a.neg && b.neg));
    }
    if a.mant == 0 {
        return Some(b);
    }
    if b.mant == 0 {
        return Some(a);
    }
    let exp = a.exp.min(b.exp);
    let x = Big::from_u128(a.mant).shifted_left((a.exp - exp) as u64);
    let y = Big::from_u128(b.mant).shifted_left((b.exp - exp) as u64);
    let (neg, sum) = if a.neg == b.neg {
        (a.neg, x.plus(&y))
    } else {
        match x.compare(&y) {
            Ordering::Greater => (a.neg, x.minus(&y)),
            Ordering::Less => (b.neg, y.minus(&x)),
            Ordering::Equal => return Some(zero(false)),
        }
    };
    round(neg, &sum, exp, false)
}

/// `(long long) ceill(v * k)` as x87 computes it: the product rounded once to 64 bits, then
/// up to an integer (Redis turns a blocking command's timeout in seconds into milliseconds
/// this way). `None` when the integer does not fit an i64 or `v` is infinite, where the C
/// conversion yields LLONG_MIN.
pub fn mul_ceil_i64(v: Num, k: u32) -> Option<i64> {
    let Num::Finite(v) = v else { return None };
    let p = round(v.neg, &Big::from_u128(v.mant * k as u128), v.exp, false)?;
    if p.mant == 0 {
        return Some(0);
    }
    let magnitude: u128 = if p.exp >= 0 {
        if p.exp >= 64 {
            return None;
        }
        p.mant << p.exp
    } else {
        let shift = p.exp.unsigned_abs();
        let (whole, frac) = if shift >= 128 { (0, true) } else { (p.mant >> shift, p.mant & ((1 << shift) - 1) != 0) };
        // Up for a positive value; toward zero (also up) for a negative one.
        whole + (frac && !p.neg) as u128
    };
    let signed = if p.neg { -i128::try_from(magnitude).ok()? } else { i128::try_from(magnitude).ok()? };
    i64::try_from(signed).ok()
}

/// `%.17Lf` (exact, ties to even), then Redis's `ld2string` human mode: trailing zeros
/// and a bare point trimmed, and "-0" written "0".
pub fn format_fixed17(v: Ld) -> String {
    let mut scaled = Big::from_u128(v.mant);
    scaled.mul_pow10(DECIMALS as u64);
    let units = if v.exp >= 0 {
        scaled.shifted_left(v.exp as u64)
    } else {
        let k = v.exp.unsigned_abs();
        let mut q = scaled.shifted_right(k);
        if scaled.bit(k - 1) && (scaled.any_below(k - 1) || q.bit(0)) {
            q.add_small(1);
        }
        q
    };
    let mut digits = units.to_decimal();
    if digits.len() <= DECIMALS {
        digits = format!("{}{digits}", "0".repeat(DECIMALS + 1 - digits.len()));
    }
    let point = digits.len() - DECIMALS;
    let text = format!("{}{}.{}", if v.neg { "-" } else { "" }, &digits[..point], &digits[point..]);
    let trimmed = text.trim_end_matches('0');
    let trimmed = trimmed.strip_suffix('.').unwrap_or(trimmed);
    if trimmed == "-0" {
        "0".to_string()
    } else {
        trimmed.to_string()
    }
}

/// An unsigned integer of any size: little-endian 32-bit limbs, no high zero limbs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Big(Vec<u32>);

impl Big {
    fn from_u128(mut v: u128) -> Big {
        let mut limbs = Vec::new();
        while v > 0 {
            limbs.push(v as u32);
            v >>= 32;
        }
        Big(limbs)
    }

    /// From decimal digit values (0..=9), most significant first.
    fn from_digits(digits: &[u8]) -> Big {
        let mut b = Big::default();
        for chunk in digits.chunks(9) {
            let (scale, add) = chunk.iter().fold((1u32, 0u32), |(m, a), &d| (m * 10, a * 10 + d as u32));
            b.mul_small(scale);
            b.add_small(add);
        }
        b
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    fn bit_len(&self) -> u64 {
        match self.0.last() {
            Some(&top) => (self.0.len() as u64 - 1) * 32 + (32 - top.leading_zeros()) as u64,
            None => 0,
        }
    }

    fn bit(&self, i: u64) -> bool {
        let limb = (i / 32) as usize;
        limb < self.0.len() && (self.0[limb] >> (i % 32)) & 1 == 1
    }

    /// Whether any bit below position `i` is set.
    fn any_below(&self, i: u64) -> bool {
        let full = ((i / 32) as usize).min(self.0.len());
        let rem = i % 32;
        self.0[..full].iter().any(|&l| l != 0)
            || (rem > 0 && full < self.0.len() && self.0[full] & ((1 << rem) - 1) != 0)
    }

    /// The value, which must fit in 128 bits.
    fn to_u128(&self) -> u128 {
        debug_assert!(self.0.len() <= 4);
        self.0.iter().take(4).rev().fold(0, |acc, &l| (acc << 32) | l as u128)
    }

    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for limb in self.0.iter_mut() {
            let t = *limb as u64 * m as u64 + carry;
            *limb = t as u32;
            carry = t >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
        self.trim();
    }

    fn add_small(&mut self, a: u32) {
        let mut carry = a as u64;
        for limb in self.0.iter_mut() {
            if carry == 0 {
                break;
            }
            let t = *limb as u64 + carry;
            *limb = t as u32;
            carry = t >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    fn mul_pow10(&mut self, mut k: u64) {
        while k >= 9 {
            self.mul_small(1_000_000_000);
            k -= 9;
        }
        self.mul_small(10u32.pow(k as u32));
    }

    fn shifted_left(&self, n: u64) -> Big {
        if self.is_zero() {
            return Big::default();
        }
        let (limbs, bits) = ((n / 32) as usize, (n % 32) as u32);
        let mut out = vec![0u32; limbs];
        out.reserve(self.0.len() + 1);
        let mut carry = 0u32;
        for &l in &self.0 {
            if bits == 0 {
                out.push(l);
            } else {
                out.push((l << bits) | carry);
                carry = l >> (32 - bits);
            }
        }
        out.push(carry);
        let mut b = Big(out);
        b.trim();
        b
    }

    fn shifted_right(&self, n: u64) -> Big {
        let limbs = (n / 32) as usize;
        if limbs >= self.0.len() {
            return Big::default();
        }
        let bits = (n % 32) as u32;
        let src = &self.0[limbs..];
        let mut out: Vec<u32> =
            (0..src.len())
                .map(|i| {
                    if bits == 0 {
                        src[i]
                    } else {
                        (src[i] >> bits) | src.get(i + 1).map_or(0, |&h| h << (32 - bits))
                    }
                })
                .collect();
        while out.last() == Some(&0) {
            out.pop();
        }
        Big(out)
    }

    fn compare(&self, other: &Big) -> Ordering {
        self.0.len().cmp(&other.0.len()).then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }

    fn plus(&self, other: &Big) -> Big {
        let (long, short) = if self.0.len() >= other.0.len() { (self, other) } else { (other, self) };
        let mut out = Vec::with_capacity(long.0.len() + 1);
        let mut carry = 0u64;
        for (i, &l) in long.0.iter().enumerate() {
            let t = l as u64 + short.0.get(i).copied().unwrap_or(0) as u64 + carry;
            out.push(t as u32);
            carry = t >> 32;
        }
        if carry > 0 {
            out.push(carry as u32);
        }
        Big(out)
    }

    /// `self - other`, which must not be negative.
    fn minus(&self, other: &Big) -> Big {
        let mut out = self.clone();
        out.sub_assign(other);
        out
    }

    fn sub_assign(&mut self, other: &Big) {
        let mut borrow = 0i64;
        for (i, limb) in self.0.iter_mut().enumerate() {
            let t = *limb as i64 - other.0.get(i).copied().unwrap_or(0) as i64 - borrow;
            borrow = (t < 0) as i64;
            *limb = t.rem_euclid(1 << 32) as u32;
        }
        debug_assert_eq!(borrow, 0);
        self.trim();
    }

    /// The quotient, which must fit in 128 bits, and whether a remainder is left.
    fn div_rem_nonzero(mut self, den: &Big) -> (Big, bool) {
        let bits = self.bit_len().saturating_sub(den.bit_len()) + 1;
        debug_assert!(bits <= 128);
        let mut q = 0u128;
        for i in (0..bits.min(128)).rev() {
            let t = den.shifted_left(i);
            if self.compare(&t) != Ordering::Less {
                self.sub_assign(&t);
                q |= 1 << i;
            }
        }
        (Big::from_u128(q), !self.is_zero())
    }

    /// Divides in place by `d`, returning the remainder.
    fn div_small(&mut self, d: u32) -> u32 {
        let mut rem = 0u64;
        for limb in self.0.iter_mut().rev() {
            let cur = (rem << 32) | *limb as u64;
            *limb = (cur / d as u64) as u32;
            rem = cur % d as u64;
        }
        self.trim();
        rem as u32
    }

    fn to_decimal(&self) -> String {
        let mut n = self.clone();
        let mut chunks = Vec::new();
        while !n.is_zero() {
            chunks.push(n.div_small(1_000_000_000));
        }
        let Some((first, rest)) = chunks.split_last() else {
            return "0".to_string();
        };
        let mut s = first.to_string();
        for c in rest.iter().rev() {
            s.push_str(&format!("{c:09}"));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn incr(a: &str, b: &str) -> Option<String> {
        let sum = add(parse(a.as_bytes())?, parse(b.as_bytes())?)?;
        Some(format_fixed17(sum))
    }

    fn sum(a: &str, b: &str) -> String {
        incr(a, b).unwrap_or_else(|| panic!("{a} + {b} failed"))
    }

    #[test]
    fn sums_match_redis_on_x86_64() {
        // Each expectation was produced by Redis 7.0.15 on x86-64.
        assert_eq!(sum("10.50", "0.1"), "10.6");
        assert_eq!(sum("10.6", "-5"), "5.6");
        assert_eq!(sum("5.0e3", "2.0e2"), "5200");
        assert_eq!(sum("0", "3.0e3"), "3000");
        assert_eq!(sum("0.1", "0.2"), "0.3");
        assert_eq!(sum("1.1", "2.2"), "3.3");
        assert_eq!(sum("0", "1e-20"), "0");
        assert_eq!(sum("0", "-1e-20"), "0");
        assert_eq!(sum("0", "1.5e-7"), "0.00000015");
        assert_eq!(sum("0", "1e23"), "100000000000000000000000");
        assert_eq!(sum("0", "0x10"), "16");
        assert!(sum("0", "1e400").starts_with("10000000000000000000281880683947586514586453433629"));
        assert_eq!(sum("0", "1e400").len(), 401);
    }

    #[test]
    fn parsing_follows_string2ld() {
        for bad in [
            "", " 1", "1 ", "abc", "1e", "1e+", ".", "e5", "0x", "0x1p", "nan", "-nan", "1..2", "--1", "1e5000",
            "1e-5000", "1\u{0}",
        ] {
            assert_eq!(parse(bad.as_bytes()), None, "{bad:?}");
        }
        for good in ["1", "-1", "+1", ".5", "5.", "1E3", "1e-3", "0x1.8p1", "0XAp-1", "0e-99999", "-0", "1e4932"] {
            assert!(matches!(parse(good.as_bytes()), Some(Num::Finite(_))), "{good:?}");
        }
        assert_eq!(parse(b"-Infinity"), Some(Num::Infinite));
        assert_eq!(parse(&[b'1'; MAX_CHARS]), None);
        assert_eq!(sum("0x1.8p1", "0"), "3");
        assert_eq!(sum("0XAp-1", "0"), "5");
    }

    #[test]
    fn overflow_and_infinity_are_refused() {
        assert_eq!(incr("1e4932", "1e4932"), None);
        assert_eq!(incr("inf", "1"), None);
        assert_eq!(incr("1", "-inf"), None);
    }

    #[test]
    fn signs_zeros_and_cancellation() {
        assert_eq!(sum("-0", "-0"), "0");
        assert_eq!(sum("1.5", "-1.5"), "0");
        assert_eq!(sum("-2.25", "1"), "-1.25");
        assert_eq!(sum("0.00000000000000001", "0"), "0.00000000000000001");
        assert_eq!(sum("-0.000000000000000015", "0"), "-0.00000000000000002");
    }

    #[test]
    fn blocking_timeouts_scale_and_round_up_like_x87() {
        let ms = |t: &str| mul_ceil_i64(parse(t.as_bytes()).unwrap(), 1000);
        assert_eq!(ms("1"), Some(1000));
        assert_eq!(ms("0.0001"), Some(1));
        assert_eq!(ms("1e-400"), Some(1));
        assert_eq!(ms("-0"), Some(0));
        assert_eq!(ms("-0.0009"), Some(0));
        // 0.001 is a little under 1/1000 in long double, so -0.001 s rounds up to 0 ms.
        assert_eq!(ms("-0.001"), Some(0));
        assert_eq!(ms("-0.0011"), Some(-1));
        assert_eq!(ms("0x10"), Some(16_000));
        assert_eq!(ms("9223372036854775"), Some(9_223_372_036_854_775_000));
        assert_eq!(ms("9223372036854776"), None);
        assert_eq!(ms("inf"), None);
        assert_eq!(ms("1e400"), None);
    }

    #[test]
    fn rounding_is_correct_at_the_limits() {
        // 2^64 + 1 needs 65 bits: ties to even drops the 1.
        assert_eq!(sum("18446744073709551617", "0"), "18446744073709551616");
        assert_eq!(sum("18446744073709551619", "0"), "18446744073709551620");
        // Subnormals survive parsing; values below half the smallest one do not.
        assert!(parse(b"4e-4951").is_some());
        assert_eq!(parse(b"1e-4951"), None);
    }
}
