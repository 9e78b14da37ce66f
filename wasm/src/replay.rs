//! Scripted playground sessions, replayed natively into a transcript. The parity test
//! (`tests/parity.test.mjs`) replays the same scripts through the wasm build with a JavaScript
//! copy of [`transcript`] and compares the two transcripts byte for byte.
//!
//! A script (`tests/scripts/*.redis`) has one step per line. Blank lines and `#` comments are
//! skipped; a line starting with `@` is a directive, any other line is typed into the console:
//!
//! ```text
//! SET greeting "hello world"     console at the current time
//! @advance 1500                  move the clock forward 1500 ms
//! @config maxmemory 64kb         set_config
//! @sweep                         expiry_cycle (active expiry)
//! @fill 500 100                  fill 500 keys of 100 bytes
//! @stats                         stats_json
//! @keys fill:* 20                keys_json(pattern, "", "", count): the first SCAN step
//! @scan * 10                     keys_json(pattern, "", cursor, count), every step until done
//! @events                        evictions_json
//! ```
//!
//! The transcript has, for each step, `> ` and the step's line, then the step's output on one
//! line. The clock starts at [`START_MS`] and the engine's seed is [`SEED`].

use crate::Playground;

/// Unix ms the replay starts at (the engine test harness's start).
pub const START_MS: u64 = 1_700_000_000_000;
/// The engine seed for replays.
pub const SEED: f64 = 24_301.0;

/// One step of a script.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Line(String),
    Advance(u64),
    Config(String, String),
    Sweep,
    Fill(u32, u32),
    Stats,
    Keys(String, u32),
    Scan(String, u32),
    Events,
}

/// The steps of a script, each with the line it came from. Panics on a malformed directive:
/// scripts are test data.
pub fn parse(script: &str) -> Vec<(String, Step)> {
    let mut steps = Vec::new();
    for line in script.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let step = match trimmed.strip_prefix('@') {
            None => Step::Line(line.to_string()),
            Some(directive) => {
                let words: Vec<&str> = directive.split_whitespace().collect();
                let num = |i: usize| -> u64 {
                    words.get(i).and_then(|w| w.parse().ok()).unwrap_or_else(|| panic!("bad number in {line:?}"))
                };
                match words.as_slice() {
                    ["advance", _] => Step::Advance(num(1)),
                    ["config", name, value] => Step::Config(name.to_string(), value.to_string()),
                    ["sweep"] => Step::Sweep,
                    ["fill", _, _] => Step::Fill(num(1) as u32, num(2) as u32),
                    ["stats"] => Step::Stats,
                    ["keys", pattern, _] => Step::Keys(pattern.to_string(), num(2) as u32),
                    ["scan", pattern, _] => Step::Scan(pattern.to_string(), num(2) as u32),
                    ["events"] => Step::Events,
                    _ => panic!("unknown directive {line:?}"),
                }
            }
        };
        steps.push((line.to_string(), step));
    }
    steps
}

/// Replays `script` on a fresh playground and returns the transcript.
pub fn transcript(script: &str) -> String {
    let mut now = START_MS;
    let mut pg = Playground::new(now as f64, SEED);
    let mut out = String::new();
    for (line, step) in parse(script) {
        let t = now as f64;
        let output = match step {
            Step::Line(text) => pg.console(&text, t),
            Step::Advance(ms) => {
                now += ms;
                format!("now {now}")
            }
            Step::Config(name, value) => match pg.set_config(&name, &value, t) {
                Ok(()) => "ok".to_string(),
                Err(e) => format!("error: {e}"),
            },
            Step::Sweep => format!("expired {}", pg.expiry_cycle(t)),
            Step::Fill(count, size) => pg.fill(count, size, t).unwrap_or_else(|e| format!("error: {e}")),
            Step::Stats => pg.stats_json(t),
            Step::Keys(pattern, count) => pg.keys_json(&pattern, "", "", count, t, 0).unwrap_or_else(|e| e),
            Step::Scan(pattern, count) => {
                let mut cursor = "0".to_string();
                let mut pages = Vec::new();
                loop {
                    let page = pg.keys_json(&pattern, "", &cursor, count, t, 0).unwrap_or_else(|e| e);
                    let v: serde_json::Value = serde_json::from_str(&page).unwrap_or_default();
                    pages.push(page);
                    match v["cursor"].as_str() {
                        Some(c) if c != "0" => cursor = c.to_string(),
                        _ => break,
                    }
                }
                pages.join(" ")
            }
            Step::Events => pg.evictions_json(t),
        };
        out.push_str("> ");
        out.push_str(&line);
        out.push('\n');
        out.push_str(&output);
        out.push('\n');
    }
    out
}
