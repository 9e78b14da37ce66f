//! `Reply`: what every command returns, and its wire encodings (RESP2 and RESP3).

use crate::error::CmdError;
use crate::num::{format_double, format_human, format_i64};

/// A command's reply, independent of protocol version. Encode with [`Reply::encode`].
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// `+OK`
    Ok,
    /// A simple string such as `+PONG` (must not contain CR or LF).
    Status(String),
    /// An error line; the text is the full Redis text without the `-` (e.g. `ERR syntax error`).
    Error(String),
    Int(i64),
    Bulk(Vec<u8>),
    /// The null bulk string: `$-1` in RESP2, `_` in RESP3.
    Nil,
    /// The null array: `*-1` in RESP2, `_` in RESP3 (EXEC abort, BLPOP timeout).
    NilArray,
    Array(Vec<Reply>),
    /// A map: RESP3 `%`, flattened to an array of 2n elements in RESP2.
    Map(Vec<(Reply, Reply)>),
    /// A set: RESP3 `~`, an array in RESP2.
    Set(Vec<Reply>),
    /// A double: RESP3 `,`, a bulk string in RESP2 (formatted as Redis does).
    Double(f64),
    /// A double in Redis's "human" form (`%.17Lf`, trailing zeros trimmed: GEOPOS's
    /// coordinates): RESP3 `,`, a bulk string in RESP2.
    HumanDouble(f64),
    /// A boolean: RESP3 `#t`/`#f`, the integers 1/0 in RESP2.
    Bool(bool),
    /// Verbatim text (`=` with a `txt:` prefix in RESP3), a bulk string in RESP2.
    Verbatim(String),
    /// An out-of-band message (pub/sub): RESP3 `>`, a plain array in RESP2.
    Push(Vec<Reply>),
    /// Several replies in a row from one command (SUBSCRIBE a b confirms each channel).
    Many(Vec<Reply>),
}

impl From<CmdError> for Reply {
    fn from(e: CmdError) -> Reply {
        Reply::Error(e.to_string())
    }
}

impl Reply {
    pub fn bulk(bytes: impl AsRef<[u8]>) -> Reply {
        Reply::Bulk(bytes.as_ref().to_vec())
    }

    /// `Some(bytes)` as a bulk string, `None` as nil.
    pub fn opt_bulk(v: Option<impl AsRef<[u8]>>) -> Reply {
        match v {
            Some(b) => Reply::bulk(b),
            None => Reply::Nil,
        }
    }

    pub fn status(s: impl Into<String>) -> Reply {
        Reply::Status(s.into())
    }

    pub fn is_error(&self) -> bool {
        matches!(self, Reply::Error(_))
    }

    /// Appends the encoding of this reply to `out`, in RESP3 when `resp3` is set.
    pub fn encode(&self, resp3: bool, out: &mut Vec<u8>) {
        match self {
            Reply::Ok => out.extend_from_slice(b"+OK\r\n"),
            Reply::Status(s) => line(out, b'+', s.as_bytes()),
            Reply::Error(s) => line(out, b'-', s.as_bytes()),
            Reply::Int(n) => int_line(out, b':', *n),
            Reply::Bulk(b) => encode_bulk(out, b),
            Reply::Nil if resp3 => out.extend_from_slice(b"_\r\n"),
            Reply::Nil => out.extend_from_slice(b"$-1\r\n"),
            Reply::NilArray if resp3 => out.extend_from_slice(b"_\r\n"),
            Reply::NilArray => out.extend_from_slice(b"*-1\r\n"),
            Reply::Array(items) => {
                int_line(out, b'*', items.len() as i64);
                for r in items {
                    r.encode(resp3, out);
                }
            }
            Reply::Set(items) => {
                int_line(out, if resp3 { b'~' } else { b'*' }, items.len() as i64);
                for r in items {
                    r.encode(resp3, out);
                }
            }
            Reply::Map(pairs) => {
                if resp3 {
                    int_line(out, b'%', pairs.len() as i64);
                } else {
                    int_line(out, b'*', pairs.len() as i64 * 2);
                }
                for (k, v) in pairs {
                    k.encode(resp3, out);
                    v.encode(resp3, out);
                }
            }
            Reply::Double(d) => {
                let text = format_double(*d);
                if resp3 {
                    line(out, b',', text.as_bytes());
                } else {
                    encode_bulk(out, text.as_bytes());
                }
            }
            Reply::HumanDouble(d) => {
                let text = format_human(*d);
                if resp3 {
                    line(out, b',', text.as_bytes());
                } else {
                    encode_bulk(out, text.as_bytes());
                }
            }
            Reply::Bool(b) if resp3 => out.extend_from_slice(if *b { b"#t\r\n" } else { b"#f\r\n" }),
            Reply::Bool(b) => int_line(out, b':', *b as i64),
            Reply::Verbatim(s) if resp3 => {
                int_line(out, b'=', s.len() as i64 + 4);
                out.extend_from_slice(b"txt:");
                out.extend_from_slice(s.as_bytes());
                out.extend_from_slice(b"\r\n");
            }
            Reply::Verbatim(s) => encode_bulk(out, s.as_bytes()),
            Reply::Push(items) => {
                int_line(out, if resp3 { b'>' } else { b'*' }, items.len() as i64);
                for r in items {
                    r.encode(resp3, out);
                }
            }
            Reply::Many(replies) => {
                for r in replies {
                    r.encode(resp3, out);
                }
            }
        }
    }

    /// The RESP encoding as a fresh buffer (handy in tests).
    pub fn to_resp(&self, resp3: bool) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode(resp3, &mut out);
        out
    }
}

/// Appends a bulk string (`$<len>\r\n<bytes>\r\n`).
pub fn encode_bulk(out: &mut Vec<u8>, bytes: &[u8]) {
    int_line(out, b'$', bytes.len() as i64);
    out.extend_from_slice(bytes);
    out.extend_from_slice(b"\r\n");
}

/// Appends an error line (`-<text>\r\n`).
pub fn encode_error(out: &mut Vec<u8>, text: &str) {
    line(out, b'-', text.as_bytes());
}

fn line(out: &mut Vec<u8>, prefix: u8, body: &[u8]) {
    out.push(prefix);
    // A status or error must stay on one line whatever a handler put in it.
    out.extend(body.iter().map(|&c| if c == b'\r' || c == b'\n' { b' ' } else { c }));
    out.extend_from_slice(b"\r\n");
}

fn int_line(out: &mut Vec<u8>, prefix: u8, n: i64) {
    out.push(prefix);
    let mut buf = [0u8; 20];
    out.extend_from_slice(format_i64(n, &mut buf));
    out.extend_from_slice(b"\r\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_resp2_and_resp3() {
        assert_eq!(Reply::Ok.to_resp(false), b"+OK\r\n");
        assert_eq!(Reply::Int(-42).to_resp(false), b":-42\r\n");
        assert_eq!(Reply::Int(i64::MIN).to_resp(false), b":-9223372036854775808\r\n");
        assert_eq!(Reply::bulk("hi").to_resp(false), b"$2\r\nhi\r\n");
        assert_eq!(Reply::Nil.to_resp(false), b"$-1\r\n");
        assert_eq!(Reply::Nil.to_resp(true), b"_\r\n");
        assert_eq!(Reply::NilArray.to_resp(false), b"*-1\r\n");
        let map = Reply::Map(vec![(Reply::bulk("a"), Reply::Int(1))]);
        assert_eq!(map.to_resp(false), b"*2\r\n$1\r\na\r\n:1\r\n");
        assert_eq!(map.to_resp(true), b"%1\r\n$1\r\na\r\n:1\r\n");
        assert_eq!(Reply::Double(1.5).to_resp(true), b",1.5\r\n");
        assert_eq!(Reply::Double(3.0).to_resp(false), b"$1\r\n3\r\n");
        assert_eq!(Reply::Bool(true).to_resp(false), b":1\r\n");
        assert_eq!(Reply::Verbatim("x".into()).to_resp(true), b"=5\r\ntxt:x\r\n");
        let push = Reply::Push(vec![Reply::bulk("message"), Reply::bulk("c"), Reply::bulk("m")]);
        assert_eq!(push.to_resp(true), b">3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$1\r\nm\r\n");
        assert_eq!(push.to_resp(false), b"*3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$1\r\nm\r\n");
        assert_eq!(Reply::Many(vec![Reply::Int(1), Reply::Nil]).to_resp(false), b":1\r\n$-1\r\n");
    }

    #[test]
    fn status_and_error_lines_cannot_break_framing() {
        assert_eq!(Reply::Error("ERR a\r\nb".into()).to_resp(false), b"-ERR a  b\r\n");
    }

    #[test]
    fn doubles_encode_as_g17_text() {
        assert_eq!(Reply::Double(1.1).to_resp(false), b"$18\r\n1.1000000000000001\r\n");
        assert_eq!(Reply::Double(1e20).to_resp(true), b",1e+20\r\n");
        assert_eq!(Reply::HumanDouble(13.361389338970184).to_resp(false), b"$20\r\n13.36138933897018433\r\n");
        assert_eq!(Reply::HumanDouble(-0.0).to_resp(true), b",0\r\n");
    }
}
