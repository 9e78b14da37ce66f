//! `User` and `Selector`: what one ACL user may run (a bitset over the command table's rows),
//! which keys and channels it may touch, and the 21 command categories of Redis 7.

use std::sync::OnceLock;

use crate::table;

/// Redis 7's ACL categories, in `ACL CAT`'s order (also the order 7.0's compaction tries them).
pub(crate) const CATEGORIES: [&str; 21] = [
    "keyspace",
    "read",
    "write",
    "set",
    "sortedset",
    "list",
    "hash",
    "string",
    "bitmap",
    "hyperloglog",
    "geo",
    "stream",
    "pubsub",
    "admin",
    "fast",
    "slow",
    "blocking",
    "dangerous",
    "connection",
    "transaction",
    "scripting",
];

/// The index of a category in `CATEGORIES`, by name without the `@`, ignoring case.
pub(crate) fn category_index(name: &[u8]) -> Option<usize> {
    CATEGORIES.iter().position(|c| c.as_bytes().eq_ignore_ascii_case(name))
}

/// For each category, a bitmask over rows: bit i of the returned mask is set when the row at
/// index i (in `table::rows()`) is in the category. Computed once from the generated metadata.
pub(crate) fn category_masks() -> &'static [u32] {
    static MASKS: OnceLock<Vec<u32>> = OnceLock::new();
    MASKS.get_or_init(|| {
        table::rows()
            .iter()
            .map(|cmd| {
                cmd.meta().acl_categories.iter().fold(0u32, |mask, cat| {
                    match category_index(cat.trim_start_matches('@').as_bytes()) {
                        Some(i) => mask | (1 << i),
                        None => mask,
                    }
                })
            })
            .collect()
    })
}

/// One bit per row of `table::rows()`: whether the command (or subcommand) may run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CmdBits(Box<[u64]>);

impl CmdBits {
    pub(crate) fn none() -> CmdBits {
        CmdBits(vec![0; table::rows().len().div_ceil(64)].into_boxed_slice())
    }

    pub(crate) fn all() -> CmdBits {
        let mut bits = CmdBits::none();
        for i in 0..table::rows().len() {
            bits.set(i, true);
        }
        bits
    }

    #[inline]
    pub(crate) fn allows(&self, row: usize) -> bool {
        self.0.get(row / 64).is_some_and(|w| w & (1 << (row % 64)) != 0)
    }

    pub(crate) fn set(&mut self, row: usize, on: bool) {
        if let Some(w) = self.0.get_mut(row / 64) {
            if on {
                *w |= 1 << (row % 64);
            } else {
                *w &= !(1 << (row % 64));
            }
        }
    }
}

/// A key pattern and what it grants: `~p` both, `%R~p` read, `%W~p` write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct KeyPattern {
    pub pattern: Vec<u8>,
    pub read: bool,
    pub write: bool,
}

/// `allkeys` (`~*`), or the patterns in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Keys {
    All,
    Patterns(Vec<KeyPattern>),
}

/// `allchannels` (`&*`), or the patterns in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Channels {
    All,
    Patterns(Vec<Vec<u8>>),
}

/// One set of permissions. A user has a root selector and any number of `(...)` ones; a
/// command is allowed when any selector allows the command, every key and every channel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Selector {
    pub commands: CmdBits,
    /// Every command allowed (`+@all` and no deny since): the check skips the bitset.
    pub all_commands: bool,
    /// Redis's reserved "future commands" bit: set by `+@all`/`allcommands`, cleared only by
    /// `-@all`/`nocommands`/`reset`. `ACL LIST` starts with `+@all` when it is set.
    pub future_commands: bool,
    /// Deprecated first-argument allowances (`+select|0`): row -> allowed first arguments.
    pub first_args: Vec<(usize, Vec<Vec<u8>>)>,
    pub keys: Keys,
    pub channels: Channels,
}

impl Selector {
    /// `-@all`, no keys, no channels: a new selector, or a new user's root.
    pub(crate) fn empty() -> Selector {
        Selector {
            commands: CmdBits::none(),
            all_commands: false,
            future_commands: false,
            first_args: Vec::new(),
            keys: Keys::Patterns(Vec::new()),
            channels: Channels::Patterns(Vec::new()),
        }
    }

    /// `~* &* +@all`.
    pub(crate) fn unrestricted() -> Selector {
        Selector {
            commands: CmdBits::all(),
            all_commands: true,
            future_commands: true,
            first_args: Vec::new(),
            keys: Keys::All,
            channels: Channels::All,
        }
    }

    /// Allows every command, key and channel: nothing to check.
    pub(crate) fn is_unrestricted(&self) -> bool {
        self.all_commands && self.keys == Keys::All && self.channels == Channels::All
    }
}

/// One ACL user. Immutable once in the registry: a change builds a new one.
#[derive(Clone, Debug)]
pub(crate) struct User {
    pub name: Vec<u8>,
    pub on: bool,
    pub nopass: bool,
    /// `sanitize-payload` (Some(true)), `skip-sanitize-payload` (Some(false)), or neither.
    pub sanitize_payload: Option<bool>,
    /// SHA-256 hashes, in the order added.
    pub passwords: Vec<[u8; 32]>,
    /// `selectors[0]` is the root selector (rules outside parentheses); never empty.
    pub selectors: Vec<Selector>,
}

impl User {
    /// A new user as `ACL SETUSER name` makes it: off, no passwords, `-@all`, no keys,
    /// `resetchannels` (or `allchannels` when `acl-pubsub-default` says so).
    pub(crate) fn new(name: &[u8], pubsub_all: bool) -> User {
        let mut root = Selector::empty();
        if pubsub_all {
            root.channels = Channels::All;
        }
        User {
            name: name.to_vec(),
            on: false,
            nopass: false,
            sanitize_payload: None,
            passwords: Vec::new(),
            selectors: vec![root],
        }
    }

    /// `on nopass ~* &* +@all`: Redis's `default` user.
    pub(crate) fn unrestricted(name: &[u8]) -> User {
        User {
            name: name.to_vec(),
            on: true,
            nopass: true,
            sanitize_payload: None,
            passwords: Vec::new(),
            selectors: vec![Selector::unrestricted()],
        }
    }

    pub(crate) fn root(&self) -> &Selector {
        &self.selectors[0]
    }

    /// May run anything on anything: dispatch skips the check for this user.
    pub(crate) fn is_unrestricted(&self) -> bool {
        self.root().is_unrestricted()
    }

    pub(crate) fn name_lossy(&self) -> String {
        String::from_utf8_lossy(&self.name).into_owned()
    }
}
