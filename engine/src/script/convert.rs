//! Conversions between command replies and Lua values, as Redis's scripting docs tabulate
//! them: a reply `redis.call` returns to the script (RESP2 or, after `redis.setresp(3)`,
//! RESP3 shapes), and the value a script returns to its caller.

use mlua::{Lua, Table, Value};

use crate::reply::Reply;

/// A command's reply as the script sees it. `resp3` is the script's `redis.setresp` choice:
/// under RESP2 the RESP3-only shapes arrive as their RESP2 encodings (a map flattened to an
/// array, a double as a bulk string, a boolean as 1 or nil).
pub fn reply_to_lua(lua: &Lua, reply: &Reply, resp3: bool) -> mlua::Result<Value> {
    Ok(match reply {
        Reply::Ok => status_table(lua, "OK")?,
        Reply::Status(s) => status_table(lua, s)?,
        Reply::Error(e) => {
            let t = lua.create_table()?;
            t.raw_set("err", e.as_str())?;
            Value::Table(t)
        }
        Reply::Int(n) => Value::Integer(*n as _),
        Reply::Bulk(b) => Value::String(lua.create_string(b)?),
        Reply::Nil | Reply::NilArray if resp3 => Value::Nil,
        Reply::Nil | Reply::NilArray => Value::Boolean(false),
        Reply::Array(items) | Reply::Push(items) | Reply::Many(items) => array(lua, items, resp3)?,
        Reply::Set(items) if resp3 => {
            let set = lua.create_table()?;
            for item in items {
                set.raw_set(reply_to_lua(lua, item, resp3)?, true)?;
            }
            wrapped(lua, "set", Value::Table(set))?
        }
        Reply::Set(items) => array(lua, items, resp3)?,
        Reply::Map(pairs) if resp3 => {
            let map = lua.create_table()?;
            for (k, v) in pairs {
                map.raw_set(reply_to_lua(lua, k, resp3)?, reply_to_lua(lua, v, resp3)?)?;
            }
            wrapped(lua, "map", Value::Table(map))?
        }
        Reply::Map(pairs) => {
            let t = lua.create_table()?;
            for (i, (k, v)) in pairs.iter().enumerate() {
                t.raw_set(2 * i + 1, reply_to_lua(lua, k, resp3)?)?;
                t.raw_set(2 * i + 2, reply_to_lua(lua, v, resp3)?)?;
            }
            Value::Table(t)
        }
        Reply::Double(d) | Reply::HumanDouble(d) if resp3 => wrapped(lua, "double", Value::Number(*d))?,
        Reply::HumanDouble(d) => Value::String(lua.create_string(crate::num::format_human(*d))?),
        Reply::Double(d) => Value::String(lua.create_string(crate::num::format_double(*d))?),
        Reply::Bool(b) if resp3 => Value::Boolean(*b),
        Reply::Bool(true) => Value::Integer(1),
        Reply::Bool(false) => Value::Boolean(false),
        Reply::Verbatim(s) if resp3 => {
            let v = lua.create_table()?;
            v.raw_set("format", "txt")?;
            v.raw_set("string", s.as_str())?;
            wrapped(lua, "verbatim_string", Value::Table(v))?
        }
        Reply::Verbatim(s) => Value::String(lua.create_string(s)?),
    })
}

fn status_table(lua: &Lua, s: &str) -> mlua::Result<Value> {
    wrapped(lua, "ok", Value::String(lua.create_string(s)?))
}

/// `{field = value}`: how Redis hands a script the replies Lua has no type for.
fn wrapped(lua: &Lua, field: &str, value: Value) -> mlua::Result<Value> {
    let t = lua.create_table()?;
    t.raw_set(field, value)?;
    Ok(Value::Table(t))
}

fn array(lua: &Lua, items: &[Reply], resp3: bool) -> mlua::Result<Value> {
    let t = lua.create_table_with_capacity(items.len(), 0)?;
    for (i, item) in items.iter().enumerate() {
        t.raw_set(i + 1, reply_to_lua(lua, item, resp3)?)?;
    }
    Ok(Value::Table(t))
}

/// A script's return value as its reply. Numbers are truncated to integers, `true` is 1 (a
/// RESP3 boolean after `setresp(3)`), `false` and nil are nil, and a table is an error
/// (`err`), a status (`ok`), one of the RESP3 shapes, or an array that ends at its first nil.
pub fn lua_to_reply(value: &Value, resp3: bool) -> Reply {
    to_reply(value, resp3, 0)
}

/// How deep a returned table may nest. Redis stops at its Lua stack's limit (about 8,000
/// levels) with this error in place of the deepest table; Vitrine stops sooner, so that
/// encoding the reply cannot overflow a server thread's stack (a table that holds itself
/// would otherwise recurse for ever).
const MAX_DEPTH: usize = 1000;

fn to_reply(value: &Value, resp3: bool, depth: usize) -> Reply {
    match value {
        Value::Nil => Reply::Nil,
        Value::Boolean(true) if resp3 => Reply::Bool(true),
        Value::Boolean(false) if resp3 => Reply::Bool(false),
        Value::Boolean(true) => Reply::Int(1),
        Value::Boolean(false) => Reply::Nil,
        Value::Integer(n) => Reply::Int(*n),
        Value::Number(n) => Reply::Int(truncate(*n)),
        Value::String(s) => Reply::Bulk(s.as_bytes().to_vec()),
        Value::Table(_) if depth >= MAX_DEPTH => Reply::Error("ERR reached lua stack limit".into()),
        Value::Table(t) => table_to_reply(t, resp3, depth + 1),
        // Functions, userdata, threads: Redis answers nil for what it cannot convert.
        _ => Reply::Nil,
    }
}

/// Lua's number to an integer as Redis's `(long long)` cast does on x86-64: toward zero, and
/// NaN and anything out of range (infinities too) to the "integer indefinite", i64::MIN.
fn truncate(n: f64) -> i64 {
    // 2^63: i64::MIN is exact as a float, i64::MAX is not (it rounds up to 2^63).
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if n.is_nan() || !(-TWO_63..TWO_63).contains(&n) {
        i64::MIN
    } else {
        n as i64
    }
}

fn table_to_reply(t: &Table, resp3: bool, depth: usize) -> Reply {
    if let Ok(Value::String(e)) = t.raw_get::<Value>("err") {
        return Reply::Error(e.to_string_lossy().to_string());
    }
    if let Ok(Value::String(s)) = t.raw_get::<Value>("ok") {
        return Reply::Status(s.to_string_lossy().to_string());
    }
    if let Ok(Value::Number(d)) = t.raw_get::<Value>("double") {
        return Reply::Double(d);
    }
    if let Ok(Value::Integer(d)) = t.raw_get::<Value>("double") {
        return Reply::Double(d as f64);
    }
    if let Ok(Value::String(s)) = t.raw_get::<Value>("big_number") {
        // Reply has no big number type yet: a bulk string, which is its RESP2 form.
        return Reply::Bulk(s.as_bytes().to_vec());
    }
    if let Ok(Value::Table(m)) = t.raw_get::<Value>("map") {
        let pairs = m
            .pairs::<Value, Value>()
            .filter_map(Result::ok)
            .map(|(k, v)| (to_reply(&k, resp3, depth), to_reply(&v, resp3, depth)))
            .collect();
        return Reply::Map(pairs);
    }
    if let Ok(Value::Table(s)) = t.raw_get::<Value>("set") {
        let items = s.pairs::<Value, Value>().filter_map(Result::ok).map(|(k, _)| to_reply(&k, resp3, depth)).collect();
        return Reply::Set(items);
    }
    if let Ok(Value::Table(v)) = t.raw_get::<Value>("verbatim_string") {
        if let Ok(Value::String(s)) = v.raw_get::<Value>("string") {
            return Reply::Verbatim(s.to_string_lossy().to_string());
        }
    }
    let mut items = Vec::new();
    for i in 1.. {
        match t.raw_get::<Value>(i) {
            Ok(Value::Nil) | Err(_) => break,
            Ok(v) => items.push(to_reply(&v, resp3, depth)),
        }
    }
    Reply::Array(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(lua: &Lua, code: &str, resp3: bool) -> Reply {
        let v: Value = lua.load(code).eval().unwrap();
        lua_to_reply(&v, resp3)
    }

    #[test]
    fn lua_values_become_replies_as_redis_tabulates() {
        let lua = Lua::new();
        assert_eq!(round(&lua, "return 3.99", false), Reply::Int(3));
        assert_eq!(round(&lua, "return -3.99", false), Reply::Int(-3));
        assert_eq!(round(&lua, "return 1e5000", false), Reply::Int(i64::MIN));
        assert_eq!(round(&lua, "return -1e5000", false), Reply::Int(i64::MIN));
        assert_eq!(round(&lua, "return true", false), Reply::Int(1));
        assert_eq!(round(&lua, "return false", false), Reply::Nil);
        assert_eq!(round(&lua, "return true", true), Reply::Bool(true));
        assert_eq!(round(&lua, "return 'x'", false), Reply::bulk("x"));
        assert_eq!(round(&lua, "return {1, 'a', nil, 4}", false), Reply::Array(vec![Reply::Int(1), Reply::bulk("a")]));
        assert_eq!(
            round(&lua, "return {1, false, 2}", false),
            Reply::Array(vec![Reply::Int(1), Reply::Nil, Reply::Int(2)])
        );
        assert_eq!(round(&lua, "return {err='MY bad'}", false), Reply::Error("MY bad".into()));
        assert_eq!(round(&lua, "return {ok='FINE'}", false), Reply::Status("FINE".into()));
        assert_eq!(round(&lua, "return {double=3.5}", false), Reply::Double(3.5));
        assert_eq!(round(&lua, "return {map={a=1}}", false), Reply::Map(vec![(Reply::bulk("a"), Reply::Int(1))]));
        assert_eq!(round(&lua, "return {set={a=true}}", false), Reply::Set(vec![Reply::bulk("a")]));
        assert_eq!(
            round(&lua, "return {verbatim_string={format='txt', string='hi'}}", false),
            Reply::Verbatim("hi".into())
        );
    }

    #[test]
    fn a_table_that_holds_itself_ends_in_an_error_not_a_crash() {
        let lua = Lua::new();
        let mut r = round(&lua, "local t = {}; t[1] = t; return t", false);
        let mut depth = 0;
        while let Reply::Array(mut items) = r {
            assert_eq!(items.len(), 1);
            r = items.remove(0);
            depth += 1;
        }
        assert_eq!(depth, MAX_DEPTH);
        assert_eq!(r, Reply::Error("ERR reached lua stack limit".into()));
    }

    #[test]
    fn replies_become_lua_values_in_both_protocols() {
        let lua = Lua::new();
        let g = lua.globals();
        let set = |name: &str, r: Reply, resp3: bool| g.raw_set(name, reply_to_lua(&lua, &r, resp3).unwrap()).unwrap();
        set("a", Reply::Nil, false);
        set("b", Reply::Nil, true);
        set("c", Reply::Ok, false);
        set("d", Reply::Error("ERR x".into()), false);
        set("e", Reply::Map(vec![(Reply::bulk("f"), Reply::Int(2))]), false);
        set("f", Reply::Map(vec![(Reply::bulk("f"), Reply::Int(2))]), true);
        set("g", Reply::Double(1.5), false);
        set("h", Reply::Double(1.5), true);
        set("i", Reply::Bool(true), true);
        let check: bool = lua
            .load(
                "return a == false and b == nil and c.ok == 'OK' and d.err == 'ERR x' and e[1] == 'f' and e[2] == 2 \
                 and f.map.f == 2 and g == '1.5' and h.double == 1.5 and i == true",
            )
            .eval()
            .unwrap();
        assert!(check);
    }
}
