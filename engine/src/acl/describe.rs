//! How a user prints: its `ACL LIST` line and the fields of `ACL GETUSER`, with the command
//! rules recomputed from the bitset the way Redis 7.0 compacts them.
//!
//! Redis 7.0 does not keep the rules as typed: it starts from `+@all` or `-@all`, greedily
//! applies the categories that best fit the bitset, then names the single commands still
//! different. Redis walks its command dict (hash order, random per process) for that last
//! step; Vitrine walks the table in order, so only the order of the single-command tail can
//! differ from a given Redis process.

use crate::table;

use super::rules::{change_perm, set_category, subcommand_rows};
use super::user::{category_masks, Channels, CmdBits, KeyPattern, Keys, Selector, User, CATEGORIES};

impl User {
    /// The `ACL LIST` line (`user default on nopass ~* &* +@all`), as `ACL SAVE` writes it.
    pub(crate) fn describe(&self) -> String {
        let mut out = format!("user {} ", String::from_utf8_lossy(&self.name));
        for flag in self.flags() {
            out.push_str(flag);
            out.push(' ');
        }
        for hash in &self.passwords {
            out.push('#');
            out.push_str(&hex(hash));
            out.push(' ');
        }
        for (i, selector) in self.selectors.iter().enumerate() {
            if i == 0 {
                out.push_str(&selector.describe());
            } else {
                out.push_str(" (");
                out.push_str(&selector.describe());
                out.push(')');
            }
        }
        out
    }

    /// GETUSER's `flags`: `on`/`off`, `nopass`, then `skip-sanitize-payload` or
    /// `sanitize-payload` when set, in Redis's order.
    pub(crate) fn flags(&self) -> Vec<&'static str> {
        let mut flags = vec![if self.on { "on" } else { "off" }];
        if self.nopass {
            flags.push("nopass");
        }
        match self.sanitize_payload {
            Some(false) => flags.push("skip-sanitize-payload"),
            Some(true) => flags.push("sanitize-payload"),
            None => {}
        }
        flags
    }

    /// The password hashes as GETUSER's `passwords` lists them (64 lowercase hex digits each).
    pub(crate) fn password_hexes(&self) -> Vec<String> {
        self.passwords.iter().map(|h| hex(h)).collect()
    }
}

impl Selector {
    /// One selector as `ACL LIST` prints it: keys (`~*`, or each pattern), channels (`&*`, or
    /// `resetchannels` and each pattern), then the command rules.
    pub(crate) fn describe(&self) -> String {
        let mut out = String::new();
        match &self.keys {
            Keys::All => out.push_str("~* "),
            Keys::Patterns(list) => {
                for p in list {
                    out.push_str(&key_pattern(p));
                    out.push(' ');
                }
            }
        }
        match &self.channels {
            Channels::All => out.push_str("&* "),
            Channels::Patterns(list) => {
                out.push_str("resetchannels ");
                for p in list {
                    out.push('&');
                    out.push_str(&String::from_utf8_lossy(p));
                    out.push(' ');
                }
            }
        }
        out.push_str(&self.describe_commands());
        out
    }

    /// GETUSER's `keys`: `~*`, or the patterns space-joined (`~k* %R~r*`), `""` for none.
    pub(crate) fn describe_keys(&self) -> String {
        match &self.keys {
            Keys::All => "~*".to_string(),
            Keys::Patterns(list) => list.iter().map(key_pattern).collect::<Vec<_>>().join(" "),
        }
    }

    /// GETUSER's `channels`: `&*`, or the patterns space-joined (`&a &b*`), `""` for none.
    pub(crate) fn describe_channels(&self) -> String {
        match &self.channels {
            Channels::All => "&*".to_string(),
            Channels::Patterns(list) => {
                list.iter().map(|p| format!("&{}", String::from_utf8_lossy(p))).collect::<Vec<_>>().join(" ")
            }
        }
    }

    /// The command rules alone (`-@all +@read -keys`), as GETUSER's `commands`: Redis 7.0's
    /// compaction of the bitset.
    pub(crate) fn describe_commands(&self) -> String {
        let additive = !self.future_commands;
        let mut rules = vec![if additive { "-@all".to_string() } else { "+@all".to_string() }];
        // `fake` is what the rules so far grant; `temp` is the user's bitset with every chosen
        // category taken back out, so later choices count only what is still unexplained.
        let mut fake = Selector::empty();
        fake.commands = if additive { CmdBits::none() } else { CmdBits::all() };
        let mut temp = Selector::empty();
        temp.commands = self.commands.clone();
        let mut applied = [false; CATEGORIES.len()];
        while let Some(best) = best_category(&temp.commands, additive, &applied) {
            applied[best] = true;
            set_category(&mut fake, best, additive);
            set_category(&mut temp, best, !additive);
            rules.push(format!("{}@{}", if additive { '+' } else { '-' }, CATEGORIES[best]));
        }
        let rows = table::rows();
        for row in (0..rows.len()).filter(|&r| rows[r].container().is_none()) {
            single_command(self, &mut fake, row, &mut rules);
            for sub in subcommand_rows(row) {
                single_command(self, &mut fake, sub, &mut rules);
            }
            if !self.commands.allows(row) {
                if let Some((_, args)) = self.first_args.iter().find(|(r, _)| *r == row) {
                    let name = rows[row].full_name();
                    for arg in args {
                        rules.push(format!("+{name}|{}", String::from_utf8_lossy(arg)));
                    }
                }
            }
        }
        debug_assert_eq!(fake.commands, self.commands, "the compacted rules must rebuild the bitset: {rules:?}");
        rules.join(" ")
    }
}

/// The category that best explains the rows still unexplained in `temp`: more rows agreeing
/// than disagreeing, fewest disagreeing, then most agreeing, then first in `CATEGORIES`.
fn best_category(temp: &CmdBits, additive: bool, applied: &[bool; CATEGORIES.len()]) -> Option<usize> {
    let mut on = [0usize; CATEGORIES.len()];
    let mut off = [0usize; CATEGORIES.len()];
    for (row, &mask) in category_masks().iter().enumerate() {
        let allowed = temp.allows(row);
        for (cat, (on, off)) in on.iter_mut().zip(off.iter_mut()).enumerate() {
            if mask & (1 << cat) != 0 {
                if allowed {
                    *on += 1;
                } else {
                    *off += 1;
                }
            }
        }
    }
    let mut best = None;
    let (mut min_diff, mut max_same) = (usize::MAX, 0);
    for cat in (0..CATEGORIES.len()).filter(|&c| !applied[c]) {
        let (same, diff) = if additive { (on[cat], off[cat]) } else { (off[cat], on[cat]) };
        if same > diff && (diff < min_diff || (diff == min_diff && same > max_same)) {
            best = Some(cat);
            min_diff = diff;
            max_same = same;
        }
    }
    best
}

/// Emits `+name`/`-name` when the user's bit for `row` differs from what the rules so far give.
fn single_command(user: &Selector, fake: &mut Selector, row: usize, rules: &mut Vec<String>) {
    let allowed = user.commands.allows(row);
    if allowed != fake.commands.allows(row) {
        rules.push(format!("{}{}", if allowed { '+' } else { '-' }, table::row(row).full_name()));
        change_perm(fake, row, allowed);
    }
}

/// `~p`, `%R~p` or `%W~p`.
fn key_pattern(p: &KeyPattern) -> String {
    let prefix = match (p.read, p.write) {
        (true, false) => "%R~",
        (false, true) => "%W~",
        _ => "~",
    };
    format!("{prefix}{}", String::from_utf8_lossy(&p.pattern))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
