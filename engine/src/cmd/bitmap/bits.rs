//! Single bits and bit ranges: SETBIT, GETBIT, BITCOUNT and BITPOS.

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::notify::class;
use crate::num::parse_i64;
use crate::reply::Reply;

use super::super::string::str_of;
use super::ops::{bit_at, bit_window, first_bit, popcount};
use super::{bit_offset, with_grown};

/// SETBIT: sets or clears one bit, growing (and creating) the string as needed; answers the
/// bit's old value.
///
/// ```text
/// SETBIT key offset value
/// ```
pub fn setbit(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let offset = bit_offset(args.bytes()?, None, ctx.engine.config().proto_max_bulk_len())?;
    let on = match parse_i64(args.bytes()?) {
        Some(v @ (0 | 1)) => v == 1,
        _ => return Err(CmdError::err("bit is not an integer or out of range")),
    };
    let len = usize::try_from(offset / 8 + 1).map_err(|_| CmdError::StringTooLong)?;
    let (old, changed) = with_grown(ctx, key, len, |s, grew| {
        let old = bit_at(s, offset);
        super::ops::set_bits(s, offset, 1, u64::from(on));
        (old, grew || old != on)
    })?;
    if changed {
        ctx.notify(class::STRING, "setbit", key);
    } else {
        // Redis neither signals nor propagates a SETBIT that changed nothing.
        ctx.leave_unchanged(0);
        ctx.session.log_as = Some(Vec::new());
    }
    Ok(Reply::Int(i64::from(old)))
}

/// Bytes SETBIT may add: the byte its offset falls in, and those before it.
pub fn setbit_growth(argv: &[&[u8]]) -> usize {
    argv.get(2).and_then(|a| parse_i64(a)).map_or(0, |n| super::growth_bytes(n.max(0) as u64 / 8 + 1))
}

/// GETBIT: the bit at an offset (0 past the end or for a missing key).
///
/// ```text
/// GETBIT key offset
/// ```
pub fn getbit(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let offset = bit_offset(args.bytes()?, None, ctx.engine.config().proto_max_bulk_len())?;
    match ctx.db.read(key, ctx.now) {
        Some(entry) => Ok(Reply::Int(i64::from(bit_at(str_of(entry)?, offset)))),
        None => Ok(Reply::Int(0)),
    }
}

/// BYTE or BIT, the unit of a range.
fn unit(arg: &[u8]) -> Result<bool, CmdError> {
    if arg.eq_ignore_ascii_case(b"bit") {
        Ok(true)
    } else if arg.eq_ignore_ascii_case(b"byte") {
        Ok(false)
    } else {
        Err(CmdError::Syntax)
    }
}

/// BITCOUNT: the set bits of a string, or of a byte or bit range of it.
///
/// ```text
/// BITCOUNT key [start end [BYTE | BIT]]
/// ```
pub fn bitcount(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let rest = args.rest();
    // As Redis: a missing key answers 0 before the range is even parsed.
    let Some(entry) = ctx.db.read(key, ctx.now) else { return Ok(Reply::Int(0)) };
    let s = str_of(entry)?;
    let window = match rest {
        [] => bit_window(s.len(), 0, -1, false),
        [start, end, unit_arg @ ..] if unit_arg.len() <= 1 => {
            let start = parse_i64(start).ok_or(CmdError::NotInteger)?;
            let end = parse_i64(end).ok_or(CmdError::NotInteger)?;
            // Redis answers 0 for this shape before looking at the unit.
            if start < 0 && end < 0 && start > end {
                return Ok(Reply::Int(0));
            }
            let bits = match unit_arg.first() {
                Some(u) => unit(u)?,
                None => false,
            };
            bit_window(s.len(), start, end, bits)
        }
        _ => return Err(CmdError::Syntax),
    };
    Ok(Reply::Int(window.map_or(0, |(first, last)| popcount(s, first, last)) as i64))
}

/// BITPOS: the first set or clear bit of a string, or of a byte or bit range of it. Without
/// an end, the string counts as padded with clear bits on the right.
///
/// ```text
/// BITPOS key bit [start [end [BYTE | BIT]]]
/// ```
pub fn bitpos(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let bit = match parse_i64(args.bytes()?) {
        Some(b @ (0 | 1)) => b == 1,
        Some(_) => return Err(CmdError::err("The bit argument must be 1 or 0.")),
        None => return Err(CmdError::NotInteger),
    };
    let rest = args.rest();
    // A missing key is an endless run of clear bits.
    let Some(entry) = ctx.db.read(key, ctx.now) else { return Ok(Reply::Int(if bit { -1 } else { 0 })) };
    let s = str_of(entry)?;
    let (window, end_given) = match rest {
        [] => (bit_window(s.len(), 0, -1, false), false),
        [start, more @ ..] if more.len() <= 2 => {
            let start = parse_i64(start).ok_or(CmdError::NotInteger)?;
            let bits = match more.get(1) {
                Some(u) => unit(u)?,
                None => false,
            };
            match more.first() {
                Some(end) => (bit_window(s.len(), start, parse_i64(end).ok_or(CmdError::NotInteger)?, bits), true),
                None => (bit_window(s.len(), start, -1, bits), false),
            }
        }
        _ => return Err(CmdError::Syntax),
    };
    let Some((first, last)) = window else { return Ok(Reply::Int(-1)) };
    let pos = match first_bit(s, first, last, bit) {
        Some(pos) => pos as i64,
        // No clear bit inside the string: the padding's first bit, unless the range was
        // given exactly.
        None if !bit && !end_given => ((last / 8 + 1) * 8) as i64,
        None => -1,
    };
    Ok(Reply::Int(pos))
}
