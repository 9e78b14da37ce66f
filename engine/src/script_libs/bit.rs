//! `bit`, LuaBitOp 1.0.2 as Redis vendors it: 32-bit operations on Lua 5.1's doubles, each
//! argument taken modulo 2^32 by the library's rounding trick and each result a signed 32-bit
//! number.

use mlua::{Lua, Table, Value};

use super::{add, Args, LibResult};

/// `barg`: argument `i` as 32 bits. Adding 2^52 + 2^51 puts the number, rounded to an
/// integer (ties to even), in the low bits of the double, as the C library does.
fn barg(lua: &Lua, args: &Args, i: usize) -> LibResult<u32> {
    let n = args.to_number(lua, i);
    let b = (n.unwrap_or(0.0) + 6_755_399_441_055_744.0).to_bits() as u32;
    if b == 0 && n.is_none() {
        return Err(args.type_error(i, "number"));
    }
    Ok(b)
}

/// A result: the 32 bits read as a signed number.
fn ret(b: u32) -> LibResult<Vec<Value>> {
    Ok(vec![Value::Number(f64::from(b as i32))])
}

/// `band`, `bor`, `bxor`: the C library folds the arguments from the last one down.
fn fold(lua: &Lua, args: &Args, op: fn(u32, u32) -> u32) -> LibResult<Vec<Value>> {
    let mut b = barg(lua, args, 1)?;
    for i in (2..=args.len()).rev() {
        b = op(b, barg(lua, args, i)?);
    }
    ret(b)
}

/// A shift or rotation by the second argument modulo 32.
fn shift(lua: &Lua, args: &Args, op: fn(u32, u32) -> u32) -> LibResult<Vec<Value>> {
    let b = barg(lua, args, 1)?;
    let n = barg(lua, args, 2)? & 31;
    ret(op(b, n))
}

/// `bit.tohex(x [, n])`: n hex digits (8 by default, upper case when n is negative, at most 8).
fn tohex(lua: &Lua, args: &Args) -> LibResult<Vec<Value>> {
    let mut b = barg(lua, args, 1)?;
    let mut n = if args.get(2).is_none() { 8 } else { barg(lua, args, 2)? as i32 };
    let digits: &[u8; 16] = if n < 0 {
        n = n.wrapping_neg();
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    let n = n.clamp(0, 8) as usize;
    let mut buf = [0u8; 8];
    for slot in buf[..n].iter_mut().rev() {
        *slot = digits[(b & 15) as usize];
        b >>= 4;
    }
    Ok(vec![super::string(lua, &buf[..n])?])
}

/// The `bit` table.
pub(super) fn module(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    add(lua, &t, "tobit", |lua, a| ret(barg(lua, &a, 1)?))?;
    add(lua, &t, "bnot", |lua, a| ret(!barg(lua, &a, 1)?))?;
    add(lua, &t, "band", |lua, a| fold(lua, &a, |x, y| x & y))?;
    add(lua, &t, "bor", |lua, a| fold(lua, &a, |x, y| x | y))?;
    add(lua, &t, "bxor", |lua, a| fold(lua, &a, |x, y| x ^ y))?;
    add(lua, &t, "lshift", |lua, a| shift(lua, &a, |b, n| b << n))?;
    add(lua, &t, "rshift", |lua, a| shift(lua, &a, |b, n| b >> n))?;
    add(lua, &t, "arshift", |lua, a| shift(lua, &a, |b, n| ((b as i32) >> n) as u32))?;
    add(lua, &t, "rol", |lua, a| shift(lua, &a, u32::rotate_left))?;
    add(lua, &t, "ror", |lua, a| shift(lua, &a, u32::rotate_right))?;
    add(lua, &t, "bswap", |lua, a| ret(barg(lua, &a, 1)?.swap_bytes()))?;
    add(lua, &t, "tohex", |lua, a| tohex(lua, &a))?;
    Ok(t)
}
