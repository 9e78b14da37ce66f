//! Parsing and validation of parameter values as Redis's `CONFIG SET` does it, with its error
//! texts. Each parser answers the value as `CONFIG GET` will show it (memory in bytes, enum
//! names in their canonical spelling, notification flags normalized, ...).

use super::params::{Kind, Param, Special};

/// Parses a memory amount as Redis's `memtoull`: `100`, `1k` (1000), `1kb` (1024), `2mb`,
/// `1gb`, case-insensitive; the digits may be missing (`""` is 0, as in Redis). As there, too
/// many digits saturate (`strtoull`) and the unit's product wraps, so a bound refuses them.
pub fn parse_memory(s: &str) -> Option<u64> {
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (digits, unit) = s.split_at(split);
    let mul: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" => 1000,
        "kb" => 1024,
        "m" => 1000 * 1000,
        "mb" => 1024 * 1024,
        "g" => 1000 * 1000 * 1000,
        "gb" => 1024 * 1024 * 1024,
        _ => return None,
    };
    let n: u64 = if digits.is_empty() { 0 } else { digits.parse().unwrap_or(u64::MAX) };
    Some(n.wrapping_mul(mul))
}

/// A decimal integer as Redis's `string2ll`: an optional `-`, no `+`, no spaces, no leading
/// zeros.
pub fn parse_ll(s: &str) -> Option<i64> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if digits.len() > 1 && digits.starts_with('0') || s == "-0" {
        return None;
    }
    s.parse().ok()
}

/// A boolean as Redis's `yesnotoi`.
pub fn parse_yes_no(value: &str) -> Result<bool, String> {
    if value.eq_ignore_ascii_case("yes") {
        Ok(true)
    } else if value.eq_ignore_ascii_case("no") {
        Ok(false)
    } else {
        Err("argument must be 'yes' or 'no'".into())
    }
}

/// The value `CONFIG GET` will show for `value`, or Redis's reason for refusing it.
pub fn normalize(param: &Param, value: &str) -> Result<String, String> {
    match param.kind {
        Kind::Bool => parse_yes_no(value).map(|b| if b { "yes" } else { "no" }.to_string()),
        Kind::Int { min, max, unsigned } => {
            let v = parse_ll(value).ok_or("argument couldn't be parsed into an integer")?;
            bounds(i128::from(v), min, max, unsigned)?;
            Ok(v.to_string())
        }
        Kind::Memory { min, max, unsigned } => {
            let v = parse_memory(value).ok_or("argument must be a memory value")?;
            // A memory value is read as a `long long`: past its range it wraps negative.
            let v = if unsigned { i128::from(v) } else { i128::from(v as i64) };
            bounds(v, min, max, unsigned)?;
            Ok(v.to_string())
        }
        Kind::MemoryPercent { min, max } => {
            let v: i128 = match parse_memory(value) {
                Some(v) => i128::from(v as i64),
                None => match value.strip_suffix('%').and_then(parse_ll) {
                    Some(p) if value.len() > 1 && p >= 0 => -i128::from(p),
                    _ => return Err("argument must be a memory or percent value".into()),
                },
            };
            if v < 0 {
                if v < min {
                    return Err(format!("percentage argument must be less or equal to {}", -min));
                }
                return Ok(format!("{}%", -v));
            }
            bounds(v, min, max, false)?;
            Ok(v.to_string())
        }
        Kind::Octal { max } => {
            let v = i64::from_str_radix(value, 8).map_err(|_| "argument couldn't be parsed as an octal number")?;
            if !(0..=max).contains(&i128::from(v)) {
                return Err(format!("argument must be between 0 and {max:o} inclusive"));
            }
            Ok(format!("{v:o}"))
        }
        Kind::Enum(names) => {
            let words: Vec<&str> = value.split_whitespace().collect();
            let found = match words.as_slice() {
                [one] => names.iter().find(|(n, _)| n.eq_ignore_ascii_case(one)),
                _ => None,
            };
            let Some((_, v)) = found else { return Err(enum_error(names)) };
            Ok(enum_name(names, *v).to_string())
        }
        Kind::Flags(names) => {
            let words: Vec<&str> = value.split_whitespace().collect();
            if words.is_empty() {
                return Err(enum_error(names));
            }
            let mut bits = 0;
            for w in words {
                let (_, v) = names.iter().find(|(n, _)| n.eq_ignore_ascii_case(w)).ok_or_else(|| enum_error(names))?;
                bits |= v;
            }
            // Redis's `isValidShutdownOnSigFlags`.
            if bits & 1 != 0 && bits & 2 != 0 {
                return Err("shutdown can't have both 'save' and 'nosave' flags".into());
            }
            Ok(flags_name(names, bits))
        }
        Kind::Str => Ok(value.to_string()),
        Kind::Special(special) => normalize_special(special, value),
    }
}

/// Redis's `numericBoundaryCheck` and its texts.
fn bounds(v: i128, min: i128, max: i128, unsigned: bool) -> Result<(), String> {
    let v = if unsigned && v < 0 { v + (1i128 << 64) } else { v };
    if v < min || v > max {
        return Err(format!("argument must be between {min} and {max} inclusive"));
    }
    Ok(())
}

fn enum_error(names: &[(&str, u32)]) -> String {
    let list: Vec<&str> = names.iter().map(|(n, _)| *n).collect();
    format!("argument(s) must be one of the following: {}", list.join(", "))
}

/// The first name with this value (Redis's `configEnumGetName`).
fn enum_name(names: &'static [(&'static str, u32)], v: u32) -> &'static str {
    names.iter().find(|(_, x)| *x == v).map_or("unknown", |(n, _)| *n)
}

/// The names of the bits set, in table order (or the name of 0).
fn flags_name(names: &[(&str, u32)], bits: u32) -> String {
    if let Some((n, _)) = names.iter().find(|(_, v)| *v == bits) {
        return n.to_string();
    }
    names.iter().filter(|(_, v)| *v != 0 && bits & v == *v).map(|(n, _)| *n).collect::<Vec<_>>().join(" ")
}

fn normalize_special(special: Special, value: &str) -> Result<String, String> {
    let words: Vec<&str> = value.split_whitespace().collect();
    match special {
        Special::Save => {
            if !words.len().is_multiple_of(2) {
                return Err("Invalid save parameters".into());
            }
            let mut out = Vec::new();
            for (i, w) in words.iter().enumerate() {
                let v = parse_c_long(w).ok_or("Invalid save parameters")?;
                if (i % 2 == 0 && v < 1) || (i % 2 == 1 && v < 0) {
                    return Err("Invalid save parameters".into());
                }
                out.push(v.to_string());
            }
            Ok(out.join(" "))
        }
        // Only checked here: `Config` merges the classes given into the current limits.
        Special::OutputLimits => parse_output_limits(value).map(|_| value.to_string()),
        Special::OomValues => {
            if words.len() != 3 {
                return Err("wrong number of arguments".into());
            }
            let mut out = Vec::new();
            for w in words {
                match parse_c_long(w) {
                    Some(v) if (-2000..=2000).contains(&v) => out.push(v.to_string()),
                    _ => return Err("Invalid oom-score-adj-values, elements must be between -2000 and 2000.".into()),
                }
            }
            Ok(out.join(" "))
        }
        Special::Notify => {
            let flags = notify_flags(value).ok_or("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.")?;
            Ok(notify_text(flags))
        }
        Special::Bind => {
            if words.len() > 16 {
                return Err("Too many bind addresses specified.".into());
            }
            Ok(words.join(" "))
        }
        Special::ReplicaOf | Special::Dir => Ok(value.to_string()),
        Special::Percentiles => {
            let mut out = Vec::new();
            for w in words {
                let v: f64 = w
                    .parse()
                    .ok()
                    .filter(|v: &f64| v.is_finite() && !w.starts_with('+') && !w.contains(char::is_whitespace))
                    .ok_or("Invalid latency-tracking-info-percentiles parameters")?;
                if !(0.0..=100.0).contains(&v) {
                    return Err("latency-tracking-info-percentiles parameters should sit between [0.0,100.0]".into());
                }
                out.push(trim_double(v));
            }
            Ok(out.join(" "))
        }
    }
}

/// `%f` without its trailing zeros (Redis's `trimDoubleString`): `99.9`, `50`.
fn trim_double(v: f64) -> String {
    let text = format!("{v:.6}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A number as `strtoll` with nothing after it (a leading `+` and zeros are fine).
fn parse_c_long(s: &str) -> Option<i64> {
    let t = s.strip_prefix('+').unwrap_or(s);
    if t.is_empty() || t.starts_with('+') {
        return None;
    }
    t.parse().ok()
}

/// The bits of a `notify-keyspace-events` string (Redis's `keyspaceEventsStringToFlags`).
pub fn notify_flags(classes: &str) -> Option<u32> {
    let mut flags = 0;
    for c in classes.chars() {
        flags |= match c {
            'A' => NOTIFY_ALL,
            'K' => 1,
            'E' => 1 << 1,
            'm' => 1 << 11,
            c => NOTIFY_CHARS.iter().find(|(x, _)| *x == c)?.1,
        };
    }
    Some(flags)
}

/// Event classes in the order Redis prints them, with their bits.
const NOTIFY_CHARS: &[(char, u32)] = &[
    ('g', 1 << 2),
    ('$', 1 << 3),
    ('l', 1 << 4),
    ('s', 1 << 5),
    ('h', 1 << 6),
    ('z', 1 << 7),
    ('x', 1 << 8),
    ('e', 1 << 9),
    ('t', 1 << 10),
    ('d', 1 << 13),
    ('n', 1 << 14),
];
/// `A`: every class but `m` (key misses) and `n` (new keys).
const NOTIFY_ALL: u32 =
    (1 << 2) | (1 << 3) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 13);

/// The normalized text of notification flags (Redis's `keyspaceEventsFlagsToString`).
pub fn notify_text(flags: u32) -> String {
    let mut out = String::new();
    // Redis prints `A` alone for every class it stands for, so `n` (outside `A`) is not
    // shown beside it, though it stays on.
    if flags & NOTIFY_ALL == NOTIFY_ALL {
        out.push('A');
    } else {
        out.extend(NOTIFY_CHARS.iter().filter(|(_, b)| flags & b != 0).map(|(c, _)| *c));
    }
    for (bit, c) in [(1, 'K'), (1 << 1, 'E'), (1 << 11, 'm')] {
        if flags & bit != 0 {
            out.push(c);
        }
    }
    out
}

/// Redis's `<class> <hard> <soft> <soft seconds>` groups (class `normal`, `replica`/`slave` or
/// `pubsub`), as (class index, [hard, soft, seconds]).
pub fn parse_output_limits(value: &str) -> Result<Vec<(usize, [u64; 3])>, String> {
    let words: Vec<&str> = value.split_whitespace().collect();
    if words.is_empty() || !words.len().is_multiple_of(4) {
        return Err("Wrong number of arguments in buffer limit configuration.".into());
    }
    let mut parsed = Vec::new();
    for group in words.chunks(4) {
        let class = match group[0].to_ascii_lowercase().as_str() {
            "normal" => 0,
            "replica" | "slave" => 1,
            "pubsub" => 2,
            _ => return Err("Invalid client class specified in buffer limit configuration.".into()),
        };
        let bad = || "Error in hard, soft or soft_seconds setting in buffer limit configuration.".to_string();
        let hard = parse_memory(group[1]).ok_or_else(bad)?;
        let soft = parse_memory(group[2]).ok_or_else(bad)?;
        let secs = parse_c_long(group[3]).and_then(|s| u64::try_from(s).ok()).ok_or_else(bad)?;
        parsed.push((class, [hard, soft, secs]));
    }
    Ok(parsed)
}

/// A byte count as CONFIG REWRITE writes it: `1gb`, `64mb`, `512kb` when it divides evenly.
pub fn memory_text(bytes: u64) -> String {
    const GB: u64 = 1 << 30;
    const MB: u64 = 1 << 20;
    const KB: u64 = 1 << 10;
    match bytes {
        0 => "0".into(),
        b if b % GB == 0 => format!("{}gb", b / GB),
        b if b % MB == 0 => format!("{}mb", b / MB),
        b if b % KB == 0 => format!("{}kb", b / KB),
        b => b.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::params::find;
    use super::*;

    fn set(name: &str, value: &str) -> Result<String, String> {
        normalize(find(name).expect("a parameter").1, value)
    }

    #[test]
    fn memory_units_follow_redis() {
        assert_eq!(parse_memory("100"), Some(100));
        assert_eq!(parse_memory("1k"), Some(1000));
        assert_eq!(parse_memory("1kb"), Some(1024));
        assert_eq!(parse_memory("2MB"), Some(2 * 1024 * 1024));
        assert_eq!(parse_memory("1gb"), Some(1 << 30));
        assert_eq!(parse_memory(""), Some(0));
        assert_eq!(parse_memory("1x"), None);
        assert_eq!(parse_memory("-1"), None);
        assert_eq!(parse_memory("1.5gb"), None);
    }

    #[test]
    fn booleans_are_yes_or_no() {
        assert_eq!(set("activerehashing", "NO").unwrap(), "no");
        for bad in ["1", "true", "", "yes "] {
            assert_eq!(set("activerehashing", bad).unwrap_err(), "argument must be 'yes' or 'no'");
        }
    }

    #[test]
    fn integers_check_their_bounds_with_redis_texts() {
        assert_eq!(set("timeout", "30").unwrap(), "30");
        assert_eq!(set("timeout", "-1").unwrap_err(), "argument must be between 0 and 2147483647 inclusive");
        assert_eq!(set("timeout", "1.5").unwrap_err(), "argument couldn't be parsed into an integer");
        assert_eq!(set("timeout", "01").unwrap_err(), "argument couldn't be parsed into an integer");
        assert_eq!(set("maxclients", "-1").unwrap_err(), "argument must be between 1 and 4294967295 inclusive");
        assert_eq!(set("slowlog-log-slower-than", "-1").unwrap(), "-1");
        assert_eq!(
            set("hash-max-listpack-entries", "-1").unwrap_err(),
            "argument must be between 0 and 9223372036854775807 inclusive"
        );
        assert_eq!(set("list-max-listpack-size", "-5").unwrap(), "-5");
    }

    #[test]
    fn memory_and_percent_values() {
        assert_eq!(set("maxmemory", "1kb").unwrap(), "1024");
        assert_eq!(set("maxmemory", "1.5gb").unwrap_err(), "argument must be a memory value");
        assert_eq!(
            set("proto-max-bulk-len", "1000").unwrap_err(),
            "argument must be between 1048576 and 9223372036854775807 inclusive"
        );
        assert_eq!(set("maxmemory-clients", "5%").unwrap(), "5%");
        assert_eq!(set("maxmemory-clients", "101%").unwrap_err(), "percentage argument must be less or equal to 100");
        assert_eq!(set("maxmemory-clients", "-5").unwrap_err(), "argument must be a memory or percent value");
    }

    #[test]
    fn enums_and_flags() {
        assert_eq!(set("maxmemory-policy", "ALLKEYS-LRU").unwrap(), "allkeys-lru");
        assert_eq!(
            set("appendfsync", "sometimes").unwrap_err(),
            "argument(s) must be one of the following: everysec, always, no"
        );
        assert_eq!(set("oom-score-adj", "relative").unwrap(), "yes", "the first name of the value");
        assert_eq!(set("shutdown-on-sigint", "now SAVE").unwrap(), "save now");
        assert_eq!(
            set("shutdown-on-sigint", "bogus").unwrap_err(),
            "argument(s) must be one of the following: default, save, nosave, now, force"
        );
        assert_eq!(
            set("shutdown-on-sigint", "save nosave").unwrap_err(),
            "shutdown can't have both 'save' and 'nosave' flags"
        );
    }

    #[test]
    fn special_syntaxes() {
        assert_eq!(set("notify-keyspace-events", "KEA").unwrap(), "AKE");
        assert_eq!(set("notify-keyspace-events", "Kx").unwrap(), "xK");
        assert_eq!(set("notify-keyspace-events", "").unwrap(), "");
        assert_eq!(
            set("notify-keyspace-events", "Q").unwrap_err(),
            "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."
        );
        assert_eq!(set("save", "10 1 5 2").unwrap(), "10 1 5 2");
        assert_eq!(set("save", "").unwrap(), "");
        assert_eq!(set("save", "100 10 20").unwrap_err(), "Invalid save parameters");
        assert_eq!(set("save", "0 10").unwrap_err(), "Invalid save parameters");
        assert_eq!(set("oom-score-adj-values", "1 2").unwrap_err(), "wrong number of arguments");
        assert_eq!(
            set("oom-score-adj-values", "0 200 3000").unwrap_err(),
            "Invalid oom-score-adj-values, elements must be between -2000 and 2000."
        );
        assert_eq!(set("latency-tracking-info-percentiles", "50 99.9 100").unwrap(), "50 99.9 100");
        assert_eq!(
            set("latency-tracking-info-percentiles", "50 101").unwrap_err(),
            "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"
        );
        assert_eq!(
            set("latency-tracking-info-percentiles", "abc").unwrap_err(),
            "Invalid latency-tracking-info-percentiles parameters"
        );
        assert_eq!(
            set("client-output-buffer-limit", "pubsub 1mb").unwrap_err(),
            "Wrong number of arguments in buffer limit configuration."
        );
    }

    #[test]
    fn rewrite_writes_memory_with_units() {
        assert_eq!(memory_text(1 << 30), "1gb");
        assert_eq!(memory_text(64 << 20), "64mb");
        assert_eq!(memory_text(1000), "1000");
        assert_eq!(memory_text(0), "0");
    }
}
