//! FUNCTION and FCALL: seeded streams that load, replace and delete libraries, call their
//! functions with random keys and args (FCALL and FCALL_RO), list them, DUMP a library and
//! RESTORE a payload redis-server made, compared reply by reply and then key by key with
//! redis-server.
//!
//! Deliberate differences, avoided by the generator:
//! - FUNCTION LIST and DUMP show libraries (and a library's functions) in Redis's dict order,
//!   which is its hash order with a per-process seed: LIST is asked of one library by name,
//!   each library here registers one function, and DUMP runs with one library loaded.

use rand::Rng;

use crate::harness::*;

/// Library codes the stream loads: each registers one function (named as its library, in
/// lower case) or fails to load with one of Redis's errors.
const LIBRARIES: &[&str] = &[
    "#!lua name=la\nredis.register_function('fa', function(keys, args) return redis.call('SET', keys[1], args[1]) end)",
    "#!lua name=lb\nredis.register_function{function_name='fb', callback=function(keys, args) return redis.call('GET', keys[1]) end, flags={'no-writes'}, description='reads one key'}",
    "#!lua name=lc\nredis.register_function{function_name='fc', callback=function(keys, args) return {#keys, #args, keys, args} end, flags={'allow-oom', 'NO-WRITES'}}",
    "#!lua name=ld\nredis.register_function('fd', function(keys, args)\n  local x = 1\n  error('boom')\nend)",
    "#!lua name=le\nredis.register_function('fe', function(keys, args) local t = redis.pcall('INCR', keys[1]) if type(t) == 'table' then return t.err end return t end)",
    "#!lua name=lf\nredis.register_function('ff', function(keys, args) redis.call('RPUSH', keys[1], 'x') return redis.call('HSET', keys[1], 'f', 'v') end)",
    // Another function name for `la`, and one that collides with `lb`'s.
    "#!lua name=la\nredis.register_function('fa2', function(keys) return redis.call('DEL', keys[1]) end)",
    "#!lua name=lg\nredis.register_function('FB', function() return 1 end)",
    // Refused.
    "#!lua name=lh\nredis.call('SET', 'x', 'y')",
    "#!lua name=lh\nlocal t = 1",
    "#!lua name=lh\nredis.register_function{function_name='fh', callback=function() end, flags={'bogus'}}",
    "#!lua name=l-h\nredis.register_function('fh', function() end)",
    "#!lua\nredis.register_function('fh', function() end)",
    "#!lua name=lh\nsyntax error(",
    "return 1",
];

const NAMES: &[&str] = &["la", "lb", "lc", "ld", "le", "lf", "lg", "lh", "LA", "nope"];
const FUNCTIONS: &[&str] = &["fa", "fb", "fc", "fd", "fe", "ff", "fa2", "FB", "Fa", "nope"];
const KEYS: &[&str] = &["fn:a", "fn:b"];

/// The DUMP of library `restored` (functions `fr` and `fr_ro`) as redis-server 7.0.15 wrote
/// it (its code LZF-compressed), in hex.
const REDIS_PAYLOAD: &str = "f5c340a740f91323216c7561206e616d653d726573746f7265640a20031a69732e72656769737465725f66756e6374696f6e28276672272c20e0000e116b6579732c2061726773292072657475726e200640390863616c6c2827474554202d4024085b315d2920656e6429e00f59007bc053005f60882067025f726f203c4048046261636b3dc01fe01773054558495354532039e0037620b2126c6167733d7b276e6f2d777269746573277d7d0a0007fafcf9091fe2c9";

fn payload() -> Vec<u8> {
    (0..REDIS_PAYLOAD.len()).step_by(2).map(|i| u8::from_str_radix(&REDIS_PAYLOAD[i..i + 2], 16).unwrap()).collect()
}

#[test]
fn random_function_streams_match_redis() {
    let Some(servers) = Servers::start_or_skip("random_function_streams_match_redis") else {
        return;
    };
    let mut peers = servers.peers();
    peers.begin("function edge cases");
    for argv in edge_cases() {
        peers.call(&argv, Check::Exact);
    }
    run_family(&mut peers, "functions", fixtures, OPS);
}

fn edge_cases() -> Vec<Vec<Vec<u8>>> {
    let mut bad = payload();
    bad[4] ^= 1;
    vec![
        args!["FUNCTION", "FLUSH"],
        args!["FCALL", "nope", "0"],
        args!["FUNCTION", "LOAD", LIBRARIES[0]],
        args!["FUNCTION", "LOAD", LIBRARIES[0]],
        args!["FCALL", "fa", "x"],
        args!["FCALL", "fa", "-1"],
        args!["FCALL", "fa", "3", "a"],
        args!["FUNCTION", "LOAD", "bogus", LIBRARIES[0]],
        args!["FUNCTION", "LOAD", "REPLACE", "REPLACE", LIBRARIES[0]],
        args!["FUNCTION", "LIST", "bogus"],
        args!["FUNCTION", "LIST", "LIBRARYNAME"],
        args!["FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", "L*"],
        args!["FUNCTION", "LIST", "WITHCODE", "WITHCODE"],
        args!["FUNCTION", "DUMP"],
        args!["FUNCTION", "STATS"],
        args!["FUNCTION", "STATS", "x"],
        args!["FUNCTION", "KILL"],
        args!["FUNCTION", "HELP"],
        args!["FUNCTION", "DELETE", "LA"],
        args!["FUNCTION", "DELETE", "la"],
        args!["FUNCTION", "FLUSH", "bogus"],
        args!["FUNCTION", "FLUSH", "a", "b"],
        args!["FUNCTION", "FLUSH", "ASYNC"],
        args!["FUNCTION", "RESTORE", payload()],
        args!["FUNCTION", "RESTORE", payload()],
        args!["FUNCTION", "RESTORE", payload(), "REPLACE"],
        args!["FUNCTION", "RESTORE", payload(), "bogus"],
        args!["FUNCTION", "RESTORE", payload(), "FLUSH", "x"],
        args!["FUNCTION", "RESTORE", bad],
        args!["FUNCTION", "RESTORE", "short"],
        args!["SET", "fn:a", "v"],
        args!["FCALL", "fr", "1", "fn:a"],
        args!["FCALL_RO", "FR_RO", "1", "fn:a"],
        args!["FCALL_RO", "fr", "1", "fn:a"],
        args!["FUNCTION", "LOAD", "#!lua name=la\nredis.register_function('fr', function() end)"],
        args!["FUNCTION", "RESTORE", payload(), "FLUSH"],
        args!["FUNCTION", "DUMP"],
        args!["FUNCTION", "LOAD", LIBRARIES[1]],
        args!["SET", "filler", "x".repeat(3000)],
        args!["CONFIG", "SET", "maxmemory", "1"],
        args!["FCALL", "fb", "1", "filler"],
        args!["FCALL", "fr", "1", "filler"],
        args!["FCALL_RO", "fr", "1", "filler"],
        args!["FUNCTION", "LOAD", LIBRARIES[2]],
        args!["CONFIG", "SET", "maxmemory", "0"],
        args!["DEL", "filler"],
        args!["FUNCTION", "FLUSH", "SYNC"],
    ]
}

fn fixtures(_gen: &mut Gen) -> Vec<Step> {
    vec![Step::Call(args!["FUNCTION", "FLUSH"], Check::Exact)]
}

const OPS: &[(u32, FamilyOp)] =
    &[(4, load_op), (1, delete_op), (8, fcall_op), (2, list_op), (1, dump_op), (2, seed_key)];

/// FUNCTION LOAD (REPLACE or not) of one of the libraries.
fn load_op(gen: &mut Gen) -> Vec<Step> {
    let code = gen.pick(LIBRARIES);
    let argv =
        if gen.chance(40) { args!["FUNCTION", "LOAD", "REPLACE", code] } else { args!["FUNCTION", "LOAD", code] };
    vec![Step::Call(argv, Check::Exact), Step::Call(args!["FUNCTION", "STATS"], Check::Exact)]
}

fn delete_op(gen: &mut Gen) -> Vec<Step> {
    vec![Step::Call(args!["FUNCTION", "DELETE", gen.pick(NAMES)], Check::Exact)]
}

/// FCALL or FCALL_RO with random keys and args, then the keys it may have touched.
fn fcall_op(gen: &mut Gen) -> Vec<Step> {
    let name = if gen.chance(30) { "FCALL_RO" } else { "FCALL" };
    let nkeys = gen.rng.gen_range(0..=2usize);
    let nargs = gen.rng.gen_range(0..=2usize);
    let mut argv = vec![gen.casing(name), gen.pick(FUNCTIONS).as_bytes().to_vec(), nkeys.to_string().into_bytes()];
    for _ in 0..nkeys {
        argv.push(gen.pick(KEYS).as_bytes().to_vec());
    }
    for _ in 0..nargs {
        argv.push(gen.value());
    }
    let mut steps = vec![Step::Call(argv, Check::Exact), Step::Call(args!["DBSIZE"], Check::Exact)];
    for key in KEYS {
        steps.push(Step::Call(args!["TYPE", *key], Check::Exact));
        steps.push(Step::Call(args!["GET", *key], Check::Exact));
    }
    steps
}

/// One library by name (Redis lists several in its hash order), with or without its code.
fn list_op(gen: &mut Gen) -> Vec<Step> {
    let name = gen.pick(NAMES);
    let argv = if gen.chance(50) {
        args!["FUNCTION", "LIST", "LIBRARYNAME", name, "WITHCODE"]
    } else {
        args!["FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", name]
    };
    vec![Step::Call(argv, Check::Exact)]
}

/// One library alone, so DUMP's payload (LZF and all) must be the same bytes; then
/// redis-server's payload restored on top with a random policy.
fn dump_op(gen: &mut Gen) -> Vec<Step> {
    let policy = gen.pick(&["APPEND", "REPLACE", "FLUSH"]);
    vec![
        Step::Call(args!["FUNCTION", "FLUSH"], Check::Exact),
        Step::Call(args!["FUNCTION", "LOAD", gen.pick(&LIBRARIES[..8])], Check::Exact),
        Step::Call(args!["FUNCTION", "DUMP"], Check::Exact),
        Step::Call(args!["FUNCTION", "RESTORE", payload(), policy], Check::Exact),
        Step::Call(args!["FUNCTION", "STATS"], Check::Exact),
    ]
}

fn seed_key(gen: &mut Gen) -> Vec<Step> {
    let key = gen.pick(KEYS);
    let v = gen.value();
    let argv = match gen.rng.gen_range(0..3) {
        0 => args!["SET", key, v],
        1 => args!["HSET", key, "f", v],
        _ => args!["DEL", key],
    };
    vec![Step::Call(argv, Check::Exact)]
}
