//! `Args`: a cursor over a command's arguments that parses them the way Redis does
//! (integers, floats, flags, keys) and reports Redis's error for each kind of bad input.

use crate::error::CmdError;

/// The arguments after the command name. Handlers take what they need in order and call
/// [`Args::finish`] (or check [`Args::is_empty`]) so trailing junk is a syntax error.
pub struct Args<'a> {
    argv: &'a [&'a [u8]],
    pos: usize,
}

impl<'a> Args<'a> {
    /// `argv` excludes the command name.
    pub fn new(argv: &'a [&'a [u8]]) -> Args<'a> {
        Args { argv, pos: 0 }
    }

    pub fn len(&self) -> usize {
        self.argv.len() - self.pos
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// All arguments not yet taken.
    pub fn rest(&mut self) -> &'a [&'a [u8]] {
        let r = &self.argv[self.pos..];
        self.pos = self.argv.len();
        r
    }

    /// The next argument without taking it.
    pub fn peek(&self) -> Option<&'a [u8]> {
        self.argv.get(self.pos).copied()
    }

    /// The next argument; a missing one is a syntax error (arity was checked by dispatch, so
    /// this only happens inside optional clauses such as `EX` without its number).
    pub fn bytes(&mut self) -> Result<&'a [u8], CmdError> {
        let a = self.argv.get(self.pos).ok_or(CmdError::Syntax)?;
        self.pos += 1;
        Ok(a)
    }

    /// A key (same as `bytes`, named for readability at call sites).
    pub fn key(&mut self) -> Result<&'a [u8], CmdError> {
        self.bytes()
    }

    /// An integer argument, with Redis's error when it is not one.
    pub fn int(&mut self) -> Result<i64, CmdError> {
        parse_i64(self.bytes()?).ok_or(CmdError::NotInteger)
    }

    /// Takes the next argument if it equals `name` ignoring ASCII case.
    pub fn flag(&mut self, name: &str) -> bool {
        match self.peek() {
            Some(a) if a.eq_ignore_ascii_case(name.as_bytes()) => {
                self.pos += 1;
                true
            }
            _ => false,
        }
    }

    /// The next argument upper-cased as a `String` for matching options (`EX`, `NX`, ...).
    pub fn option(&mut self) -> Result<String, CmdError> {
        Ok(String::from_utf8_lossy(self.bytes()?).to_ascii_uppercase())
    }

    /// Fails with a syntax error if anything is left.
    pub fn finish(&self) -> Result<(), CmdError> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(CmdError::Syntax)
        }
    }
}

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
    fn cursor_takes_flags_and_rejects_leftovers() {
        let argv: Vec<&[u8]> = vec![b"ex", b"10", b"junk"];
        let mut a = Args::new(&argv);
        assert!(a.flag("EX"));
        assert_eq!(a.int(), Ok(10));
        assert_eq!(a.finish(), Err(CmdError::Syntax));
    }
}
