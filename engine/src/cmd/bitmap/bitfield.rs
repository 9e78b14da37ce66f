//! BITFIELD and BITFIELD_RO: signed and unsigned integers of 1 to 64 bits at any bit offset,
//! read, written and incremented with WRAP, SAT or FAIL on overflow.

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::notify::class;
use crate::num::parse_i64;
use crate::reply::Reply;

use super::super::string::str_of;
use super::ops::{get_signed, get_unsigned, set_bits, signed_add, unsigned_add, Overflow};
use super::{bit_offset, with_grown};

const BAD_TYPE: &str = "Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Get,
    Set,
    Incr,
}

/// One parsed GET, SET or INCRBY, with the OVERFLOW behaviour in force where it appears.
#[derive(Clone, Copy)]
struct FieldOp {
    kind: Kind,
    signed: bool,
    width: u32,
    offset: u64,
    value: i64,
    overflow: Overflow,
}

/// A field type: `i1`..`i64` or `u1`..`u63`.
fn field_type(arg: &[u8]) -> Result<(bool, u32), CmdError> {
    let signed = match arg.first() {
        Some(b'i') => true,
        Some(b'u') => false,
        _ => return Err(CmdError::err(BAD_TYPE)),
    };
    match parse_i64(&arg[1..]) {
        Some(w @ 1..=64) if signed || w < 64 => Ok((signed, w as u32)),
        _ => Err(CmdError::err(BAD_TYPE)),
    }
}

/// Parses the operations in Redis's order (the first bad argument's error wins).
fn parse(argv: &[&[u8]], max_len: u64) -> Result<Vec<FieldOp>, CmdError> {
    let mut ops = Vec::new();
    let mut overflow = Overflow::Wrap;
    let mut i = 0;
    while i < argv.len() {
        let left = argv.len() - i - 1;
        let word = argv[i];
        let kind = if word.eq_ignore_ascii_case(b"get") && left >= 2 {
            Kind::Get
        } else if word.eq_ignore_ascii_case(b"set") && left >= 3 {
            Kind::Set
        } else if word.eq_ignore_ascii_case(b"incrby") && left >= 3 {
            Kind::Incr
        } else if word.eq_ignore_ascii_case(b"overflow") && left >= 1 {
            let name = argv[i + 1];
            overflow = [(b"wrap" as &[u8], Overflow::Wrap), (b"sat", Overflow::Sat), (b"fail", Overflow::Fail)]
                .into_iter()
                .find(|(n, _)| name.eq_ignore_ascii_case(n))
                .map(|(_, o)| o)
                .ok_or_else(|| CmdError::err("Invalid OVERFLOW type specified"))?;
            i += 2;
            continue;
        } else {
            return Err(CmdError::Syntax);
        };
        let (signed, width) = field_type(argv[i + 1])?;
        let offset = bit_offset(argv[i + 2], Some(width), max_len)?;
        let value = match kind {
            Kind::Get => 0,
            _ => parse_i64(argv[i + 3]).ok_or(CmdError::NotInteger)?,
        };
        ops.push(FieldOp { kind, signed, width, offset, value, overflow });
        i += if kind == Kind::Get { 3 } else { 4 };
    }
    Ok(ops)
}

/// The bytes a string needs for every write among `ops` (0 when they only read).
fn write_len(ops: &[FieldOp]) -> u64 {
    ops.iter()
        .filter(|op| op.kind != Kind::Get)
        .map(|op| (op.offset + u64::from(op.width) - 1) / 8 + 1)
        .max()
        .unwrap_or(0)
}

/// Runs one operation on a string long enough for it: its reply and whether it changed the
/// field (FAIL's refusal answers nil and changes nothing).
fn apply(s: &mut [u8], op: &FieldOp) -> (Reply, bool) {
    let FieldOp { offset, width, .. } = *op;
    if op.signed {
        let old = get_signed(s, offset, width);
        let (new, reply_new) = match op.kind {
            Kind::Get => return (Reply::Int(old), false),
            Kind::Set => (signed_add(op.value, 0, width, op.overflow), false),
            Kind::Incr => (signed_add(old, op.value, width, op.overflow), true),
        };
        let Some(new) = new else { return (Reply::Nil, false) };
        set_bits(s, offset, width, new as u64);
        (Reply::Int(if reply_new { new } else { old }), new != old)
    } else {
        let old = get_unsigned(s, offset, width);
        let (new, reply_new) = match op.kind {
            Kind::Get => return (Reply::Int(old as i64), false),
            Kind::Set => (unsigned_add(op.value as u64, 0, width, op.overflow), false),
            Kind::Incr => (unsigned_add(old, op.value, width, op.overflow), true),
        };
        let Some(new) = new else { return (Reply::Nil, false) };
        set_bits(s, offset, width, new);
        (Reply::Int(if reply_new { new } else { old } as i64), new != old)
    }
}

/// The shared body: `read_only` refuses SET and INCRBY (BITFIELD_RO).
fn run(ctx: &mut Ctx<'_>, args: &mut Args<'_>, read_only: bool) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let ops = parse(args.rest(), ctx.engine.config().proto_max_bulk_len())?;
    // Offsets were checked against proto-max-bulk-len, so the length fits in memory.
    let len = usize::try_from(write_len(&ops)).map_err(|_| CmdError::StringTooLong)?;
    if len == 0 {
        if !read_only {
            // Only reads: nothing to log.
            ctx.leave_unchanged(0);
            ctx.session.log_as = Some(Vec::new());
        }
        let s = match ctx.db.read(key, ctx.now) {
            Some(entry) => str_of(entry)?,
            None => &[],
        };
        // Reads past the end see zeros; `apply` never writes for a GET.
        let mut scratch = Vec::new();
        let replies = ops
            .iter()
            .map(|op| {
                // In u64 until clipped to the string, so a 32-bit `usize` (wasm) cannot wrap.
                let end = ((op.offset + u64::from(op.width) - 1) / 8 + 1).min(s.len() as u64) as usize;
                let start = (op.offset / 8).min(end as u64) as usize;
                scratch.clear();
                scratch.extend_from_slice(&s[start..end]);
                let local = FieldOp { offset: op.offset - start as u64 * 8, ..*op };
                apply(&mut scratch, &local).0
            })
            .collect();
        return Ok(Reply::Array(replies));
    }
    if read_only {
        return Err(CmdError::err("BITFIELD_RO only supports the GET subcommand"));
    }
    let (replies, changes, grew) = with_grown(ctx, key, len, |s, grew| {
        let mut changes = 0;
        let replies = ops
            .iter()
            .map(|op| {
                let (reply, changed) = apply(s, op);
                // A write to a string just created or grown counts even when the field
                // keeps its value, as Redis counts it.
                if changed || (grew && op.kind != Kind::Get && reply != Reply::Nil) {
                    changes += 1;
                }
                reply
            })
            .collect::<Vec<_>>();
        (replies, changes, grew)
    })?;
    if changes > 0 {
        ctx.notify(class::STRING, "setbit", key);
    } else if !grew {
        // Every write failed or kept its field's value: nothing to log.
        ctx.leave_unchanged(0);
        ctx.session.log_as = Some(Vec::new());
    }
    Ok(Reply::Array(replies))
}

/// BITFIELD: reads, writes and increments integer fields of a string, in order.
///
/// ```text
/// BITFIELD key [GET encoding offset | [OVERFLOW <WRAP | SAT | FAIL>] <SET encoding offset value | INCRBY encoding offset increment> [GET encoding offset | [OVERFLOW <WRAP | SAT | FAIL>] <SET encoding offset value | INCRBY encoding offset increment> ...]]
/// ```
pub fn bitfield(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    run(ctx, args, false)
}

/// BITFIELD_RO: BITFIELD's GETs only, a read that replicas and read-only scripts may run.
///
/// ```text
/// BITFIELD_RO key [GET encoding offset [GET encoding offset ...]]
/// ```
pub fn bitfield_ro(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    run(ctx, args, true)
}

/// Bytes BITFIELD may add: the farthest byte its SETs and INCRBYs write.
pub fn bitfield_growth(argv: &[&[u8]]) -> usize {
    // Parsed against the hard 4 GiB cap: a bad argument is refused later by the handler.
    parse(argv.get(2..).unwrap_or(&[]), 1 << 32).map_or(0, |ops| super::growth_bytes(write_len(&ops)))
}
