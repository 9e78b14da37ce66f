//! Bitmap commands on strings: SETBIT, GETBIT, BITCOUNT, BITPOS (`bits`), BITOP (`bitop`),
//! BITFIELD and BITFIELD_RO (`bitfield`). The value operations are plain functions on byte
//! slices in `ops`; this file holds what the handlers share: offset parsing and growing a
//! string so a bit can be written (Redis's `lookupStringForBitCommand`).

mod bitfield;
mod bitop;
mod bits;
pub mod ops;
#[cfg(test)]
mod tests;

pub use bitfield::{bitfield, bitfield_growth, bitfield_ro};
pub use bitop::bitop;
pub use bits::{bitcount, bitpos, getbit, setbit, setbit_growth};

use crate::engine::Ctx;
use crate::error::CmdError;
use crate::num::parse_i64;

use super::string::{default_expiry, store, str_mut};

/// Redis's text for a bad or too large bit offset.
const BAD_OFFSET: &str = "bit offset is not an integer or out of range";

/// A bit offset argument: a non-negative integer addressing a byte under `proto-max-bulk-len`.
/// With `width` (BITFIELD), `#n` means the n-th field of that width.
fn bit_offset(arg: &[u8], width: Option<u32>, max_len: u64) -> Result<u64, CmdError> {
    let (hash, digits) = match (arg.first(), width) {
        (Some(b'#'), Some(_)) => (true, &arg[1..]),
        _ => (false, arg),
    };
    let mut n = parse_i64(digits).ok_or_else(|| CmdError::err(BAD_OFFSET))?;
    if hash {
        // Redis multiplies in 64-bit arithmetic; an overflow wraps (and is refused below when
        // it comes out negative or past the limit).
        n = n.wrapping_mul(i64::from(width.unwrap_or(1)));
    }
    if n < 0 || (n >> 3) as u64 >= max_len {
        return Err(CmdError::err(BAD_OFFSET));
    }
    Ok(n as u64)
}

/// A growth estimate in bytes, capped at the default `proto-max-bulk-len` (512 MB): an offset
/// past it is refused by the handler, and the cap keeps the sum dispatch makes from
/// overflowing a 32-bit `usize` (wasm).
fn growth_bytes(bytes: u64) -> usize {
    bytes.min(512 << 20) as usize
}

/// Runs `f` on the string at `key` zero-padded to at least `len` bytes, creating it when it
/// is missing. `f` also learns whether the string was created or grew (a change even when
/// no bit flips).
fn with_grown<R>(
    ctx: &mut Ctx<'_>,
    key: &[u8],
    len: usize,
    f: impl FnOnce(&mut [u8], bool) -> R,
) -> Result<R, CmdError> {
    let mut f = Some(f);
    let updated = ctx.db.shard(key).update(key, ctx.now, |v| {
        let s = str_mut(v)?;
        let grew = s.len() < len;
        if grew {
            // Exact capacity: memory accounting counts capacity (as SETRANGE does).
            s.reserve_exact(len - s.len());
            s.resize(len, 0);
        }
        Ok::<_, CmdError>(f.take().map(|f| f(s, grew)))
    });
    match updated {
        Some(result) => result?.ok_or_else(|| CmdError::err("bitmap update ran twice")),
        None => {
            let mut s = vec![0; len];
            let r = f.take().map(|f| f(&mut s, true)).ok_or_else(|| CmdError::err("bitmap update ran twice"))?;
            let expire_at = default_expiry(ctx);
            store(ctx, key, &s, expire_at);
            Ok(r)
        }
    }
}
