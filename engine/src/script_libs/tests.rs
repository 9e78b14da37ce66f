//! The libraries against redis-server 7.0.15: each snippet runs in a fresh Lua state with
//! [`register_all`] and must give what `EVAL` gave on a real redis-server 7.0.15 (with a
//! `SCRIPT FLUSH` before each, so no setting leaks between snippets). The expected strings
//! were recorded from that server; numbers are shown as Redis's integer replies show them,
//! and top-level errors as "ERR <message>" (Redis's " script: <sha>, on @user_script:1."
//! suffix removed).

use mlua::{Lua, Value};

use super::register_all;

/// The helpers every snippet may use, on the same line so positions stay "user_script:1".
const PRELUDE: &str = "local function hex(s) return (string.gsub(s, '.', function(c) return string.format('%02x', string.byte(c)) end)) end local function E(f) local ok, e = pcall(f) return e end ";

/// The snippet's answer as `redis-cli` printed it.
fn run(snippet: &str) -> String {
    let lua = Lua::new();
    register_all(&lua).expect("register the libraries");
    let code = format!("{PRELUDE}{snippet}");
    match lua.load(&code).set_name("@user_script").eval::<Value>() {
        Ok(Value::String(s)) => String::from_utf8_lossy(&s.as_bytes()).into_owned(),
        // Redis replies to a Lua number with the integer part.
        Ok(Value::Integer(i)) => i.to_string(),
        Ok(Value::Number(n)) => (n as i64).to_string(),
        Ok(Value::Nil) => String::new(),
        Ok(other) => format!("<{}>", other.type_name()),
        // mlua's message handler appends a traceback Redis does not send.
        Err(mlua::Error::RuntimeError(msg)) => {
            format!("ERR {}", msg.split("\nstack traceback:").next().unwrap_or_default())
        }
        Err(e) => format!("<error {e}>"),
    }
}

/// Runs every case, failing with the list of those that differ.
fn check(cases: &[(&str, &str)]) {
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(snippet, expected)| {
            let got = run(snippet);
            (got != *expected).then(|| format!("{snippet}\n  expected: {expected}\n  got:      {got}"))
        })
        .collect();
    assert!(failures.is_empty(), "{} of {} differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

#[test]
fn cjson_matches_redis() {
    check(CJSON);
}

#[test]
fn cmsgpack_matches_redis() {
    check(CMSGPACK);
}

#[test]
fn struct_matches_redis() {
    check(STRUCT);
}

#[test]
fn bit_matches_redis() {
    check(BIT);
}

#[test]
fn edges_match_redis() {
    check(EDGES);
}

/// Doubles of every magnitude and shape, from a fixed seed.
fn sample_doubles() -> Vec<f64> {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut out = vec![0.0, -0.0, 1.0, 0.1, 0.5, 9.5, 99.5, 1e15, 1e16, 123456.0, 0.0001, 0.00001, 5e-324];
    for _ in 0..3000 {
        let bits = next();
        let x = f64::from_bits(bits);
        if x.is_finite() {
            out.push(x);
        }
        // Short decimals and whole numbers, where rounding ties and trailing zeros show.
        let scale = 10f64.powi((next() % 30) as i32 - 15);
        out.push((next() % 100_000) as f64 * scale);
        out.push(-((next() % 1000) as f64) / 8.0);
    }
    out
}

/// `format_g` is C's `%.<p>g` for every precision cjson allows: compared with the C library's
/// own `string.format`, which Lua implements with `sprintf`.
#[test]
fn number_format_matches_c_printf() {
    let lua = Lua::new();
    let format: mlua::Function =
        lua.load("return function(p, x) return string.format('%.' .. p .. 'g', x) end").eval().expect("helper");
    for x in sample_doubles() {
        for p in 1..=14usize {
            let c: String = format.call((p, x)).expect("string.format");
            assert_eq!(super::cjson::format_g(x, p), c, "%.{p}g of {x:e}");
        }
    }
}

/// The JSON number reader agrees with C's `strtod` (through Lua's `tonumber`) on the numbers
/// `%.17g` prints, and stops where `strtod` would.
#[test]
fn number_parse_matches_c_strtod() {
    let lua = Lua::new();
    let tonumber: mlua::Function = lua.globals().get("tonumber").expect("tonumber");
    for x in sample_doubles() {
        for text in [format!("{x:e}"), format!("{x}"), format!("{x:.3}")] {
            let c: Option<f64> = tonumber.call(text.clone()).expect("tonumber");
            let ours = super::cjson::strtod_prefix(text.as_bytes());
            assert_eq!(ours.map(|(v, n)| (v.to_bits(), n)), c.map(|v| (v.to_bits(), text.len())), "{text}");
        }
    }
    assert_eq!(super::cjson::strtod_prefix(b"1.5.5"), Some((1.5, 3)));
    assert_eq!(super::cjson::strtod_prefix(b"-"), None);
    assert_eq!(super::cjson::strtod_prefix(b"0x1p4,"), Some((16.0, 5)));
    assert_eq!(super::cjson::strtod_prefix(b"0xz"), Some((0.0, 1)));
}

/// `cjson` snippets and what redis-server 7.0.15 answered to `EVAL <prelude><snippet> 0`.
const CJSON: &[(&str, &str)] = &[
    (r##"return cjson.encode({1,2,{a=1}})"##, r##"[1,2,{"a":1}]"##),
    (r##"return cjson.encode("a/b\"c\\\n\r\t\b\f\1\31\127 é")"##, r##""a\/b\"c\\\n\r\t\b\f\u0001\u001f\u007f é""##),
    (
        r##"return cjson.encode({0.1, 1/3, 1e20, 123456789012345, 1234567890123456, -0.0, 1e-5, 0.0001, 3.14159265358979, -2.5e-300, 2^53})"##,
        r##"[0.1,0.33333333333333,1e+20,1.2345678901234e+14,1.2345678901235e+15,-0,1e-05,0.0001,3.1415926535898,-2.5e-300,9.007199254741e+15]"##,
    ),
    (r##"return cjson.encode({[1]=1,[3]=3})"##, r##"[1,null,3]"##),
    (r##"return cjson.encode({[1]=1,[2]=2,[4]=4})"##, r##"[1,2,null,4]"##),
    (r##"return cjson.encode({[10]=1})"##, r##"[null,null,null,null,null,null,null,null,null,1]"##),
    (
        r##"return cjson.encode({[12]=1, [11]=2, [1]=3, [2]=4, [3]=5, [4]=6})"##,
        r##"[3,4,5,6,null,null,null,null,null,null,2,1]"##,
    ),
    (
        r##"return E(function() return cjson.encode({[11]=1}) end)"##,
        r##"user_script:1: Cannot serialise table: excessively sparse array"##,
    ),
    (
        r##"return E(function() return cjson.encode({[1]=1,[30]=1}) end)"##,
        r##"user_script:1: Cannot serialise table: excessively sparse array"##,
    ),
    (r##"return cjson.encode({x=1})"##, r##"{"x":1}"##),
    (r##"return cjson.encode({1,2,x=3})"##, r##"{"1":1,"2":2,"x":3}"##),
    (r##"return cjson.encode({})"##, r##"{}"##),
    (r##"return cjson.encode({true,false,cjson.null})"##, r##"[true,false,null]"##),
    (r##"return cjson.encode(nil)"##, r##"null"##),
    (r##"return cjson.encode(cjson.null)"##, r##"null"##),
    (r##"return cjson.encode(12)"##, r##"12"##),
    (r##"return cjson.encode({[1.5]=1})"##, r##"{"1.5":1}"##),
    (r##"return cjson.encode({[-1]=1})"##, r##"{"-1":1}"##),
    (r##"return cjson.encode({[0]=1})"##, r##"{"0":1}"##),
    (r##"return cjson.encode({{{{}}}})"##, r##"[[[{}]]]"##),
    (r##"return cjson.encode({a={b={c="d"}}})"##, r##"{"a":{"b":{"c":"d"}}}"##),
    (
        r##"return E(function() return cjson.encode(1/0) end)"##,
        r##"user_script:1: Cannot serialise number: must not be NaN or Inf"##,
    ),
    (
        r##"return E(function() return cjson.encode({-1/0}) end)"##,
        r##"user_script:1: Cannot serialise number: must not be NaN or Inf"##,
    ),
    (
        r##"return E(function() return cjson.encode(0/0) end)"##,
        r##"user_script:1: Cannot serialise number: must not be NaN or Inf"##,
    ),
    (
        r##"return E(function() return cjson.encode(type) end)"##,
        r##"user_script:1: Cannot serialise function: type not supported"##,
    ),
    (
        r##"return E(function() return cjson.encode({[true]=1}) end)"##,
        r##"user_script:1: Cannot serialise boolean: table key must be a number or string"##,
    ),
    (
        r##"return E(function() return cjson.encode({[{}]=1}) end)"##,
        r##"user_script:1: Cannot serialise table: table key must be a number or string"##,
    ),
    (
        r##"return E(function() return cjson.encode() end)"##,
        r##"user_script:1: bad argument #1 to 'encode' (expected 1 argument)"##,
    ),
    (
        r##"return E(function() return cjson.encode(1, 2) end)"##,
        r##"user_script:1: bad argument #1 to 'encode' (expected 1 argument)"##,
    ),
    (
        r##"return E(function() return cjson.encode({{}}, 2) end)"##,
        r##"user_script:1: bad argument #1 to 'encode' (expected 1 argument)"##,
    ),
    (
        r##"return tostring(cjson.encode_invalid_numbers(true)) .. cjson.encode({1/0, -1/0, 0/0})"##,
        r##"true[inf,-inf,nan]"##,
    ),
    (
        r##"return tostring(cjson.encode_invalid_numbers("null")) .. cjson.encode({1/0, -1/0, 0/0})"##,
        r##"null[null,null,null]"##,
    ),
    (
        r##"return tostring(cjson.encode_invalid_numbers("off")) .. tostring(cjson.encode_invalid_numbers())"##,
        r##"falsefalse"##,
    ),
    (
        r##"return E(function() return cjson.encode_invalid_numbers("maybe") end)"##,
        r##"user_script:1: bad argument #1 to 'encode_invalid_numbers' (invalid option 'maybe')"##,
    ),
    (
        r##"return tostring(cjson.encode_number_precision(3)) .. cjson.encode({3.14159, 1234567})"##,
        r##"3[3.14,1.23e+06]"##,
    ),
    (
        r##"return E(function() return tostring(cjson.encode_number_precision()) .. " " .. tostring(cjson.encode_number_precision(20)) end)"##,
        r##"user_script:1: bad argument #1 to 'encode_number_precision' (expected integer between 1 and 14)"##,
    ),
    (
        r##"return E(function() return cjson.encode_number_precision(0) end)"##,
        r##"user_script:1: bad argument #1 to 'encode_number_precision' (expected integer between 1 and 14)"##,
    ),
    (
        r##"return E(function() return cjson.encode_number_precision(15) end)"##,
        r##"user_script:1: bad argument #1 to 'encode_number_precision' (expected integer between 1 and 14)"##,
    ),
    (
        r##"return E(function() return cjson.encode_number_precision("x") end)"##,
        r##"user_script:1: bad argument #1 to 'encode_number_precision' (number expected, got string)"##,
    ),
    (
        r##"return E(function() return cjson.encode_number_precision(1, 2) end)"##,
        r##"user_script:1: bad argument #2 to 'encode_number_precision' (found too many arguments)"##,
    ),
    (
        r##"return table.concat({tostring(cjson.encode_max_depth(2)), tostring(cjson.encode_max_depth())}, " ")"##,
        r##"2 2"##,
    ),
    (
        r##"return E(function() cjson.encode_max_depth(2) return cjson.encode({{{1}}}) end)"##,
        r##"user_script:1: Cannot serialise, excessive nesting (3)"##,
    ),
    (
        r##"return E(function() return cjson.encode_max_depth(0) end)"##,
        r##"user_script:1: bad argument #1 to 'encode_max_depth' (expected integer between 1 and 2147483647)"##,
    ),
    (
        r##"return E(function() local t = {} for i=1,1000 do t = {t} end return cjson.encode(t) end)"##,
        r##"user_script:1: Cannot serialise, excessive nesting (1001)"##,
    ),
    (r##"return E(function() local t = {} for i=1,999 do t = {t} end return #cjson.encode(t) end)"##, r##"2000"##),
    (r##"return table.concat({tostring(cjson.encode_sparse_array())}, " ")"##, r##"false"##),
    (
        r##"return (function(a, b, c) return tostring(a) .. " " .. tostring(b) .. " " .. tostring(c) end)(cjson.encode_sparse_array())"##,
        r##"false 2 10"##,
    ),
    (
        r##"return (function(a, b, c) return tostring(a) .. " " .. tostring(b) .. " " .. tostring(c) end)(cjson.encode_sparse_array(true, 3, 5))"##,
        r##"true 3 5"##,
    ),
    (
        r##"return E(function() cjson.encode_sparse_array(true) return cjson.encode({[20]=1, [1]=2}) end)"##,
        r##"{"20":1,"1":2}"##,
    ),
    (
        r##"return E(function() cjson.encode_sparse_array(false, 0) return cjson.encode({[20]=1, [1]=2}) end)"##,
        r##"[2,null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,1]"##,
    ),
    (
        r##"return E(function() return cjson.encode_sparse_array("yes") end)"##,
        r##"user_script:1: bad argument #1 to 'encode_sparse_array' (invalid option 'yes')"##,
    ),
    (
        r##"return tostring(cjson.encode_keep_buffer()) .. tostring(cjson.encode_keep_buffer(false)) .. tostring(cjson.encode_keep_buffer("on"))"##,
        r##"truefalsetrue"##,
    ),
    (
        r##"return tostring(cjson.decode_invalid_numbers()) .. tostring(cjson.decode_invalid_numbers(false))"##,
        r##"truefalse"##,
    ),
    (r##"return tostring(cjson.decode_max_depth()) .. " " .. tostring(cjson.decode_max_depth(2))"##, r##"1000 2"##),
    (
        r##"return E(function() cjson.decode_max_depth(2) return cjson.decode('[[[1]]]') end)"##,
        r##"user_script:1: Found too many nested data structures (3) at character 3"##,
    ),
    (r##"return E(function() cjson.decode_max_depth(2) return cjson.decode('[[1]]')[1][1] end)"##, r##"1"##),
    (
        r##"return E(function() return cjson.decode(string.rep('[', 1001) .. string.rep(']', 1001)) end)"##,
        r##"user_script:1: Found too many nested data structures (1001) at character 1001"##,
    ),
    (
        r##"return cjson._NAME .. " " .. cjson._VERSION .. " " .. type(cjson.null) .. " " .. type(cjson.new)"##,
        r##"cjson 2.1.0 userdata function"##,
    ),
    (
        r##"return type(cjson.encode_keep_buffer) .. type(cjson.safe) .. type(cjson.decode_max_depth)"##,
        r##"functionnilfunction"##,
    ),
    (
        r##"return E(function() local c = cjson.new() c.encode_number_precision(2) return c.encode(3.14159) .. cjson.encode(3.14159) end)"##,
        r##"3.13.14159"##,
    ),
    (
        r##"return E(function() local t = cjson.decode('{"a":[1,2.5,"x",true,false,null],"b":{}}') return type(t.a[6]) .. tostring(t.a[6] == cjson.null) .. t.a[2] .. t.a[3] .. tostring(t.a[4]) .. tostring(t.a[5]) .. type(t.b) .. #t.a end)"##,
        r##"userdatatrue2.5xtruefalsetable6"##,
    ),
    (
        r##"return hex(cjson.decode('"\\u00e9\\ud83d\\ude00\\u20ac\\/\\"\\\\\\b\\f\\n\\r\\t\\u0000"'))"##,
        r##"c3a9f09f9880e282ac2f225c080c0a0d0900"##,
    ),
    (
        r##"return cjson.encode(cjson.decode('[1e3, -0, 0.5, 1E-2, 12345678901234567890, 0x10, 007, -12.5e+2]'))"##,
        r##"[1000,-0,0.5,0.01,1.2345678901235e+19,16,7,-1250]"##,
    ),
    (
        r##"return E(function() return tostring(cjson.decode('nan')) .. tostring(cjson.decode('-Infinity')) .. tostring(cjson.decode('inf')) .. tostring(cjson.decode('+5')) end)"##,
        r##"nan-infinf5"##,
    ),
    (
        r##"return E(function() return cjson.decode('x') end)"##,
        r##"user_script:1: Expected value but found invalid token at character 1"##,
    ),
    (
        r##"return E(function() return cjson.decode('') end)"##,
        r##"user_script:1: Expected value but found T_END at character 1"##,
    ),
    (
        r##"return E(function() return cjson.decode('   ') end)"##,
        r##"user_script:1: Expected value but found T_END at character 4"##,
    ),
    (
        r##"return E(function() return cjson.decode('{"a":1') end)"##,
        r##"user_script:1: Expected comma or object end but found T_END at character 7"##,
    ),
    (
        r##"return E(function() return cjson.decode('[1,]') end)"##,
        r##"user_script:1: Expected value but found T_ARR_END at character 4"##,
    ),
    (
        r##"return E(function() return cjson.decode('[1 2]') end)"##,
        r##"user_script:1: Expected comma or array end but found T_NUMBER at character 4"##,
    ),
    (
        r##"return E(function() return cjson.decode('{1:2}') end)"##,
        r##"user_script:1: Expected object key string but found T_NUMBER at character 2"##,
    ),
    (
        r##"return E(function() return cjson.decode('{"a" 2}') end)"##,
        r##"user_script:1: Expected colon but found T_NUMBER at character 6"##,
    ),
    (
        r##"return E(function() return cjson.decode('{"a":2,}') end)"##,
        r##"user_script:1: Expected object key string but found T_OBJ_END at character 8"##,
    ),
    (
        r##"return E(function() return cjson.decode('"abc') end)"##,
        r##"user_script:1: Expected value but found unexpected end of string at character 5"##,
    ),
    (
        r##"return E(function() return cjson.decode('"\\q"') end)"##,
        r##"user_script:1: Expected value but found invalid escape code at character 2"##,
    ),
    (
        r##"return E(function() return cjson.decode('"\\u12"') end)"##,
        r##"user_script:1: Expected value but found invalid unicode escape code at character 2"##,
    ),
    (
        r##"return E(function() return cjson.decode('"\\udc00"') end)"##,
        r##"user_script:1: Expected value but found invalid unicode escape code at character 2"##,
    ),
    (
        r##"return E(function() return cjson.decode('"\\ud800x"') end)"##,
        r##"user_script:1: Expected value but found invalid unicode escape code at character 2"##,
    ),
    (
        r##"return E(function() return cjson.decode('[1] x') end)"##,
        r##"user_script:1: Expected the end but found invalid token at character 5"##,
    ),
    (
        r##"return E(function() return cjson.decode('[1]]') end)"##,
        r##"user_script:1: Expected the end but found T_ARR_END at character 4"##,
    ),
    (
        r##"return E(function() return cjson.decode('tru') end)"##,
        r##"user_script:1: Expected value but found invalid token at character 1"##,
    ),
    (
        r##"return E(function() return cjson.decode('nul') end)"##,
        r##"user_script:1: Expected value but found invalid token at character 1"##,
    ),
    (
        r##"return E(function() return cjson.decode('-') end)"##,
        r##"user_script:1: Expected value but found invalid number at character 1"##,
    ),
    (
        r##"return E(function() return cjson.decode('-x') end)"##,
        r##"user_script:1: Expected value but found invalid number at character 1"##,
    ),
    (
        r##"return E(function() return cjson.decode('1.5.5') end)"##,
        r##"user_script:1: Expected the end but found invalid token at character 4"##,
    ),
    (
        r##"return E(function() return cjson.decode('[') end)"##,
        r##"user_script:1: Expected value but found T_END at character 2"##,
    ),
    (
        r##"return E(function() return cjson.decode('{') end)"##,
        r##"user_script:1: Expected object key string but found T_END at character 2"##,
    ),
    (
        r##"return E(function() return cjson.decode('[:]') end)"##,
        r##"user_script:1: Expected value but found T_COLON at character 2"##,
    ),
    (
        r##"return E(function() return cjson.decode('@') end)"##,
        r##"user_script:1: Expected value but found invalid token at character 1"##,
    ),
    (
        r##"return E(function() return cjson.decode('a\0') end)"##,
        r##"user_script:1: JSON parser does not support UTF-16 or UTF-32"##,
    ),
    (
        r##"return E(function() return cjson.decode('\0a') end)"##,
        r##"user_script:1: JSON parser does not support UTF-16 or UTF-32"##,
    ),
    (
        r##"return E(function() return cjson.decode({}) end)"##,
        r##"user_script:1: bad argument #1 to 'decode' (string expected, got table)"##,
    ),
    (
        r##"return E(function() return cjson.decode() end)"##,
        r##"user_script:1: bad argument #1 to 'decode' (expected 1 argument)"##,
    ),
    (
        r##"return E(function() return cjson.decode('1', '2') end)"##,
        r##"user_script:1: bad argument #1 to 'decode' (expected 1 argument)"##,
    ),
    (r##"return E(function() return cjson.decode(12) + 1 end)"##, r##"13"##),
    (
        r##"return E(function() cjson.decode_invalid_numbers(false) return cjson.decode('0x10') end)"##,
        r##"user_script:1: Expected value but found invalid number at character 1"##,
    ),
    (
        r##"return E(function() cjson.decode_invalid_numbers(false) return cjson.decode('nan') end)"##,
        r##"user_script:1: Expected value but found invalid token at character 1"##,
    ),
    (
        r##"return E(function() cjson.decode_invalid_numbers(false) return cjson.decode('+1') end)"##,
        r##"user_script:1: Expected value but found invalid token at character 1"##,
    ),
    (
        r##"return E(function() cjson.decode_invalid_numbers(false) return cjson.decode('01') end)"##,
        r##"user_script:1: Expected value but found invalid number at character 1"##,
    ),
    (r##"return E(function() cjson.decode_invalid_numbers(false) return cjson.decode('-0.5e1') end)"##, r##"-5"##),
    (r##"return E(function() return cjson.decode(' \t\r\n[ 1 , "a" ] \n') [2] end)"##, r##"a"##),
    (r##"return E(function() return cjson.decode('"tab\there"') end)"##, r##"tab	here"##),
    (
        r##"return E(function() return cjson.decode('"\\u0041\\u00"') end)"##,
        r##"user_script:1: Expected value but found invalid unicode escape code at character 8"##,
    ),
    (
        r##"return E(function() local p = cjson.decode return p('x') end)"##,
        r##"user_script:1: Expected value but found invalid token at character 1"##,
    ),
    (
        r##"return E(function() local ok, e = pcall(cjson.decode, 'x') return e end)"##,
        r##"Expected value but found invalid token at character 1"##,
    ),
    (
        r##"return E(function() local ok, e = pcall(cjson.encode) return e end)"##,
        r##"bad argument #1 to '?' (expected 1 argument)"##,
    ),
    (
        r##"return E(function() local c = cjson return c:encode({}) end)"##,
        r##"user_script:1: calling 'encode' on bad self (expected 1 argument)"##,
    ),
    (
        r##"return E(function() return cjson.encode({"a", {b = "c/d"}, 1.25, -3}) end)"##,
        r##"["a",{"b":"c\/d"},1.25,-3]"##,
    ),
    (
        r##"return E(function() return cjson.encode({[1]=1, [2]=2, [3]=nil, [4]=4, [5]=5, [6]=6, [7]=7, [8]=8, [9]=9, [10]=10, [11]=11, [12]=12}) end)"##,
        r##"[1,2,null,4,5,6,7,8,9,10,11,12]"##,
    ),
    (
        r##"return E(function() return cjson.encode({foo="bar", baz={1,2,3}, n=cjson.null, t=true}) end)"##,
        r##"{"n":null,"t":true,"baz":[1,2,3],"foo":"bar"}"##,
    ),
    (r##"return E(function() return hex(cjson.encode(string.char(0, 200, 255))) end)"##, r##"225c7530303030c8ff22"##),
    (
        r##"return E(function() return cjson.encode({1e15, 1e14, 99999999999999, 0.1 + 0.2, 100, -100, 5e-324}) end)"##,
        r##"[1e+15,1e+14,99999999999999,0.3,100,-100,4.9406564584125e-324]"##,
    ),
    (
        r##"return E(function() return cjson.decode('{"a":{"b":[{"c":null}]}}').a.b[1].c == cjson.null and "yes" or "no" end)"##,
        r##"yes"##,
    ),
    (
        r##"return E(function() return hex(cjson.decode('"\\uD834\\uDD1E \\u00"')) end)"##,
        r##"user_script:1: Expected value but found invalid unicode escape code at character 15"##,
    ),
    (
        r##"return E(function() return hex(cjson.decode('"\\ud834\\u0041"')) end)"##,
        r##"user_script:1: Expected value but found invalid unicode escape code at character 2"##,
    ),
    (
        r##"return E(function() return cjson.encode(cjson.decode('[1.7976931348623157e308, 4.9e-324, 1e400, -1e400]')) end)"##,
        r##"user_script:1: Cannot serialise number: must not be NaN or Inf"##,
    ),
];

/// `cmsgpack` snippets and what redis-server 7.0.15 answered to `EVAL <prelude><snippet> 0`.
const CMSGPACK: &[(&str, &str)] = &[
    (
        r##"return hex(cmsgpack.pack(0, 1, 127, 128, 255, 256, 65535, 65536, 4294967295, 4294967296, 2^53))"##,
        r##"00017fcc80ccffcd0100cdffffce00010000ceffffffffcf0000000100000000cf0020000000000000"##,
    ),
    (
        r##"return hex(cmsgpack.pack(-1, -32, -33, -128, -129, -32768, -32769, -2147483648, -2147483649, -2^53))"##,
        r##"ffe0d0dfd080d1ff7fd18000d2ffff7fffd280000000d3ffffffff7fffffffd3ffe0000000000000"##,
    ),
    (
        r##"return hex(cmsgpack.pack(1.5, 0.1, -0.0, 1/0, -1/0, 3.25, 1e300, 2^63, -2^63, 2^64))"##,
        r##"ca3fc00000cb3fb999999999999a00caff800000ca7f800000ca40500000cb7e37e43c8800759cca5f000000d38000000000000000ca5f800000"##,
    ),
    (
        r##"return hex(cmsgpack.pack("", "a", string.rep("x", 31), string.rep("y", 32)))"##,
        r##"a0a161bf78787878787878787878787878787878787878787878787878787878787878d9207979797979797979797979797979797979797979797979797979797979797979"##,
    ),
    (
        r##"return hex(string.sub(cmsgpack.pack(string.rep("z", 255)), 1, 4)) .. " " .. hex(string.sub(cmsgpack.pack(string.rep("z", 256)), 1, 4)) .. " " .. hex(string.sub(cmsgpack.pack(string.rep("z", 65535)), 1, 4)) .. " " .. hex(string.sub(cmsgpack.pack(string.rep("z", 65536)), 1, 6))"##,
        r##"d9ff7a7a da01007a daffff7a db000100007a"##,
    ),
    (
        r##"return hex(cmsgpack.pack(true, false, nil, {}, {1,2,3}, {a=1}, {[1]=1,[3]=3}, {[2]=2}, {[0]=1}, {[1.5]=1}))"##,
        r##"c3c2c0909301020381a16101820101030381020281000181ca3fc0000001"##,
    ),
    (r##"return hex(cmsgpack.pack({1, {2, {x="y"}}, "z"}))"##, r##"9301920281a178a179a17a"##),
    (r##"return hex(cmsgpack.pack(type, cjson.null))"##, r##"c0c0"##),
    (
        r##"return hex(cmsgpack.pack({1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16}))"##,
        r##"dc00100102030405060708090a0b0c0d0e0f10"##,
    ),
    (
        r##"return hex(cmsgpack.pack({a=1,b=2,c=3,d=4,e=5,f=6,g=7,h=8,i=9,j=10,k=11,l=12,m=13,n=14,o=15,p=16}))"##,
        r##"de0010a16101a17010a16303a16202a16505a16404a16707a16606a16909a16808a16b0ba16a0aa16d0da16c0ca16f0fa16e0e"##,
    ),
    (
        r##"return E(function() local t = {} local c = t for i=1,20 do c[1] = {} c = c[1] end return hex(cmsgpack.pack(t)) end)"##,
        r##"91919191919191919191919191919191c0"##,
    ),
    (
        r##"return E(function() return cmsgpack.pack() end)"##,
        r##"user_script:1: bad argument #0 to 'pack' (MessagePack pack needs input.)"##,
    ),
    (
        r##"return E(function() local ok, e = pcall(cmsgpack.pack) return e end)"##,
        r##"bad argument #0 to '?' (MessagePack pack needs input.)"##,
    ),
    (
        r##"return E(function() local a, b, c, d = cmsgpack.unpack(cmsgpack.pack(1, "two", {3, 4}, {k="v"})) return a .. b .. c[1] .. c[2] .. d.k end)"##,
        r##"1two34v"##,
    ),
    (r##"return E(function() return select('#', cmsgpack.unpack(cmsgpack.pack(1, nil, 3))) end)"##, r##"3"##),
    (
        r##"return E(function() return cjson.encode({cmsgpack.unpack(cmsgpack.pack(-1, -33, -129, -32769, -2147483649, 1.5, 0.1, 4294967296, 2^53))}) end)"##,
        r##"[-1,-33,-129,-32769,-2147483649,1.5,0.1,4294967296,9.007199254741e+15]"##,
    ),
    (
        r##"return E(function() return cjson.encode({cmsgpack.unpack(string.char(0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0, 0xcd, 0x12, 0x34, 0xd1, 0xff, 0xfe, 0xd2, 0xff, 0xff, 0xff, 0xfe, 0xce, 0xff, 0xff, 0xff, 0xff))}) end)"##,
        r##"[-1,-9.2233720368548e+18,4660,-2,-2,4294967295]"##,
    ),
    (
        r##"return E(function() return cjson.encode({cmsgpack.unpack(string.char(0xd9, 3, 97, 98, 99, 0xda, 0, 1, 100, 0xdb, 0, 0, 0, 1, 101, 0xc3, 0xc2, 0xe0, 0x7f))}) end)"##,
        r##"["abc","d","e",true,false,-32,127]"##,
    ),
    (
        r##"return E(function() return cjson.encode({cmsgpack.unpack(string.char(0xdc, 0, 2, 1, 2, 0xdd, 0, 0, 0, 1, 3, 0xde, 0, 1, 0xa1, 97, 1, 0xdf, 0, 0, 0, 1, 0xa1, 98, 2, 0x81, 0xa1, 99, 0x91, 4))}) end)"##,
        r##"[[1,2],[3],{"a":1},{"b":2},{"c":[4]}]"##,
    ),
    (
        r##"return E(function() return cmsgpack.unpack(string.char(0xc1)) end)"##,
        r##"user_script:1: Bad data format in input."##,
    ),
    (
        r##"return E(function() return cmsgpack.unpack(string.char(0xc4, 1, 65)) end)"##,
        r##"user_script:1: Bad data format in input."##,
    ),
    (
        r##"return E(function() return cmsgpack.unpack(string.char(0xcd, 1)) end)"##,
        r##"user_script:1: Missing bytes in input."##,
    ),
    (
        r##"return E(function() return cmsgpack.unpack(string.char(0x92, 1)) end)"##,
        r##"user_script:1: Missing bytes in input."##,
    ),
    (
        r##"return E(function() return cmsgpack.unpack(string.char(0xa5, 65)) end)"##,
        r##"user_script:1: Missing bytes in input."##,
    ),
    (
        r##"return E(function() return cmsgpack.unpack(string.char(0xdb, 0, 0, 0, 9, 65)) end)"##,
        r##"user_script:1: Missing bytes in input."##,
    ),
    (r##"return E(function() return select('#', cmsgpack.unpack('')) end)"##, r##"0"##),
    (
        r##"return E(function() return cmsgpack.unpack({}) end)"##,
        r##"user_script:1: bad argument #1 to 'unpack' (string expected, got table)"##,
    ),
    (
        r##"return E(function() return cmsgpack.unpack() end)"##,
        r##"user_script:1: bad argument #1 to 'unpack' (string expected, got no value)"##,
    ),
    (r##"return E(function() return cmsgpack.unpack(12) end)"##, r##"49"##),
    (
        r##"return E(function() local s = cmsgpack.pack(1, 2, 3) local off, v = cmsgpack.unpack_one(s) local off2, v2 = cmsgpack.unpack_one(s, off) local off3, v3 = cmsgpack.unpack_one(s, off2) return table.concat({off, v, off2, v2, off3, v3}, ",") end)"##,
        r##"1,1,2,2,-1,3"##,
    ),
    (
        r##"return E(function() local s = cmsgpack.pack(1, 2, 3) return table.concat({cmsgpack.unpack_limit(s, 2)}, ",") .. " " .. table.concat({cmsgpack.unpack_limit(s, 2, 2)}, ",") .. " " .. table.concat({cmsgpack.unpack_limit(s, 5)}, ",") end)"##,
        r##"2,1,2 -1,3 -1,1,2,3"##,
    ),
    (
        r##"return E(function() return cmsgpack.unpack_one(cmsgpack.pack(1), -1) end)"##,
        r##"user_script:1: Invalid request to unpack with offset of -1 and limit of 1."##,
    ),
    (
        r##"return E(function() return cmsgpack.unpack_limit(cmsgpack.pack(1, 2), -1) end)"##,
        r##"user_script:1: Invalid request to unpack with offset of 0 and limit of 2."##,
    ),
    (
        r##"return E(function() return cmsgpack.unpack_one(cmsgpack.pack(1), 5) end)"##,
        r##"user_script:1: Start offset 5 greater than input length 1."##,
    ),
    (
        r##"return E(function() return select('#', cmsgpack.unpack_one(cmsgpack.pack(1), 1)) .. " " .. tostring(cmsgpack.unpack_one(cmsgpack.pack(1), 1)) end)"##,
        r##"1 -1"##,
    ),
    (
        r##"return E(function() return cmsgpack.unpack_limit(cmsgpack.pack(1)) end)"##,
        r##"user_script:1: bad argument #2 to 'unpack_limit' (number expected, got no value)"##,
    ),
    (
        r##"return E(function() return cmsgpack.unpack_limit(cmsgpack.pack(1), "x") end)"##,
        r##"user_script:1: bad argument #2 to 'unpack_limit' (number expected, got string)"##,
    ),
    (r##"return E(function() return tostring(cmsgpack.unpack_limit(cmsgpack.pack(1, 2), 0)) end)"##, r##"1"##),
    (
        r##"return E(function() return table.concat({cmsgpack.unpack_limit(cmsgpack.pack(1, 2), 0, 1)}, ",") end)"##,
        r##"1"##,
    ),
    (
        r##"return E(function() return cmsgpack.unpack_one(cmsgpack.pack(1), "x") end)"##,
        r##"user_script:1: bad argument #2 to 'unpack_one' (number expected, got string)"##,
    ),
    (
        r##"return cmsgpack._NAME .. "|" .. cmsgpack._VERSION .. "|" .. cmsgpack._COPYRIGHT .. "|" .. cmsgpack._DESCRIPTION"##,
        r##"cmsgpack|lua-cmsgpack 0.4.0|Copyright (C) 2012, Salvatore Sanfilippo|MessagePack C implementation for Lua"##,
    ),
    (
        r##"return E(function() local t = cmsgpack.unpack(cmsgpack.pack({1, 2, {3, {a = {b = "c"}}}})) return t[3][2].a.b end)"##,
        r##"c"##,
    ),
    (
        r##"return E(function() return hex(cmsgpack.pack(cmsgpack.unpack(cmsgpack.pack({x = {1, 2}, y = false})))) end)"##,
        r##"82a179c2a178920102"##,
    ),
];

/// `struct` snippets and what redis-server 7.0.15 answered to `EVAL <prelude><snippet> 0`.
const STRUCT: &[(&str, &str)] = &[
    (
        r##"return hex(struct.pack('>I2', 258) .. struct.pack('<I2', 258) .. struct.pack('>i', -1) .. struct.pack('<i3', -2) .. struct.pack('>I3', 0x123456))"##,
        r##"01020201fffffffffeffff123456"##,
    ),
    (
        r##"return hex(struct.pack('bBhHlLT', -1, 255, -2, 65535, -3, 4294967296, 7))"##,
        r##"fffffefffffffdffffffffffffff00000000010000000700000000000000"##,
    ),
    (r##"return hex(struct.pack('>bBhHlL', 1, 2, 3, 4, 5, 6))"##, r##"01020003000400000000000000050000000000000006"##),
    (
        r##"return hex(struct.pack('<i1i2i4i8', 1, 2, 3, 4) .. struct.pack('>I16', 1) .. struct.pack('<i16', -1))"##,
        r##"01020003000000040000000000000000000000000000000000000000000001ffffffffffffffff0000000000000000"##,
    ),
    (
        r##"return hex(struct.pack('>fd', 1.5, 0.1) .. struct.pack('<fd', -2.25, 1/3))"##,
        r##"3fc000003fb999999999999a000010c0555555555555d53f"##,
    ),
    (
        r##"return hex(struct.pack('s', 'abc') .. struct.pack('c0', 'hello') .. struct.pack('c2', 'xyz') .. struct.pack('x') .. struct.pack('c', 'q'))"##,
        r##"6162630068656c6c6f78790071"##,
    ),
    (
        r##"return hex(struct.pack('!4 b i', 1, 2) .. '|' .. struct.pack('!b i', 1, 2) .. '|' .. struct.pack('!2 b i8 b d', 1, 2, 3, 4) .. '|' .. struct.pack('b !8 d', 1, 2))"##,
        r##"01000000020000007c01000000020000007c01000200000000000000030000000000000010407c01000000000000000000000000000040"##,
    ),
    (r##"return hex(struct.pack('>!4 b h b i', 1, 2, 3, 4))"##, r##"010000020300000000000004"##),
    (
        r##"return hex(struct.pack('i', '5') .. struct.pack('B', 256) .. struct.pack('b', 128) .. struct.pack('B', -1) .. struct.pack('H', 1.9) .. struct.pack('h', -1.9))"##,
        r##"050000000080ff0100ffff"##,
    ),
    (
        r##"return hex(struct.pack('<I', 2^32 + 5) .. struct.pack('<i', -2^31) .. struct.pack('<L', 2^53))"##,
        r##"05000000000000800000000000002000"##,
    ),
    (
        r##"return E(function() return struct.pack('z', 1) end)"##,
        r##"user_script:1: bad argument #1 to 'pack' (invalid format option 'z')"##,
    ),
    (
        r##"return E(function() return struct.pack('i', 'x') end)"##,
        r##"user_script:1: bad argument #2 to 'pack' (number expected, got string)"##,
    ),
    (
        r##"return E(function() return struct.pack('i') end)"##,
        r##"user_script:1: bad argument #2 to 'pack' (number expected, got nil)"##,
    ),
    (
        r##"return E(function() return struct.pack('c5', 'abc') end)"##,
        r##"user_script:1: bad argument #3 to 'pack' (string too short)"##,
    ),
    (
        r##"return E(function() return struct.pack('b c5', 1, 'abc') end)"##,
        r##"user_script:1: bad argument #4 to 'pack' (string too short)"##,
    ),
    (
        r##"return E(function() return struct.pack('i33', 1) end)"##,
        r##"user_script:1: integral size 33 is larger than limit of 32"##,
    ),
    (
        r##"return E(function() return struct.pack('i99999999999', 1) end)"##,
        r##"user_script:1: integral size overflow"##,
    ),
    (
        r##"return E(function() return struct.pack('!3', 1) end)"##,
        r##"user_script:1: alignment 3 is not a power of 2"##,
    ),
    (r##"return E(function() return struct.pack('!0') end)"##, r##"user_script:1: alignment 0 is not a power of 2"##),
    (
        r##"return E(function() return struct.pack({}, 1) end)"##,
        r##"user_script:1: bad argument #1 to 'pack' (string expected, got table)"##,
    ),
    (
        r##"return E(function() return struct.pack('s', {}) end)"##,
        r##"user_script:1: bad argument #2 to 'pack' (string expected, got table)"##,
    ),
    (
        r##"return E(function() return struct.pack() end)"##,
        r##"user_script:1: bad argument #1 to 'pack' (string expected, got no value)"##,
    ),
    (
        r##"return E(function() local ok, e = pcall(struct.pack, 'z') return e end)"##,
        r##"bad argument #1 to '?' (invalid format option 'z')"##,
    ),
    (
        r##"return table.concat({struct.size('b'), struct.size('>iIhHbBlLTfdx'), struct.size('c3'), struct.size('i7'), struct.size('!4 b i'), struct.size('!b d'), struct.size('! b d'), struct.size('c')}, ',')"##,
        r##"1,51,3,7,8,16,16,1"##,
    ),
    (
        r##"return E(function() return struct.size('s') end)"##,
        r##"user_script:1: bad argument #1 to 'size' (option 's' has no fixed size)"##,
    ),
    (
        r##"return E(function() return struct.size('c0') end)"##,
        r##"user_script:1: bad argument #1 to 'size' (option 'c0' has no fixed size)"##,
    ),
    (r##"return E(function() return struct.size('z') end)"##, r##"0"##),
    (r##"return E(function() return struct.size('!5') end)"##, r##"user_script:1: alignment 5 is not a power of 2"##),
    (
        r##"return E(function() return struct.size('i40') end)"##,
        r##"user_script:1: integral size 40 is larger than limit of 32"##,
    ),
    (r##"return E(function() return table.concat({struct.unpack('>I2', string.char(1, 2))}, ',') end)"##, r##"258,3"##),
    (
        r##"return E(function() return table.concat({struct.unpack('<i2 >i2 B b', string.char(0xfe, 0xff, 0xff, 0xfe, 200, 200))}, ',') end)"##,
        r##"-2,-2,200,-56,7"##,
    ),
    (
        r##"return E(function() return table.concat({struct.unpack('bBhHlLT', struct.pack('bBhHlLT', -1, 255, -2, 65535, -3, 4294967296, 7))}, ',') end)"##,
        r##"-1,255,-2,65535,-3,4294967296,7,31"##,
    ),
    (
        r##"return E(function() return table.concat({struct.unpack('<i8', string.rep(string.char(255), 8)), struct.unpack('<I8', string.rep(string.char(255), 8))}, ',') end)"##,
        r##"-1,1.844674407371e+19,9"##,
    ),
    (
        r##"return E(function() return table.concat({struct.unpack('>i3 <I3', string.char(0xff, 0xff, 0xfe, 1, 2, 3))}, ',') end)"##,
        r##"-2,197121,7"##,
    ),
    (
        r##"return E(function() return table.concat({struct.unpack('<i16', string.rep(string.char(255), 16))}, ',') .. ' ' .. table.concat({struct.unpack('<I16', string.rep(string.char(1), 16))}, ',') end)"##,
        r##"-1,17 7.2340172838077e+16,17"##,
    ),
    (
        r##"return E(function() return table.concat({struct.unpack('>fd', struct.pack('>fd', 1.5, 0.1))}, ',') .. ' ' .. table.concat({struct.unpack('<f', struct.pack('<f', 0.1))}, ',') end)"##,
        r##"1.5,0.1,13 0.10000000149012,5"##,
    ),
    (r##"return E(function() return table.concat({struct.unpack('s s', 'ab\0cd\0')}, ',') end)"##, r##"ab,cd,7"##),
    (r##"return E(function() return table.concat({struct.unpack('b c0', '\3abcdef')}, ',') end)"##, r##"abc,5"##),
    (r##"return E(function() return table.concat({struct.unpack('c2 x c1', 'abcd')}, ',') end)"##, r##"ab,d,5"##),
    (
        r##"return E(function() return table.concat({struct.unpack('!4 b i', struct.pack('!4 b i', 7, 9))}, ',') end)"##,
        r##"7,9,9"##,
    ),
    (r##"return E(function() return table.concat({struct.unpack('B', 'abc', 2)}, ',') end)"##, r##"98,3"##),
    (r##"return E(function() return table.concat({struct.unpack('B', 'abc', 3)}, ',') end)"##, r##"99,4"##),
    (
        r##"return E(function() return struct.unpack('B', 'abc', 4) end)"##,
        r##"user_script:1: bad argument #2 to 'unpack' (data string too short)"##,
    ),
    (
        r##"return E(function() return struct.unpack('B', 'abc', 0) end)"##,
        r##"user_script:1: bad argument #3 to 'unpack' (offset must be 1 or greater)"##,
    ),
    (
        r##"return E(function() return struct.unpack('B', 'abc', -1) end)"##,
        r##"user_script:1: bad argument #2 to 'unpack' (data string too short)"##,
    ),
    (
        r##"return E(function() return struct.unpack('i', 'abc') end)"##,
        r##"user_script:1: bad argument #2 to 'unpack' (data string too short)"##,
    ),
    (r##"return E(function() return struct.unpack('s', 'abc') end)"##, r##"user_script:1: unfinished string in data"##),
    (
        r##"return E(function() return struct.unpack('c0', 'abc') end)"##,
        r##"user_script:1: format 'c0' needs a previous size"##,
    ),
    (
        r##"return E(function() return struct.unpack('B c0', '\9abc') end)"##,
        r##"user_script:1: bad argument #2 to 'unpack' (data string too short)"##,
    ),
    (
        r##"return E(function() return struct.unpack('c5', 'abc') end)"##,
        r##"user_script:1: bad argument #2 to 'unpack' (data string too short)"##,
    ),
    (
        r##"return E(function() return struct.unpack('z', 'abc') end)"##,
        r##"user_script:1: bad argument #1 to 'unpack' (invalid format option 'z')"##,
    ),
    (
        r##"return E(function() return struct.unpack('i') end)"##,
        r##"user_script:1: bad argument #2 to 'unpack' (string expected, got no value)"##,
    ),
    (
        r##"return E(function() return struct.unpack('B', 'abc', 'x') end)"##,
        r##"user_script:1: bad argument #3 to 'unpack' (number expected, got string)"##,
    ),
    (r##"return E(function() return table.concat({struct.unpack('', 'abc')}, ',') end)"##, r##"1"##),
    (
        r##"return E(function() return table.concat({struct.unpack('c0', '\3abc')}, ',') end)"##,
        r##"user_script:1: format 'c0' needs a previous size"##,
    ),
    (r##"return E(function() return table.concat({struct.unpack('>s B', 'x\0\5')}, ',') end)"##, r##"x,5,4"##),
    (r##"return E(function() return table.concat({struct.unpack('x x B', '\1\2\3')}, ',') end)"##, r##"3,4"##),
    (
        r##"return E(function() return type(struct.pack) .. type(struct.unpack) .. type(struct.size) .. tostring(struct._VERSION) end)"##,
        r##"functionfunctionfunctionnil"##,
    ),
];

/// `bit` snippets and what redis-server 7.0.15 answered to `EVAL <prelude><snippet> 0`.
const BIT: &[(&str, &str)] = &[
    (
        r##"return table.concat({bit.tobit(0xffffffff), bit.tobit(2^32 + 1), bit.tobit(1.5), bit.tobit(2.5), bit.tobit(-1.5), bit.tobit(-0.5), bit.tobit('12'), bit.tobit(' 0x10 '), bit.tobit(2^52 + 3), bit.tobit(1e300), bit.tobit(-2^31), bit.tobit(2^31)}, ',')"##,
        r##"-1,1,2,2,-2,0,12,16,2,-2013235812,-2147483648,-2147483648"##,
    ),
    (
        r##"return table.concat({bit.tohex(255), bit.tohex(255, -4), bit.tohex(-1, 2), bit.tohex(0x12345678, 20), bit.tohex(0xabcdef, -20), bit.tohex(1, 0), bit.tohex(-1), bit.tohex(0xdead, '3')}, ',')"##,
        r##"000000ff,00FF,ff,12345678,00ABCDEF,,ffffffff,ead"##,
    ),
    (
        r##"return table.concat({bit.bnot(0), bit.bnot(-1), bit.bnot(0x0f0f0f0f), bit.band(0xff, 0x0f, 0x3), bit.band(-1), bit.bor(1, 2, 4, 8), bit.bor(0x80000000, 0), bit.bxor(0xff, 0x0f), bit.bxor(1, 1, 1)}, ',')"##,
        r##"-1,0,-252645136,3,-1,15,-2147483648,240,1"##,
    ),
    (
        r##"return table.concat({bit.lshift(1, 31), bit.lshift(1, 32), bit.lshift(1, 33), bit.lshift(0xff, -1), bit.rshift(-1, 28), bit.rshift(256, 4), bit.rshift(1, 32), bit.arshift(-256, 4), bit.arshift(0x80000000, 31), bit.arshift(256, 4)}, ',')"##,
        r##"-2147483648,1,2,-2147483648,15,16,1,-16,-1,16"##,
    ),
    (
        r##"return table.concat({bit.rol(0x12345678, 12), bit.ror(0x12345678, 12), bit.rol(1, 0), bit.ror(1, 0), bit.rol(0x80000000, 1), bit.ror(1, 1), bit.rol(1, 33), bit.bswap(0x12345678), bit.bswap(0xff)}, ',')"##,
        r##"1164411171,1736516421,1,1,1,-2147483648,2,2018915346,-16777216"##,
    ),
    (
        r##"return E(function() return bit.tobit('x') end)"##,
        r##"user_script:1: bad argument #1 to 'tobit' (number expected, got string)"##,
    ),
    (
        r##"return E(function() return bit.tobit() end)"##,
        r##"user_script:1: bad argument #1 to 'tobit' (number expected, got no value)"##,
    ),
    (
        r##"return E(function() return bit.tobit({}) end)"##,
        r##"user_script:1: bad argument #1 to 'tobit' (number expected, got table)"##,
    ),
    (
        r##"return E(function() return bit.band(1, 'y') end)"##,
        r##"user_script:1: bad argument #2 to 'band' (number expected, got string)"##,
    ),
    (
        r##"return E(function() return bit.band(1, nil) end)"##,
        r##"user_script:1: bad argument #2 to 'band' (number expected, got nil)"##,
    ),
    (
        r##"return E(function() return bit.tohex(1, 'x') end)"##,
        r##"user_script:1: bad argument #2 to 'tohex' (number expected, got string)"##,
    ),
    (
        r##"return E(function() return bit.lshift(1) end)"##,
        r##"user_script:1: bad argument #2 to 'lshift' (number expected, got no value)"##,
    ),
    (r##"return E(function() return tostring(bit.tobit('0')) .. ' ' .. tostring(bit.band(0, '0')) end)"##, r##"0 0"##),
    (
        r##"return E(function() return tostring(bit.band()) end)"##,
        r##"user_script:1: bad argument #1 to 'band' (number expected, got no value)"##,
    ),
    (r##"return E(function() return tostring(bit.bor(5)) .. tostring(bit.tobit(7, 'x')) end)"##, r##"57"##),
    (
        r##"return E(function() local ok, e = pcall(bit.tobit, 'x') return e end)"##,
        r##"bad argument #1 to '?' (number expected, got string)"##,
    ),
    (
        r##"return E(function() return tostring(bit.tobit(0/0)) .. ' ' .. tostring(bit.tobit(1/0)) .. ' ' .. tostring(bit.tobit(-1/0)) end)"##,
        r##"0 0 0"##,
    ),
    (r##"return E(function() return type(bit.tobit) .. tostring(bit._VERSION) end)"##, r##"functionnil"##),
];
/// Deep nesting, cycles, numbers mlua would round to 0, errors raised at the top level (the
/// function named as the caller spelled it), the tables' contents and key order, keys past
/// a C int, against redis-server 7.0.15.
const EDGES: &[(&str, &str)] = &[
    (
        r##"return E(function() local t = {} t[1] = t return cjson.encode(t) end)"##,
        r##"user_script:1: Cannot serialise, excessive nesting (1001)"##,
    ),
    (
        r##"return E(function() local t = {} t.a = t return cjson.encode(t) end)"##,
        r##"user_script:1: Cannot serialise, excessive nesting (1001)"##,
    ),
    (
        r##"return E(function() local t = cmsgpack.unpack(string.rep(string.char(0x91), 3000) .. string.char(1)) for i = 1, 2999 do t = t[1] end return cjson.encode(t) end)"##,
        r##"[1]"##,
    ),
    (
        r##"return E(function() return cmsgpack.unpack(string.rep(string.char(0x91), 8000) .. string.char(1)) end)"##,
        r##"user_script:1: stack overflow (in function mp_decode_to_lua_array)"##,
    ),
    (
        r##"return E(function() return #cmsgpack.pack(cmsgpack.unpack(string.rep(string.char(0x81, 0xa1, 0x6b), 3000) .. string.char(1))) end)"##,
        r##"49"##,
    ),
    (
        r##"return E(function() return cjson.encode({1e-20, -0.0, {x = 1e-300}, 2.5e-17}) end)"##,
        r##"[1e-20,-0,{"x":1e-300},2.5e-17]"##,
    ),
    (r##"return E(function() return cjson.encode(1e-20) .. cjson.encode(-0.0) end)"##, r##"1e-20-0"##),
    (
        r##"return E(function() return hex(cmsgpack.pack(1e-20, {1e-20}, -0.0)) end)"##,
        r##"cb3bc79ca10c92422391cb3bc79ca10c92422300"##,
    ),
    (
        r##"return E(function() return hex(struct.pack('<d', -0.0) .. struct.pack('<d', 1e-20)) end)"##,
        r##"00000000000000802342920ca19cc73b"##,
    ),
    (
        r##"return struct.pack('z', 1)"##,
        r##"ERR user_script:1: bad argument #1 to 'pack' (invalid format option 'z')"##,
    ),
    (
        r##"local p = struct.pack return p('z', 1)"##,
        r##"ERR user_script:1: bad argument #1 to 'p' (invalid format option 'z')"##,
    ),
    (r##"return cjson.decode('[1,')"##, r##"ERR user_script:1: Expected value but found T_END at character 4"##),
    (
        r##"local c = cjson return c:decode('x')"##,
        r##"ERR user_script:1: calling 'decode' on bad self (expected 1 argument)"##,
    ),
    (r##"return cmsgpack.unpack(string.char(0xc1))"##, r##"ERR user_script:1: Bad data format in input."##),
    (r##"return bit.tobit('x')"##, r##"ERR user_script:1: bad argument #1 to 'tobit' (number expected, got string)"##),
    (r##"return tostring(getmetatable(cjson))"##, r##"nil"##),
    (
        r##"return E(function() local k = {} for n, v in pairs(cjson) do k[#k+1] = n .. ':' .. type(v) end table.sort(k) return table.concat(k, ',') end)"##,
        r##"_NAME:string,_VERSION:string,decode:function,decode_invalid_numbers:function,decode_max_depth:function,encode:function,encode_invalid_numbers:function,encode_keep_buffer:function,encode_max_depth:function,encode_number_precision:function,encode_sparse_array:function,new:function,null:userdata"##,
    ),
    (
        r##"return E(function() local k = {} for n, v in pairs(cmsgpack) do k[#k+1] = n .. ':' .. type(v) end table.sort(k) return table.concat(k, ',') end)"##,
        r##"_COPYRIGHT:string,_DESCRIPTION:string,_NAME:string,_VERSION:string,pack:function,unpack:function,unpack_limit:function,unpack_one:function"##,
    ),
    (
        r##"return E(function() local k = {} for n, v in pairs(struct) do k[#k+1] = n .. ':' .. type(v) end table.sort(k) return table.concat(k, ',') end)"##,
        r##"pack:function,size:function,unpack:function"##,
    ),
    (
        r##"return E(function() local k = {} for n, v in pairs(bit) do k[#k+1] = n .. ':' .. type(v) end table.sort(k) return table.concat(k, ',') end)"##,
        r##"arshift:function,band:function,bnot:function,bor:function,bswap:function,bxor:function,lshift:function,rol:function,ror:function,rshift:function,tobit:function,tohex:function"##,
    ),
    (
        r##"return E(function() return cjson.encode({alpha=1, beta=2, gamma=3, delta=4, epsilon=5, zeta=6, eta=7, theta=8, [100]=9, [2.5]=10, [-3]=11, ["1"]=12}) end)"##,
        r##"{"theta":8,"beta":2,"100":9,"-3":11,"alpha":1,"eta":7,"zeta":6,"1":12,"2.5":10,"epsilon":5,"delta":4,"gamma":3}"##,
    ),
    (
        r##"return E(function() local t = {} for i = 1, 40 do t["k" .. i] = i end t[7] = true return cjson.encode(t) end)"##,
        r##"{"k12":12,"k32":32,"k19":19,"k39":39,"k31":31,"k11":11,"k30":30,"k38":38,"k14":14,"k1":1,"k3":3,"k27":27,"k34":34,"k18":18,"k7":7,"k5":5,"k26":26,"k22":22,"k21":21,"k29":29,"k25":25,"7":true,"k40":40,"k35":35,"k36":36,"k28":28,"k20":20,"k37":37,"k8":8,"k23":23,"k16":16,"k9":9,"k2":2,"k15":15,"k13":13,"k24":24,"k33":33,"k6":6,"k17":17,"k4":4,"k10":10}"##,
    ),
    (
        r##"return E(function() local t = cjson.decode('{"b":1,"a":2,"c":{"z":1,"y":2},"d":[1,{"q":null}]}') return cjson.encode(t) end)"##,
        r##"{"a":2,"d":[1,{"q":null}],"c":{"y":2,"z":1},"b":1}"##,
    ),
    (
        r##"return E(function() local c = cjson.new() c.encode_sparse_array(true) return c.encode({[50] = 1}) .. " " .. tostring(c.null == cjson.null) .. " " .. tostring(c.new ~= nil) end)"##,
        r##"{"50":1} true true"##,
    ),
    (r##"return E(function() return cjson.encode({1, [2^40]=1}) end)"##, r##"{"1":1,"1099511627776":1}"##),
    (r##"return E(function() return cjson.encode({[2^40]=1}) end)"##, r##"{"1099511627776":1}"##),
    (r##"return E(function() return cjson.encode({1, [2^31]=1}) end)"##, r##"{"1":1,"2147483648":1}"##),
    (r##"return E(function() return cjson.encode({1, 2, [2^32 + 3]=1}) end)"##, r##"{"1":1,"2":2,"4294967299":1}"##),
];
