//! `StreamId`: a stream entry's ID (`ms-seq`), its order, and the ways commands spell it: a
//! full `ms-seq`, `ms` alone, `-` and `+`, exclusive `(` range bounds, and XADD's `*` and
//! `ms-*`. Parsing follows Redis 7.0's `streamGenericParseIDOrReply`, so the same bad ID gets
//! the same error.

use std::fmt;

use crate::error::CmdError;

/// One entry's ID: milliseconds and a sequence number within that millisecond. The derived
/// order (ms first, then seq) is the stream's order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StreamId {
    pub ms: u64,
    pub seq: u64,
}

/// What `-` means: the smallest ID.
pub const MIN_ID: StreamId = StreamId { ms: 0, seq: 0 };
/// What `+` means: the largest ID.
pub const MAX_ID: StreamId = StreamId { ms: u64::MAX, seq: u64::MAX };

/// Redis's text for an ID that does not parse.
pub const INVALID_ID: &str = "ERR Invalid stream ID specified as stream command argument";

impl StreamId {
    pub const fn new(ms: u64, seq: u64) -> StreamId {
        StreamId { ms, seq }
    }

    /// The next ID in order, if there is one.
    pub fn next(self) -> Option<StreamId> {
        match self.seq.checked_add(1) {
            Some(seq) => Some(StreamId { ms: self.ms, seq }),
            None => self.ms.checked_add(1).map(|ms| StreamId { ms, seq: 0 }),
        }
    }

    /// The previous ID in order, if there is one.
    pub fn prev(self) -> Option<StreamId> {
        match self.seq.checked_sub(1) {
            Some(seq) => Some(StreamId { ms: self.ms, seq }),
            None => self.ms.checked_sub(1).map(|ms| StreamId { ms, seq: u64::MAX }),
        }
    }

    /// Parses a plain ID: `ms-seq`, or `ms` alone with `missing_seq` as its sequence. With
    /// `strict`, `-` and `+` are refused (XADD, XSETID).
    pub fn parse(arg: &[u8], missing_seq: u64, strict: bool) -> Result<StreamId, CmdError> {
        match parse_id(arg, missing_seq, strict)? {
            Parsed::Id(id) => Ok(id),
            Parsed::AutoSeq(_) => Err(invalid()),
        }
    }

    /// Parses a range bound (XRANGE, XREVRANGE, XPENDING): `-`, `+`, `ms` (with `missing_seq`),
    /// `ms-seq`, or an exclusive `(` form moved one step inward (`start` moves up). An
    /// exclusive bound that cannot move answers Redis's "invalid start/end ID" error.
    pub fn parse_bound(arg: &[u8], missing_seq: u64, start: bool) -> Result<StreamId, CmdError> {
        let Some(rest) = arg.strip_prefix(b"(") else {
            return StreamId::parse(arg, missing_seq, false);
        };
        // Redis refuses "(" followed by nothing, and "(-" / "(+" (as "invalid ID").
        if rest.is_empty() {
            return Err(invalid());
        }
        let id = StreamId::parse(rest, missing_seq, true)?;
        let moved = if start { id.next() } else { id.prev() };
        moved.ok_or_else(|| {
            let which = if start { "start" } else { "end" };
            CmdError::Other(format!("ERR invalid {which} ID for the interval"))
        })
    }

    /// Parses XADD's ID argument: `*` (`None`), `ms-*`, `ms-seq` or `ms` (sequence 0).
    pub fn parse_for_add(arg: &[u8]) -> Result<AddId, CmdError> {
        if arg == b"*" {
            return Ok(AddId::Auto);
        }
        match parse_id(arg, 0, true)? {
            Parsed::Id(id) => Ok(AddId::Explicit(id)),
            Parsed::AutoSeq(ms) => Ok(AddId::AutoSeq(ms)),
        }
    }

    /// `ms-seq`, as Redis prints an ID.
    pub fn to_bytes(self) -> Vec<u8> {
        self.to_string().into_bytes()
    }
}

impl fmt::Display for StreamId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.ms, self.seq)
    }
}

/// XADD's ID: `*`, `ms-*`, or explicit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddId {
    Auto,
    AutoSeq(u64),
    Explicit(StreamId),
}

enum Parsed {
    Id(StreamId),
    AutoSeq(u64),
}

fn invalid() -> CmdError {
    CmdError::Other(INVALID_ID.to_string())
}

/// Redis's `string2ull`: decimal digits only, no sign, no spaces, no leading `+`, and the
/// value must fit 64 bits.
fn parse_u64(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 20 || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(s).ok()?.parse().ok()
}

fn parse_id(arg: &[u8], missing_seq: u64, strict: bool) -> Result<Parsed, CmdError> {
    // Redis copies the argument into a 128-byte buffer first and refuses longer ones.
    if arg.len() > 127 {
        return Err(invalid());
    }
    if !strict && arg.len() == 1 {
        match arg[0] {
            b'-' => return Ok(Parsed::Id(MIN_ID)),
            b'+' => return Ok(Parsed::Id(MAX_ID)),
            _ => {}
        }
    }
    let (ms, seq) = match arg.iter().position(|&b| b == b'-') {
        Some(dash) => (&arg[..dash], Some(&arg[dash + 1..])),
        None => (arg, None),
    };
    let ms = parse_u64(ms).ok_or_else(invalid)?;
    match seq {
        None => Ok(Parsed::Id(StreamId { ms, seq: missing_seq })),
        Some(b"*") => Ok(Parsed::AutoSeq(ms)),
        Some(seq) => Ok(Parsed::Id(StreamId { ms, seq: parse_u64(seq).ok_or_else(invalid)? })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        assert_eq!(StreamId::parse(b"5-3", 0, true), Ok(StreamId::new(5, 3)));
        assert_eq!(StreamId::parse(b"5", 7, true), Ok(StreamId::new(5, 7)));
        assert_eq!(StreamId::parse(b"-", 0, false), Ok(MIN_ID));
        assert_eq!(StreamId::parse(b"+", 0, false), Ok(MAX_ID));
        assert!(StreamId::parse(b"-", 0, true).is_err());
        for bad in [&b""[..], b"a", b"1-", b"-1", b"1-2-3", b" 1", b"+1", b"18446744073709551616", b"1-*"] {
            assert_eq!(StreamId::parse(bad, 0, false), Err(invalid()), "{:?}", String::from_utf8_lossy(bad));
        }
        assert_eq!(StreamId::new(18446744073709551615, 0).to_string(), "18446744073709551615-0");
    }

    #[test]
    fn exclusive_bounds_move_inward() {
        assert_eq!(StreamId::parse_bound(b"(5-3", 0, true), Ok(StreamId::new(5, 4)));
        assert_eq!(StreamId::parse_bound(b"(5-0", 0, false), Ok(StreamId::new(4, u64::MAX)));
        assert_eq!(StreamId::parse_bound(b"(5", u64::MAX, true), Ok(StreamId::new(6, 0)));
        let max = format!("({}-{}", u64::MAX, u64::MAX);
        assert_eq!(
            StreamId::parse_bound(max.as_bytes(), 0, true),
            Err(CmdError::Other("ERR invalid start ID for the interval".into()))
        );
        assert_eq!(
            StreamId::parse_bound(b"(0-0", 0, false),
            Err(CmdError::Other("ERR invalid end ID for the interval".into()))
        );
        assert!(StreamId::parse_bound(b"(-", 0, true).is_err());
        assert!(StreamId::parse_bound(b"(", 0, true).is_err());
    }

    #[test]
    fn add_ids() {
        assert_eq!(StreamId::parse_for_add(b"*"), Ok(AddId::Auto));
        assert_eq!(StreamId::parse_for_add(b"7-*"), Ok(AddId::AutoSeq(7)));
        assert_eq!(StreamId::parse_for_add(b"7"), Ok(AddId::Explicit(StreamId::new(7, 0))));
        assert!(StreamId::parse_for_add(b"*-1").is_err());
        assert!(StreamId::parse_for_add(b"-").is_err());
        assert_eq!(StreamId::new(1, 0).prev(), Some(StreamId::new(0, u64::MAX)));
        assert_eq!(MAX_ID.next(), None);
    }
}
