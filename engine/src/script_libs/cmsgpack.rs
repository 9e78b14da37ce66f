//! `cmsgpack`, lua-cmsgpack 0.4.0 as Redis vendors it: MessagePack `pack` of any number of
//! values and `unpack`, `unpack_one`, `unpack_limit`, with that library's choices (whole
//! numbers as the smallest integer, others as float32 when exact else float64, tables as
//! arrays when their keys are exactly 1..n, strings as raw/str, 16 levels of nesting).

use mlua::{Lua, Table, Value};

use super::{add, as_f64, c_f64_to_i64, Args, Fail, LibResult};

/// Tables nested deeper than this are packed as nil.
const MAX_NESTING: usize = 16;

fn encode_bytes(buf: &mut Vec<u8>, s: &[u8]) {
    let len = s.len();
    if len < 32 {
        buf.push(0xa0 | len as u8);
    } else if len <= 0xff {
        buf.extend_from_slice(&[0xd9, len as u8]);
    } else if len <= 0xffff {
        buf.push(0xda);
        buf.extend_from_slice(&(len as u16).to_be_bytes());
    } else {
        buf.push(0xdb);
        buf.extend_from_slice(&(len as u32).to_be_bytes());
    }
    buf.extend_from_slice(s);
}

fn encode_int(buf: &mut Vec<u8>, n: i64) {
    if n >= 0 {
        if n <= 127 {
            buf.push(n as u8);
        } else if n <= 0xff {
            buf.extend_from_slice(&[0xcc, n as u8]);
        } else if n <= 0xffff {
            buf.push(0xcd);
            buf.extend_from_slice(&(n as u16).to_be_bytes());
        } else if n <= 0xffff_ffff {
            buf.push(0xce);
            buf.extend_from_slice(&(n as u32).to_be_bytes());
        } else {
            buf.push(0xcf);
            buf.extend_from_slice(&(n as u64).to_be_bytes());
        }
    } else if n >= -32 {
        buf.push(n as i8 as u8);
    } else if n >= -128 {
        buf.extend_from_slice(&[0xd0, n as i8 as u8]);
    } else if n >= -32768 {
        buf.push(0xd1);
        buf.extend_from_slice(&(n as i16).to_be_bytes());
    } else if n >= -2_147_483_648 {
        buf.push(0xd2);
        buf.extend_from_slice(&(n as i32).to_be_bytes());
    } else {
        buf.push(0xd3);
        buf.extend_from_slice(&n.to_be_bytes());
    }
}

fn encode_number(buf: &mut Vec<u8>, n: f64) {
    let i = c_f64_to_i64(n);
    if !n.is_infinite() && i as f64 == n {
        encode_int(buf, i);
    } else if f64::from(n as f32) == n {
        buf.push(0xca);
        buf.extend_from_slice(&(n as f32).to_be_bytes());
    } else {
        buf.push(0xcb);
        buf.extend_from_slice(&n.to_be_bytes());
    }
}

/// A header of an array (`base` 0x90) or map (`base` 0x80).
fn encode_len(buf: &mut Vec<u8>, base: u8, n: usize) {
    if n <= 15 {
        buf.push(base | n as u8);
    } else if n <= 0xffff {
        buf.push(if base == 0x90 { 0xdc } else { 0xde });
        buf.extend_from_slice(&(n as u16).to_be_bytes());
    } else {
        buf.push(if base == 0x90 { 0xdd } else { 0xdf });
        buf.extend_from_slice(&(n as u32).to_be_bytes());
    }
}

/// A number read from a table: mlua reads tiny numbers and -0 as integer 0, so those are
/// read again exactly.
fn field_number(lua: &Lua, t: &Table, key: &Value, v: &Value) -> mlua::Result<Option<f64>> {
    match v {
        Value::Integer(0) => super::raise::exact_field(lua, t, key).map(Some),
        _ => Ok(as_f64(v)),
    }
}

/// `table_is_an_array`: every key a whole number from 1 that fits a C int, and as many keys
/// as the largest.
fn is_array(t: &Table) -> mlua::Result<Option<usize>> {
    let (mut count, mut max) = (0usize, 0i64);
    for pair in t.clone().pairs::<Value, Value>() {
        let (k, _) = pair?;
        let Some(n) = as_f64(&k) else { return Ok(None) };
        if n <= 0.0 || !(n < 2_147_483_648.0 && (n as i32) as f64 == n) {
            return Ok(None);
        }
        max = max.max(n as i64);
        count += 1;
    }
    Ok((max as usize == count).then_some(count))
}

fn encode_value(lua: &Lua, buf: &mut Vec<u8>, v: &Value, exact: Option<f64>, level: usize) -> mlua::Result<()> {
    match v {
        Value::String(s) => encode_bytes(buf, &s.as_bytes()),
        Value::Boolean(b) => buf.push(if *b { 0xc3 } else { 0xc2 }),
        Value::Integer(_) | Value::Number(_) => {
            encode_number(buf, exact.or_else(|| as_f64(v)).unwrap_or(0.0));
        }
        Value::Table(t) if level < MAX_NESTING => {
            if let Some(len) = is_array(t)? {
                encode_len(buf, 0x90, len);
                for j in 1..=len {
                    let item: Value = t.raw_get(j)?;
                    let key = Value::Integer(j as i64);
                    let exact = field_number(lua, t, &key, &item)?;
                    encode_value(lua, buf, &item, exact, level + 1)?;
                }
            } else {
                let pairs: Vec<(Value, Value)> = t.clone().pairs::<Value, Value>().collect::<mlua::Result<_>>()?;
                encode_len(buf, 0x80, pairs.len());
                for (k, item) in &pairs {
                    encode_value(lua, buf, k, None, level + 1)?;
                    let exact = field_number(lua, t, k, item)?;
                    encode_value(lua, buf, item, exact, level + 1)?;
                }
            }
        }
        _ => buf.push(0xc0),
    }
    Ok(())
}

fn pack(lua: &Lua, args: Args) -> LibResult<Vec<Value>> {
    if args.len() == 0 {
        return Err(Fail::arg(0, "MessagePack pack needs input."));
    }
    let mut buf = Vec::new();
    for v in &args.vals {
        encode_value(lua, &mut buf, v, None, 0)?;
    }
    Ok(vec![super::string(lua, &buf)?])
}

/// Why decoding stopped.
enum DecodeError {
    /// "Missing bytes in input."
    Eof,
    /// "Bad data format in input."
    BadFormat,
    /// Lua's own error, such as a nil map key.
    Fail(Fail),
}

impl From<mlua::Error> for DecodeError {
    fn from(e: mlua::Error) -> Self {
        DecodeError::Fail(Fail::Lua(e))
    }
}

/// A cursor over the packed bytes.
struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    /// Lua stack slots the C decoder would hold at this depth.
    slots: usize,
}

impl Cursor<'_> {
    fn left(&self) -> usize {
        self.data.len() - self.pos
    }

    /// The `n` bytes after the type byte (`mp_cur_need` of 1 + n), consuming all of them.
    fn take(&mut self, n: usize) -> Result<&[u8], DecodeError> {
        if self.left() < 1 + n {
            return Err(DecodeError::Eof);
        }
        let s = &self.data[self.pos + 1..self.pos + 1 + n];
        self.pos += 1 + n;
        Ok(s)
    }

    fn be(&mut self, n: usize) -> Result<u64, DecodeError> {
        Ok(self.take(n)?.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b)))
    }

    /// A string whose length takes `n` bytes.
    fn raw(&mut self, lua: &Lua, n: usize) -> Result<Value, DecodeError> {
        let len = self.be(n)? as usize;
        if self.left() < len {
            return Err(DecodeError::Eof);
        }
        let s = &self.data[self.pos..self.pos + len];
        self.pos += len;
        Ok(Value::String(lua.create_string(s)?))
    }

    /// Room on the Lua stack for one more open table (the table and its key), where the C
    /// decoder's `luaL_checkstack` would fail.
    fn enter(&mut self, array: bool) -> Result<(), DecodeError> {
        self.slots += 2;
        if self.slots > super::LUA_MAX_STACK_SLOTS {
            let why = if array {
                "in function mp_decode_to_lua_array"
            } else {
                "too many return values at once; use unpack_one or unpack_limit instead."
            };
            return Err(DecodeError::Fail(Fail::error(format!("stack overflow ({why})"))));
        }
        Ok(())
    }

    /// One value: iterative, with the open arrays and maps on a heap stack, so deep nesting
    /// does not grow the thread's stack.
    fn value(&mut self, lua: &Lua) -> Result<Value, DecodeError> {
        let mut open: Vec<Pending> = Vec::new();
        loop {
            let mut v = match self.item(lua)? {
                Item::Value(v) => v,
                Item::Array(len) | Item::Map(len) if len == 0 => Value::Table(lua.create_table()?),
                Item::Array(len) => {
                    self.enter(true)?;
                    open.push(Pending::Array { t: lua.create_table()?, len, next: 1 });
                    continue;
                }
                Item::Map(len) => {
                    self.enter(false)?;
                    open.push(Pending::Map { t: lua.create_table()?, left: len, key: None });
                    continue;
                }
            };
            // Store the value in its container, closing the containers it completes.
            loop {
                let done = match open.last_mut() {
                    None => return Ok(v),
                    Some(Pending::Array { t, len, next }) => {
                        t.raw_set(*next, v)?;
                        *next += 1;
                        *next > *len
                    }
                    Some(Pending::Map { t, left, key }) => match key.take() {
                        None => {
                            *key = Some(v);
                            false
                        }
                        Some(k) => {
                            match &k {
                                Value::Nil => {
                                    return Err(DecodeError::Fail(Fail::Plain(b"table index is nil".to_vec())))
                                }
                                Value::Number(n) if n.is_nan() => {
                                    return Err(DecodeError::Fail(Fail::Plain(b"table index is NaN".to_vec())));
                                }
                                _ => t.raw_set(k, v)?,
                            }
                            *left -= 1;
                            *left == 0
                        }
                    },
                };
                if !done {
                    break;
                }
                self.slots -= 2;
                v = match open.pop() {
                    Some(Pending::Array { t, .. } | Pending::Map { t, .. }) => Value::Table(t),
                    None => Value::Nil,
                };
            }
        }
    }

    /// The next value, or the header of an array or map.
    fn item(&mut self, lua: &Lua) -> Result<Item, DecodeError> {
        let Some(&tag) = self.data.get(self.pos) else { return Err(DecodeError::Eof) };
        let num = |n: f64| Ok(Item::Value(Value::Number(n)));
        match tag {
            0xcc => num(self.be(1)? as f64),
            0xcd => num(self.be(2)? as f64),
            0xce => num(self.be(4)? as f64),
            // Lua 5.1 has no lua_pushunsigned: the library pushes it as a (signed) integer.
            0xcf => num(self.be(8)? as i64 as f64),
            0xd0 => num(f64::from(self.be(1)? as u8 as i8)),
            0xd1 => num(f64::from(self.be(2)? as u16 as i16)),
            0xd2 => num(f64::from(self.be(4)? as u32 as i32)),
            0xd3 => num(self.be(8)? as i64 as f64),
            0xc0 => {
                self.pos += 1;
                Ok(Item::Value(Value::Nil))
            }
            0xc2 | 0xc3 => {
                self.pos += 1;
                Ok(Item::Value(Value::Boolean(tag == 0xc3)))
            }
            0xca => num(f64::from(f32::from_bits(self.be(4)? as u32))),
            0xcb => num(f64::from_bits(self.be(8)?)),
            0xd9 => self.raw(lua, 1).map(Item::Value),
            0xda => self.raw(lua, 2).map(Item::Value),
            0xdb => self.raw(lua, 4).map(Item::Value),
            0xdc => Ok(Item::Array(self.be(2)? as usize)),
            0xdd => Ok(Item::Array(self.be(4)? as usize)),
            0xde => Ok(Item::Map(self.be(2)? as usize)),
            0xdf => Ok(Item::Map(self.be(4)? as usize)),
            _ if tag & 0x80 == 0 => {
                self.pos += 1;
                num(f64::from(tag))
            }
            _ if tag & 0xe0 == 0xe0 => {
                self.pos += 1;
                num(f64::from(tag as i8))
            }
            _ if tag & 0xe0 == 0xa0 => {
                let len = usize::from(tag & 0x1f);
                if self.left() < 1 + len {
                    return Err(DecodeError::Eof);
                }
                let s = &self.data[self.pos + 1..self.pos + 1 + len];
                self.pos += 1 + len;
                Ok(Item::Value(Value::String(lua.create_string(s)?)))
            }
            _ if tag & 0xf0 == 0x90 => {
                self.pos += 1;
                Ok(Item::Array(usize::from(tag & 0xf)))
            }
            _ if tag & 0xf0 == 0x80 => {
                self.pos += 1;
                Ok(Item::Map(usize::from(tag & 0xf)))
            }
            _ => Err(DecodeError::BadFormat),
        }
    }
}

/// What one MessagePack header holds.
enum Item {
    Value(Value),
    Array(usize),
    Map(usize),
}

/// An array or map still being filled: the next index, or the entries left and the key read.
enum Pending {
    Array { t: Table, len: usize, next: usize },
    Map { t: Table, left: usize, key: Option<Value> },
}

/// `mp_unpack_full`: up to `limit` values from `offset` (all of them when both are 0), with
/// the next offset first (-1 at the end) unless decoding everything.
fn unpack_full(lua: &Lua, args: &Args, limit: i64, offset: i64) -> LibResult<Vec<Value>> {
    let data = args.check_bytes(lua, 1)?;
    let len = data.len();
    if offset < 0 || limit < 0 {
        // The C library prints the input length where it means the limit.
        return Err(Fail::error(format!(
            "Invalid request to unpack with offset of {} and limit of {}.",
            offset as i32, len as i32
        )));
    } else if offset as u64 > len as u64 {
        return Err(Fail::error(format!("Start offset {} greater than input length {}.", offset as i32, len as i32)));
    }
    let decode_all = limit == 0 && offset == 0;
    let limit = if decode_all { i64::from(i32::MAX) } else { limit };
    let mut cur = Cursor { data: &data, pos: offset as usize, slots: 0 };
    let mut out = Vec::new();
    while cur.left() > 0 && (out.len() as i64) < limit {
        if out.len() + 1 > super::LUA_MAX_STACK_SLOTS {
            return Err(Fail::error(
                "stack overflow (too many return values at once; use unpack_one or unpack_limit instead.)",
            ));
        }
        match cur.value(lua) {
            Ok(v) => out.push(v),
            Err(DecodeError::Eof) => return Err(Fail::error("Missing bytes in input.")),
            Err(DecodeError::BadFormat) => return Err(Fail::error("Bad data format in input.")),
            Err(DecodeError::Fail(f)) => return Err(f),
        }
    }
    if !decode_all {
        let next = if cur.left() == 0 { -1.0 } else { cur.pos as f64 };
        out.insert(0, Value::Number(next));
    }
    Ok(out)
}

/// The `cmsgpack` table.
pub(super) fn module(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    add(lua, &t, "pack", pack)?;
    add(lua, &t, "unpack", |lua, a| unpack_full(lua, &a, 0, 0))?;
    add(lua, &t, "unpack_one", |lua, a| {
        let offset = a.opt_integer(lua, 2, 0)?;
        unpack_full(lua, &a, 1, offset)
    })?;
    add(lua, &t, "unpack_limit", |lua, a| {
        let limit = a.check_integer(lua, 2)?;
        let offset = a.opt_integer(lua, 3, 0)?;
        unpack_full(lua, &a, limit, offset)
    })?;
    t.raw_set("_NAME", "cmsgpack")?;
    t.raw_set("_VERSION", "lua-cmsgpack 0.4.0")?;
    t.raw_set("_COPYRIGHT", "Copyright (C) 2012, Salvatore Sanfilippo")?;
    t.raw_set("_DESCRIPTION", "MessagePack C implementation for Lua")?;
    Ok(t)
}
