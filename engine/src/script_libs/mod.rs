//! The Lua libraries Redis 7.0 ships in its scripting environment, written in Rust and
//! registered into an mlua Lua 5.1 state: `cjson` (lua-cjson 2.1.0), `cmsgpack`
//! (lua-cmsgpack 0.4.0), `struct` (Roberto Ierusalimschy's struct 0.2) and `bit` (LuaBitOp
//! 1.0.2). Results and error texts are the C libraries' (the tests hold what redis-server
//! 7.0.15 answers for the same snippets). Self-contained: it depends on mlua and std only.
//!
//! Known differences, all at the edges: a table *key* that is a tiny number (|k| < 2^-52) or
//! -0 is seen as 0 (mlua's conversion; values and arguments are read exactly, see `raise`);
//! where the C code runs out of Lua stack (nesting deeper than `LUAI_MAXCSTACK` allows) the
//! limit here is computed from slot counts, so the failing depth may differ slightly; and
//! C's undefined conversions (a double past the integer range) follow what x86-64 gives.
//! Redis 7.0.15 also makes these tables read-only; that is the sandbox's job, not this module's.

mod bit;
mod cjson;

/// C's `%.<p>g`, shared with `redis.call`'s number arguments (`script::vm`).
pub(crate) use cjson::format_g;
mod cmsgpack;
mod raise;
mod structlib;
#[cfg(test)]
mod tests;

use mlua::{Function, Lua, MultiValue, Table, Value};

/// Installs the globals `cjson`, `cmsgpack`, `struct` and `bit`, as Redis's `luaLoadLibraries`
/// does after the base, table, string, math and debug libraries.
// The EVAL core's VM (`crate::script::vm`) calls it before sandboxing the globals.
pub fn register_all(lua: &Lua) -> mlua::Result<()> {
    let globals = lua.globals();
    globals.set("cjson", cjson::module(lua)?)?;
    globals.set("struct", structlib::module(lua)?)?;
    globals.set("cmsgpack", cmsgpack::module(lua)?)?;
    globals.set("bit", bit::module(lua)?)?;
    Ok(())
}

/// How a library function fails, as the C library would raise it.
#[derive(Debug)]
enum Fail {
    /// `luaL_error`: the caller's position, then the message.
    Error(Vec<u8>),
    /// `luaL_argerror`: "bad argument #n to 'name' (message)", the name as the caller spelled it.
    Arg(i32, Vec<u8>),
    /// A Lua runtime error raised from C (no position), such as "table index is nil".
    Plain(Vec<u8>),
    /// mlua's own errors (memory, a metamethod failing), passed on unchanged.
    Lua(mlua::Error),
}

impl From<mlua::Error> for Fail {
    fn from(e: mlua::Error) -> Self {
        Fail::Lua(e)
    }
}

impl Fail {
    fn error(msg: impl Into<Vec<u8>>) -> Fail {
        Fail::Error(msg.into())
    }
    fn arg(narg: i32, msg: impl Into<Vec<u8>>) -> Fail {
        Fail::Arg(narg, msg.into())
    }
}

type LibResult<T> = Result<T, Fail>;

/// Registers `f` as the library function `name` of `table`, raising as the C libraries do.
fn add<F>(lua: &Lua, table: &Table, name: &str, f: F) -> mlua::Result<()>
where
    F: Fn(&Lua, Args) -> LibResult<Vec<Value>> + Send + 'static,
{
    table.raw_set(name, function(lua, f)?)
}

/// A library function (see [`add`]).
fn function<F>(lua: &Lua, f: F) -> mlua::Result<Function>
where
    F: Fn(&Lua, Args) -> LibResult<Vec<Value>> + Send + 'static,
{
    let raw = lua.create_function(move |lua, args: MultiValue| {
        let exact = raise::take_exact_args();
        let mut vals: Vec<Value> = args.into_iter().collect();
        for (i, n) in exact {
            if let Some(slot) = vals.get_mut(i - 1) {
                *slot = Value::Number(n);
            }
        }
        let mut out = MultiValue::new();
        let (code, narg, msg) = match f(lua, Args { vals }) {
            Ok(results) => {
                out.push_back(Value::Integer(raise::OK));
                out.extend(results);
                return Ok(out);
            }
            Err(Fail::Lua(e)) => return Err(e),
            Err(Fail::Error(m)) => (raise::ERROR, 0, m),
            Err(Fail::Arg(n, m)) => (raise::ARG_ERROR, n, m),
            Err(Fail::Plain(m)) => (raise::PLAIN_ERROR, 0, m),
        };
        out.push_back(Value::Integer(code));
        out.push_back(Value::Integer(i64::from(narg)));
        out.push_back(Value::String(lua.create_string(msg)?));
        Ok(out)
    })?;
    raise::wrap(lua, raw)
}

/// The type name Lua 5.1's `lua_typename` gives.
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Nil => "nil",
        Value::Boolean(_) => "boolean",
        Value::LightUserData(_) | Value::UserData(_) => "userdata",
        Value::Integer(_) | Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Table(_) => "table",
        Value::Function(_) => "function",
        Value::Thread(_) => "thread",
        _ => "userdata",
    }
}

/// A number as Lua holds it (mlua gives whole numbers as `Integer`).
fn as_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Integer(i) => Some(*i as f64),
        Value::Number(n) => Some(*n),
        _ => None,
    }
}

/// `lua_tonumber`: numbers, and strings Lua converts (" 0x10 ", "1e3").
fn to_number(lua: &Lua, v: &Value) -> Option<f64> {
    match v {
        Value::String(_) => lua.coerce_number(v.clone()).ok().flatten(),
        _ => as_f64(v),
    }
}

/// C's conversion of a double to a 64-bit integer as x86-64 does it (out of range and NaN
/// give `i64::MIN`; Rust's `as` would saturate).
fn c_f64_to_i64(n: f64) -> i64 {
    // 2^63: the first double past i64::MAX.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if !(-LIMIT..LIMIT).contains(&n) {
        i64::MIN
    } else {
        n as i64
    }
}

/// The arguments of a library call, read with the auxiliary library's checks.
struct Args {
    vals: Vec<Value>,
}

impl Args {
    /// The number of arguments (`lua_gettop`).
    fn len(&self) -> usize {
        self.vals.len()
    }

    /// Argument `i` (1-based), `None` past the last.
    fn get(&self, i: usize) -> Option<&Value> {
        i.checked_sub(1).and_then(|i| self.vals.get(i))
    }

    /// `lua_isnoneornil`.
    fn is_none_or_nil(&self, i: usize) -> bool {
        matches!(self.get(i), None | Some(Value::Nil))
    }

    /// `luaL_typerror`: "number expected, got no value".
    fn type_error(&self, i: usize, expected: &str) -> Fail {
        let got = self.get(i).map_or("no value", type_name);
        Fail::arg(i as i32, format!("{expected} expected, got {got}"))
    }

    /// `lua_tonumber` of argument `i`.
    fn to_number(&self, lua: &Lua, i: usize) -> Option<f64> {
        self.get(i).and_then(|v| to_number(lua, v))
    }

    /// `luaL_checknumber`.
    fn check_number(&self, lua: &Lua, i: usize) -> LibResult<f64> {
        self.to_number(lua, i).ok_or_else(|| self.type_error(i, "number"))
    }

    /// `luaL_checkinteger` (the number truncated, as Lua 5.1 on x86-64 converts it).
    fn check_integer(&self, lua: &Lua, i: usize) -> LibResult<i64> {
        self.check_number(lua, i).map(c_f64_to_i64)
    }

    /// `luaL_optinteger`.
    fn opt_integer(&self, lua: &Lua, i: usize, default: i64) -> LibResult<i64> {
        if self.is_none_or_nil(i) {
            Ok(default)
        } else {
            self.check_integer(lua, i)
        }
    }

    /// `luaL_checklstring`: strings, and numbers as Lua formats them.
    fn check_bytes(&self, lua: &Lua, i: usize) -> LibResult<Vec<u8>> {
        match self.get(i) {
            Some(Value::String(s)) => Ok(s.as_bytes().to_vec()),
            Some(v @ (Value::Integer(_) | Value::Number(_))) => match lua.coerce_string(v.clone())? {
                Some(s) => Ok(s.as_bytes().to_vec()),
                None => Err(self.type_error(i, "string")),
            },
            _ => Err(self.type_error(i, "string")),
        }
    }
}

/// A Lua string value.
fn string(lua: &Lua, bytes: &[u8]) -> LibResult<Value> {
    Ok(Value::String(lua.create_string(bytes)?))
}

/// Lua 5.1's stack limit (`LUAI_MAXCSTACK`) in slots: the C libraries fail their
/// `lua_checkstack` calls there, which bounds their recursion; ours stops at the same depth.
const LUA_MAX_STACK_SLOTS: usize = 8000;
