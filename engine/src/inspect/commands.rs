//! The command table for help and autocomplete (`GET /api/commands`), and what a console says
//! to `help`, `help <command>` and `help @<group>` (as redis-cli answers them locally, in
//! plain text without its terminal colours).

use std::fmt::Write as _;

use serde_json::{json, Value as Json};

use crate::table::{Command, COMMANDS};

/// The command table as `GET /api/commands` and the playground's autocomplete read it.
pub fn commands_json() -> Json {
    let list: Vec<Json> = COMMANDS
        .iter()
        .map(|c| {
            json!({
                "name": c.name,
                "arity": c.arity,
                "flags": c.flag_names(),
                "first_key": c.first_key,
                "last_key": c.last_key,
                "step": c.step,
                "group": c.group,
                "summary": c.summary,
                "syntax": c.syntax,
            })
        })
        .collect();
    json!({ "commands": list })
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
    }
}
