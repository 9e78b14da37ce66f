//! `cjson`, lua-cjson 2.1.0 as Redis vendors it: `encode` (tables as arrays when every key is
//! a whole number from 1 and the array is not excessively sparse, else objects; numbers with
//! `%.14g`; '/' escaped), `decode` (JSON null as the `cjson.null` light userdata), the
//! configuration functions, and `new` for an instance with its own configuration.

use std::sync::Arc;

use parking_lot::Mutex;

use mlua::{LightUserData, Lua, Table, Value};

use super::{as_f64, Args, Fail, LibResult};

/// One instance's settings (lua-cjson's `json_config_t` minus its buffers).
#[derive(Clone, Copy)]
struct Config {
    /// `encode_sparse_array`: convert excessively sparse arrays to objects, instead of failing.
    sparse_convert: bool,
    sparse_ratio: i64,
    sparse_safe: i64,
    encode_max_depth: i64,
    decode_max_depth: i64,
    /// 0 refuses NaN and infinities, 1 writes them ("nan", "inf"), 2 writes null.
    encode_invalid_numbers: usize,
    decode_invalid_numbers: bool,
    encode_number_precision: usize,
    /// Kept only to answer `encode_keep_buffer`: buffers are an implementation detail here.
    encode_keep_buffer: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            sparse_convert: false,
            sparse_ratio: 2,
            sparse_safe: 10,
            encode_max_depth: 1000,
            decode_max_depth: 1000,
            encode_invalid_numbers: 0,
            decode_invalid_numbers: true,
            encode_number_precision: 14,
            encode_keep_buffer: true,
        }
    }
}

type Shared = Arc<Mutex<Config>>;

/// `cjson.null`: a NULL light userdata.
fn null() -> Value {
    Value::LightUserData(LightUserData(std::ptr::null_mut()))
}

/// C's `printf("%.<precision>g", x)`.
pub(crate) fn format_g(x: f64, precision: usize) -> String {
    if x.is_nan() {
        return if x.is_sign_negative() { "-nan" } else { "nan" }.to_string();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.to_string();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    let p = precision.max(1);
    let sci = format!("{:.*e}", p - 1, x);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= p as i32 {
        let mantissa = strip_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.unsigned_abs())
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        strip_zeros(&format!("{x:.decimals$}")).to_string()
    }
}

/// `%g` drops trailing zeros of the fraction, and the point when nothing follows it.
fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// "Cannot serialise <type>: <reason>".
fn cannot(v: &Value, reason: &str) -> Fail {
    Fail::error(format!("Cannot serialise {}: {reason}", super::type_name(v)))
}

/// The C stack slots one nesting level of encoding or decoding takes (see
/// [`super::LUA_MAX_STACK_SLOTS`]).
const SLOTS_PER_LEVEL: usize = 3;

struct Encoder<'a> {
    lua: &'a Lua,
    cfg: &'a Config,
    out: Vec<u8>,
}

impl Encoder<'_> {
    fn string(&mut self, s: &[u8]) {
        self.out.push(b'"');
        for &c in s {
            match c {
                b'"' => self.out.extend_from_slice(b"\\\""),
                b'\\' => self.out.extend_from_slice(b"\\\\"),
                b'/' => self.out.extend_from_slice(b"\\/"),
                b'\n' => self.out.extend_from_slice(b"\\n"),
                b'\r' => self.out.extend_from_slice(b"\\r"),
                b'\t' => self.out.extend_from_slice(b"\\t"),
                0x08 => self.out.extend_from_slice(b"\\b"),
                0x0c => self.out.extend_from_slice(b"\\f"),
                0..=0x1f | 0x7f => self.out.extend_from_slice(format!("\\u{c:04x}").as_bytes()),
                _ => self.out.push(c),
            }
        }
        self.out.push(b'"');
    }

    /// A number; `v` names the type in the error.
    fn number(&mut self, n: f64, v: &Value) -> LibResult<()> {
        match self.cfg.encode_invalid_numbers {
            0 if !n.is_finite() => return Err(cannot(v, "must not be NaN or Inf")),
            1 if n.is_nan() => {
                self.out.extend_from_slice(b"nan");
                return Ok(());
            }
            2 if !n.is_finite() => {
                self.out.extend_from_slice(b"null");
                return Ok(());
            }
            _ => {}
        }
        self.out.extend_from_slice(format_g(n, self.cfg.encode_number_precision).as_bytes());
        Ok(())
    }

    /// `lua_array_length`: the array length, or `None` to encode an object.
    fn array_length(&self, t: &Table, v: &Value) -> LibResult<Option<usize>> {
        let (mut max, mut items) = (0i64, 0i64);
        for pair in t.clone().pairs::<Value, Value>() {
            let (k, _) = pair?;
            match as_f64(&k) {
                Some(k) if k != 0.0 && k.floor() == k && k >= 1.0 => {
                    // C compares as doubles and stores in an int: on x86-64 a key past
                    // i32::MAX stores i32::MIN, which makes the table an object unless a
                    // later key raises the maximum again.
                    if k > max as f64 {
                        max = if k < 2_147_483_648.0 { k as i64 } else { i64::from(i32::MIN) };
                    }
                    items += 1;
                }
                _ => return Ok(None),
            }
        }
        let cfg = self.cfg;
        if cfg.sparse_ratio > 0 && max > items * cfg.sparse_ratio && max > cfg.sparse_safe {
            if !cfg.sparse_convert {
                return Err(cannot(v, "excessively sparse array"));
            }
            return Ok(None);
        }
        Ok((max > 0).then_some(max as usize))
    }

    /// A value read from `t[key]`: mlua reads tiny numbers and -0 as integer 0, so those are
    /// read again exactly.
    fn field(&mut self, t: &Table, key: &Value, item: Value, open: &mut Vec<Container>) -> LibResult<()> {
        if let Value::Integer(0) = item {
            let n = super::raise::exact_field(self.lua, t, key)?;
            return self.number(n, &item);
        }
        self.value(item, open)
    }

    /// Writes a scalar, or opens a table (pushed on `open` for [`Encoder::document`]).
    fn value(&mut self, v: Value, open: &mut Vec<Container>) -> LibResult<()> {
        match &v {
            Value::String(s) => self.string(&s.as_bytes()),
            Value::Integer(i) => self.number(*i as f64, &v)?,
            Value::Number(n) => self.number(*n, &v)?,
            Value::Boolean(b) => self.out.extend_from_slice(if *b { b"true" } else { b"false" }),
            Value::Nil => self.out.extend_from_slice(b"null"),
            Value::LightUserData(p) if p.0.is_null() => self.out.extend_from_slice(b"null"),
            Value::Table(t) => {
                let depth = open.len() + 1;
                if depth as i64 > self.cfg.encode_max_depth || depth * SLOTS_PER_LEVEL > super::LUA_MAX_STACK_SLOTS {
                    return Err(Fail::error(format!("Cannot serialise, excessive nesting ({depth})")));
                }
                match self.array_length(t, &v)? {
                    Some(len) => {
                        self.out.push(b'[');
                        open.push(Container::Array { t: t.clone(), len, next: 1 });
                    }
                    None => {
                        self.out.push(b'{');
                        let pairs = t.clone().pairs::<Value, Value>().collect::<mlua::Result<Vec<_>>>()?;
                        open.push(Container::Object { t: t.clone(), pairs: pairs.into_iter(), first: true });
                    }
                }
            }
            _ => return Err(cannot(&v, "type not supported")),
        }
        Ok(())
    }

    /// The whole value: iterative, with the open tables on a heap stack, so deep nesting (up
    /// to `encode_max_depth`) does not grow the thread's stack.
    fn document(&mut self, root: Value) -> LibResult<()> {
        let mut open: Vec<Container> = Vec::new();
        self.value(root, &mut open)?;
        while let Some(top) = open.last_mut() {
            match top {
                Container::Array { t, len, next } => {
                    if *next > *len {
                        self.out.push(b']');
                        open.pop();
                        continue;
                    }
                    if *next > 1 {
                        self.out.push(b',');
                    }
                    let (t, i) = (t.clone(), *next);
                    *next += 1;
                    let item: Value = t.raw_get(i)?;
                    self.field(&t, &Value::Integer(i as i64), item, &mut open)?;
                }
                Container::Object { t, pairs, first } => {
                    let Some((k, item)) = pairs.next() else {
                        self.out.push(b'}');
                        open.pop();
                        continue;
                    };
                    if !*first {
                        self.out.push(b',');
                    }
                    *first = false;
                    let t = t.clone();
                    match &k {
                        Value::Integer(_) | Value::Number(_) => {
                            self.out.push(b'"');
                            self.number(as_f64(&k).unwrap_or(0.0), &k)?;
                            self.out.extend_from_slice(b"\":");
                        }
                        Value::String(s) => {
                            self.string(&s.as_bytes());
                            self.out.push(b':');
                        }
                        _ => return Err(cannot(&k, "table key must be a number or string")),
                    }
                    self.field(&t, &k, item, &mut open)?;
                }
            }
        }
        Ok(())
    }
}

/// A table being written: an array with its length and next index, or an object with the
/// pairs still to write.
enum Container {
    Array { t: Table, len: usize, next: usize },
    Object { t: Table, pairs: std::vec::IntoIter<(Value, Value)>, first: bool },
}

fn encode(lua: &Lua, cfg: &Config, args: &Args) -> LibResult<Vec<Value>> {
    if args.len() != 1 {
        return Err(Fail::arg(1, "expected 1 argument"));
    }
    let mut enc = Encoder { lua, cfg, out: Vec::new() };
    enc.document(args.vals[0].clone())?;
    Ok(vec![super::string(lua, &enc.out)?])
}

/// JSON tokens, named as lua-cjson's error messages name them.
#[derive(Clone, Copy, PartialEq)]
enum Tok {
    ObjBegin,
    ObjEnd,
    ArrBegin,
    ArrEnd,
    Str,
    Num(f64),
    Bool(bool),
    Null,
    Colon,
    Comma,
    End,
    /// A lexical error, with its description.
    Error(&'static str),
}

impl Tok {
    fn name(self) -> &'static str {
        match self {
            Tok::ObjBegin => "T_OBJ_BEGIN",
            Tok::ObjEnd => "T_OBJ_END",
            Tok::ArrBegin => "T_ARR_BEGIN",
            Tok::ArrEnd => "T_ARR_END",
            Tok::Str => "T_STRING",
            Tok::Num(_) => "T_NUMBER",
            Tok::Bool(_) => "T_BOOLEAN",
            Tok::Null => "T_NULL",
            Tok::Colon => "T_COLON",
            Tok::Comma => "T_COMMA",
            Tok::End => "T_END",
            Tok::Error(e) => e,
        }
    }
}

/// `strtod` on the longest number at the start of `s` (decimal, hexadecimal, inf, nan, with
/// an optional sign): the value and the bytes it took, or `None` when nothing parses.
pub(super) fn strtod_prefix(s: &[u8]) -> Option<(f64, usize)> {
    let mut i = 0;
    let negative = match s.first() {
        Some(b'-') => {
            i = 1;
            true
        }
        Some(b'+') => {
            i = 1;
            false
        }
        _ => false,
    };
    let sign = if negative { -1.0 } else { 1.0 };
    let rest = &s[i..];
    let lower = |n: usize| rest.get(..n).map(|p| p.to_ascii_lowercase());
    if lower(8).as_deref() == Some(b"infinity") {
        return Some((sign * f64::INFINITY, i + 8));
    }
    if lower(3).as_deref() == Some(b"inf") {
        return Some((sign * f64::INFINITY, i + 3));
    }
    if lower(3).as_deref() == Some(b"nan") {
        let mut end = i + 3;
        if s.get(end) == Some(&b'(') {
            if let Some(close) = s[end..].iter().position(|&c| c == b')') {
                if s[end + 1..end + close].iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_') {
                    end += close + 1;
                }
            }
        }
        let nan = if negative { -f64::NAN } else { f64::NAN };
        return Some((nan, end));
    }
    if lower(2).as_deref() == Some(b"0x") && rest.get(2).is_some_and(|c| c.is_ascii_hexdigit() || *c == b'.') {
        return hex_prefix(&rest[2..]).map(|(v, n)| (sign * v, i + 2 + n)).or(Some((0.0, i + 1)));
    }
    let digits = |from: usize| s[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut end = i;
    let int_digits = digits(end);
    end += int_digits;
    let mut frac_digits = 0;
    if s.get(end) == Some(&b'.') {
        frac_digits = digits(end + 1);
        if int_digits + frac_digits > 0 {
            end += 1 + frac_digits;
        }
    }
    if int_digits + frac_digits == 0 {
        return None;
    }
    if matches!(s.get(end), Some(b'e' | b'E')) {
        let mut e = end + 1;
        if matches!(s.get(e), Some(b'+' | b'-')) {
            e += 1;
        }
        let n = digits(e);
        if n > 0 {
            end = e + n;
        }
    }
    let text = std::str::from_utf8(&s[i..end]).ok()?;
    let text = if text.starts_with('.') { format!("0{text}") } else { text.to_string() };
    text.parse::<f64>().ok().map(|v| (sign * v, end))
}

/// A hexadecimal float after "0x": digits, an optional fraction and a binary exponent.
fn hex_prefix(s: &[u8]) -> Option<(f64, usize)> {
    let mut value = 0.0f64;
    let mut i = 0;
    let mut any = false;
    while let Some(d) = s.get(i).and_then(|c| (*c as char).to_digit(16)) {
        value = value * 16.0 + f64::from(d);
        i += 1;
        any = true;
    }
    if s.get(i) == Some(&b'.') {
        let mut scale = 1.0 / 16.0;
        let mut j = i + 1;
        while let Some(d) = s.get(j).and_then(|c| (*c as char).to_digit(16)) {
            value += f64::from(d) * scale;
            scale /= 16.0;
            j += 1;
            any = true;
        }
        if any {
            i = j;
        }
    }
    if !any {
        return None;
    }
    if matches!(s.get(i), Some(b'p' | b'P')) {
        let mut e = i + 1;
        let neg = match s.get(e) {
            Some(b'-') => {
                e += 1;
                true
            }
            Some(b'+') => {
                e += 1;
                false
            }
            _ => false,
        };
        let n = s[e..].iter().take_while(|c| c.is_ascii_digit()).count();
        if n > 0 {
            let exp: i32 = std::str::from_utf8(&s[e..e + n]).ok()?.parse().unwrap_or(i32::MAX);
            value *= 2f64.powi(if neg { -exp } else { exp });
            i = e + n;
        }
    }
    Some((value, i))
}

struct Parser<'a> {
    lua: &'a Lua,
    cfg: &'a Config,
    data: &'a [u8],
    pos: usize,
    depth: usize,
    /// The text of the last string token.
    text: Vec<u8>,
}

impl Parser<'_> {
    /// The byte at `i`; the input ends at its end or at a NUL, as a C string does.
    fn at(&self, i: usize) -> u8 {
        self.data.get(i).copied().unwrap_or(0)
    }

    /// `json_is_invalid_number`: numbers JSON does not allow (leading '+' or zeros, hex,
    /// inf, nan), which `decode_invalid_numbers` decides about.
    fn is_invalid_number(&self) -> bool {
        let mut p = self.pos;
        if self.at(p) == b'+' {
            return true;
        }
        if self.at(p) == b'-' {
            p += 1;
        }
        if self.at(p) == b'0' {
            let c = self.at(p + 1);
            return c | 0x20 == b'x' || c.is_ascii_digit();
        }
        if self.at(p) <= b'9' {
            return false;
        }
        let word = |w: &[u8]| self.data.get(p..p + 3).is_some_and(|s| s.eq_ignore_ascii_case(w));
        word(b"inf") || word(b"nan")
    }

    fn number_token(&mut self) -> Tok {
        let end = self.data[self.pos..].iter().position(|&c| c == 0).map_or(self.data.len(), |n| self.pos + n);
        match strtod_prefix(&self.data[self.pos..end]) {
            Some((v, n)) if n > 0 => {
                self.pos += n;
                Tok::Num(v)
            }
            _ => Tok::Error("invalid number"),
        }
    }

    /// The next token and where it starts (for errors: where the error is).
    fn next(&mut self) -> (Tok, usize) {
        while matches!(self.at(self.pos), b' ' | b'\t' | b'\n' | b'\r') {
            self.pos += 1;
        }
        let start = self.pos;
        let c = self.at(start);
        let single = match c {
            0 => return (Tok::End, start),
            b'{' => Some(Tok::ObjBegin),
            b'}' => Some(Tok::ObjEnd),
            b'[' => Some(Tok::ArrBegin),
            b']' => Some(Tok::ArrEnd),
            b',' => Some(Tok::Comma),
            b':' => Some(Tok::Colon),
            _ => None,
        };
        if let Some(tok) = single {
            self.pos += 1;
            return (tok, start);
        }
        if !matches!(c, b'f' | b'i' | b'I' | b'n' | b'N' | b't' | b'"' | b'+' | b'-' | b'0'..=b'9') {
            return (Tok::Error("invalid token"), start);
        }
        let rest = &self.data[start..];
        if c == b'"' {
            return self.string_token();
        }
        if c == b'-' || c.is_ascii_digit() {
            if !self.cfg.decode_invalid_numbers && self.is_invalid_number() {
                return (Tok::Error("invalid number"), start);
            }
            let tok = self.number_token();
            return (tok, start);
        }
        for (word, tok) in [(&b"true"[..], Tok::Bool(true)), (b"false", Tok::Bool(false)), (b"null", Tok::Null)] {
            if rest.starts_with(word) {
                self.pos += word.len();
                return (tok, start);
            }
        }
        if self.cfg.decode_invalid_numbers && self.is_invalid_number() {
            let tok = self.number_token();
            return (tok, start);
        }
        (Tok::Error("invalid token"), start)
    }

    /// A string token; errors point at the bad escape or the end.
    fn string_token(&mut self) -> (Tok, usize) {
        let start = self.pos;
        self.pos += 1;
        self.text.clear();
        loop {
            let c = self.at(self.pos);
            match c {
                b'"' => break,
                0 => return (Tok::Error("unexpected end of string"), self.pos),
                b'\\' => {
                    let e = self.at(self.pos + 1);
                    let ch = match e {
                        b'"' => b'"',
                        b'\\' => b'\\',
                        b'/' => b'/',
                        b'b' => 0x08,
                        b't' => b'\t',
                        b'n' => b'\n',
                        b'f' => 0x0c,
                        b'r' => b'\r',
                        b'u' => {
                            if !self.unicode_escape() {
                                return (Tok::Error("invalid unicode escape code"), self.pos);
                            }
                            continue;
                        }
                        _ => return (Tok::Error("invalid escape code"), self.pos),
                    };
                    self.text.push(ch);
                    self.pos += 2;
                }
                _ => {
                    self.text.push(c);
                    self.pos += 1;
                }
            }
        }
        self.pos += 1;
        (Tok::Str, start)
    }

    fn hex4(&self, at: usize) -> Option<u32> {
        (0..4).try_fold(0u32, |acc, i| (self.at(at + i) as char).to_digit(16).map(|d| (acc << 4) | d))
    }

    /// A `\uXXXX` escape (a surrogate pair takes two) appended as UTF-8.
    fn unicode_escape(&mut self) -> bool {
        let Some(mut cp) = self.hex4(self.pos + 2) else { return false };
        let mut len = 6;
        if cp & 0xf800 == 0xd800 {
            if cp & 0x400 != 0 || self.at(self.pos + 6) != b'\\' || self.at(self.pos + 7) != b'u' {
                return false;
            }
            let Some(low) = self.hex4(self.pos + 8) else { return false };
            if low & 0xfc00 != 0xdc00 {
                return false;
            }
            cp = (((cp & 0x3ff) << 10) | (low & 0x3ff)) + 0x10000;
            len = 12;
        }
        match char::from_u32(cp) {
            Some(ch) => {
                let mut buf = [0u8; 4];
                self.text.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            }
            None => return false,
        }
        self.pos += len;
        true
    }

    fn fail(&self, expected: &str, tok: Tok, at: usize) -> Fail {
        Fail::error(format!("Expected {expected} but found {} at character {}", tok.name(), at + 1))
    }

    fn descend(&mut self) -> LibResult<()> {
        self.depth += 1;
        if self.depth as i64 > self.cfg.decode_max_depth || self.depth * SLOTS_PER_LEVEL > super::LUA_MAX_STACK_SLOTS {
            return Err(Fail::error(format!(
                "Found too many nested data structures ({}) at character {}",
                self.depth, self.pos
            )));
        }
        Ok(())
    }

    /// The document: iterative, with the open arrays and objects on a heap stack, so deep
    /// nesting (up to `decode_max_depth`) does not grow the thread's stack.
    fn document(&mut self) -> LibResult<Value> {
        let mut open: Vec<Open> = Vec::new();
        let (mut tok, mut at) = self.next();
        loop {
            let mut v = match tok {
                Tok::Str => super::string(self.lua, &self.text)?,
                Tok::Num(n) => Value::Number(n),
                Tok::Bool(b) => Value::Boolean(b),
                Tok::Null => null(),
                Tok::ObjBegin | Tok::ArrBegin => {
                    self.descend()?;
                    let t = self.lua.create_table()?;
                    let (first, first_at) = self.next();
                    if (tok == Tok::ObjBegin && first == Tok::ObjEnd) || (tok == Tok::ArrBegin && first == Tok::ArrEnd)
                    {
                        self.depth -= 1;
                        Value::Table(t)
                    } else {
                        if tok == Tok::ObjBegin {
                            let key = self.key(first, first_at)?;
                            open.push(Open::Object(t, key));
                            (tok, at) = self.next();
                        } else {
                            open.push(Open::Array(t, 1));
                            (tok, at) = (first, first_at);
                        }
                        continue;
                    }
                }
                _ => return Err(self.fail("value", tok, at)),
            };
            // Store the finished value in its container, closing the containers it completes.
            loop {
                let (sep, sep_at) = match open.last_mut() {
                    None => return Ok(v),
                    Some(Open::Array(t, i)) => {
                        t.raw_set(*i, v)?;
                        *i += 1;
                        self.next()
                    }
                    Some(Open::Object(t, key)) => {
                        t.raw_set(key.clone(), v)?;
                        self.next()
                    }
                };
                let is_array = matches!(open.last(), Some(Open::Array(..)));
                let close = if is_array { Tok::ArrEnd } else { Tok::ObjEnd };
                if sep == close {
                    self.depth -= 1;
                    v = match open.pop() {
                        Some(Open::Array(t, _) | Open::Object(t, _)) => Value::Table(t),
                        None => Value::Nil,
                    };
                    continue;
                }
                if sep != Tok::Comma {
                    let expected = if is_array { "comma or array end" } else { "comma or object end" };
                    return Err(self.fail(expected, sep, sep_at));
                }
                (tok, at) = self.next();
                if let Some(Open::Object(_, key)) = open.last_mut() {
                    *key = self.key(tok, at)?;
                    (tok, at) = self.next();
                }
                break;
            }
        }
    }

    /// An object's key and its colon.
    fn key(&mut self, tok: Tok, at: usize) -> LibResult<mlua::String> {
        if tok != Tok::Str {
            return Err(self.fail("object key string", tok, at));
        }
        let key = self.lua.create_string(&self.text)?;
        let (colon, colon_at) = self.next();
        if colon != Tok::Colon {
            return Err(self.fail("colon", colon, colon_at));
        }
        Ok(key)
    }
}

/// An array (with the next index) or an object (with the key of the value being read) whose
/// end has not been read yet.
enum Open {
    Array(Table, i64),
    Object(Table, mlua::String),
}

fn decode(lua: &Lua, cfg: &Config, args: &Args) -> LibResult<Vec<Value>> {
    if args.len() != 1 {
        return Err(Fail::arg(1, "expected 1 argument"));
    }
    let data = args.check_bytes(lua, 1)?;
    if data.len() >= 2 && (data[0] == 0 || data[1] == 0) {
        return Err(Fail::error("JSON parser does not support UTF-16 or UTF-32"));
    }
    let mut p = Parser { lua, cfg, data: &data, pos: 0, depth: 0, text: Vec::new() };
    let v = p.document()?;
    let (tok, at) = p.next();
    if tok != Tok::End {
        return Err(p.fail("the end", tok, at));
    }
    Ok(vec![v])
}

/// `json_arg_init`: at most `n` arguments.
fn at_most(args: &Args, n: usize) -> LibResult<()> {
    if args.len() > n {
        return Err(Fail::arg(n as i32 + 1, "found too many arguments"));
    }
    Ok(())
}

/// `json_integer_option`: sets the setting from argument `i` when given, in `min..=max`.
fn integer_option(lua: &Lua, args: &Args, i: usize, setting: &mut i64, min: i64, max: i64) -> LibResult<Value> {
    if !args.is_none_or_nil(i) {
        // C reads it into an int.
        let value = i64::from(args.check_integer(lua, i)? as i32);
        if !(min <= value && value <= max) {
            return Err(Fail::arg(1, format!("expected integer between {min} and {max}")));
        }
        *setting = value;
    }
    Ok(Value::Number(*setting as f64))
}

/// `json_enum_option`: `options` by name (argument `i`), or a boolean for "off"/"on"; the
/// answer is a boolean for the first two options, else the option's name.
fn enum_option(lua: &Lua, args: &Args, i: usize, setting: &mut usize, options: &[&str]) -> LibResult<Value> {
    match args.get(i) {
        None | Some(Value::Nil) => {}
        Some(Value::Boolean(b)) => *setting = usize::from(*b),
        Some(_) => {
            let name = args.check_bytes(lua, i)?;
            match options.iter().position(|o| o.as_bytes() == name.as_slice()) {
                Some(n) => *setting = n,
                None => {
                    let mut msg = b"invalid option '".to_vec();
                    msg.extend_from_slice(&name);
                    msg.push(b'\'');
                    return Err(Fail::Arg(i as i32, msg));
                }
            }
        }
    }
    Ok(if *setting <= 1 { Value::Boolean(*setting == 1) } else { super::string(lua, options[*setting].as_bytes())? })
}

/// A boolean setting through [`enum_option`].
fn bool_option(lua: &Lua, args: &Args, i: usize, setting: &mut bool) -> LibResult<Value> {
    let mut n = usize::from(*setting);
    let v = enum_option(lua, args, i, &mut n, &["off", "on"])?;
    *setting = n == 1;
    Ok(v)
}

/// Adds `name` to `t` as a function of the instance's configuration.
fn add_cfg<F>(lua: &Lua, t: &Table, cfg: &Shared, name: &str, f: F) -> mlua::Result<()>
where
    F: Fn(&Lua, &mut Config, Args) -> LibResult<Vec<Value>> + Send + 'static,
{
    let cfg = Arc::clone(cfg);
    super::add(lua, t, name, move |lua, args| f(lua, &mut cfg.lock(), args))
}

/// A `cjson` table with a configuration of its own (`cjson.new()` makes another).
pub(super) fn module(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    let cfg: Shared = Arc::new(Mutex::new(Config::default()));
    // encode and decode work on a copy of the settings, holding no lock while they run.
    let c = Arc::clone(&cfg);
    super::add(lua, &t, "encode", move |lua, args| encode(lua, &c.lock().clone(), &args))?;
    let c = Arc::clone(&cfg);
    super::add(lua, &t, "decode", move |lua, args| decode(lua, &c.lock().clone(), &args))?;
    add_cfg(lua, &t, &cfg, "encode_sparse_array", |lua, cfg, args| {
        at_most(&args, 3)?;
        let convert = bool_option(lua, &args, 1, &mut cfg.sparse_convert)?;
        let ratio = integer_option(lua, &args, 2, &mut cfg.sparse_ratio, 0, i64::from(i32::MAX))?;
        let safe = integer_option(lua, &args, 3, &mut cfg.sparse_safe, 0, i64::from(i32::MAX))?;
        Ok(vec![convert, ratio, safe])
    })?;
    add_cfg(lua, &t, &cfg, "encode_max_depth", |lua, cfg, args| {
        at_most(&args, 1)?;
        Ok(vec![integer_option(lua, &args, 1, &mut cfg.encode_max_depth, 1, i64::from(i32::MAX))?])
    })?;
    add_cfg(lua, &t, &cfg, "decode_max_depth", |lua, cfg, args| {
        at_most(&args, 1)?;
        Ok(vec![integer_option(lua, &args, 1, &mut cfg.decode_max_depth, 1, i64::from(i32::MAX))?])
    })?;
    add_cfg(lua, &t, &cfg, "encode_number_precision", |lua, cfg, args| {
        at_most(&args, 1)?;
        let mut p = cfg.encode_number_precision as i64;
        let v = integer_option(lua, &args, 1, &mut p, 1, 14)?;
        cfg.encode_number_precision = p as usize;
        Ok(vec![v])
    })?;
    add_cfg(lua, &t, &cfg, "encode_keep_buffer", |lua, cfg, args| {
        at_most(&args, 1)?;
        Ok(vec![bool_option(lua, &args, 1, &mut cfg.encode_keep_buffer)?])
    })?;
    add_cfg(lua, &t, &cfg, "encode_invalid_numbers", |lua, cfg, args| {
        at_most(&args, 1)?;
        Ok(vec![enum_option(lua, &args, 1, &mut cfg.encode_invalid_numbers, &["off", "on", "null"])?])
    })?;
    add_cfg(lua, &t, &cfg, "decode_invalid_numbers", |lua, cfg, args| {
        at_most(&args, 1)?;
        Ok(vec![bool_option(lua, &args, 1, &mut cfg.decode_invalid_numbers)?])
    })?;
    super::add(lua, &t, "new", |lua, _| Ok(vec![Value::Table(module(lua)?)]))?;
    t.raw_set("null", null())?;
    t.raw_set("_NAME", "cjson")?;
    t.raw_set("_VERSION", "2.1.0")?;
    Ok(t)
}
