//! Inline commands (what `telnet`, `nc` and health-check scripts send): one line split into words
//! by Redis's `sdssplitargs` quoting rules.

use std::borrow::Cow;

use super::{find_byte, CommandArgs, Limits};
use crate::error::ProtocolError;

/// Decodes one inline command line.
pub(super) fn parse_inline<'a>(
    input: &'a [u8],
    limits: &Limits,
) -> Result<Option<(CommandArgs<'a>, usize)>, ProtocolError> {
    let Some(newline) = find_byte(input, b'\n') else {
        if input.len() > limits.max_inline_len {
            return Err(ProtocolError::InlineTooBig);
        }
        return Ok(None);
    };
    let mut line = &input[..newline];
    if let [head @ .., b'\r'] = line {
        line = head;
    }
    let args = split_args(line).ok_or(ProtocolError::UnbalancedQuotes)?;
    Ok(Some((args, newline + 1)))
}

/// Redis's `sdssplitargs`: splits a line into words, honouring quotes. `None` on unbalanced
/// quotes (or a closing quote followed by something other than whitespace).
///
/// `sdssplitargs` works on a C string, so a NUL byte ends the line there; we do the same rather
/// than invent a meaning for it. Words are borrowed from `line` whenever their bytes are one
/// contiguous run of it (plain words, and quoted words without escapes).
pub(crate) fn split_args(line: &[u8]) -> Option<CommandArgs<'_>> {
    let line = match find_byte(line, 0) {
        Some(nul) => &line[..nul],
        None => line,
    };
    let mut args = Vec::new();
    let mut p = 0;
    loop {
        while p < line.len() && is_c_space(line[p]) {
            p += 1;
        }
        if p >= line.len() {
            return Some(args);
        }
        let mut word = Word::new(line);
        // In sdssplitargs the three states are plain, "double-quoted" and 'single-quoted'.
        let mut in_double = false;
        let mut in_single = false;
        loop {
            let c = line.get(p).copied();
            if in_double {
                match c {
                    None => return None,
                    Some(b'\\') => match line.get(p + 1).copied() {
                        Some(b'x')
                            if line.get(p + 2).is_some_and(u8::is_ascii_hexdigit)
                                && line.get(p + 3).is_some_and(u8::is_ascii_hexdigit) =>
                        {
                            let hi = hex_value(line[p + 2]);
                            let lo = hex_value(line[p + 3]);
                            word.push_byte(hi * 16 + lo);
                            p += 4;
                        }
                        Some(escaped) => {
                            word.push_byte(match escaped {
                                b'n' => b'\n',
                                b'r' => b'\r',
                                b't' => b'\t',
                                b'b' => 0x08,
                                b'a' => 0x07,
                                other => other,
                            });
                            p += 2;
                        }
                        // A backslash at the very end: kept, then the quote is unterminated.
                        None => return None,
                    },
                    Some(b'"') => {
                        if line.get(p + 1).is_some_and(|&n| !is_c_space(n)) {
                            return None;
                        }
                        p += 1;
                        break;
                    }
                    Some(_) => {
                        word.push_from_line(p);
                        p += 1;
                    }
                }
            } else if in_single {
                match c {
                    None => return None,
                    Some(b'\\') if line.get(p + 1) == Some(&b'\'') => {
                        word.push_byte(b'\'');
                        p += 2;
                    }
                    Some(b'\'') => {
                        if line.get(p + 1).is_some_and(|&n| !is_c_space(n)) {
                            return None;
                        }
                        p += 1;
                        break;
                    }
                    Some(_) => {
                        word.push_from_line(p);
                        p += 1;
                    }
                }
            } else {
                match c {
                    // Only these end a plain word (sdssplitargs does not stop at \v or \f).
                    None | Some(b' ' | b'\n' | b'\r' | b'\t') => {
                        if c.is_some() {
                            p += 1;
                        }
                        break;
                    }
                    Some(b'"') => {
                        in_double = true;
                        p += 1;
                    }
                    Some(b'\'') => {
                        in_single = true;
                        p += 1;
                    }
                    Some(_) => {
                        word.push_from_line(p);
                        p += 1;
                    }
                }
            }
        }
        args.push(word.finish());
    }
}

/// One word being built by [`split_args`]: a borrowed range of the line while its bytes are
/// contiguous there, an owned copy once they are not.
struct Word<'a> {
    line: &'a [u8],
    start: usize,
    end: usize,
    owned: Option<Vec<u8>>,
}

impl<'a> Word<'a> {
    fn new(line: &'a [u8]) -> Word<'a> {
        Word { line, start: 0, end: 0, owned: None }
    }

    /// Appends `line[at]`.
    fn push_from_line(&mut self, at: usize) {
        match &mut self.owned {
            Some(bytes) => bytes.push(self.line[at]),
            None if self.start == self.end => {
                self.start = at;
                self.end = at + 1;
            }
            None if self.end == at => self.end += 1,
            None => self.push_byte(self.line[at]),
        }
    }

    /// Appends a byte that is not the next one of the borrowed run (an unescaped byte, or a byte
    /// after a skipped quote).
    fn push_byte(&mut self, byte: u8) {
        self.owned.get_or_insert_with(|| self.line[self.start..self.end].to_vec()).push(byte);
    }

    fn finish(self) -> Cow<'a, [u8]> {
        match self.owned {
            Some(bytes) => Cow::Owned(bytes),
            None => Cow::Borrowed(&self.line[self.start..self.end]),
        }
    }
}

/// C's `isspace` in the "C" locale.
fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

fn hex_value(b: u8) -> u8 {
    match b {
        b'0'..=b'9' => b - b'0',
        b'a'..=b'f' => b - b'a' + 10,
        b'A'..=b'F' => b - b'A' + 10,
        _ => 0,
    }
}
