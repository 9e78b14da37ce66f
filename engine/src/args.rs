//! `Args`: a cursor over a command's arguments that parses them the way Redis does
//! (integers, floats, flags, keys) and reports Redis's error for each kind of bad input.

use crate::error::CmdError;
use crate::num::parse_i64;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_takes_flags_and_rejects_leftovers() {
        let argv: Vec<&[u8]> = vec![b"ex", b"10", b"junk"];
        let mut a = Args::new(&argv);
        assert!(a.flag("EX"));
        assert_eq!(a.int(), Ok(10));
        assert_eq!(a.finish(), Err(CmdError::Syntax));
    }
}
