//! BITOP: AND, OR, XOR and NOT of strings into a destination key.

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::notify::class;
use crate::reply::Reply;

use super::super::string::{default_expiry, store, str_of};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    And,
    Or,
    Xor,
    Not,
}

/// Folds `src` into `acc` (the result so far): bytes past either end count as zero, and the
/// result is as long as the longest input.
pub fn combine(acc: &mut Vec<u8>, src: &[u8], and: bool, xor: bool) {
    if src.len() > acc.len() {
        acc.resize(src.len(), 0);
    }
    for (i, a) in acc.iter_mut().enumerate() {
        let b = src.get(i).copied().unwrap_or(0);
        *a = match (and, xor) {
            (true, _) => *a & b,
            (false, true) => *a ^ b,
            (false, false) => *a | b,
        };
    }
}

/// BITOP: stores the bitwise combination of the source strings (missing ones are empty) at
/// the destination and answers its length; an empty result deletes the destination.
///
/// ```text
/// BITOP <AND | OR | XOR | NOT> destkey key [key ...]
/// ```
pub fn bitop(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let name = args.bytes()?;
    let op = [(b"AND" as &[u8], Op::And), (b"OR", Op::Or), (b"XOR", Op::Xor), (b"NOT", Op::Not)]
        .into_iter()
        .find(|(n, _)| name.eq_ignore_ascii_case(n))
        .map(|(_, op)| op)
        .ok_or(CmdError::Syntax)?;
    let dst = args.key()?;
    let sources = args.rest();
    if op == Op::Not && sources.len() != 1 {
        return Err(CmdError::err("BITOP NOT must be called with a single source key."));
    }
    let mut acc: Vec<u8> = Vec::new();
    for (i, src) in sources.iter().enumerate() {
        let now = ctx.now;
        let entry = ctx.db.read(src, now);
        let bytes = match entry {
            Some(entry) => str_of(entry)?,
            None => &[],
        };
        if i == 0 {
            acc.extend_from_slice(bytes);
        } else {
            combine(&mut acc, bytes, op == Op::And, op == Op::Xor);
        }
    }
    if op == Op::Not {
        acc.iter_mut().for_each(|b| *b = !*b);
    }
    let len = acc.len();
    if len > 0 {
        let expire_at = default_expiry(ctx);
        store(ctx, dst, &acc, expire_at);
        ctx.notify(class::STRING, "set", dst);
    } else if ctx.db.shard(dst).remove(dst).is_some() {
        ctx.notify(class::GENERIC, "del", dst);
    } else {
        // Nothing stored and nothing deleted: Redis propagates nothing.
        ctx.leave_unchanged(0);
        ctx.session.log_as = Some(Vec::new());
    }
    Ok(Reply::Int(len as i64))
}
