//! Argument edge cases from Redis's CVE history and integer-parsing corner cases: each gets
//! Redis's reply (error text included), nothing panics, and no count or offset taken from a
//! client makes the engine allocate for it (the engine's `proto-max-bulk-len` is 1 MiB here,
//! so a SETRANGE/APPEND that tried would fail the used_memory bound at the end).

use vitrine_engine::testing::TestEngine;
use vitrine_engine::Config;

/// (command line, expected RESP2 reply; a trailing `*` means "starts with").
const TABLE: &[(&str, &str)] = &[
    ("SADD s a b c", ":3"),
    ("HSET h f v g w", ":2"),
    ("RPUSH l a b a", ":3"),
    // SRANDMEMBER / SPOP / HRANDFIELD counts (CVE-2023-25155, CVE-2023-22458, CVE-2021-32627 era)
    (
        "SRANDMEMBER s -9223372036854775808",
        "-ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807",
    ),
    ("SRANDMEMBER s -9223372036854775807", "-ERR value is out of range*"),
    ("SRANDMEMBER s 9223372036854775807", "*3"),
    ("SPOP s -1", "-ERR value is out of range, must be positive"),
    (
        "HRANDFIELD h -9223372036854775808",
        "-ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807",
    ),
    ("HRANDFIELD h -9223372036854775807", "-ERR value is out of range*"),
    ("HRANDFIELD h -4611686018427387904 WITHVALUES", "-ERR value is out of range"),
    ("HRANDFIELD h 9223372036854775807 WITHVALUES", "-ERR value is out of range"),
    ("HRANDFIELD h 9223372036854775806", "*2"),
    ("LPOS l a COUNT -1", "-ERR COUNT can't be negative"),
    ("LRANGE l 0 9223372036854775807", "*3"),
    ("LINDEX l -9223372036854775808", "$-1"),
    ("GETRANGE nokey -9223372036854775808 9223372036854775807", "$0"),
    // SETRANGE / APPEND past proto-max-bulk-len (CVE-2022-35977 era): refused before allocating
    ("SETRANGE k 1048576 x", "-ERR string exceeds maximum allowed size (proto-max-bulk-len)"),
    ("SETRANGE k 9223372036854775807 x", "-ERR string exceeds maximum allowed size (proto-max-bulk-len)"),
    ("SETRANGE k -1 x", "-ERR offset is out of range"),
    ("SETRANGE k 1048575 x", ":1048576"),
    ("APPEND k x", "-ERR string exceeds maximum allowed size (proto-max-bulk-len)"),
    ("DEL k", ":1"),
    // INCRBY overflow
    ("SET n 9223372036854775807", "+OK"),
    ("INCRBY n 1", "-ERR increment or decrement would overflow"),
    ("INCR n", "-ERR increment or decrement would overflow"),
    ("DECRBY n -1", "-ERR increment or decrement would overflow"),
    ("SET m -9223372036854775808", "+OK"),
    ("DECR m", "-ERR increment or decrement would overflow"),
    ("INCRBY m -1", "-ERR increment or decrement would overflow"),
    ("DECRBY x -9223372036854775808", "-ERR decrement would overflow"),
    ("GET n", "$19"),
    // integer parsing (Redis's string2ll)
    ("INCRBY x 9223372036854775808", "-ERR value is not an integer or out of range"),
    ("INCRBY x -9223372036854775809", "-ERR value is not an integer or out of range"),
    ("INCRBY x +1", "-ERR value is not an integer or out of range"),
    ("INCRBY x 01", "-ERR value is not an integer or out of range"),
    ("INCRBY x ' 1'", "-ERR value is not an integer or out of range"),
    ("INCRBY x '1 '", "-ERR value is not an integer or out of range"),
    ("INCRBY x 1e3", "-ERR value is not an integer or out of range"),
    ("INCRBY x 0x10", "-ERR value is not an integer or out of range"),
    ("INCRBY x ''", "-ERR value is not an integer or out of range"),
    ("INCRBY x -0", "-ERR value is not an integer or out of range"),
    ("INCRBY x -9223372036854775808", ":-9223372036854775808"),
    ("INCRBYFLOAT y inf", "-ERR increment would produce NaN or Infinity"),
    ("INCRBYFLOAT y nan", "-ERR value is not a valid float"),
    ("SCAN 18446744073709551616", "-ERR invalid cursor"),
    ("EXPIRE n 9223372036854775807", "-ERR invalid expire time in 'expire' command"),
    ("SET k v EX 9223372036854775807", "-ERR invalid expire time in 'set' command"),
    ("SET k v PX -1", "-ERR invalid expire time in 'set' command"),
    // MSETNX with duplicate keys: all set, the last value wins, as in Redis
    ("MSETNX d 1 d 2", ":1"),
    ("GET d", "$1\r\n2"),
    ("MSETNX d 3 e 4", ":0"),
    ("EXISTS e", ":0"),
];

#[test]
fn cve_history_argument_edges() {
    let config = Config::default();
    config.set("proto-max-bulk-len", "1mb").unwrap();
    let mut t = TestEngine::new(config);
    let mut checked = 0;
    for (line, want) in TABLE {
        let argv = vitrine_engine::inspect::split_line(line.as_bytes()).unwrap();
        let got = t.resp(&argv);
        let ok = match want.strip_suffix('*') {
            Some(prefix) => got.starts_with(prefix),
            None => got.starts_with(want) && got[want.len()..].starts_with("\r\n"),
        };
        assert!(ok, "{line}: expected {want:?}, got {got:?}");
        checked += 1;
        // Never more than the one 1 MiB string plus small keys is held.
        assert!(t.used_memory() < 2 * 1024 * 1024, "{line}: used_memory {}", t.used_memory());
    }
    println!("{checked} argument edge cases gave Redis's replies; peak used_memory < 2 MiB");
}
