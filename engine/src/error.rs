//! Errors: `CmdError` (a command failed; its `Display` is the exact Redis wire text and the
//! connection stays open) and `ProtocolError` (broken framing; the connection is closed).

use std::fmt;

/// A command error. `Display` gives the text Redis sends after the `-`, e.g.
/// `ERR wrong number of arguments for 'get' command`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CmdError {
    /// `ERR unknown command '<name>', with args beginning with: '<a>' '<b>' `
    UnknownCommand { name: String, args: Vec<String> },
    /// `ERR unknown subcommand '<sub>'. Try <CMD> HELP.`
    UnknownSubcommand { cmd: String, sub: String },
    /// `ERR wrong number of arguments for '<name>' command` (name lower case, `cmd|sub` for subcommands)
    WrongArity(String),
    /// `ERR syntax error`
    Syntax,
    /// `WRONGTYPE Operation against a key holding the wrong kind of value`
    WrongType,
    /// `ERR value is not an integer or out of range`
    NotInteger,
    /// `ERR value is not a valid float`
    NotFloat,
    /// `ERR increment or decrement would overflow`
    Overflow,
    /// `ERR no such key`
    NoSuchKey,
    /// `OOM command not allowed when used memory > 'maxmemory'.`
    Oom,
    /// `NOAUTH Authentication required.`
    NoAuth,
    /// `WRONGPASS invalid username-password pair or user is disabled.`
    WrongPass,
    /// `ERR invalid expire time in '<cmd>' command`
    InvalidExpire(String),
    /// `ERR string exceeds maximum allowed size (proto-max-bulk-len)`
    StringTooLong,
    /// `ERR DB index is out of range`
    DbOutOfRange,
    /// Any other text, sent as is (it must start with an error code such as `ERR `).
    Other(String),
}

impl CmdError {
    /// `ERR <text>`: the common case of a one-off message.
    pub fn err(text: impl Into<String>) -> CmdError {
        CmdError::Other(format!("ERR {}", text.into()))
    }
}

impl fmt::Display for CmdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CmdError::UnknownCommand { name, args } => {
                write!(f, "ERR unknown command '{name}', with args beginning with: ")?;
                for a in args {
                    write!(f, "'{a}' ")?;
                }
                Ok(())
            }
            CmdError::UnknownSubcommand { cmd, sub } => {
                write!(f, "ERR unknown subcommand '{sub}'. Try {cmd} HELP.")
            }
            CmdError::WrongArity(name) => {
                write!(f, "ERR wrong number of arguments for '{name}' command")
            }
            CmdError::Syntax => f.write_str("ERR syntax error"),
            CmdError::WrongType => f.write_str("WRONGTYPE Operation against a key holding the wrong kind of value"),
            CmdError::NotInteger => f.write_str("ERR value is not an integer or out of range"),
            CmdError::NotFloat => f.write_str("ERR value is not a valid float"),
            CmdError::Overflow => f.write_str("ERR increment or decrement would overflow"),
            CmdError::NoSuchKey => f.write_str("ERR no such key"),
            CmdError::Oom => f.write_str("OOM command not allowed when used memory > 'maxmemory'."),
            CmdError::NoAuth => f.write_str("NOAUTH Authentication required."),
            CmdError::WrongPass => f.write_str("WRONGPASS invalid username-password pair or user is disabled."),
            CmdError::InvalidExpire(cmd) => write!(f, "ERR invalid expire time in '{cmd}' command"),
            CmdError::StringTooLong => f.write_str("ERR string exceeds maximum allowed size (proto-max-bulk-len)"),
            CmdError::DbOutOfRange => f.write_str("ERR DB index is out of range"),
            CmdError::Other(text) => f.write_str(text),
        }
    }
}

impl std::error::Error for CmdError {}

/// An argument as Redis's `%.*s` prints it into an error text: up to its first NUL byte and
/// at most `max` bytes. (The caller turns it into text; bytes that are not UTF-8 become
/// U+FFFD there, where Redis would send them as they are.)
pub fn c_str(arg: &[u8], max: usize) -> &[u8] {
    let end = arg.iter().position(|&b| b == 0).unwrap_or(arg.len()).min(max);
    &arg[..end]
}

/// [`c_str`] as text.
pub fn c_str_lossy(arg: &[u8], max: usize) -> String {
    String::from_utf8_lossy(c_str(arg, max)).into_owned()
}

/// Broken framing on the RESP port. `Display` is Redis's text (without the leading `-`); the
/// server sends it and closes the connection, as Redis does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProtocolError {
    /// `ERR Protocol error: invalid multibulk length`
    InvalidMultibulkLength,
    /// `ERR Protocol error: invalid bulk length`
    InvalidBulkLength,
    /// `ERR Protocol error: expected '$', got '<c>'`
    ExpectedDollar(u8),
    /// `ERR Protocol error: unauthenticated multibulk length` (over 10 arguments before AUTH)
    UnauthenticatedMultibulkLength,
    /// `ERR Protocol error: unauthenticated bulk length` (a bulk over 16 KiB before AUTH)
    UnauthenticatedBulkLength,
    /// `ERR Protocol error: too big inline request`
    InlineTooBig,
    /// `ERR Protocol error: too big mbulk count string`
    MultibulkCountTooBig,
    /// `ERR Protocol error: too big bulk count string`
    BulkCountTooBig,
    /// `ERR Protocol error: unbalanced quotes in request`
    UnbalancedQuotes,
    /// The client sent something that looks like HTTP; closed without a reply, as Redis does
    /// ("Possible SECURITY ATTACK detected").
    LooksLikeHttp,
    /// The query buffer grew past `client-query-buffer-limit` without completing a command.
    QueryBufferFull,
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProtocolError::InvalidMultibulkLength => f.write_str("ERR Protocol error: invalid multibulk length"),
            ProtocolError::InvalidBulkLength => f.write_str("ERR Protocol error: invalid bulk length"),
            ProtocolError::ExpectedDollar(c) => {
                write!(f, "ERR Protocol error: expected '$', got '{}'", *c as char)
            }
            ProtocolError::UnauthenticatedMultibulkLength => {
                f.write_str("ERR Protocol error: unauthenticated multibulk length")
            }
            ProtocolError::UnauthenticatedBulkLength => f.write_str("ERR Protocol error: unauthenticated bulk length"),
            ProtocolError::InlineTooBig => f.write_str("ERR Protocol error: too big inline request"),
            ProtocolError::MultibulkCountTooBig => f.write_str("ERR Protocol error: too big mbulk count string"),
            ProtocolError::BulkCountTooBig => f.write_str("ERR Protocol error: too big bulk count string"),
            ProtocolError::UnbalancedQuotes => f.write_str("ERR Protocol error: unbalanced quotes in request"),
            ProtocolError::LooksLikeHttp => f.write_str("ERR Protocol error: HTTP request on the RESP port"),
            ProtocolError::QueryBufferFull => f.write_str("ERR Protocol error: query buffer limit reached"),
        }
    }
}

impl std::error::Error for ProtocolError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_str_stops_at_nul_and_max() {
        assert_eq!(c_str(b"abc", 128), b"abc");
        assert_eq!(c_str(b"a\0bc", 128), b"a");
        assert_eq!(c_str(b"abcdef", 3), b"abc");
        assert_eq!(c_str(b"ab\0cdef", 3), b"ab");
        assert_eq!(c_str(b"", 0), b"");
        assert_eq!(c_str_lossy(b"\xff\0x", 10), "\u{fffd}");
    }
}
