//! The ACL file (`aclfile`, ACL SAVE/LOAD) and `user` lines of the config file: parsing with
//! Redis's accumulated error text, and rendering one `ACL LIST` line per user.
//!
//! Redis 7.0.15 splits an aclfile line on single spaces, with no quoting and no comments (a
//! `#` line is an error: the file is meant to be rewritten by ACL SAVE, which would drop
//! comments), and we do the same so a file loads, or fails, as it does there.

use super::rules::{apply_rule, has_spaces, lossy, merge_selector_words, RuleError};
use super::user::User;

/// Parses an aclfile's text (`path` only names it in errors) into users, or Redis's whole
/// error text when any line is bad (nothing is applied then). Without a `user default` line
/// the default user is the unrestricted one (`on nopass ~* &* +@all`).
pub(crate) fn parse(path: &str, text: &str, pubsub_all: bool) -> Result<Vec<User>, String> {
    let mut users: Vec<User> = Vec::new();
    let mut errors = String::new();
    for (i, raw) in text.split('\n').enumerate() {
        let n = i + 1;
        let line = raw.trim_matches([' ', '\t', '\r', '\n']);
        if line.is_empty() {
            continue;
        }
        let words: Vec<&[u8]> = line.as_bytes().split(|&b| b == b' ').collect();
        if words[0] != b"user" || words.len() < 2 {
            errors.push_str(&format!("{path}:{n} should start with user keyword followed by the username. "));
            continue;
        }
        let name = words[1];
        if has_spaces(name) {
            // The leading quote is Redis's typo, kept so the text is byte for byte the same.
            errors.push_str(&format!("'{path}:{n}: username '{}' contains invalid characters. ", lossy(name)));
            continue;
        }
        if users.iter().any(|u| u.name == name) {
            errors.push_str(&format!("WARNING: Duplicate user '{}' found on line {n}. ", lossy(name)));
            continue;
        }
        let mut user = User::new(name, pubsub_all);
        match merge_selector_words(&words[2..]) {
            Err(_) => errors.push_str(&format!("{path}:{n}: Unmatched parenthesis in selector definition.")),
            Ok(rules) => {
                // Unknown commands are each reported with the rule (they are not secret); of
                // other errors only the first, as it may explain the ones after it.
                let mut syntax_error = false;
                for rule in rules {
                    let rule = trim_bytes(&rule);
                    match apply_rule(&mut user, rule, pubsub_all) {
                        Ok(()) => {}
                        Err(RuleError::UnknownCommand) => errors.push_str(&format!(
                            "{path}:{n}: Error in applying operation '{}': {}. ",
                            lossy(rule),
                            RuleError::UnknownCommand
                        )),
                        Err(e) if !syntax_error => {
                            errors.push_str(&format!("{path}:{n}: {e}. "));
                            syntax_error = true;
                        }
                        Err(_) => {}
                    }
                }
            }
        }
        // Kept even when its line was bad: a later line with the same name is a duplicate.
        users.push(user);
    }
    if !errors.is_empty() {
        errors.push_str("WARNING: ACL errors detected, no change to the previously active ACL rules was performed");
        return Err(errors);
    }
    if !users.iter().any(|u| u.name == b"default") {
        users.push(User::unrestricted(b"default"));
    }
    Ok(users)
}

/// Redis's `sdstrim(arg, "\t\r\n")` on each rule of an aclfile line.
fn trim_bytes(rule: &[u8]) -> &[u8] {
    let is_trim = |b: &u8| matches!(b, b'\t' | b'\r' | b'\n');
    let start = rule.iter().position(|b| !is_trim(b)).unwrap_or(rule.len());
    let end = rule.iter().rposition(|b| !is_trim(b)).map_or(start, |e| e + 1);
    &rule[start..end.max(start)]
}

/// The file ACL SAVE writes: one `ACL LIST` line per user, sorted, each ending in `\n`.
pub(crate) fn render(users: &[std::sync::Arc<User>]) -> String {
    users.iter().map(|u| u.describe() + "\n").collect()
}

/// A config file's `user <name> <rules...>` line, given as its words after `user` (the name
/// first), with the start-up error Redis logs for it. `default` starts from `reset` (so it
/// prints `sanitize-payload`), as Redis resets the existing default user before applying the
/// line; any other user starts new.
pub(crate) fn config_user_line(words: &[&[u8]], pubsub_all: bool) -> Result<User, String> {
    let Some((&name, rule_words)) = words.split_first() else {
        return Err("Error in user declaration: a user name is required".to_string());
    };
    if has_spaces(name) {
        return Err("Spaces not allowed in ACL usernames".to_string());
    }
    let rules = merge_selector_words(rule_words).map_err(|start| {
        format!("Error in user declaration '{}': Unmatched parenthesis in acl selector", lossy(start))
    })?;
    let mut user = User::new(name, pubsub_all);
    if name == b"default" {
        user.sanitize_payload = Some(true);
    }
    // Redis checks the line when it reads the config (every error but an unknown command,
    // which a module loaded later might define) and applies it after; so a syntax error
    // anywhere wins over an unknown command before it.
    let mut unknown = None;
    for (j, rule) in rules.iter().enumerate() {
        match apply_rule(&mut user, rule, pubsub_all) {
            Ok(()) => {}
            Err(RuleError::UnknownCommand) => {
                unknown.get_or_insert(j);
            }
            Err(e) => {
                // Redis quotes the config line's word at the rule's index (counting `user`
                // and the name), not the rule itself; kept for the same text.
                let quoted = match j {
                    0 => b"user".as_slice(),
                    1 => name,
                    _ => rule_words.get(j - 2).copied().unwrap_or_default(),
                };
                return Err(format!("Error in user declaration '{}': {e}", lossy(quoted)));
            }
        }
    }
    if let Some(j) = unknown {
        return Err(format!(
            "Error loading ACL rule '{}' for the user named '{}': {}",
            lossy(&rules[j]),
            lossy(name),
            RuleError::UnknownCommand
        ));
    }
    Ok(user)
}

/// ACL LOAD's error when the file cannot be read (`reason` is the OS's text, as `strerror`).
pub(crate) fn open_error(path: &str, reason: &str) -> String {
    format!("Error loading ACLs, opening file '{path}': {reason}")
}
