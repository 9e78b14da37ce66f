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
//!
//! This file holds the entry points and the multibulk decoder; `inline` the inline commands and
//! `sdssplitargs`'s argument splitting (also used by the console); `peek` the quick key peek that
//! prefetching uses.

mod inline;
mod peek;
#[cfg(test)]
mod tests;

use inline::parse_inline;
pub(crate) use inline::split_args;
pub use peek::peek_key;

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
                Scan::Incomplete => Ok(None),
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
            Scan::Incomplete => Ok(None),
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

/// The outcome of walking a multibulk command's framing.
enum Scan {
    /// The whole command is present; this many bytes.
    Complete(usize),
    /// More bytes are needed.
    Incomplete,
}

/// Incomplete: wait for more bytes.
const WAIT: Scan = Scan::Incomplete;

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
            return Ok(Scan::Incomplete);
        }
        if let Some(args) = args.as_deref_mut() {
            args.push(Cow::Borrowed(&input[pos..end]));
        }
        pos = next;
    }
    Ok(Scan::Complete(pos))
}

pub(super) fn find_byte(haystack: &[u8], needle: u8) -> Option<usize> {
    haystack.iter().position(|&b| b == needle)
}

fn starts_with_ignore_case(s: &[u8], prefix: &[u8]) -> bool {
    s.len() >= prefix.len() && s[..prefix.len()].eq_ignore_ascii_case(prefix)
}
