//! `struct`, Roberto Ierusalimschy's struct library (0.2) as Redis vendors it: `pack`, `unpack`
//! and `size` of binary layouts, with the sizes and alignment of an x86-64 build (`long`,
//! `size_t` and `double` are 8 bytes, native order is little-endian).

use mlua::{Lua, Table, Value};

use super::{add, to_number, Args, Fail, LibResult};

/// The largest `i`/`I` size, in bytes.
const MAX_INT_SIZE: usize = 32;
/// The alignment `!` alone sets (`double`'s).
const MAX_ALIGN: usize = 8;

/// The format state: byte order and maximum alignment.
struct Header {
    big: bool,
    align: usize,
}

impl Header {
    fn new() -> Header {
        Header { big: false, align: 1 }
    }
}

/// A cursor over the format string, which ends at its first NUL as a C string does.
struct Format<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Format<'_> {
    fn peek(&self) -> u8 {
        self.bytes.get(self.pos).copied().unwrap_or(0)
    }

    fn next_option(&mut self) -> Option<u8> {
        let c = self.peek();
        if c == 0 {
            return None;
        }
        self.pos += 1;
        Some(c)
    }

    /// `getnum`: the decimal number at the cursor, or `default` when there is none.
    fn number(&mut self, default: usize) -> LibResult<usize> {
        if !self.peek().is_ascii_digit() {
            return Ok(default);
        }
        let mut a: i32 = 0;
        while self.peek().is_ascii_digit() {
            let d = i32::from(self.peek() - b'0');
            if a > i32::MAX / 10 || a * 10 > i32::MAX - d {
                return Err(Fail::error("integral size overflow"));
            }
            a = a * 10 + d;
            self.pos += 1;
        }
        Ok(a as usize)
    }

    /// `optsize`: the size of option `opt` (0 for options that take no room or align).
    fn size(&mut self, opt: u8) -> LibResult<usize> {
        Ok(match opt {
            b'B' | b'b' | b'x' => 1,
            b'H' | b'h' => 2,
            b'L' | b'l' | b'T' | b'd' => 8,
            b'f' => 4,
            b'c' => self.number(1)?,
            b'i' | b'I' => {
                let size = self.number(4)?;
                if size > MAX_INT_SIZE {
                    return Err(Fail::error(format!("integral size {size} is larger than limit of {MAX_INT_SIZE}")));
                }
                size
            }
            _ => 0,
        })
    }

    /// `controloptions`: spaces, byte order and alignment; anything else is an error.
    fn control(&mut self, opt: u8, h: &mut Header) -> LibResult<()> {
        match opt {
            b' ' => {}
            b'>' => h.big = true,
            b'<' => h.big = false,
            b'!' => {
                let a = self.number(MAX_ALIGN)?;
                if !a.is_power_of_two() {
                    return Err(Fail::error(format!("alignment {a} is not a power of 2")));
                }
                h.align = a;
            }
            _ => {
                let mut msg = b"invalid format option '".to_vec();
                msg.push(opt);
                msg.push(b'\'');
                return Err(Fail::Arg(1, msg));
            }
        }
        Ok(())
    }
}

/// `gettoalign`: the padding before an item of `size` bytes at offset `len`.
fn to_align(len: usize, h: &Header, opt: u8, size: usize) -> usize {
    if size == 0 || opt == b'c' {
        return 0;
    }
    let size = size.min(h.align);
    size.wrapping_sub(len & size.wrapping_sub(1)) & size.wrapping_sub(1)
}

/// Bytes of a float in the format's order.
fn ordered<const N: usize>(mut le: [u8; N], big: bool) -> [u8; N] {
    if big {
        le.reverse();
    }
    le
}

fn pack(lua: &Lua, mut args: Args) -> LibResult<Vec<Value>> {
    let fmt = args.check_bytes(lua, 1)?;
    // The C function pushes a nil after its arguments, so a missing first value reads "nil".
    args.vals.push(Value::Nil);
    let mut f = Format { bytes: &fmt, pos: 0 };
    let mut h = Header::new();
    let mut arg = 2;
    let mut out: Vec<u8> = Vec::new();
    while let Some(opt) = f.next_option() {
        let mut size = f.size(opt)?;
        let pad = to_align(out.len(), &h, opt, size);
        out.resize(out.len() + pad, 0);
        match opt {
            b'b' | b'B' | b'h' | b'H' | b'l' | b'L' | b'T' | b'i' | b'I' => {
                let n = args.check_number(lua, arg)?;
                arg += 1;
                let mut value = if n < 0.0 { super::c_f64_to_i64(n) as u64 } else { n as u64 };
                let mut bytes = Vec::with_capacity(size);
                for _ in 0..size {
                    bytes.push((value & 0xff) as u8);
                    value >>= 8;
                }
                if h.big {
                    bytes.reverse();
                }
                out.extend_from_slice(&bytes);
            }
            b'x' => out.push(0),
            b'f' => {
                let n = args.check_number(lua, arg)? as f32;
                arg += 1;
                out.extend_from_slice(&ordered(n.to_le_bytes(), h.big));
            }
            b'd' => {
                let n = args.check_number(lua, arg)?;
                arg += 1;
                out.extend_from_slice(&ordered(n.to_le_bytes(), h.big));
            }
            b'c' | b's' => {
                let s = args.check_bytes(lua, arg)?;
                arg += 1;
                if size == 0 {
                    size = s.len();
                }
                if s.len() < size {
                    return Err(Fail::arg(arg as i32, "string too short"));
                }
                out.extend_from_slice(&s[..size]);
                if opt == b's' {
                    out.push(0);
                }
            }
            _ => f.control(opt, &mut h)?,
        }
    }
    Ok(vec![super::string(lua, &out)?])
}

/// `getinteger`: `size` bytes as an integer (64 bits kept, as the C `long` keeps them).
fn read_integer(bytes: &[u8], big: bool, signed: bool) -> f64 {
    let mut l: u64 = 0;
    let mut push = |b: u8| l = (l << 8) | u64::from(b);
    if big {
        bytes.iter().for_each(|&b| push(b));
    } else {
        bytes.iter().rev().for_each(|&b| push(b));
    }
    if !signed {
        return l as f64;
    }
    let mask = u64::MAX.wrapping_shl((bytes.len() * 8).wrapping_sub(1) as u32);
    if l & mask != 0 {
        l |= mask;
    }
    l as i64 as f64
}

fn unpack(lua: &Lua, args: Args) -> LibResult<Vec<Value>> {
    let fmt = args.check_bytes(lua, 1)?;
    let data = args.check_bytes(lua, 2)?;
    let start = args.opt_integer(lua, 3, 1)?;
    // A size_t in C: only 0 fails this check; negative offsets wrap to huge ones.
    if start == 0 {
        return Err(Fail::arg(3, "offset must be 1 or greater"));
    }
    let mut pos = (start as u64 as usize).wrapping_sub(1);
    let ld = data.len();
    let too_short = || Fail::arg(2, "data string too short");
    let mut f = Format { bytes: &fmt, pos: 0 };
    let mut h = Header::new();
    let mut out: Vec<Value> = Vec::new();
    while let Some(opt) = f.next_option() {
        let mut size = f.size(opt)?;
        pos = pos.wrapping_add(to_align(pos, &h, opt, size));
        if !(size <= ld && pos <= ld - size) {
            return Err(too_short());
        }
        if out.len() + 2 > super::LUA_MAX_STACK_SLOTS {
            return Err(Fail::error("stack overflow (too many results)"));
        }
        match opt {
            b'b' | b'B' | b'h' | b'H' | b'l' | b'L' | b'T' | b'i' | b'I' => {
                let n = read_integer(&data[pos..pos + size], h.big, opt.is_ascii_lowercase());
                out.push(Value::Number(n));
            }
            b'x' => {}
            b'f' => {
                let mut b = [0u8; 4];
                b.copy_from_slice(&data[pos..pos + 4]);
                out.push(Value::Number(f64::from(f32::from_le_bytes(ordered(b, h.big)))));
            }
            b'd' => {
                let mut b = [0u8; 8];
                b.copy_from_slice(&data[pos..pos + 8]);
                out.push(Value::Number(f64::from_le_bytes(ordered(b, h.big))));
            }
            b'c' => {
                if size == 0 {
                    let previous = out.last().and_then(|v| to_number(lua, v));
                    let Some(n) = previous else {
                        return Err(Fail::error("format 'c0' needs a previous size"));
                    };
                    size = n as usize;
                    out.pop();
                    if !(size <= ld && pos <= ld - size) {
                        return Err(too_short());
                    }
                }
                out.push(super::string(lua, &data[pos..pos + size])?);
            }
            b's' => {
                let Some(len) = data[pos..].iter().position(|&b| b == 0) else {
                    return Err(Fail::error("unfinished string in data"));
                };
                out.push(super::string(lua, &data[pos..pos + len])?);
                size = len + 1;
            }
            _ => f.control(opt, &mut h)?,
        }
        pos = pos.wrapping_add(size);
    }
    out.push(Value::Number(pos.wrapping_add(1) as f64));
    Ok(out)
}

fn size(lua: &Lua, args: Args) -> LibResult<Vec<Value>> {
    let fmt = args.check_bytes(lua, 1)?;
    let mut f = Format { bytes: &fmt, pos: 0 };
    let mut h = Header::new();
    let mut pos: usize = 0;
    while let Some(opt) = f.next_option() {
        let size = f.size(opt)?;
        pos = pos.wrapping_add(to_align(pos, &h, opt, size));
        if opt == b's' {
            return Err(Fail::arg(1, "option 's' has no fixed size"));
        } else if opt == b'c' && size == 0 {
            return Err(Fail::arg(1, "option 'c0' has no fixed size"));
        }
        if !opt.is_ascii_alphanumeric() {
            f.control(opt, &mut h)?;
        }
        pos = pos.wrapping_add(size);
    }
    Ok(vec![Value::Number(pos as f64)])
}

/// The `struct` table.
pub(super) fn module(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    add(lua, &t, "pack", pack)?;
    add(lua, &t, "unpack", unpack)?;
    add(lua, &t, "size", size)?;
    Ok(t)
}
