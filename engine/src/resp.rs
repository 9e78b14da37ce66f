//! Incremental RESP2/RESP3 request decoding (multibulk and inline), with Redis's limits.
//!
//! [`parse_command`] decodes the *next* command at the start of a buffer and says how many bytes
//! it used; the caller loops until it returns `Ok(None)` (the rest is an incomplete command that
//! waits for more bytes, never an error). RESP3 changes replies only: clients still send requests
//! as RESP2 multibulk arrays, so one decoder serves both protocol versions.
//!
//! The rules are those of Redis's `processMultibulkBuffer` and `processInlineBuffer`
//! (src/networking.c) and `sdssplitargs` (src/sds.c), error texts included:
//!
//! * A request starting with `*` is multibulk: `*<n>\r\n` then `n` times `$<len>\r\n<len bytes>\r\n`.
//!   Header lines end at the first `\r` and the byte after it is skipped unchecked, as is the
//!   `\r\n` after each bulk. `*0` and negative counts are empty commands (the caller skips them).
//! * Anything else is an inline command: one line up to `\n` (a `\r` before it is dropped), split
//!   on whitespace with double quotes (escapes `\n \r \t \b \a \\ \" \xHH`) and single quotes
//!   (only `\'`). An empty or blank line is an empty command.
//! * Integers are parsed like Redis's `string2ll`: optional `-`, no `+`, no leading zeros, no
//!   spaces, at most 20 characters, within `i64`.
//!
//! Why hand-written rather than the `redis-protocol` crate: the hot path must borrow every
//! argument straight from the read buffer (one `Vec` of slices per command, no copies, no
//! `Bytes` refcounts); the limits (`proto-max-bulk-len`, the 64 KiB header/inline line limit)
//! and the exact error texts that Redis closes a connection with are part of the compatibility
//! contract; and inline commands (what `telnet`, `nc` and health-check scripts send) need
//! `sdssplitargs`'s quoting rules, which a general RESP codec does not implement. The whole
//! decoder is a few hundred lines and allocation-free apart from the argument vector.
//!
//! The decoder is stateless: a partial command is re-scanned from its start when more bytes
//! arrive. That costs one pass over the (short) header lines, never over bulk payloads, which are
//! skipped by length.

use std::borrow::Cow;

use crate::error::ProtocolError;
use crate::num::parse_i64;

/// Redis's `PROTO_INLINE_MAX_SIZE`.
const INLINE_MAX: usize = 64 * 1024;

/// The most argument slots reserved up front, whatever count the client announced (Redis caps its
/// `argv` allocation at 1024 the same way): an announced length is never trusted for allocation.
const MAX_PREALLOC_ARGS: usize = 1024;

/// One command's arguments: borrowed from the input buffer except inline words whose quoting had
/// to be rewritten.
pub type CommandArgs<'a> = Vec<Cow<'a, [u8]>>;

/// Limits on what a client may send, as Redis's configuration names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// `proto-max-bulk-len`: the longest single argument (default 512 MiB).
    pub max_bulk_len: usize,
    /// The most arguments in one multibulk command (default 1024 * 1024).
    pub max_multibulk_len: usize,
    /// Redis's `PROTO_INLINE_MAX_SIZE` (64 KiB): the longest inline line still waiting for its
    /// `\n`, and also the longest `*<count>` / `$<len>` header line still waiting for its `\r`.
    pub max_inline_len: usize,
    /// The connection has not authenticated yet (`requirepass` is set): as Redis, a multibulk
    /// of more than [`UNAUTH_MAX_MULTIBULK`] arguments or a bulk over [`UNAUTH_MAX_BULK`] bytes
    /// is a protocol error, so an unauthenticated client cannot make the server buffer much.
    pub unauthenticated: bool,
}

/// Redis's limit on an unauthenticated client's argument count (networking.c: `ll > 10`).
pub const UNAUTH_MAX_MULTIBULK: usize = 10;
/// Redis's limit on an unauthenticated client's bulk length (networking.c: `ll > 16384`).
pub const UNAUTH_MAX_BULK: usize = 16 * 1024;

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_bulk_len: 512 * 1024 * 1024,
            max_multibulk_len: 1024 * 1024,
            max_inline_len: INLINE_MAX,
            unauthenticated: false,
        }
    }
}

/// Decodes the next command at the start of `input`.
///
/// Returns the arguments (borrowed from `input`, except inline words whose quoting had to be
/// rewritten) and the number of bytes consumed. `Ok(None)` means the command is not complete yet:
/// keep the bytes and call again when more arrive. An empty inline line, `*0\r\n` and `*-1\r\n`
/// decode as `Some` with no arguments; the caller skips them. An error means the framing is
/// broken: send its text and close the connection, as Redis does.
pub fn parse_command<'a>(input: &'a [u8], limits: &Limits) -> Result<Option<(CommandArgs<'a>, usize)>, ProtocolError> {
    match input.first() {
        None => Ok(None),
        Some(b'*') => {
            let mut args = Vec::new();
            match scan_multibulk(input, limits, Some(&mut args))? {
                Scan::Complete(used) => Ok(Some((args, used))),
                Scan::Incomplete { .. } => Ok(None),
            }
        }
        Some(_) => parse_inline(input, limits),
    }
}

/// Like [`parse_command`], but decodes into `args` (cleared first) so a caller decoding many
/// commands reuses one allocation: the hot path allocates nothing per command. Returns the
/// bytes consumed, or `None` when the command is incomplete.
pub fn parse_command_into<'a>(
    input: &'a [u8],
    limits: &Limits,
    args: &mut CommandArgs<'a>,
) -> Result<Option<usize>, ProtocolError> {
    args.clear();
    match input.first() {
        None => Ok(None),
        Some(b'*') => match scan_multibulk(input, limits, Some(args))? {
            Scan::Complete(used) => Ok(Some(used)),
            Scan::Incomplete { .. } => Ok(None),
        },
        Some(_) => match parse_inline(input, limits)? {
            Some((parsed, used)) => {
                *args = parsed;
                Ok(Some(used))
            }
            None => Ok(None),
        },
    }
}

/// Whether a decoded command is really an HTTP request sent to the RESP port, which the server
/// refuses by closing the connection without a reply (Redis logs "Possible SECURITY ATTACK").
///
/// True for a command named `POST` or starting with `Host:` (Redis registers both as commands
/// that close the connection; case-insensitive like every command name), and for an HTTP request
/// line: a method (`GET`, `POST`, `PUT`, `DELETE`, `HEAD`, `OPTIONS`, `PATCH`, `CONNECT`), a
/// target, and a last word starting with `HTTP/`. `GET key` stays an ordinary command.
pub fn looks_like_http(args: &[Cow<'_, [u8]>]) -> bool {
    const METHODS: [&[u8]; 8] = [b"GET", b"POST", b"PUT", b"DELETE", b"HEAD", b"OPTIONS", b"PATCH", b"CONNECT"];
    let Some(first) = args.first() else {
        return false;
    };
    if first.eq_ignore_ascii_case(b"POST") || starts_with_ignore_case(first, b"host:") {
        return true;
    }
    if args.len() < 3 || !METHODS.iter().any(|m| first.eq_ignore_ascii_case(m)) {
        return false;
    }
    args.last().is_some_and(|last| starts_with_ignore_case(last, b"HTTP/"))
}

/// How many bytes the next command at the start of `input` needs in total, as far as its headers
/// tell: e.g. after `*1\r\n$1000\r\n` and 10 payload bytes, `Some(1013)`. When the command is
/// already complete this is its exact length (`<= input.len()`). `None` when unknown: an inline
/// command still waiting for its newline, a header line not yet complete, or broken framing.
///
/// For sizing reads only, never for allocating: the length comes from the client and is not
/// checked against any limit here (the server's query-buffer limit caps what it actually reads).
pub fn bytes_needed_hint(input: &[u8]) -> Option<usize> {
    let unlimited = Limits {
        max_bulk_len: usize::MAX,
        max_multibulk_len: usize::MAX,
        max_inline_len: usize::MAX,
        unauthenticated: false,
    };
    match input.first()? {
        b'*' => match scan_multibulk(input, &unlimited, None).ok()? {
            Scan::Complete(used) => Some(used),
            Scan::Incomplete { needed } => needed,
        },
        _ => input.iter().position(|&b| b == b'\n').map(|newline| newline + 1),
    }
}

/// The outcome of walking a multibulk command's framing.
enum Scan {
    /// The whole command is present; this many bytes.
    Complete(usize),
    /// More bytes are needed; `needed` is the total the command needs at least, when a bulk
    /// header has announced a payload that is not all here yet.
    Incomplete { needed: Option<usize> },
}

/// Incomplete, and how much is missing is not known yet (a header line is still arriving).
const WAIT: Scan = Scan::Incomplete { needed: None };

/// Walks one multibulk command, pushing each argument to `args` when given. `input[0]` is `*`.
fn scan_multibulk<'a>(
    input: &'a [u8],
    limits: &Limits,
    mut args: Option<&mut CommandArgs<'a>>,
) -> Result<Scan, ProtocolError> {
    // The count line: `*<n>\r`, then one more byte (Redis skips it without looking).
    let Some(cr) = find_byte(input, b'\r') else {
        if input.len() > limits.max_inline_len {
            return Err(ProtocolError::MultibulkCountTooBig);
        }
        return Ok(WAIT);
    };
    if cr + 2 > input.len() {
        return Ok(WAIT);
    }
    let count = parse_i64(&input[1..cr]).ok_or(ProtocolError::InvalidMultibulkLength)?;
    let mut pos = cr + 2;
    if count <= 0 {
        return Ok(Scan::Complete(pos));
    }
    let count = usize::try_from(count)
        .ok()
        .filter(|&n| n <= limits.max_multibulk_len)
        .ok_or(ProtocolError::InvalidMultibulkLength)?;
    if limits.unauthenticated && count > UNAUTH_MAX_MULTIBULK {
        return Err(ProtocolError::UnauthenticatedMultibulkLength);
    }
    if let Some(args) = args.as_deref_mut() {
        args.reserve_exact(count.min(MAX_PREALLOC_ARGS));
    }

    for _ in 0..count {
        // The bulk header: `$<len>\r` and one more byte.
        let rest = &input[pos..];
        let Some(cr) = find_byte(rest, b'\r') else {
            if rest.len() > limits.max_inline_len {
                return Err(ProtocolError::BulkCountTooBig);
            }
            return Ok(WAIT);
        };
        if cr + 2 > rest.len() {
            return Ok(WAIT);
        }
        // `rest` is not empty here: it holds at least the `\r` and the byte after it.
        let first = rest[0];
        if first != b'$' {
            return Err(ProtocolError::ExpectedDollar(first));
        }
        let len = parse_i64(&rest[1..cr])
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n <= limits.max_bulk_len)
            .ok_or(ProtocolError::InvalidBulkLength)?;
        if limits.unauthenticated && len > UNAUTH_MAX_BULK {
            return Err(ProtocolError::UnauthenticatedBulkLength);
        }
        pos += cr + 2;

        // The payload and its `\r\n` (skipped unchecked, as Redis does).
        let end = pos.saturating_add(len);
        let next = end.saturating_add(2);
        if next > input.len() {
            return Ok(Scan::Incomplete { needed: Some(next) });
        }
        if let Some(args) = args.as_deref_mut() {
            args.push(Cow::Borrowed(&input[pos..end]));
        }
        pos = next;
    }
    Ok(Scan::Complete(pos))
}

/// Decodes one inline command line.
fn parse_inline<'a>(input: &'a [u8], limits: &Limits) -> Result<Option<(CommandArgs<'a>, usize)>, ProtocolError> {
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

/// For prefetching only: the second argument (the key, for most commands) of the multibulk
/// command at the start of `input`, and the command's length in bytes. A quick scan that
/// checks only what it needs to stay in bounds and gives up (`None`) on anything unusual:
/// inline commands, an odd header, more than [`PEEK_MAX_ARGS`] arguments, an incomplete
/// command. The real decoder still judges every byte; a wrong peek only wastes a prefetch.
pub fn peek_key(input: &[u8]) -> Option<(Option<&[u8]>, usize)> {
    let (count, mut pos) = peek_header(input, b'*')?;
    if count > PEEK_MAX_ARGS {
        return None;
    }
    let mut key = None;
    for i in 0..count {
        let (len, header) = peek_header(&input[pos..], b'$')?;
        let start = pos + header;
        let end = start.checked_add(len)?;
        if end.checked_add(2)? > input.len() {
            return None;
        }
        if i == 1 {
            key = Some(&input[start..end]);
        }
        pos = end + 2;
    }
    Some((key, pos))
}

/// Most arguments [`peek_key`] walks through; longer commands are not worth a prefetch.
pub const PEEK_MAX_ARGS: usize = 64;

/// `<marker><digits>\r\n` at the start of `input`: the number and the header's length.
fn peek_header(input: &[u8], marker: u8) -> Option<(usize, usize)> {
    if input.first() != Some(&marker) {
        return None;
    }
    let mut n = 0usize;
    // Up to 10 digits: more than any length worth peeking at.
    for (i, &b) in input.iter().enumerate().skip(1).take(11) {
        match b {
            b'0'..=b'9' => n = n * 10 + usize::from(b - b'0'),
            b'\r' if i > 1 && i + 1 < input.len() => return Some((n, i + 2)),
            _ => return None,
        }
    }
    None
}

fn find_byte(haystack: &[u8], needle: u8) -> Option<usize> {
    haystack.iter().position(|&b| b == needle)
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

fn starts_with_ignore_case(s: &[u8], prefix: &[u8]) -> bool {
    s.len() >= prefix.len() && s[..prefix.len()].eq_ignore_ascii_case(prefix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peek_key_finds_the_second_argument_and_the_length() {
        let set = b"*3\r\n$3\r\nSET\r\n$4\r\nuser\r\n$2\r\nhi\r\n*1\r\n$4\r\nPING\r\n";
        let (key, len) = peek_key(set).unwrap();
        assert_eq!(key, Some(&b"user"[..]));
        assert_eq!(len, 31);
        // The decoder agrees on where the command ends.
        assert_eq!(parse_command(set, &Limits::default()).unwrap().unwrap().1, len);
        assert_eq!(peek_key(&set[len..]), Some((None, 14)));
        // Every incomplete prefix, inline commands and odd headers give up.
        for cut in 0..len {
            assert_eq!(peek_key(&set[..cut]), None, "cut at {cut}");
        }
        for odd in [&b"GET user\r\n"[..], b"*2\r\n$3\r\nGET\r\n$-1\r\n", b"*\r\n", b"*99999999999\r\n", b"*100\r\n"] {
            assert_eq!(peek_key(odd), None, "{:?}", String::from_utf8_lossy(odd));
        }
    }

    type Parsed = Result<Option<(Vec<Vec<u8>>, usize)>, ProtocolError>;

    /// Parses with the default limits and turns the arguments into owned byte strings.
    fn parse(input: &[u8]) -> Parsed {
        parse_with(input, &Limits::default())
    }

    fn parse_with(input: &[u8], limits: &Limits) -> Parsed {
        parse_command(input, limits)
            .map(|r| r.map(|(args, used)| (args.into_iter().map(Cow::into_owned).collect(), used)))
    }

    /// The arguments of a complete command that uses all of `input`.
    fn args_of(input: &[u8]) -> Vec<Vec<u8>> {
        match parse(input) {
            Ok(Some((args, used))) => {
                assert_eq!(used, input.len(), "consumed for {input:?}");
                args
            }
            other => panic!("expected a complete command for {input:?}, got {other:?}"),
        }
    }

    fn err_text(input: &[u8]) -> String {
        match parse(input) {
            Err(e) => e.to_string(),
            other => panic!("expected an error for {input:?}, got {other:?}"),
        }
    }

    fn v(items: &[&[u8]]) -> Vec<Vec<u8>> {
        items.iter().map(|a| a.to_vec()).collect()
    }

    fn encode(args: &[Vec<u8>]) -> Vec<u8> {
        let mut out = format!("*{}\r\n", args.len()).into_bytes();
        for a in args {
            out.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
            out.extend_from_slice(a);
            out.extend_from_slice(b"\r\n");
        }
        out
    }

    fn cows(args: &[&str]) -> Vec<Cow<'static, [u8]>> {
        args.iter().map(|a| Cow::Owned(a.as_bytes().to_vec())).collect()
    }

    #[test]
    fn complete_multibulk() {
        assert_eq!(args_of(b"*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n"), v(&[b"SET", b"key", b"value"]));
    }

    #[test]
    fn multibulk_args_are_borrowed_from_the_input() {
        let input = b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n";
        let (args, _) = parse_command(input, &Limits::default()).unwrap().unwrap();
        assert!(args.iter().all(|a| matches!(a, Cow::Borrowed(_))));
    }

    #[test]
    fn empty_bulk_argument() {
        assert_eq!(args_of(b"*2\r\n$4\r\nECHO\r\n$0\r\n\r\n"), v(&[b"ECHO", b""]));
    }

    #[test]
    fn pipelined_commands_are_decoded_one_at_a_time() {
        let input = b"*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\nPING\r\n*2\r\n$3\r\nGE";
        let (args, used) = parse(input).unwrap().unwrap();
        assert_eq!(args, v(&[b"PING"]));
        assert_eq!(used, 14);
        let rest = &input[used..];
        let (args, used2) = parse(rest).unwrap().unwrap();
        assert_eq!(args, v(&[b"GET", b"k"]));
        assert_eq!(used2, 20);
        let rest = &rest[used2..];
        let (args, used3) = parse(rest).unwrap().unwrap();
        assert_eq!(args, v(&[b"PING"]));
        assert_eq!(used3, 6);
        assert_eq!(parse(&rest[used3..]), Ok(None));
    }

    #[test]
    fn every_split_point_is_incomplete() {
        let commands: [&[u8]; 4] = [
            b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$10\r\n0123456789\r\n",
            b"*2\r\n$4\r\nECHO\r\n$0\r\n\r\n",
            b"SET \"a b\" 'c d'\r\n",
            b"PING\n",
        ];
        for cmd in commands {
            for i in 0..cmd.len() {
                assert_eq!(parse(&cmd[..i]), Ok(None), "prefix {:?}", &cmd[..i]);
            }
            let (_, used) = parse(cmd).unwrap().unwrap();
            assert_eq!(used, cmd.len());
        }
    }

    #[test]
    fn arguments_are_binary_safe() {
        let value: &[u8] = b"a\r\nb\0c\r\n*1\r\n$";
        let input = encode(&[b"SET".to_vec(), b"\0".to_vec(), value.to_vec()]);
        assert_eq!(args_of(&input), v(&[b"SET", b"\0", value]));
    }

    #[test]
    fn random_commands_round_trip() {
        // A small xorshift generator keeps this deterministic without a dependency.
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..500 {
            let argc = (next() % 6) as usize + 1;
            let args: Vec<Vec<u8>> = (0..argc)
                .map(|_| {
                    let len = (next() % 20) as usize;
                    (0..len).map(|_| (next() % 256) as u8).collect()
                })
                .collect();
            let mut input = encode(&args);
            let whole = input.len();
            input.extend_from_slice(b"*1\r\n$4\r\nPI");
            assert_eq!(parse(&input), Ok(Some((args, whole))));
            assert_eq!(bytes_needed_hint(&input), Some(whole));
            let cut = (next() as usize) % whole;
            assert_eq!(parse(&input[..cut]), Ok(None));
        }
    }

    #[test]
    fn garbage_never_panics_and_always_makes_progress() {
        let alphabet = b"*$\r\n-0123456789\"'\\x aZ+";
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..20_000 {
            let len = (next() % 24) as usize;
            let mut input: Vec<u8> = (0..len).map(|_| alphabet[(next() as usize) % alphabet.len()]).collect();
            if next() % 2 == 0 {
                input.insert(0, b'*');
            }
            if let Ok(Some((_, used))) = parse(&input) {
                assert!(used > 0 && used <= input.len(), "{input:?} used {used}");
                assert!(bytes_needed_hint(&input).is_some_and(|n| n <= input.len()));
            }
        }
    }

    #[test]
    fn trailing_crlf_of_a_bulk_is_skipped_unchecked_like_redis() {
        assert_eq!(args_of(b"*1\r\n$4\r\nPINGxy"), v(&[b"PING"]));
        // The byte after a header's \r is not checked either.
        assert_eq!(args_of(b"*1\rx$4\ryPING\r\n"), v(&[b"PING"]));
    }

    #[test]
    fn empty_and_negative_multibulk_counts_are_empty_commands() {
        assert_eq!(parse(b"*0\r\nPING"), Ok(Some((vec![], 4))));
        assert_eq!(parse(b"*-1\r\n"), Ok(Some((vec![], 5))));
        assert_eq!(parse(b"*-9223372036854775808\r\n"), Ok(Some((vec![], 23))));
    }

    #[test]
    fn invalid_multibulk_length() {
        let text = "ERR Protocol error: invalid multibulk length";
        for input in [
            &b"*abc\r\n"[..],
            b"*\r\n",
            b"*-\r\n",
            b"*01\r\n",
            b"*+1\r\n",
            b"* 1\r\n",
            b"*1 \r\n",
            b"*-0\r\n",
            b"*9223372036854775808\r\n",
            b"*99999999999999999999999\r\n",
            b"*1048577\r\n",
        ] {
            assert_eq!(err_text(input), text, "{input:?}");
        }
        // The limit itself is allowed (and reserves no more than the cap).
        assert_eq!(parse(b"*1048576\r\n$1\r\n"), Ok(None));
        let small = Limits { max_multibulk_len: 2, ..Limits::default() };
        assert_eq!(parse_with(b"*3\r\n", &small), Err(ProtocolError::InvalidMultibulkLength));
    }

    #[test]
    fn expected_dollar() {
        assert_eq!(err_text(b"*1\r\n+foo\r\n"), "ERR Protocol error: expected '$', got '+'");
        assert_eq!(err_text(b"*2\r\n$3\r\nGET\r\n:1\r\n"), "ERR Protocol error: expected '$', got ':'");
    }

    #[test]
    fn invalid_bulk_length() {
        let text = "ERR Protocol error: invalid bulk length";
        for input in [
            &b"*1\r\n$-5\r\n"[..],
            b"*1\r\n$-1\r\n",
            b"*1\r\n$abc\r\n",
            b"*1\r\n$\r\n",
            b"*1\r\n$03\r\nfoo\r\n",
            b"*1\r\n$2147483648\r\n",
            b"*1\r\n$536870913\r\n",
            b"*1\r\n$9223372036854775808\r\n",
        ] {
            assert_eq!(err_text(input), text, "{input:?}");
        }
        let small = Limits { max_bulk_len: 3, ..Limits::default() };
        assert_eq!(parse_with(b"*1\r\n$3\r\nGET\r\n", &small).map(|r| r.is_some()), Ok(true));
        assert_eq!(parse_with(b"*1\r\n$4\r\n", &small), Err(ProtocolError::InvalidBulkLength));
    }

    #[test]
    fn errors_are_reported_before_the_command_is_complete() {
        // Like Redis, a bad header is an error as soon as it has arrived.
        assert_eq!(parse(b"*3\r\n$3\r\nSET\r\n$x\r\n"), Err(ProtocolError::InvalidBulkLength));
    }

    #[test]
    fn huge_announced_bulk_waits_without_allocating() {
        let input = b"*2\r\n$3\r\nSET\r\n$536870912\r\nabc";
        assert_eq!(parse(input), Ok(None));
        assert_eq!(bytes_needed_hint(input), Some(13 + 12 + 536_870_912 + 2));
        // A huge announced count reserves only a bounded number of slots.
        let mut args = Vec::new();
        let scan = scan_multibulk(b"*1048576\r\n$1\r\nx\r\n", &Limits::default(), Some(&mut args));
        assert!(matches!(scan, Ok(Scan::Incomplete { needed: None })));
        assert_eq!(args.len(), 1);
        assert!(args.capacity() <= MAX_PREALLOC_ARGS, "{}", args.capacity());
    }

    #[test]
    fn header_lines_without_cr_are_limited() {
        let mut input = b"*".to_vec();
        input.resize(INLINE_MAX, b'1');
        assert_eq!(parse(&input), Ok(None));
        input.push(b'1');
        assert_eq!(err_text(&input), "ERR Protocol error: too big mbulk count string");

        let mut input = b"*1\r\n$".to_vec();
        input.resize(4 + INLINE_MAX, b'1');
        assert_eq!(parse(&input), Ok(None));
        input.push(b'1');
        assert_eq!(err_text(&input), "ERR Protocol error: too big bulk count string");
    }

    #[test]
    fn inline_commands() {
        assert_eq!(args_of(b"PING\r\n"), v(&[b"PING"]));
        assert_eq!(args_of(b"PING\n"), v(&[b"PING"]));
        assert_eq!(args_of(b"  set\tkey   value \r\n"), v(&[b"set", b"key", b"value"]));
        // \v and \f separate words only between words, as in sdssplitargs.
        assert_eq!(args_of(b"a\x0bb\x0c c\n"), v(&[b"a\x0bb\x0c", b"c"]));
        // A bare \r inside the line ends a word.
        assert_eq!(args_of(b"a\rb\r\n"), v(&[b"a", b"b"]));
        // A NUL ends the line, as it does for sdssplitargs' C string.
        assert_eq!(args_of(b"GET k\0ignored\r\n"), v(&[b"GET", b"k"]));
    }

    #[test]
    fn empty_inline_lines_are_empty_commands() {
        assert_eq!(parse(b"\r\nPING\r\n"), Ok(Some((vec![], 2))));
        assert_eq!(parse(b"\n"), Ok(Some((vec![], 1))));
        assert_eq!(parse(b"   \t \r\n"), Ok(Some((vec![], 7))));
    }

    #[test]
    fn inline_quoting() {
        assert_eq!(args_of(b"SET \"a b\" 'c d'\r\n"), v(&[b"SET", b"a b", b"c d"]));
        assert_eq!(args_of(b"\"\\x41\\n\"\r\n"), v(&[b"A\n"]));
        assert_eq!(args_of(b"\"\\r\\t\\b\\a\\\\\\\"\\q\\x4a\\x4G\"\n"), v(&[b"\r\t\x08\x07\\\"qJx4G"]));
        assert_eq!(args_of(b"'it\\'s' 'a\\nb'\n"), v(&[b"it's", b"a\\nb"]));
        assert_eq!(args_of(b"\"\" ''\n"), v(&[b"", b""]));
        // Quotes may start in the middle of a word.
        assert_eq!(args_of(b"ab\"c d\"\n"), v(&[b"abc d"]));
        assert_eq!(args_of(b"\"\\x00\"\n"), v(&[b"\0"]));
        // A closing quote may be followed by any whitespace.
        assert_eq!(args_of(b"\"a\"\x0b'b'\n"), v(&[b"a", b"b"]));
    }

    #[test]
    fn inline_words_without_escapes_are_borrowed() {
        let (args, _) = parse_command(b"GET \"k y\" 'z' a\"b\"\n", &Limits::default()).unwrap().unwrap();
        assert!(matches!(args[0], Cow::Borrowed(b"GET")));
        assert!(matches!(args[1], Cow::Borrowed(b"k y")));
        assert!(matches!(args[2], Cow::Borrowed(b"z")));
        assert!(matches!(&args[3], Cow::Owned(w) if w == b"ab"));
    }

    #[test]
    fn unbalanced_quotes() {
        let text = "ERR Protocol error: unbalanced quotes in request";
        for input in [
            &b"SET \"a b\r\n"[..],
            b"SET 'a\r\n",
            b"SET \"a\"b\r\n",
            b"SET 'a'b\r\n",
            b"\"\\\"\n",
            b"'\\'\n",
            b"\"a\0\"\n",
        ] {
            assert_eq!(err_text(input), text, "{input:?}");
        }
    }

    #[test]
    fn inline_too_big() {
        let mut input = vec![b'a'; 70 * 1024];
        assert_eq!(err_text(&input), "ERR Protocol error: too big inline request");
        input.truncate(INLINE_MAX);
        assert_eq!(parse(&input), Ok(None));
        // With its newline, a long line is accepted (Redis limits only the wait for it).
        input.push(b'\n');
        assert_eq!(args_of(&input).len(), 1);
    }

    #[test]
    fn empty_input_is_incomplete() {
        assert_eq!(parse(b""), Ok(None));
        assert_eq!(bytes_needed_hint(b""), None);
    }

    #[test]
    fn http_detection() {
        for yes in [
            &["GET", "/", "HTTP/1.1"][..],
            &["POST", "/x", "HTTP/1.1"],
            &["post"],
            &["POST", "/api"],
            &["Host:", "x"],
            &["host:example.com"],
            &["HOST:"],
            &["delete", "/k", "http/1.0"],
            &["CONNECT", "example.com:443", "HTTP/1.1"],
        ] {
            assert!(looks_like_http(&cows(yes)), "{yes:?}");
        }
        for no in [
            &[][..],
            &["GET", "key"],
            &["GET", "HTTP/1.1"],
            &["SET", "/", "HTTP/1.1"],
            &["GET", "/", "HTTPS"],
            &["host"],
            &["PING"],
        ] {
            assert!(!looks_like_http(&cows(no)), "{no:?}");
        }
        let (args, _) = parse_command(b"GET / HTTP/1.1\r\n", &Limits::default()).unwrap().unwrap();
        assert!(looks_like_http(&args));
    }

    #[test]
    fn bytes_needed_hints() {
        let mut input = b"*1\r\n$1000\r\n".to_vec();
        input.extend_from_slice(&[b'x'; 10]);
        assert_eq!(bytes_needed_hint(&input), Some(1013));
        // Header lines still arriving: unknown.
        assert_eq!(bytes_needed_hint(b"*2\r\n$3\r\nGET\r\n$1"), None);
        assert_eq!(bytes_needed_hint(b"*2\r"), None);
        // Complete: the exact length.
        assert_eq!(bytes_needed_hint(b"*1\r\n$4\r\nPING\r\nextra"), Some(14));
        assert_eq!(bytes_needed_hint(b"PING\r\nPI"), Some(6));
        assert_eq!(bytes_needed_hint(b"PIN"), None);
        // Broken framing: unknown.
        assert_eq!(bytes_needed_hint(b"*1\r\n+x\r\n"), None);
        assert_eq!(bytes_needed_hint(b"*1\r\n$-2\r\n"), None);
        // No limit applies: the hint is for sizing reads only.
        assert_eq!(bytes_needed_hint(b"*1\r\n$3000000000\r\n"), Some(17 + 3_000_000_000 + 2));
    }
}
