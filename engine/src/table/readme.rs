//! The README's list of supported commands, generated from the command table: a test that
//! fails when the committed README differs, and rewrites it under `VITRINE_WRITE_README=1`
//! (`scripts/gen-commands`), as `scripts/gen-types` does for the web app's types.

use std::path::PathBuf;

use super::{Command, COMMANDS};

const BEGIN: &str =
    "<!-- commands:begin (generated from engine/src/table.rs by scripts/gen-commands: edit the table, not this list) -->";
const END: &str = "<!-- commands:end -->";

/// The table's groups in the order the README lists them, with their titles.
const GROUPS: &[(&str, &str)] = &[
    ("string", "Strings"),
    ("generic", "Keys"),
    ("hash", "Hashes"),
    ("list", "Lists"),
    ("set", "Sets"),
    ("sorted-set", "Sorted sets"),
    ("stream", "Streams"),
    ("hyperloglog", "HyperLogLog"),
    ("geo", "Geospatial indexes"),
    ("bitmap", "Bitmaps"),
    ("transactions", "Transactions"),
    ("scripting", "Scripting"),
    ("pubsub", "Pub/sub"),
    ("connection", "Connection"),
    ("server", "Server"),
];

/// The generated part: per group, each command with its summary, a container's
/// subcommands listed under it.
fn render() -> String {
    let mut out = String::new();
    for (group, title) in GROUPS {
        let commands: Vec<&Command> = COMMANDS.iter().filter(|c| c.group == *group).collect();
        out.push_str(&format!("\n### {title}\n\n"));
        for c in commands {
            out.push_str(&format!("- `{}`: {}\n", c.name, c.summary));
            for sub in c.subcommands {
                out.push_str(&format!("  - `{} {}`: {}\n", c.name, sub.sub_name(), sub.summary));
            }
        }
    }
    out.push('\n');
    out
}

fn readme_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../README.md")
}

/// The README with its generated part replaced by `generated`.
fn with_generated(readme: &str, generated: &str) -> Option<String> {
    let start = readme.find(BEGIN)? + BEGIN.len();
    let end = start + readme[start..].find(END)?;
    Some(format!("{}{}{}", &readme[..start], generated, &readme[end..]))
}

#[test]
fn every_group_has_a_place_in_the_readme() {
    for c in COMMANDS {
        assert!(GROUPS.iter().any(|(g, _)| *g == c.group), "{}'s group {:?} is not in GROUPS", c.name, c.group);
    }
}

#[test]
fn readme_lists_the_command_table() {
    let path = readme_path();
    let readme = std::fs::read_to_string(&path).expect("README.md");
    let expected = with_generated(&readme, &render()).expect("README.md has the commands markers");
    if std::env::var("VITRINE_WRITE_README").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &expected).expect("write README.md");
        return;
    }
    assert!(
        readme == expected,
        "README.md's supported commands differ from the command table: run scripts/gen-commands \
         (VITRINE_WRITE_README=1 cargo test -p vitrine-engine --lib readme) and commit"
    );
}
