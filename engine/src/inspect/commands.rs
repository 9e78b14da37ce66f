//! The command table for help and autocomplete (`GET /api/commands`), and what a console says
//! to `help`, `help <command>` and `help @<group>` (as redis-cli answers them locally, in
//! plain text without its terminal colours).

use std::fmt::Write as _;

use serde::Deserialize;
use serde_json::{json, Value as Json};
use ts_rs::TS;

use crate::engine::Engine;
use crate::table::{rows, Command, COMMANDS};

/// The shape of [`commands_json`], for its TypeScript type; a test reads the real body into it
/// (unknown fields refused), so a field added to the body must be added here too.
#[derive(Debug, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(rename = "Commands")]
pub struct CommandsShape {
    pub commands: Vec<CommandInfo>,
}

/// One row of the command table.
#[derive(Debug, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct CommandInfo {
    pub name: String,
    /// Argument count including the name; `-N` means at least N.
    pub arity: i32,
    pub flags: Vec<String>,
    /// Key positions as Redis's legacy range: first, last (negative counts from the end),
    /// step; 0, 0, 0 = no keys, or keys no range can describe (then `movablekeys`).
    pub first_key: i32,
    pub last_key: i32,
    pub step: i32,
    /// The keys are found by reading the arguments (a key count, SORT's STORE), not by position.
    pub movablekeys: bool,
    /// Redis's ACL categories (`@read`, `@string`, `@fast`, ...).
    pub acl_categories: Vec<String>,
    pub group: String,
    pub summary: String,
    /// Syntax after the name, as Redis's docs write it.
    pub syntax: String,
    /// A container's subcommands (`CLIENT LIST`, ...), each an entry of the same shape.
    #[serde(default)]
    #[ts(optional)]
    pub subcommands: Option<Vec<CommandInfo>>,
}

/// The command table as `GET /api/commands` and the playground's autocomplete read it: one
/// entry per command, and under a container its `subcommands`, each an entry of the same
/// shape named as typed (`CLIENT LIST`).
pub fn commands_json() -> Json {
    json!({ "commands": COMMANDS.iter().map(command_json).collect::<Vec<_>>() })
}

fn command_json(c: &Command) -> Json {
    let mut entry = json!({
        "name": c.name.replace('|', " "),
        "arity": c.arity,
        "flags": c.flag_names(),
        "first_key": c.key_layout.first,
        "last_key": c.key_layout.last,
        "step": c.key_layout.step,
        "movablekeys": c.key_layout.movable,
        "acl_categories": c.meta().acl_categories,
        "group": c.group,
        "summary": c.summary,
        "syntax": c.syntax,
    });
    if c.is_container() {
        entry["subcommands"] = c.subcommands.iter().map(command_json).collect();
    }
    entry
}

/// The name of every top-level command in the table, as the table writes it (`GET`, `CLIENT`):
/// for hosts that recognise commands themselves (the append-only file's loader, tests).
pub fn command_names() -> impl Iterator<Item = &'static str> {
    COMMANDS.iter().map(|c| c.name)
}

/// Whether `name` (any case) is a top-level command of the table.
pub fn is_command(name: &[u8]) -> bool {
    crate::table::lookup(name).is_some()
}

/// Calls and failed calls of one command row since start (or `CONFIG RESETSTAT`), named as
/// INFO commandstats and `/metrics` name it (`get`, `client|list`).
#[derive(Debug, Clone, PartialEq)]
pub struct CommandCounter {
    pub name: String,
    pub calls: u64,
    pub failed: u64,
}

/// Every command and subcommand row's counters, idle ones included (a Prometheus series exists
/// from the start), in table order.
pub fn command_counters(engine: &Engine) -> Vec<CommandCounter> {
    let stats = engine.stats();
    rows()
        .iter()
        .enumerate()
        .map(|(i, c)| CommandCounter {
            name: c.full_name(),
            calls: stats.calls.get(i),
            failed: stats.failed_calls.get(i),
        })
        .collect()
}

/// The groups of the command table, in table order.
fn groups() -> Vec<&'static str> {
    let mut groups: Vec<&'static str> = Vec::new();
    for c in COMMANDS {
        if !groups.contains(&c.group) {
            groups.push(c.group);
        }
    }
    groups
}

/// One command's help, as redis-cli lays it out: a blank line, name and syntax, summary,
/// and (when asked about the command itself) its group.
fn command_help(out: &mut String, c: &Command, with_group: bool) {
    let _ = write!(out, "\n  {}", c.name);
    if !c.syntax.is_empty() {
        let _ = write!(out, " {}", c.syntax);
    }
    let _ = writeln!(out, "\n  summary: {}", c.summary);
    if with_group {
        let _ = writeln!(out, "  group: {}", c.group);
    }
}

/// The text for `help` followed by `args`.
pub fn help(args: &[Vec<u8>]) -> String {
    let mut out = String::new();
    let Some(topic) = args.first() else {
        let _ = write!(
            out,
            "Vitrine {} playground: a Redis-compatible cache running in this browser tab.\n\
             To get help about commands type:\n      \
             \"help @<group>\" to get a list of commands in <group>\n      \
             \"help <command>\" for help on <command>\n\
             Groups: {}\n",
            crate::VERSION,
            groups().iter().map(|g| format!("@{g}")).collect::<Vec<_>>().join(" "),
        );
        return out;
    };
    let topic = String::from_utf8_lossy(topic);
    if let Some(group) = topic.strip_prefix('@') {
        for c in COMMANDS.iter().filter(|c| c.group.eq_ignore_ascii_case(group)) {
            command_help(&mut out, c, false);
        }
    } else if let Some(c) = COMMANDS.iter().find(|c| c.name.eq_ignore_ascii_case(&topic)) {
        command_help(&mut out, c, true);
    }
    if out.is_empty() {
        let _ = writeln!(out, "No help for '{topic}'. Type \"help\" for the topics.");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_table_lists_subcommands_under_their_container() {
        let table = commands_json();
        let list = table["commands"].as_array().unwrap();
        assert_eq!(list.len(), COMMANDS.len());
        let find = |name: &str| list.iter().find(|c| c["name"] == name).unwrap_or_else(|| panic!("no {name}"));
        assert!(find("GET").get("subcommands").is_none());
        let subs = find("CLIENT")["subcommands"].as_array().unwrap().clone();
        let setname = subs.iter().find(|c| c["name"] == "CLIENT SETNAME").unwrap();
        assert_eq!(setname["arity"], 3);
        assert_eq!(setname["syntax"], "connection-name");
        let encoding = &find("OBJECT")["subcommands"][0];
        assert_eq!((encoding["name"].clone(), encoding["first_key"].clone()), (json!("OBJECT ENCODING"), json!(2)));
        // The fields every entry had before subcommands came, which the web reads.
        for field in ["name", "arity", "flags", "first_key", "last_key", "step", "group", "summary", "syntax"] {
            assert!(setname.get(field).is_some() && find("SET").get(field).is_some(), "{field}");
        }
    }

    fn help_of(words: &[&str]) -> String {
        help(&words.iter().map(|w| w.as_bytes().to_vec()).collect::<Vec<_>>())
    }

    #[test]
    fn help_for_a_command_a_group_and_nothing() {
        assert_eq!(help_of(&["get"]), "\n  GET key\n  summary: Returns the string value of a key.\n  group: string\n");
        let strings = help_of(&["@string"]);
        assert!(strings.contains("\n  SET key value"), "{strings}");
        assert!(!strings.contains("group:"), "{strings}");
        assert!(!strings.contains("\n  DEL "), "{strings}");
        let general = help_of(&[]);
        assert!(general.contains("@string @generic"), "{general}");
        assert_eq!(help_of(&["nosuch"]), "No help for 'nosuch'. Type \"help\" for the topics.\n");
        assert!(help_of(&["dbsize"]).starts_with("\n  DBSIZE\n"));
    }

    #[test]
    fn commands_json_lists_the_table() {
        let v = commands_json();
        let list = v["commands"].as_array().unwrap();
        assert_eq!(list.len(), COMMANDS.len());
        let set = list.iter().find(|c| c["name"] == "SET").unwrap();
        assert_eq!(set["arity"], -3);
        assert_eq!(set["group"], "string");
        // The generated TypeScript type (`Commands`) has exactly the body's fields.
        let shape: CommandsShape = serde_json::from_value(v).expect("commands_json has the fields of CommandInfo");
        assert_eq!(shape.commands.len(), COMMANDS.len());
    }
}
