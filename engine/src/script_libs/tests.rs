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

#[test]
fn random_tables_match_redis() {
    check(RANDOM);
}

#[test]
fn random_bit_and_struct_match_redis() {
    check(RANDOM_BIT_STRUCT);
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

/// Random nested tables (fixed seed) through `cjson.encode`, `cmsgpack.pack` and back, against
/// redis-server 7.0.15.
const RANDOM: &[(&str, &str)] = &[
    (
        r##"return E(function() local t = {[2]="z\\y\nc\n",["k16"]=55,[5]={},[-3.8610841674772955]=37,[7]={[7]=292,[3.338068660983387]="xé\\\n b",[7]={{},false,"\"0\\\"z/1\\"}},[1]={58636750701,false,470799.19533499447}} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"k16":55,"2":"z\\y\nc\n","-3.8610841674773":37,"1":[58636750701,false,470799.19533499],"5":{},"7":{"3.3380686609834":"xé\\\n b","7":[{},false,"\"0\\\"z\/1\\"]}} 86a36b31363702a67a5c790a630acbc00ee380189358d3250193cf0000000da705cf6dc2cb411cbc3cc805e59405900782cb400ab45d5795cf2ca778c3a95c0a2062079390c2a822305c227a2f315c {"1":[58636750701,false,470799.19533499],"2":"z\\y\nc\n","k16":55,"7":{"3.3380686609834":"xé\\\n b","7":[{},false,"\"0\\\"z\/1\\"]},"-3.8610841674773":37,"5":{}}"##,
    ),
    (
        r##"return E(function() local t = {["k48"]={false,{89,-77691,{[4]="/",[11]=148,[4.28953647906415]="yxy\\z"},{[2]=9007199254740992,["k20"]=false,["k45"]="\t \t\\",["k32"]="1a00xca",["k7"]="y"}},"\tzzzc\"",false,true},[11]="\na0zbz"} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"k48":[false,[89,-77691,{"11":148,"4":"\/","4.2895364790642":"yxy\\z"},{"2":9.007199254741e+15,"k32":"1a00xca","k7":"y","k45":"\t \t\\","k20":false}],"\tzzzc\"",false,true],"11":"\na0zbz"} 82a36b343895c29459d2fffed085830bcc9404a12fcb4011287c4032516ca57978795c7a8502cf0020000000000000a36b3332a731613030786361a26b37a179a36b3435a40920095ca36b3230c2a6097a7a7a6322c2c30ba60a61307a627a {"k48":[false,[89,-77691,{"11":148,"4":"\/","4.2895364790642":"yxy\\z"},{"2":9.007199254741e+15,"k32":"1a00xca","k7":"y","k20":false,"k45":"\t \t\\"}],"\tzzzc\"",false,true],"11":"\na0zbz"}"##,
    ),
    (
        r##"return E(function() local t = {["k23"]={},[-1.081464958804407]=true,["k45"]="b0a\n/a \t"} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"-1.0814649588044":true,"k23":{},"k45":"b0a\n\/a \t"} 83cbbff14dae335d5bd0c3a36b323390a36b3435a86230610a2f612009 {"-1.0814649588044":true,"k23":{},"k45":"b0a\n\/a \t"}"##,
    ),
    (
        r##"return E(function() local t = {{["k12"]={true,{["k14"]=123,["k22"]=9007199254740992,["k19"]=224,["k12"]="c/\\y\"z\""},{["k19"]="é",["k40"]=2.5e+300,["k45"]="y",[8]=""},"y"},["k10"]="y\"/éac",["k27"]=false,[8]=false,["k11"]="1yabba\té",[0.34141603546569943]={-255057.32023575797,61,true,{},"zy \t\"b\\",cjson.null}},{[7]=28644,[1]=false}} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"[{"k12":[true,{"k12":"c\/\\y\"z\"","k19":224,"k14":123,"k22":9.007199254741e+15},{"8":"","k45":"y","k40":2.5e+300,"k19":"é"},"y"],"k10":"y\"\/éac","k11":"1yabba\té","0.3414160354657":[-255057.32023576,61,true,{},"zy \t\"b\\",null],"8":false,"k27":false},[false,null,null,null,null,null,28644]] 9286a36b313294c384a36b3132a7632f5c79227a22a36b3139cce0a36b31347ba36b3232cf00200000000000008408a0a36b3435a179a36b3430cb7e4ddd4baa009303a36b3139a2c3a9a179a36b3130a779222fc3a96163a36b3131a931796162626109c3a9cb3fd5d9c2a4a9ee1096cbc10f228a8fd7c3dc3dc390a77a79200922625cc008c2a36b3237c28207cd6fe401c2 [{"k12":[true,{"k12":"c\/\\y\"z\"","k22":9.007199254741e+15,"k14":123,"k19":224},{"8":"","k45":"y","k40":2.5e+300,"k19":"é"},"y"],"k10":"y\"\/éac","k11":"1yabba\té","0.3414160354657":[-255057.32023576,61,true,{},"zy \t\"b\\"],"k27":false,"8":false},[false,null,null,null,null,null,28644]]"##,
    ),
    (
        r##"return E(function() local t = {true,{"ybc","1\\/x\\b\n\\",-245027867156,true,"0 /\""},{["k40"]=291,[11]=76040,["k49"]=293,["k30"]={[-3.5111854934986866]="\nxx1éb",[6]="/z\tb\\\n1",[-4.579887826382931]=true,[-0.1757071793888123]=77}},true} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"[true,["ybc","1\\\/x\\b\n\\",-245027867156,true,"0 \/\""],{"11":76040,"k30":{"-0.17570717938881":77,"6":"\/z\tb\\\n1","-3.5111854934987":"\nxx1éb","-4.5798878263829":true},"k40":291,"k49":293},true] 94c395a3796263a8315c2f785c620a5cd3ffffffc6f33375ecc3a430202f22840bce00012908a36b333084cbbfc67d92a692dc804d06a72f7a09625c0a31cbc00c16e86b8621c0a70a787831c3a962cbc01251ce1d46a722c3a36b3430cd0123a36b3439cd0125c3 [true,["ybc","1\\\/x\\b\n\\",-245027867156,true,"0 \/\""],{"k30":{"-4.5798878263829":true,"6":"\/z\tb\\\n1","-0.17570717938881":77,"-3.5111854934987":"\nxx1éb"},"11":76040,"k40":291,"k49":293},true]"##,
    ),
    (
        r##"return E(function() local t = {["k33"]=61339,[4.4376956214606285]="\\ x",["k12"]={{},247,"//\"\"éébb","ézcxy"},["k23"]=false,["k31"]=896057.629281685,["k27"]=34308} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"k12":[{},247,"\/\/\"\"éébb","ézcxy"],"k31":896057.62928168,"k23":false,"k33":61339,"k27":34308,"4.4376956214606":"\\ x"} 86a36b31329490ccf7aa2f2f2222c3a9c3a96262a6c3a97a637879a36b3331cb412b587342313582a36b3233c2a36b3333cdef9ba36b3237cd8604cb4011c03347ef1a6aa35c2078 {"k12":[{},247,"\/\/\"\"éébb","ézcxy"],"k31":896057.62928168,"k23":false,"k33":61339,"4.4376956214606":"\\ x","k27":34308}"##,
    ),
    (
        r##"return E(function() local t = {["k5"]=-65072,[4]=4294967296,[3.238716707857563]=161,["k50"]="x0\"0\tacé",[8]="1yéé\n"} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"8":"1yéé\n","k50":"x0\"0\tacé","4":4294967296,"3.2387167078576":161,"k5":-65072} 8508a73179c3a9c3a90aa36b3530a978302230096163c3a904cf0000000100000000cb4009e8e44e2a0e60cca1a26b35d2ffff01d0 {"8":"1yéé\n","k5":-65072,"4":4294967296,"3.2387167078576":161,"k50":"x0\"0\tacé"}"##,
    ),
    (
        r##"return E(function() local t = {655383.8926590164,true} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"[655383.89265902,true] 92cb4124002fc90a9a44c3 [655383.89265902,true]"##,
    ),
    (
        r##"return E(function() local t = {[2]=cjson.null} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"[null,null] 8102c0 {}"##,
    ),
    (
        r##"return E(function() local t = {-28120,-81110} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"[-28120,-81110] 92d19228d2fffec32a [-28120,-81110]"##,
    ),
    (
        r##"return E(function() local t = {76741,225,{["k3"]="zbz",["k4"]="\"0 \nc0b"},220} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"[76741,225,{"k3":"zbz","k4":"\"0 \nc0b"},220] 94ce00012bc5cce182a26b33a37a627aa26b34a72230200a633062ccdc [76741,225,{"k3":"zbz","k4":"\"0 \nc0b"},220]"##,
    ),
    (
        r##"return E(function() local t = {[7]="b",["k13"]=cjson.null,["k50"]="10\\\"yz",[11]={[4.884383754035918]="\n",[11]={[7]="",["k5"]=true,["k20"]=" \nézc",[4.087189882386722]={["k11"]=cjson.null,["k4"]=977034.2943523768,[12]=true},[8]={["k23"]=-21518,["k38"]=false,[4]=false,["k14"]=269}},["k22"]=9007199254740992,[10]=679677.8294902183,["k12"]=false},["k0"]=-85980,["k14"]="z\\0byx"} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"11":{"11":{"7":"","4.0871898823867":{"12":true,"k4":977034.29435238,"k11":null},"8":{"k14":269,"k38":false,"k23":-21518,"4":false},"k20":" \nézc","k5":true},"4.8843837540359":"\n","k22":9.007199254741e+15,"k12":false,"10":679677.82949022},"7":"b","k14":"z\\0byx","k0":-85980,"k13":null,"k50":"10\\\"yz"} 860b850b8507a0cb401059484df5927e830cc3a26b34cb412dd11496b55ad0a36b3131c00884a36b3134cd010da36b3338c2a36b3233d1abf204c2a36b3230a6200ac3a97a63a26b35c3cb4013899be512cabaa10aa36b3232cf0020000000000000a36b3132c20acb4124bdfba8b2f12007a162a36b3134a67a5c30627978a26b30d2fffeb024a36b3133c0a36b3530a631305c22797a {"11":{"k12":false,"4.8843837540359":"\n","k22":9.007199254741e+15,"10":679677.82949022,"11":{"k20":" \nézc","4.0871898823867":{"12":true,"k4":977034.29435238},"7":"","8":{"4":false,"k38":false,"k14":269,"k23":-21518},"k5":true}},"7":"b","k14":"z\\0byx","k0":-85980,"k50":"10\\\"yz"}"##,
    ),
    (
        r##"return E(function() local t = {"",false,-16838,"by",true,287} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"["",false,-16838,"by",true,287] 96a0c2d1be3aa26279c3cd011f ["",false,-16838,"by",true,287]"##,
    ),
    (
        r##"return E(function() local t = {1e-07,"",-25966} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"[1e-07,"",-25966] 93cb3e7ad7f29abcaf48a0d19a92 [1e-07,"",-25966]"##,
    ),
    (
        r##"return E(function() local t = {"/é 0",93172,{["k9"]=false},281,-83012,220} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"["\/é 0",93172,{"k9":false},281,-83012,220] 96a52fc3a92030ce00016bf481a26b39c2cd0119d2fffebbbcccdc ["\/é 0",93172,{"k9":false},281,-83012,220]"##,
    ),
    (
        r##"return E(function() local t = {} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{} 90 {}"##,
    ),
    (
        r##"return E(function() local t = {"\"\"b","",2.5e+300} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"["\"\"b","",2.5e+300] 93a3222262a0cb7e4ddd4baa009303 ["\"\"b","",2.5e+300]"##,
    ),
    (
        r##"return E(function() local t = {["k20"]={{{[-0.27121902810687004]=false,[4]="10\t",[12]=-54028}},620059467627,"0\n1"}} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"k20":[[{"-0.27121902810687":false,"4":"10\t","12":-54028}],620059467627,"0\n1"]} 81a36b3230939183cbbfd15ba70df16700c204a33130090cd2ffff2cf4cf000000905e6c9f6ba3300a31 {"k20":[[{"-0.27121902810687":false,"4":"10\t","12":-54028}],620059467627,"0\n1"]}"##,
    ),
    (
        r##"return E(function() local t = {[3]=-327324.03025490744,[2]=true,["k27"]="\nxé\n z",["k2"]="0\\1\n0",["k19"]=888088.5566402003} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"k27":"\nxé\n z","2":true,"3":-327324.03025491,"k19":888088.5566402,"k2":"0\\1\n0"} 85a36b3237a70a78c3a90a207a02c303cbc113fa701efb2478a36b3139cb412b1a311cfff1c0a26b32a5305c310a30 {"k27":"\nxé\n z","2":true,"k19":888088.5566402,"3":-327324.03025491,"k2":"0\\1\n0"}"##,
    ),
    (
        r##"return E(function() local t = {["k29"]={[3]=" / 1",["k38"]={["k17"]="\\\nbb",[4]={["k40"]="zcc",["k39"]="z",[-4.280398618526381]="a",["k30"]="\"11"},["k11"]=53987}},["k34"]=223} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"k34":223,"k29":{"3":" \/ 1","k38":{"k17":"\\\nbb","4":{"k39":"z","-4.2803986185264":"a","k40":"zcc","k30":"\"11"},"k11":53987}}} 82a36b3334ccdfa36b32398203a4202f2031a36b333883a36b3137a45c0a62620484a36b3339a17acbc0111f20d0c1a855a161a36b3430a37a6363a36b3330a3223131a36b3131cdd2e3 {"k29":{"3":" \/ 1","k38":{"k17":"\\\nbb","4":{"k39":"z","-4.2803986185264":"a","k40":"zcc","k30":"\"11"},"k11":53987}},"k34":223}"##,
    ),
    (
        r##"return E(function() local t = {[1.4968060864185686]={["k8"]=false,["k9"]=26952.897730781813}} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"1.4968060864186":{"k9":26952.897730782,"k8":false}} 81cb3ff7f2eaf059f1ac82a26b39cb40da5239746bcf20a26b38c2 {"1.4968060864186":{"k9":26952.897730782,"k8":false}}"##,
    ),
    (
        r##"return E(function() local t = {["k25"]="1éx",["k43"]=false,["k44"]=true,["k18"]="yc"} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"k44":true,"k43":false,"k25":"1éx","k18":"yc"} 84a36b3434c3a36b3433c2a36b3235a431c3a978a36b3138a27963 {"k44":true,"k43":false,"k25":"1éx","k18":"yc"}"##,
    ),
    (
        r##"return E(function() local t = {{{["k13"]={["k12"]="\n/\taab\"c",["k25"]=77580,["k9"]="z\t\\z\\b"},["k18"]="xzy\"",["k28"]={["k1"]="\\yx",[-3.9185246069929325]=234,["k4"]=81,[2]=true,["k28"]="zc\n"},[4]=true},cjson.null,true},"x\t"} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"[[{"k28":{"-3.9185246069929":234,"2":true,"k1":"\\yx","k4":81,"k28":"zc\n"},"k13":{"k12":"\n\/\taab\"c","k25":77580,"k9":"z\t\\z\\b"},"k18":"xzy\"","4":true},null,true],"x\t"] 929384a36b323885cbc00f59236ddcd8e1ccea02c3a26b31a35c7978a26b3451a36b3238a37a630aa36b313383a36b3132a80a2f096161622263a36b3235ce00012f0ca26b39a67a095c7a5c62a36b3138a4787a792204c3c0c3a27809 [[{"k28":{"-3.9185246069929":234,"2":true,"k1":"\\yx","k4":81,"k28":"zc\n"},"k13":{"k12":"\n\/\taab\"c","k25":77580,"k9":"z\t\\z\\b"},"k18":"xzy\"","4":true},null,true],"x\t"]"##,
    ),
    (
        r##"return E(function() local t = {["k18"]="\n1xc\"\n",["k35"]=270,["k36"]=843269585545,["k29"]={[2]="",[5]={},["k1"]=-261022.5104924402,["k28"]=275920054006},["k8"]="bz\\y xa",["k46"]={}} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"k35":270,"k29":{"5":{},"2":"","k28":275920054006,"k1":-261022.51049244},"k18":"\n1xc\"\n","k36":843269585545,"k46":{},"k8":"bz\\y xa"} 86a36b3335cd010ea36b323984059002a0a36b3238cf000000403e1de6f6a26b31cbc10fdcf4157d0f7ca36b3138a60a317863220aa36b3336cf000000c456c8ba89a36b343690a26b38a7627a5c79207861 {"k35":270,"k29":{"5":{},"2":"","k1":-261022.51049244,"k28":275920054006},"k18":"\n1xc\"\n","k36":843269585545,"k8":"bz\\y xa","k46":{}}"##,
    ),
    (
        r##"return E(function() local t = {["k29"]=true,["k38"]="zé\né"} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"k38":"zé\né","k29":true} 82a36b3338a67ac3a90ac3a9a36b3239c3 {"k29":true,"k38":"zé\né"}"##,
    ),
    (
        r##"return E(function() local t = {"",238,"é",{}} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"["",238,"é",{}] 94a0cceea2c3a990 ["",238,"é",{}]"##,
    ),
    (
        r##"return E(function() local t = {} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{} 90 {}"##,
    ),
    (
        r##"return E(function() local t = {{["k46"]="yy",[12]=cjson.null,[3]={true,9007199254740992,false},["k45"]={["k10"]={[4.4343112646327505]="\\x",["k45"]=-217425.4675277623,[11]="\"\t\\",["k48"]="a\t/b\n1",["k7"]=false,[1.4331874242602485]=32},["k48"]=""},["k32"]="/ "},"x yzé\tz","a0/é","y1b","\tyb/"} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"[{"k45":{"k10":{"11":"\"\t\\","k45":-217425.46752776,"k48":"a\t\/b\n1","4.4343112646328":"\\x","k7":false,"1.4331874242602":32},"k48":""},"k46":"yy","3":[true,9.007199254741e+15,false],"12":null,"k32":"\/ "},"x yzé\tz","a0\/é","y1b","\tyb\/"] 9585a36b343582a36b3130860ba322095ca36b3435cbc10a8a8bbd7f3208a36b3438a661092f620a31cb4011bcbc1797873ca25c78a26b37c2cb3ff6ee55efc3c7a820a36b3438a0a36b3436a279790393c3cf0020000000000000c20cc0a36b3332a22f20a87820797ac3a9097aa561302fc3a9a3793162a40979622f [{"3":[true,9.007199254741e+15,false],"k45":{"k10":{"11":"\"\t\\","k45":-217425.46752776,"k48":"a\t\/b\n1","4.4343112646328":"\\x","k7":false,"1.4331874242602":32},"k48":""},"k46":"yy","k32":"\/ "},"x yzé\tz","a0\/é","y1b","\tyb\/"]"##,
    ),
    (
        r##"return E(function() local t = {["k36"]=131,[12]="/ca\tb\\",["k37"]=true,[2]=491696.30009515886,[12]=90002} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"2":491696.30009516,"k37":true,"k36":131,"12":90002} 8402cb411e02c1334c2534a36b3337c3a36b3336cc830cce00015f92 {"12":90002,"2":491696.30009516,"k37":true,"k36":131}"##,
    ),
    (
        r##"return E(function() local t = {"bbb\\\"é",173,cjson.null,"y/\n\néc",false} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"["bbb\\\"é",173,null,"y\/\n\néc",false] 95a76262625c22c3a9ccadc0a7792f0a0ac3a963c2 ["bbb\\\"é",173,null,"y\/\n\néc",false]"##,
    ),
    (
        r##"return E(function() local t = {"c\" 11bé","010\n\na",-570497.996945268,{"\\cza\\\"\ty",{},"a\"é01\\y",cjson.null,{[8]="\t0xx",["k19"]="\\/\t/cé"}},{[10]="0 \"c",[-2.5645198248208256]="b ",[12]={},["k27"]="é\t",["k8"]=268,[11]=""}} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"["c\" 11bé","010\n\na",-570497.99694527,["\\cza\\\"\ty",{},"a\"é01\\y",null,{"8":"\t0xx","k19":"\\\/\t\/cé"}],{"k27":"é\t","10":"0 \"c","-2.5645198248208":"b ","11":"","k8":268,"12":{}}] 95a8632220313162c3a9a63031300a0a61cbc1216903fe6f9c3495a85c637a615c22097990a86122c3a930315c79c08208a409307878a36b3139a75c2f092f63c3a986a36b3237a3c3a9090aa430202263cbc0048422f84c648ca262200ba0a26b38cd010c0c90 ["c\" 11bé","010\n\na",-570497.99694527,["\\cza\\\"\ty",{},"a\"é01\\y",null,{"8":"\t0xx","k19":"\\\/\t\/cé"}],{"11":"","10":"0 \"c","-2.5645198248208":"b ","12":{},"k8":268,"k27":"é\t"}]"##,
    ),
    (
        r##"return E(function() local t = {[1]=-145122055460,["k45"]=67} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"1":-145122055460,"k45":67} 8201d3ffffffde360d2adca36b343543 {"1":-145122055460,"k45":67}"##,
    ),
    (
        r##"return E(function() local t = {[2.308321947303515]=776614130624,["k36"]={{[9]=220,["k48"]={["k48"]="1aa",["k30"]=""},["k18"]="zby",["k44"]=true}}} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"2.3083219473035":776614130624,"k36":[{"k44":true,"k18":"zby","9":220,"k48":{"k48":"1aa","k30":""}}]} 82cb400277717f427608cf000000b4d1cf33c0a36b33369184a36b3434c3a36b3138a37a627909ccdca36b343882a36b3438a3316161a36b3330a0 {"2.3083219473035":776614130624,"k36":[{"k44":true,"k48":{"k48":"1aa","k30":""},"k18":"zby","9":220}]}"##,
    ),
    (
        r##"return E(function() local t = {[2.7770851385435735]="az\ny",["k12"]=588921.853513285} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"2.7770851385436":"az\ny","k12":588921.85351329} 82cb4006377869c204aaa4617a0a79a36b3132cb4121f8f3b4ffb17c {"2.7770851385436":"az\ny","k12":588921.85351329}"##,
    ),
    (
        r##"return E(function() local t = {} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{} 90 {}"##,
    ),
    (
        r##"return E(function() local t = {[7]="1\"zéc\\"} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"[null,null,null,null,null,null,"1\"zéc\\"] 8107a731227ac3a9635c [null,null,null,null,null,null,"1\"zéc\\"]"##,
    ),
    (
        r##"return E(function() local t = {-30789,cjson.null} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"[-30789,null] 92d187bbc0 [-30789]"##,
    ),
    (
        r##"return E(function() local t = {["k14"]=false} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"k14":false} 81a36b3134c2 {"k14":false}"##,
    ),
    (
        r##"return E(function() local t = {"\t\\0\n\na\n\t",{"\n/ x/1",false,false,201,"/a \"é\"\t"}} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"["\t\\0\n\na\n\t",["\n\/ x\/1",false,false,201,"\/a \"é\"\t"]] 92a8095c300a0a610a0995a60a2f20782f31c2c2ccc9a82f612022c3a92209 ["\t\\0\n\na\n\t",["\n\/ x\/1",false,false,201,"\/a \"é\"\t"]]"##,
    ),
    (
        r##"return E(function() local t = {["k47"]=5828} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"k47":5828} 81a36b3437cd16c4 {"k47":5828}"##,
    ),
    (
        r##"return E(function() local t = {["k39"]={{[5]="\"yz/",[1]=true,["k49"]={261446.87190695363,"","1\t\"é","1"}},914455.8386220457},["k27"]={44,"/écc0 é"},[5]=cjson.null,[2]="\"/"} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"k39":[{"5":"\"yz\/","1":true,"k49":[261446.87190695,"","1\t\"é","1"]},914455.83862205],"2":"\"\/","5":null,"k27":[44,"\/écc0 é"]} 84a36b3339928305a422797a2f01c3a36b343994cb410fea36f9aa5a58a0a5310922c3a9a131cb412be82fad5fde6802a2222f05c0a36b3237922ca92fc3a963633020c3a9 {"k39":[{"1":true,"5":"\"yz\/","k49":[261446.87190695,"","1\t\"é","1"]},914455.83862205],"2":"\"\/","k27":[44,"\/écc0 é"]}"##,
    ),
    (
        r##"return E(function() local t = {["k4"]={["k9"]="\"bc",["k31"]=cjson.null,["k9"]={["k41"]="\\",[11]="y\tc",[5]=92317.32780797547},[11]={[8]=true}},["k16"]={90038.68710665475},[4]=" \"bz0a\n"} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"k16":[90038.687106655],"k4":{"11":[null,null,null,null,null,null,null,true],"k31":null,"k9":{"11":"y\tc","5":92317.327807975,"k41":"\\"}},"4":" \"bz0a\n"} 83a36b313691cb40f5fb6afe638c30a26b34830b8108c3a36b3331c0a26b39830ba379096305cb40f689d53eb39360a36b3431a15c04a72022627a30610a {"k16":[90038.687106655],"k4":{"11":[null,null,null,null,null,null,null,true],"k9":{"5":92317.327807975,"11":"y\tc","k41":"\\"}},"4":" \"bz0a\n"}"##,
    ),
    (
        r##"return E(function() local t = {[2.2222236239389357]=cjson.null,[2]=" ",["k33"]={["k10"]={{" 1éxcé"},{["k15"]="\\\\\t",["k5"]=-710940989500,[-1.400968612931611]=false,["k31"]=true,[8]=-371274936200},"/y\n0 ","","/","0\nc\té\\\n"},["k2"]=45412,["k40"]={cjson.null,{},{["k17"]=cjson.null,["k17"]=225,["k35"]=2147483648,["k45"]=true,[10]=false},{[11]="\"zb",["k16"]=-21416,["k20"]="a1b1xy",[7]=-197841.9951824122},cjson.null,156},["k15"]="ayb\ta\nx"},["k30"]=299751.8465130904} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"k30":299751.84651309,"2":" ","2.2222236239389":null,"k33":{"k15":"ayb\ta\nx","k40":[null,{},{"k35":2147483648,"k17":225,"10":false,"k45":true},{"11":"\"zb","k20":"a1b1xy","7":-197841.99518241,"k16":-21416},null,156],"k10":[[" 1éxcé"],{"-1.4009686129316":false,"k31":true,"8":-371274936200,"k15":"\\\\\t","k5":-710940989500},"\/y\n0 ","","\/","0\nc\té\\\n"],"k2":45412}} 84a36b3330cb41124b9f62d453dc02a120cb4001c71d2de9bb0cc0a36b333384a36b3135a761796209610a78a36b343096c09084a36b3335ce80000000a36b3137cce10ac2a36b3435c3840ba3227a62a36b3230a661316231787907cbc108268ff6223250a36b3136d1ac58c0cc9ca36b31309691a82031c3a97863c3a985cbbff66a5e10743854c2a36b3331c308d3ffffffa98e4a1078a36b3135a35c5c09a26b35d3ffffff5a789d67c4a52f790a3020a0a12fa8300a6309c3a95c0aa26b32cdb164 {"k30":299751.84651309,"2":" ","k33":{"k2":45412,"k10":[[" 1éxcé"],{"-1.4009686129316":false,"k31":true,"8":-371274936200,"k15":"\\\\\t","k5":-710940989500},"\/y\n0 ","","\/","0\nc\té\\\n"],"k40":[null,{},{"k35":2147483648,"k17":225,"k45":true,"10":false},{"11":"\"zb","k20":"a1b1xy","7":-197841.99518241,"k16":-21416},null,156],"k15":"ayb\ta\nx"}}"##,
    ),
    (
        r##"return E(function() local t = {260,{[3]=true},{["k29"]={["k27"]=true,["k48"]="1é1c0x",["k45"]="y",["k16"]=false,[11]={["k22"]=-166353231250,[8]=cjson.null}},["k29"]="zab",[10]={["k40"]=-859398020552,["k39"]=295,["k44"]="0/"}},cjson.null,"/z0xz\"\t\\"} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"[260,[null,null,true],{"k29":"zab","10":{"k39":295,"k40":-859398020552,"k44":"0\/"}},null,"\/z0xz\"\t\\"] 95cd01048103c382a36b3239a37a61620a83a36b3339cd0127a36b3430d3ffffff37e7e2e238a36b3434a2302fc0a82f7a30787a22095c [260,[null,null,true],{"10":{"k39":295,"k40":-859398020552,"k44":"0\/"},"k29":"zab"},null,"\/z0xz\"\t\\"]"##,
    ),
    (
        r##"return E(function() local t = {"0cxy"} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"["0cxy"] 91a430637879 ["0cxy"]"##,
    ),
    (
        r##"return E(function() local t = {["k12"]=-657120.3142250266,["k32"]=cjson.null} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"k12":-657120.31422503,"k32":null} 82a36b3132cbc1240dc0a0e21a4aa36b3332c0 {"k12":-657120.31422503}"##,
    ),
    (
        r##"return E(function() local t = {["k42"]={["k30"]="\tay\\c",["k7"]=false}} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"k42":{"k30":"\tay\\c","k7":false}} 81a36b343282a36b3330a50961795c63a26b37c2 {"k42":{"k30":"\tay\\c","k7":false}}"##,
    ),
    (
        r##"return E(function() local t = {[4.826816265594063]=3770.4743575048633,["k41"]={["k1"]=59,[4]=false,[1]=-8536,[6]=166,["k8"]="cxz0",["k37"]=164},[6]={[10]="\"/aé z",["k30"]=285,["k6"]=57437,[-1.1315987659071425]={["k38"]=245,["k50"]="y",["k22"]=false,[2]="az0",["k8"]={["k18"]=195,["k18"]=47221},["k43"]=238}},["k7"]="z\néb",["k11"]={[12]="/",[7]=false,[3.060181413388751]=" \\\n"},["k24"]=80635} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"4.8268162655941":3770.4743575049,"k11":{"3.0601814133888":" \\\n","12":"\/","7":false},"k24":80635,"k7":"z\néb","6":{"k30":285,"10":"\"\/aé z","-1.1315987659071":{"k38":245,"k22":false,"k8":{"k18":47221},"k43":238,"2":"az0","k50":"y"},"k6":57437},"k41":{"6":166,"k37":164,"k8":"cxz0","k1":59,"4":false,"1":-8536}} 86cb40134ea8ec521c02cb40ad74f2defca400a36b313183cb40087b406492a768a3205c0a0ca12f07c2a36b3234ce00013afba26b37a57a0ac3a9620684a36b3330cd011d0aa7222f61c3a9207acbbff21b074ebc3e0086a36b3338ccf5a36b3232c2a26b3881a36b3138cdb875a36b3433ccee02a3617a30a36b3530a179a26b36cde05da36b34318606cca6a36b3337cca4a26b38a463787a30a26b313b04c201d1dea8 {"4.8268162655941":3770.4743575049,"k11":{"7":false,"12":"\/","3.0601814133888":" \\\n"},"k24":80635,"k7":"z\néb","6":{"k30":285,"10":"\"\/aé z","-1.1315987659071":{"k38":245,"k22":false,"k8":{"k18":47221},"k43":238,"2":"az0","k50":"y"},"k6":57437},"k41":{"6":166,"k37":164,"k8":"cxz0","k1":59,"4":false,"1":-8536}}"##,
    ),
    (
        r##"return E(function() local t = {"\"\"\\\n","\nca\" \t/1","1y y\n\\",{["k30"]="acé\"",["k40"]={[-4.9856810147828226]=true,["k23"]=cjson.null,[11]="/",[2]={[4.0865655754534185]=61055,["k7"]=9007199254740992,[-0.9214924147116914]="ay",["k10"]="0 \"a bé",["k35"]=170,[-1.3514314263342744]=166},["k11"]=32},[1.62198979243899]=false,["k44"]="\txx"},cjson.null} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"["\"\"\\\n","\nca\" \t\/1","1y y\n\\",{"k30":"acé\"","k44":"\txx","k40":{"11":"\/","-4.9856810147828":true,"k23":null,"k11":32,"2":{"k35":170,"4.0865655754534":61055,"-1.3514314263343":166,"k7":9.007199254741e+15,"-0.92149241471169":"ay","k10":"0 \"a bé"}},"1.621989792439":false},null] 95a422225c0aa80a63612220092f31a6317920790a5c84a36b3330a56163c3a922a36b3434a3097878a36b3430850ba12fcbc013f1565d2b1f0bc3a36b3233c0a36b3131200286a36b3335ccaacb401058a4a56e209ecdee7fcbbff59f768f2e4708cca6a26b37cf0020000000000000cbbfed7cdda9165c70a26179a36b3130a8302022612062c3a9cb3ff9f3ab918f8a68c2c0 ["\"\"\\\n","\nca\" \t\/1","1y y\n\\",{"k44":"\txx","1.621989792439":false,"k40":{"11":"\/","-4.9856810147828":true,"2":{"k35":170,"4.0865655754534":61055,"k10":"0 \"a bé","-1.3514314263343":166,"-0.92149241471169":"ay","k7":9.007199254741e+15},"k11":32},"k30":"acé\""}]"##,
    ),
    (
        r##"return E(function() local t = {} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{} 90 {}"##,
    ),
    (
        r##"return E(function() local t = {["k17"]=-83195} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"k17":-83195} 81a36b3137d2fffebb05 {"k17":-83195}"##,
    ),
    (
        r##"return E(function() local t = {["k32"]=cjson.null,["k44"]={"b\tz\t"},[5]=false,["k27"]=157} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"k44":["b\tz\t"],"k27":157,"k32":null,"5":false} 84a36b343491a462097a09a36b3237cc9da36b3332c005c2 {"k27":157,"5":false,"k44":["b\tz\t"]}"##,
    ),
    (
        r##"return E(function() local t = {true,true,{"x/ ","",{"é/y\\\t1xz",40627}},cjson.null} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"[true,true,["x\/ ","",["é\/y\\\t1xz",40627]],null] 94c3c393a3782f20a092a9c3a92f795c0931787acd9eb3c0 [true,true,["x\/ ","",["é\/y\\\t1xz",40627]]]"##,
    ),
    (
        r##"return E(function() local t = {[9]={"/\n\nz",-983776.0931284159,"\"",-48760605373,true},["k3"]={223,{["k6"]="b\"xx1",["k25"]=false,["k43"]=-49388,["k21"]={"yc0cy\\z",216,"x",false},["k25"]=937971998949},"b 0",{["k36"]=true},"00zyzxz"},["k17"]={[5]="c\\z",["k36"]={["k0"]="/\"0 c",["k4"]=-731886.4024483749,["k24"]="c\n",["k46"]="\"bb",["k42"]=""},["k38"]=cjson.null,["k46"]=-70785.80139353476,["k46"]={[2]={[0.5855065454021506]=-93511,["k24"]="0/",["k3"]=259,[5]=147,[6]="\tb\t1\t\"b",["k33"]=93891},["k17"]={true}}},["k34"]={["k21"]="cy",[4]=true,["k5"]=1e-07,["k28"]=" /ay\""},["k44"]=11} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"k44":11,"k17":{"k38":null,"k46":{"2":{"0.58550654540215":-93511,"k24":"0\/","k33":93891,"6":"\tb\t1\t\"b","k3":259,"5":147},"k17":[true]},"k36":{"k46":"\"bb","k24":"c\n","k42":"","k0":"\/\"0 c","k4":-731886.40244837},"5":"c\\z"},"k34":{"k21":"cy","k28":" \/ay\"","4":true,"k5":1e-07},"9":["\/\n\nz",-983776.09312842,"\"",-48760605373,true],"k3":[223,{"k21":["yc0cy\\z",216,"x",false],"k25":937971998949,"k6":"b\"xx1","k43":-49388},"b 0",{"k36":true},"00zyzxz"]} 85a36b34340ba36b313784a36b3338c0a36b3436820286cb3fe2bc78390313e0d2fffe92b9a36b3234a2302fa36b3333ce00016ec306a709620931092262a26b33cd010305cc93a36b313791c3a36b333685a36b3436a3226262a36b3234a2630aa36b3432a0a26b30a52f22302063a26b34cbc12655dcce0db6a105a3635c7aa36b333484a36b3231a26379a36b3238a5202f61792204c3a26b35cb3e7ad7f29abcaf480995a42f0a0a7acbc12e05c02fae8719a122d3fffffff4a5a43543c3a26b3395ccdf84a36b323194a779633063795c7accd8a178c2a36b3235cf000000da637ce0e5a26b36a56222787831a36b3433d2ffff3f14a362203081a36b3336c3a730307a797a787a {"k44":11,"k34":{"k28":" \/ay\"","k21":"cy","4":true,"k5":1e-07},"k3":[223,{"k21":["yc0cy\\z",216,"x",false],"k43":-49388,"k25":937971998949,"k6":"b\"xx1"},"b 0",{"k36":true},"00zyzxz"],"9":["\/\n\nz",-983776.09312842,"\"",-48760605373,true],"k17":{"5":"c\\z","k46":{"2":{"6":"\tb\t1\t\"b","k24":"0\/","5":147,"0.58550654540215":-93511,"k3":259,"k33":93891},"k17":[true]},"k36":{"k46":"\"bb","k24":"c\n","k42":"","k0":"\/\"0 c","k4":-731886.40244837}}}"##,
    ),
    (
        r##"return E(function() local t = {cjson.null,{[6]=false,["k43"]={"\"",{-79333,"\tyz",29020,-34711,133,121}},[8]={},["k20"]={"a",233523.74924876867,"\n",false,{}},["k15"]={}}} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"[null,{"6":false,"k20":["a",233523.74924877,"\n",false,{}],"8":{},"k15":{},"k43":["\"",[-79333,"\tyz",29020,-34711,133,121]]}] 92c08506c2a36b323095a161cb410c819dfe762370a10ac2900890a36b313590a36b343392a12296d2fffeca1ba309797acd715cd2ffff7869cc8579 [null,{"6":false,"k20":["a",233523.74924877,"\n",false,{}],"8":{},"k15":{},"k43":["\"",[-79333,"\tyz",29020,-34711,133,121]]}]"##,
    ),
    (
        r##"return E(function() local t = {["k45"]={-28722},["k45"]=159} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"k45":159} 81a36b3435cc9f {"k45":159}"##,
    ),
    (
        r##"return E(function() local t = {} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{} 90 {}"##,
    ),
    (
        r##"return E(function() local t = {[2]="a",[6]=-746269.8668456962,["k24"]=-71238} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"2":"a","6":-746269.8668457,"k24":-71238} 8302a16106cbc126c63bbbd332f8a36b3234d2fffee9ba {"6":-746269.8668457,"2":"a","k24":-71238}"##,
    ),
    (
        r##"return E(function() local t = {[2]={[3]=1052387282159},["k45"]="/0z//",[-1.7012034234608695]="\n\" ",[1]=170,["k38"]="\n1 acx\t"} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"{"2":[null,null,1052387282159],"-1.7012034234609":"\n\" ","1":170,"k38":"\n1 acx\t","k45":"\/0z\/\/"} 85028103cf000000f5072b8cefcbbffb382114b9b908a30a222001ccaaa36b3338a70a312061637809a36b3435a52f307a2f2f {"1":170,"2":[null,null,1052387282159],"k38":"\n1 acx\t","-1.7012034234609":"\n\" ","k45":"\/0z\/\/"}"##,
    ),
    (
        r##"return E(function() local t = {261,550422572759} local ok, j = pcall(cjson.encode, t) return tostring(j) .. ' ' .. hex(cmsgpack.pack(t)) .. ' ' .. cjson.encode(cmsgpack.unpack(cmsgpack.pack(t))) end)"##,
        r##"[261,550422572759] 92cd0105cf0000008027bdeed7 [261,550422572759]"##,
    ),
];

/// Random numbers through every `bit` function and random layouts through `struct` (fixed
/// seed), against redis-server 7.0.15.
const RANDOM_BIT_STRUCT: &[(&str, &str)] = &[
    (
        r##"return table.concat({bit.tobit(7529878975.214596), bit.bnot(7529878975.214596), bit.band(7529878975.214596, -3517555681, 4294967296.5), bit.bor(7529878975.214596, -3517555681), bit.bxor(7529878975.214596, -3517555681, 4294967296.5), bit.lshift(7529878975.214596, -3517555681), bit.rshift(7529878975.214596, -3517555681), bit.arshift(7529878975.214596, -3517555681), bit.rol(7529878975.214596, -3517555681), bit.ror(7529878975.214596, -3517555681), bit.bswap(7529878975.214596), bit.tohex(7529878975.214596), bit.tohex(7529878975.214596, -2)}, ',')"##,
        r##"-1060055617,1060055616,0,-287908417,-293172832,-2147483648,1,-1,-530027809,-2120111233,-1076506432,c0d0d5bf,BF"##,
    ),
    (
        r##"return table.concat({bit.tobit(2275800872.6151066), bit.bnot(2275800872.6151066), bit.band(2275800872.6151066, 820014160, 4294967295), bit.bor(2275800872.6151066, 820014160), bit.bxor(2275800872.6151066, 820014160, 4294967295), bit.lshift(2275800872.6151066, 820014160), bit.rshift(2275800872.6151066, 820014160), bit.arshift(2275800872.6151066, 820014160), bit.rol(2275800872.6151066, 820014160), bit.ror(2275800872.6151066, 820014160), bit.bswap(2275800872.6151066), bit.tohex(2275800872.6151066), bit.tohex(2275800872.6151066, -3)}, ',')"##,
        r##"-2019166423,2019166422,10511360,-1209663623,1220174982,-148307968,34725,-30811,-148273243,-148273243,704095623,87a5f729,729"##,
    ),
    (
        r##"return table.concat({bit.tobit(4651698801), bit.bnot(4651698801), bit.band(4651698801, 566692386, -3979748322.148162), bit.bor(4651698801, 566692386), bit.bxor(4651698801, 566692386, -3979748322.148162), bit.lshift(4651698801, 566692386), bit.rshift(4651698801, 566692386), bit.arshift(4651698801, 566692386), bit.rol(4651698801, 566692386), bit.ror(4651698801, 566692386), bit.bswap(4651698801), bit.tohex(4651698801), bit.tohex(4651698801, -3)}, ',')"##,
        r##"356731505,-356731506,4261888,902253171,642620493,1426926020,89182876,89182876,1426926020,1162924700,1900692245,15434a71,A71"##,
    ),
    (
        r##"return table.concat({bit.tobit(5177848488), bit.bnot(5177848488), bit.band(5177848488, -98, -2581615756.16809), bit.bor(5177848488, -98), bit.bxor(5177848488, -98, -2581615756.16809), bit.lshift(5177848488, -98), bit.rshift(5177848488, -98), bit.arshift(5177848488, -98), bit.rol(5177848488, -98), bit.ror(5177848488, -98), bit.bswap(5177848488), bit.tohex(5177848488), bit.tohex(5177848488, 4)}, ',')"##,
        r##"882881192,-882881193,606052864,-66,-1384126910,0,0,0,220720298,-763442528,-1464688844,349fb2a8,b2a8"##,
    ),
    (
        r##"return table.concat({bit.tobit(-14), bit.bnot(-14), bit.band(-14, 2.5, 4503599627370496.0), bit.bor(-14, 2.5), bit.bxor(-14, 2.5, 4503599627370496.0), bit.lshift(-14, 2.5), bit.rshift(-14, 2.5), bit.arshift(-14, 2.5), bit.rol(-14, 2.5), bit.ror(-14, 2.5), bit.bswap(-14), bit.tohex(-14), bit.tohex(-14, 4)}, ',')"##,
        r##"-14,13,0,-14,-16,-56,1073741820,-4,-53,-1073741828,-218103809,fffffff2,fff2"##,
    ),
    (
        r##"return table.concat({bit.tobit(2028339462), bit.bnot(2028339462), bit.band(2028339462, 1626106784, 1e+20), bit.bor(2028339462, 1626106784), bit.bxor(2028339462, 1626106784, 1e+20), bit.lshift(2028339462, 1626106784), bit.rshift(2028339462, 1626106784), bit.arshift(2028339462, 1626106784), bit.rol(2028339462, 1626106784), bit.ror(2028339462, 1626106784), bit.bswap(2028339462), bit.tohex(2028339462), bit.tohex(2028339462, 6)}, ',')"##,
        r##"2028339462,-2028339463,1621360640,2028891046,1623189222,2028339462,2028339462,2028339462,2028339462,2028339462,100787832,78e60106,e60106"##,
    ),
    (
        r##"return table.concat({bit.tobit(5255045923.596256), bit.bnot(5255045923.596256), bit.band(5255045923.596256, 0.5, 145), bit.bor(5255045923.596256, 0.5), bit.bxor(5255045923.596256, 0.5, 145), bit.lshift(5255045923.596256, 0.5), bit.rshift(5255045923.596256, 0.5), bit.arshift(5255045923.596256, 0.5), bit.rol(5255045923.596256, 0.5), bit.ror(5255045923.596256, 0.5), bit.bswap(5255045923.596256), bit.tohex(5255045923.596256), bit.tohex(5255045923.596256, 9)}, ',')"##,
        r##"960078628,-960078629,0,960078628,960078773,960078628,960078628,960078628,960078628,960078628,614676793,3939a324,3939a324"##,
    ),
    (
        r##"return table.concat({bit.tobit(345239429), bit.bnot(345239429), bit.band(345239429, 0.5, 4325312313), bit.bor(345239429, 0.5), bit.bxor(345239429, 0.5, 4325312313), bit.lshift(345239429, 0.5), bit.rshift(345239429, 0.5), bit.arshift(345239429, 0.5), bit.rol(345239429, 0.5), bit.ror(345239429, 0.5), bit.bswap(345239429), bit.tohex(345239429), bit.tohex(345239429, -3)}, ',')"##,
        r##"345239429,-345239430,0,345239429,358410428,345239429,345239429,345239429,345239429,345239429,-2047896812,1493ef85,F85"##,
    ),
    (
        r##"return table.concat({bit.tobit(182), bit.bnot(182), bit.band(182, -1e+20, -0.5), bit.bor(182, -1e+20), bit.bxor(182, -1e+20, -0.5), bit.lshift(182, -1e+20), bit.rshift(182, -1e+20), bit.arshift(182, -1e+20), bit.rol(182, -1e+20), bit.ror(182, -1e+20), bit.bswap(182), bit.tohex(182), bit.tohex(182, -6)}, ',')"##,
        r##"182,-183,0,2025164022,2025164022,182,182,182,182,182,-1241513984,000000b6,0000B6"##,
    ),
    (
        r##"return table.concat({bit.tobit(-28), bit.bnot(-28), bit.band(-28, 2.5, 142), bit.bor(-28, 2.5), bit.bxor(-28, 2.5, 142), bit.lshift(-28, 2.5), bit.rshift(-28, 2.5), bit.arshift(-28, 2.5), bit.rol(-28, 2.5), bit.ror(-28, 2.5), bit.bswap(-28), bit.tohex(-28), bit.tohex(-28, 3)}, ',')"##,
        r##"-28,27,0,-26,-152,-112,1073741817,-7,-109,1073741817,-452984833,ffffffe4,fe4"##,
    ),
    (
        r##"return table.concat({bit.tobit(-3995473622.585477), bit.bnot(-3995473622.585477), bit.band(-3995473622.585477, 1643098786, 4503599627370496.0), bit.bor(-3995473622.585477, 1643098786), bit.bxor(-3995473622.585477, 1643098786, 4503599627370496.0), bit.lshift(-3995473622.585477, 1643098786), bit.rshift(-3995473622.585477, 1643098786), bit.arshift(-3995473622.585477, 1643098786), bit.rol(-3995473622.585477, 1643098786), bit.ror(-3995473622.585477, 1643098786), bit.bswap(-3995473622.585477), bit.tohex(-3995473622.585477), bit.tohex(-3995473622.585477, -10)}, ',')"##,
        r##"299493673,-299493674,0,1912601515,1882610571,1197974692,74873418,74873418,1197974692,1148615242,703191313,11d9e929,11D9E929"##,
    ),
    (
        r##"return table.concat({bit.tobit(-2147483648), bit.bnot(-2147483648), bit.band(-2147483648, -842551431, -1292452541), bit.bor(-2147483648, -842551431), bit.bxor(-2147483648, -842551431, -1292452541), bit.lshift(-2147483648, -842551431), bit.rshift(-2147483648, -842551431), bit.arshift(-2147483648, -842551431), bit.rol(-2147483648, -842551431), bit.ror(-2147483648, -842551431), bit.bswap(-2147483648), bit.tohex(-2147483648), bit.tohex(-2147483648, -6)}, ',')"##,
        r##"-2147483648,2147483647,-2147483648,-842551431,-13561286,0,64,-64,16777216,64,128,80000000,000000"##,
    ),
    (
        r##"return table.concat({bit.tobit(-7951319472), bit.bnot(-7951319472), bit.band(-7951319472, -7744177833, -95), bit.bor(-7951319472, -7744177833), bit.bxor(-7951319472, -7744177833, -95), bit.lshift(-7951319472, -7744177833), bit.rshift(-7951319472, -7744177833), bit.arshift(-7951319472, -7744177833), bit.rol(-7951319472, -7744177833), bit.ror(-7951319472, -7744177833), bit.bswap(-7951319472), bit.tohex(-7951319472), bit.tohex(-7951319472, 6)}, ',')"##,
        r##"638615120,-638615121,570439680,913932119,-343492442,671088640,76,76,672335935,553427020,1350438950,26107e50,107e50"##,
    ),
    (
        r##"return table.concat({bit.tobit(-1e+20), bit.bnot(-1e+20), bit.band(-1e+20, 3852119136, -283), bit.bor(-1e+20, 3852119136), bit.bxor(-1e+20, 3852119136, -283), bit.lshift(-1e+20, 3852119136), bit.rshift(-1e+20, 3852119136), bit.arshift(-1e+20, 3852119136), bit.rol(-1e+20, 3852119136), bit.ror(-1e+20, 3852119136), bit.bswap(-1e+20), bit.tohex(-1e+20), bit.tohex(-1e+20, -7)}, ',')"##,
        r##"2025163840,-2025163841,1620085824,-37770144,1657855685,2025163840,2025163840,2025163840,2025163840,2025163840,1082963320,78b58c40,8B58C40"##,
    ),
    (
        r##"return table.concat({bit.tobit(3988517863.658407), bit.bnot(3988517863.658407), bit.band(3988517863.658407, 129, -3632904618), bit.bor(3988517863.658407, 129), bit.bxor(3988517863.658407, 129, -3632904618), bit.lshift(3988517863.658407, 129), bit.rshift(3988517863.658407, 129), bit.arshift(3988517863.658407, 129), bit.rol(3988517863.658407, 129), bit.ror(3988517863.658407, 129), bit.bswap(3988517863.658407), bit.tohex(3988517863.658407), bit.tohex(3988517863.658407, -1)}, ',')"##,
        r##"-306449432,306449431,0,-306449431,-892488385,-612898864,1994258932,-153224716,-612898863,1994258932,-386679827,edbbf3e8,8"##,
    ),
    (
        r##"return table.concat({bit.tobit(-3661471332), bit.bnot(-3661471332), bit.band(-3661471332, -203, 4567167429.943281), bit.bor(-3661471332, -203), bit.bxor(-3661471332, -203, 4567167429.943281), bit.lshift(-3661471332, -203), bit.rshift(-3661471332, -203), bit.arshift(-3661471332, -203), bit.rol(-3661471332, -203), bit.ror(-3661471332, -203), bit.bswap(-3661471332), bit.tohex(-3661471332), bit.tohex(-3661471332, -5)}, ',')"##,
        r##"633495964,-633495965,24836,-67,-905646225,864026624,302,302,864335948,319611182,-1671314907,25c2619c,2619C"##,
    ),
    (
        r##"return table.concat({bit.tobit(2147483648), bit.bnot(2147483648), bit.band(2147483648, 1217027224, 41249235.12819862), bit.bor(2147483648, 1217027224), bit.bxor(2147483648, 1217027224, 41249235.12819862), bit.lshift(2147483648, 1217027224), bit.rshift(2147483648, 1217027224), bit.arshift(2147483648, 1217027224), bit.rol(2147483648, 1217027224), bit.ror(2147483648, 1217027224), bit.bswap(2147483648), bit.tohex(2147483648), bit.tohex(2147483648, 9)}, ',')"##,
        r##"-2147483648,2147483647,0,-930456424,-889244341,0,128,-128,8388608,128,128,80000000,80000000"##,
    ),
    (
        r##"return table.concat({bit.tobit(6591093751), bit.bnot(6591093751), bit.band(6591093751, -8942829245.249495, 4503599627370496.0), bit.bor(6591093751, -8942829245.249495), bit.bxor(6591093751, -8942829245.249495, 4503599627370496.0), bit.lshift(6591093751, -8942829245.249495), bit.rshift(6591093751, -8942829245.249495), bit.arshift(6591093751, -8942829245.249495), bit.rol(6591093751, -8942829245.249495), bit.ror(6591093751, -8942829245.249495), bit.bswap(6591093751), bit.tohex(6591093751), bit.tohex(6591093751, 9)}, ',')"##,
        r##"-1998840841,1998840840,0,-352363529,1647008436,1189142456,287015806,-249855106,1189142460,-249855106,-149169016,88dc1bf7,88dc1bf7"##,
    ),
    (
        r##"return table.concat({bit.tobit(199), bit.bnot(199), bit.band(199, 2540978583.937565, -2573987005), bit.bor(199, 2540978583.937565), bit.bxor(199, 2540978583.937565, -2573987005), bit.lshift(199, 2540978583.937565), bit.rshift(199, 2540978583.937565), bit.arshift(199, 2540978583.937565), bit.rol(199, 2540978583.937565), bit.ror(199, 2540978583.937565), bit.bswap(199), bit.tohex(199), bit.tohex(199, 2)}, ',')"##,
        r##"199,-200,0,-1753988641,-236957156,-956301312,0,0,-956301312,50944,-956301312,000000c7,c7"##,
    ),
    (
        r##"return table.concat({bit.tobit(4503599627370496.0), bit.bnot(4503599627370496.0), bit.band(4503599627370496.0, 221, 3907611406.300642), bit.bor(4503599627370496.0, 221), bit.bxor(4503599627370496.0, 221, 3907611406.300642), bit.lshift(4503599627370496.0, 221), bit.rshift(4503599627370496.0, 221), bit.arshift(4503599627370496.0, 221), bit.rol(4503599627370496.0, 221), bit.ror(4503599627370496.0, 221), bit.bswap(4503599627370496.0), bit.tohex(4503599627370496.0), bit.tohex(4503599627370496.0, 3)}, ',')"##,
        r##"0,-1,0,221,-387355693,0,0,0,0,0,0,00000000,000"##,
    ),
    (
        r##"return table.concat({bit.tobit(-142), bit.bnot(-142), bit.band(-142, 4302720874.759165, 255), bit.bor(-142, 4302720874.759165), bit.bxor(-142, 4302720874.759165, 255), bit.lshift(-142, 4302720874.759165), bit.rshift(-142, 4302720874.759165), bit.arshift(-142, 4302720874.759165), bit.rol(-142, 4302720874.759165), bit.ror(-142, 4302720874.759165), bit.bswap(-142), bit.tohex(-142), bit.tohex(-142, -2)}, ',')"##,
        r##"-142,141,98,-133,-7753498,-290816,2097151,-1,-288769,-295698433,1929379839,ffffff72,72"##,
    ),
    (
        r##"return table.concat({bit.tobit(4503599627370496.0), bit.bnot(4503599627370496.0), bit.band(4503599627370496.0, 7914565533.393608, 2147483648), bit.bor(4503599627370496.0, 7914565533.393608), bit.bxor(4503599627370496.0, 7914565533.393608, 2147483648), bit.lshift(4503599627370496.0, 7914565533.393608), bit.rshift(4503599627370496.0, 7914565533.393608), bit.arshift(4503599627370496.0, 7914565533.393608), bit.rol(4503599627370496.0, 7914565533.393608), bit.ror(4503599627370496.0, 7914565533.393608), bit.bswap(4503599627370496.0), bit.tohex(4503599627370496.0), bit.tohex(4503599627370496.0, -9)}, ',')"##,
        r##"0,-1,0,-675369059,1472114589,0,0,0,0,0,0,00000000,00000000"##,
    ),
    (
        r##"return table.concat({bit.tobit(5228010871), bit.bnot(5228010871), bit.band(5228010871, -2147483648, 4294967296.5), bit.bor(5228010871, -2147483648), bit.bxor(5228010871, -2147483648, 4294967296.5), bit.lshift(5228010871, -2147483648), bit.rshift(5228010871, -2147483648), bit.arshift(5228010871, -2147483648), bit.rol(5228010871, -2147483648), bit.ror(5228010871, -2147483648), bit.bswap(5228010871), bit.tohex(5228010871), bit.tohex(5228010871, 10)}, ',')"##,
        r##"933043575,-933043576,0,-1214440073,-1214440073,933043575,933043575,933043575,933043575,933043575,1998429495,379d1d77,379d1d77"##,
    ),
    (
        r##"return table.concat({bit.tobit(1e+20), bit.bnot(1e+20), bit.band(1e+20, 4294967296.5, 248901900), bit.bor(1e+20, 4294967296.5), bit.bxor(1e+20, 4294967296.5, 248901900), bit.lshift(1e+20, 4294967296.5), bit.rshift(1e+20, 4294967296.5), bit.arshift(1e+20, 4294967296.5), bit.rol(1e+20, 4294967296.5), bit.ror(1e+20, 4294967296.5), bit.bswap(1e+20), bit.tohex(1e+20), bit.tohex(1e+20, 0)}, ',')"##,
        r##"2025163840,-2025163841,0,2025163840,1986035020,2025163840,2025163840,2025163840,2025163840,2025163840,1082963320,78b58c40,"##,
    ),
    (
        r##"return table.concat({bit.tobit(-5445214858), bit.bnot(-5445214858), bit.band(-5445214858, -7818366913.384623, -42), bit.bor(-5445214858, -7818366913.384623), bit.bxor(-5445214858, -7818366913.384623, -42), bit.lshift(-5445214858, -7818366913.384623), bit.rshift(-5445214858, -7818366913.384623), bit.arshift(-5445214858, -7818366913.384623), bit.rol(-5445214858, -7818366913.384623), bit.ror(-5445214858, -7818366913.384623), bit.bswap(-5445214858), bit.tohex(-5445214858), bit.tohex(-5445214858, 8)}, ',')"##,
        r##"-1150247562,1150247561,695210006,-1073889921,1769099935,0,1,-1,1572359867,1994472173,1990029499,bb709d76,bb709d76"##,
    ),
    (
        r##"return table.concat({bit.tobit(-2147483648), bit.bnot(-2147483648), bit.band(-2147483648, 4503599627370496.0, -98), bit.bor(-2147483648, 4503599627370496.0), bit.bxor(-2147483648, 4503599627370496.0, -98), bit.lshift(-2147483648, 4503599627370496.0), bit.rshift(-2147483648, 4503599627370496.0), bit.arshift(-2147483648, 4503599627370496.0), bit.rol(-2147483648, 4503599627370496.0), bit.ror(-2147483648, 4503599627370496.0), bit.bswap(-2147483648), bit.tohex(-2147483648), bit.tohex(-2147483648, 7)}, ',')"##,
        r##"-2147483648,2147483647,0,-2147483648,2147483550,-2147483648,-2147483648,-2147483648,-2147483648,-2147483648,128,80000000,0000000"##,
    ),
    (
        r##"return table.concat({bit.tobit(7603838893), bit.bnot(7603838893), bit.band(7603838893, 7757973307, 4294967296.5), bit.bor(7603838893, 7757973307), bit.bxor(7603838893, 7757973307, 4294967296.5), bit.lshift(7603838893, 7757973307), bit.rshift(7603838893, 7757973307), bit.arshift(7603838893, 7757973307), bit.rol(7603838893, 7757973307), bit.ror(7603838893, 7757973307), bit.bswap(7603838893), bit.tohex(7603838893), bit.tohex(7603838893, 1)}, ',')"##,
        r##"-986095699,986095698,0,-814129217,189798550,1744830464,24,-8,1848232701,-1490291272,-1386268219,c5395fad,d"##,
    ),
    (
        r##"return table.concat({bit.tobit(-8186584663.372234), bit.bnot(-8186584663.372234), bit.band(-8186584663.372234, -1693796139, -5701374094), bit.bor(-8186584663.372234, -1693796139), bit.bxor(-8186584663.372234, -1693796139, -5701374094), bit.lshift(-8186584663.372234, -1693796139), bit.rshift(-8186584663.372234, -1693796139), bit.arshift(-8186584663.372234, -1693796139), bit.rol(-8186584663.372234, -1693796139), bit.ror(-8186584663.372234, -1693796139), bit.bswap(-8186584663.372234), bit.tohex(-8186584663.372234), bit.tohex(-8186584663.372234, 4)}, ',')"##,
        r##"403349929,-403349930,134914048,-1693795843,791410190,891289600,192,192,891486548,1426933952,-1449063912,180aa1a9,a1a9"##,
    ),
    (
        r##"return table.concat({bit.tobit(4294967295), bit.bnot(4294967295), bit.band(4294967295, -295, -6765423291), bit.bor(4294967295, -295), bit.bxor(4294967295, -295, -6765423291), bit.lshift(4294967295, -295), bit.rshift(4294967295, -295), bit.arshift(4294967295, -295), bit.rol(4294967295, -295), bit.ror(4294967295, -295), bit.bswap(4294967295), bit.tohex(4294967295), bit.tohex(4294967295, 3)}, ',')"##,
        r##"-1,0,1824511041,-1,1824511075,-33554432,127,-1,-1,-1,-1,ffffffff,fff"##,
    ),
    (
        r##"return table.concat({bit.tobit(-2101483581), bit.bnot(-2101483581), bit.band(-2101483581, -5803882850.630948, -125), bit.bor(-2101483581, -5803882850.630948), bit.bxor(-2101483581, -5803882850.630948, -125), bit.lshift(-2101483581, -5803882850.630948), bit.rshift(-2101483581, -5803882850.630948), bit.arshift(-2101483581, -5803882850.630948), bit.rol(-2101483581, -5803882850.630948), bit.ror(-2101483581, -5803882850.630948), bit.bswap(-2101483581), bit.tohex(-2101483581), bit.tohex(-2101483581, -5)}, ',')"##,
        r##"-2101483581,2101483580,-2113026431,-1497372705,-615653667,1610612736,4,-4,1884798200,368000540,-1008222846,82bde7c3,DE7C3"##,
    ),
    (
        r##"return E(function() local s = struct.pack('<i8 I2 d', -990, 805, 423.4127872253014) return hex(s) .. ' ' .. struct.size('<i8 I2 d') .. ' ' .. table.concat({struct.unpack('<i8 I2 d', s)}, ',') end)"##,
        r##"22fcffffffffffff2503040ec7c69a767a40 18 -990,805,423.4127872253,19"##,
    ),
    (
        r##"return E(function() local s = struct.pack('>!4d I5 I5 b', -781.2644641295916, 647, 685, -143) return hex(s) .. ' ' .. struct.size('>!4d I5 I5 b') .. ' ' .. table.concat({struct.unpack('>!4d I5 I5 b', s)}, ',') end)"##,
        r##"c0886a1d9f5e9c7d000000028700000000000002ad71 22 -781.26446412959,647,685,113,23"##,
    ),
    (
        r##"return E(function() local s = struct.pack('>l i8 i', -558, 759, 209) return hex(s) .. ' ' .. struct.size('>l i8 i') .. ' ' .. table.concat({struct.unpack('>l i8 i', s)}, ',') end)"##,
        r##"fffffffffffffdd200000000000002f7000000d1 20 -558,759,209,21"##,
    ),
    (
        r##"return E(function() local s = struct.pack('>i8 i8', -582, 238) return hex(s) .. ' ' .. struct.size('>i8 i8') .. ' ' .. table.concat({struct.unpack('>i8 i8', s)}, ',') end)"##,
        r##"fffffffffffffdba00000000000000ee 16 -582,238,17"##,
    ),
    (
        r##"return E(function() local s = struct.pack('>!4I5 L T', -695, -246, 719) return hex(s) .. ' ' .. struct.size('>!4I5 L T') .. ' ' .. table.concat({struct.unpack('>!4I5 L T', s)}, ',') end)"##,
        r##"fffffffd49000000ffffffffffffff0a00000000000002cf 24 1099511627081,1.844674407371e+19,719,25"##,
    ),
    (
        r##"return E(function() local s = struct.pack('<b', -349) return hex(s) .. ' ' .. struct.size('<b') .. ' ' .. table.concat({struct.unpack('<b', s)}, ',') end)"##,
        r##"a3 1 -93,2"##,
    ),
    (
        r##"return E(function() local s = struct.pack('h T b I5 B', -385, -262, -540, -695, -144) return hex(s) .. ' ' .. struct.size('h T b I5 B') .. ' ' .. table.concat({struct.unpack('h T b I5 B', s)}, ',') end)"##,
        r##"7ffefafeffffffffffffe449fdffffff70 17 -385,1.844674407371e+19,-28,1099511627081,112,18"##,
    ),
    (
        r##"return E(function() local s = struct.pack('<i i3 i3', 342, -416, -360) return hex(s) .. ' ' .. struct.size('<i i3 i3') .. ' ' .. table.concat({struct.unpack('<i i3 i3', s)}, ',') end)"##,
        r##"5601000060feff98feff 10 342,-416,-360,11"##,
    ),
    (
        r##"return E(function() local s = struct.pack('<I5', 387) return hex(s) .. ' ' .. struct.size('<I5') .. ' ' .. table.concat({struct.unpack('<I5', s)}, ',') end)"##,
        r##"8301000000 5 387,6"##,
    ),
    (
        r##"return E(function() local s = struct.pack('I5 T l B', 918, -264, -757, 64) return hex(s) .. ' ' .. struct.size('I5 T l B') .. ' ' .. table.concat({struct.unpack('I5 T l B', s)}, ',') end)"##,
        r##"9603000000f8feffffffffffff0bfdffffffffffff40 22 918,1.844674407371e+19,-757,64,23"##,
    ),
    (
        r##"return E(function() local s = struct.pack('>!4i8 b l', -660, 217, 909) return hex(s) .. ' ' .. struct.size('>!4i8 b l') .. ' ' .. table.concat({struct.unpack('>!4i8 b l', s)}, ',') end)"##,
        r##"fffffffffffffd6cd9000000000000000000038d 20 -660,-39,909,21"##,
    ),
    (
        r##"return E(function() local s = struct.pack('!4d I d T H', -948.8199731076361, -696, 881.9021412044585, 476, -592) return hex(s) .. ' ' .. struct.size('!4d I d T H') .. ' ' .. table.concat({struct.unpack('!4d I d T H', s)}, ',') end)"##,
        r##"2c870f4e8fa68dc048fdffff30ccce95378f8b40dc01000000000000b0fd 30 -948.81997310764,4294966600,881.90214120446,476,64944,31"##,
    ),
    (
        r##"return E(function() local s = struct.pack('>!4i3 i8 i T I2', -111, 723, -555, -316, 773) return hex(s) .. ' ' .. struct.size('>!4i3 i8 i T I2') .. ' ' .. table.concat({struct.unpack('>!4i3 i8 i T I2', s)}, ',') end)"##,
        r##"0000ffff9100000000000000000002d3fffffdd5fffffffffffffec40305 30 -111,723,-555,1.844674407371e+19,773,31"##,
    ),
    (
        r##"return E(function() local s = struct.pack('!8I B L i L', -495, 903, 932, -167, -548) return hex(s) .. ' ' .. struct.size('!8I B L i L') .. ' ' .. table.concat({struct.unpack('!8I B L i L', s)}, ',') end)"##,
        r##"11feffff87000000a40300000000000059ffffff00000000dcfdffffffffffff 32 4294966801,135,932,-167,1.844674407371e+19,33"##,
    ),
    (
        r##"return E(function() local s = struct.pack('!4i8', -889) return hex(s) .. ' ' .. struct.size('!4i8') .. ' ' .. table.concat({struct.unpack('!4i8', s)}, ',') end)"##,
        r##"87fcffffffffffff 8 -889,9"##,
    ),
    (
        r##"return E(function() local s = struct.pack('!8l I I h i3', -697, 212, 533, -754, 608) return hex(s) .. ' ' .. struct.size('!8l I I h i3') .. ' ' .. table.concat({struct.unpack('!8l I I h i3', s)}, ',') end)"##,
        r##"47fdffffffffffffd4000000150200000efd600200 21 -697,212,533,-754,608,22"##,
    ),
    (
        r##"return E(function() local s = struct.pack('!8T b f H', 383, -783, 227.34576804893163, 216) return hex(s) .. ' ' .. struct.size('!8T b f H') .. ' ' .. table.concat({struct.unpack('!8T b f H', s)}, ',') end)"##,
        r##"7f01000000000000f100000084586343d800 18 383,-15,227.34576416016,216,19"##,
    ),
    (
        r##"return E(function() local s = struct.pack('>!4l I2 i3 T', 782, 37, 274, 269) return hex(s) .. ' ' .. struct.size('>!4l I2 i3 T') .. ' ' .. table.concat({struct.unpack('>!4l I2 i3 T', s)}, ',') end)"##,
        r##"000000000000030e0025000112000000000000000000010d 24 782,37,274,269,25"##,
    ),
    (
        r##"return E(function() local s = struct.pack('i3 h T', 613, 887, 985) return hex(s) .. ' ' .. struct.size('i3 h T') .. ' ' .. table.concat({struct.unpack('i3 h T', s)}, ',') end)"##,
        r##"6502007703d903000000000000 13 613,887,985,14"##,
    ),
    (
        r##"return E(function() local s = struct.pack('<i3 I5 I i8', 497, -671, -501, -632) return hex(s) .. ' ' .. struct.size('<i3 I5 I i8') .. ' ' .. table.concat({struct.unpack('<i3 I5 I i8', s)}, ',') end)"##,
        r##"f1010061fdffffff0bfeffff88fdffffffffffff 20 497,1099511627105,4294966795,-632,21"##,
    ),
    (
        r##"return E(function() local s = struct.pack('>i3 h d', 747, 182, -563.7903504532435) return hex(s) .. ' ' .. struct.size('>i3 h d') .. ' ' .. table.concat({struct.unpack('>i3 h d', s)}, ',') end)"##,
        r##"0002eb00b6c0819e52a342287a 13 747,182,-563.79035045324,14"##,
    ),
    (
        r##"return E(function() local s = struct.pack('>!4I2 I B d i3', -494, 541, -691, 266.9261698487701, -597) return hex(s) .. ' ' .. struct.size('>!4I2 I B d i3') .. ' ' .. table.concat({struct.unpack('>!4I2 I B d i3', s)}, ',') end)"##,
        r##"fe1200000000021d4d0000004070aed19779b0240000fffdab 25 65042,541,77,266.92616984877,-597,26"##,
    ),
    (
        r##"return E(function() local s = struct.pack('l I', -877, 628) return hex(s) .. ' ' .. struct.size('l I') .. ' ' .. table.concat({struct.unpack('l I', s)}, ',') end)"##,
        r##"93fcffffffffffff74020000 12 -877,628,13"##,
    ),
    (
        r##"return E(function() local s = struct.pack('<h i I5 I I2', 567, -467, 441, 725, 23) return hex(s) .. ' ' .. struct.size('<h i I5 I I2') .. ' ' .. table.concat({struct.unpack('<h i I5 I I2', s)}, ',') end)"##,
        r##"37022dfeffffb901000000d50200001700 17 567,-467,441,725,23,18"##,
    ),
    (
        r##"return E(function() local s = struct.pack('I5 h H T B', 556, 257, -453, -329, 596) return hex(s) .. ' ' .. struct.size('I5 h H T B') .. ' ' .. table.concat({struct.unpack('I5 h H T B', s)}, ',') end)"##,
        r##"2c0200000001013bfeb7feffffffffffff54 18 556,257,65083,1.844674407371e+19,84,19"##,
    ),
    (
        r##"return E(function() local s = struct.pack('>l i8 d b', 533, -259, -833.1187276851477, -293) return hex(s) .. ' ' .. struct.size('>l i8 d b') .. ' ' .. table.concat({struct.unpack('>l i8 d b', s)}, ',') end)"##,
        r##"0000000000000215fffffffffffffefdc08a08f3278026b7db 25 533,-259,-833.11872768515,-37,26"##,
    ),
    (
        r##"return E(function() local s = struct.pack('!8h I5 l I i', -641, -923, 396, 159, 327) return hex(s) .. ' ' .. struct.size('!8h I5 l I i') .. ' ' .. table.concat({struct.unpack('!8h I5 l I i', s)}, ',') end)"##,
        r##"7ffd0000000065fcffffff00000000008c010000000000009f00000047010000 32 -641,1099511626853,396,159,327,33"##,
    ),
    (
        r##"return E(function() local s = struct.pack('>I2 I l', 891, 235, -242) return hex(s) .. ' ' .. struct.size('>I2 I l') .. ' ' .. table.concat({struct.unpack('>I2 I l', s)}, ',') end)"##,
        r##"037b000000ebffffffffffffff0e 14 891,235,-242,15"##,
    ),
    (
        r##"return E(function() local s = struct.pack('f', 126.61136097364374) return hex(s) .. ' ' .. struct.size('f') .. ' ' .. table.concat({struct.unpack('f', s)}, ',') end)"##,
        r##"0439fd42 4 126.61135864258,5"##,
    ),
    (
        r##"return E(function() local s = struct.pack('T I5 L B h', 308, -713, -788, 819, -884) return hex(s) .. ' ' .. struct.size('T I5 L B h') .. ' ' .. table.concat({struct.unpack('T I5 L B h', s)}, ',') end)"##,
        r##"340100000000000037fdffffffecfcffffffffffff338cfc 24 308,1099511627063,1.844674407371e+19,51,-884,25"##,
    ),
];
