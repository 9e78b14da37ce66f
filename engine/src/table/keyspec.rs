//! Key specs, as Redis 7's command JSON declares them: where a command's keys begin (an argv
//! index, or after a keyword) and how many follow (a range, or a count read from argv). One
//! declaration per table row feeds dispatch's locking (`Command::keys`), COMMAND GETKEYS and
//! COMMAND INFO (the legacy first/last/step and `movablekeys` are derived from it, as Redis
//! derives them), so the three cannot disagree.

/// Key-spec flags, named as Redis names them (COMMAND INFO, GETKEYSANDFLAGS).
pub const RO: u16 = 1;
pub const RW: u16 = 1 << 1;
pub const OW: u16 = 1 << 2;
pub const RM: u16 = 1 << 3;
pub const ACCESS: u16 = 1 << 4;
pub const UPDATE: u16 = 1 << 5;
pub const INSERT: u16 = 1 << 6;
pub const DELETE: u16 = 1 << 7;
/// Not a key (a shard channel): cluster routing only, never locked nor listed by GETKEYS.
pub const NOT_KEY: u16 = 1 << 8;
/// The spec may miss keys (SORT's STORE): the command also needs its own extraction.
pub const INCOMPLETE: u16 = 1 << 9;
/// The flags depend on the arguments (SET's GET): GETKEYSANDFLAGS asks the command.
pub const VARIABLE_FLAGS: u16 = 1 << 10;

/// In Redis's reply order.
pub const KEY_FLAG_NAMES: &[(u16, &str)] = &[
    (RO, "RO"),
    (RW, "RW"),
    (OW, "OW"),
    (RM, "RM"),
    (ACCESS, "access"),
    (UPDATE, "update"),
    (INSERT, "insert"),
    (DELETE, "delete"),
    (NOT_KEY, "not_key"),
    (INCOMPLETE, "incomplete"),
    (VARIABLE_FLAGS, "variable_flags"),
];

pub fn key_flag_names(flags: u16) -> impl Iterator<Item = &'static str> {
    KEY_FLAG_NAMES.iter().filter(move |(f, _)| flags & f != 0).map(|(_, n)| *n)
}

/// Where the search for keys begins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Begin {
    /// At this argv index.
    Index(i32),
    /// After the first argument equal to `keyword` (ignoring case), searching from
    /// `startfrom` (negative: from the end, backwards).
    Keyword { keyword: &'static str, startfrom: i32 },
    /// The keys cannot be found by a spec (SORT's BY/GET patterns).
    Unknown,
}

/// How many keys follow where the search began.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Find {
    /// Up to `lastkey` (relative to the beginning; negative counts from argv's end), every
    /// `step`; with `lastkey` -1 and a `limit`, the first 1/limit of the rest.
    Range {
        lastkey: i32,
        step: i32,
        limit: i32,
    },
    /// A count at `keynumidx` (relative), then that many keys from `firstkey` (relative).
    Keynum {
        keynumidx: i32,
        firstkey: i32,
        step: i32,
    },
    Unknown,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeySpec {
    pub flags: u16,
    pub notes: Option<&'static str>,
    pub begin: Begin,
    pub find: Find,
}

/// One key at argv index `pos`.
pub const fn key(flags: u16, pos: i32) -> KeySpec {
    range(flags, pos, 0, 1, 0)
}

/// Keys from argv index `pos` to `lastkey` (relative to `pos`; negative from the end).
pub const fn range(flags: u16, pos: i32, lastkey: i32, step: i32, limit: i32) -> KeySpec {
    KeySpec { flags, notes: None, begin: Begin::Index(pos), find: Find::Range { lastkey, step, limit } }
}

/// A key count at `pos + keynumidx`, the keys from `pos + firstkey`.
pub const fn keynum(flags: u16, pos: i32, keynumidx: i32, firstkey: i32, step: i32) -> KeySpec {
    KeySpec { flags, notes: None, begin: Begin::Index(pos), find: Find::Keynum { keynumidx, firstkey, step } }
}

/// Keys after `keyword` (XREAD's STREAMS).
pub const fn keyword(
    flags: u16,
    keyword: &'static str,
    startfrom: i32,
    lastkey: i32,
    step: i32,
    limit: i32,
) -> KeySpec {
    KeySpec {
        flags,
        notes: None,
        begin: Begin::Keyword { keyword, startfrom },
        find: Find::Range { lastkey, step, limit },
    }
}

/// Keys no spec can find.
pub const fn unknown(flags: u16) -> KeySpec {
    KeySpec { flags, notes: None, begin: Begin::Unknown, find: Find::Unknown }
}

impl KeySpec {
    pub const fn notes(self, notes: &'static str) -> KeySpec {
        KeySpec { notes: Some(notes), ..self }
    }
}

/// What a command's specs come to, computed once per row at compile time: Redis's legacy
/// (first, last, step) and `movablekeys`, and whether dispatch can read keys by that range
/// alone (the hot path: GET, SET, MGET).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyLayout {
    pub first: i32,
    /// Absolute argv index; negative counts from the end.
    pub last: i32,
    pub step: i32,
    pub movable: bool,
    /// Exactly one plain range spec (no limit, a real key, complete): keys are the range.
    pub plain: bool,
}

/// Redis's derivation of the legacy range from the specs: a lone index+range spec is the
/// range; otherwise consecutive step-1 range specs merge, and anything else makes the
/// command `movablekeys`.
pub const fn layout(specs: &[KeySpec]) -> KeyLayout {
    let none = KeyLayout { first: 0, last: 0, step: 0, movable: false, plain: false };
    if specs.is_empty() {
        return none;
    }
    if specs.len() == 1 {
        if let (Begin::Index(pos), Find::Range { lastkey, step, limit }) = (specs[0].begin, specs[0].find) {
            let f = specs[0].flags;
            return KeyLayout {
                first: pos,
                last: if lastkey < 0 { lastkey } else { pos + lastkey },
                step,
                movable: f & INCOMPLETE != 0,
                plain: f & (INCOMPLETE | NOT_KEY) == 0 && limit == 0,
            };
        }
    }
    let (mut first, mut last, mut prev_last, mut movable) = (i32::MAX, 0i32, 0i32, false);
    let mut i = 0;
    while i < specs.len() {
        let s = specs[i];
        i += 1;
        let (pos, lastkey, step) = match (s.begin, s.find) {
            (Begin::Index(pos), Find::Range { lastkey, step, .. }) => (pos, lastkey, step),
            _ => {
                movable = true;
                continue;
            }
        };
        if step != 1 || (prev_last != 0 && prev_last != pos - 1) {
            movable = true;
            continue;
        }
        if s.flags & INCOMPLETE != 0 {
            movable = true;
        }
        if pos < first {
            first = pos;
        }
        let abs = if lastkey >= 0 { lastkey + pos } else { lastkey };
        // Compared unsigned, as Redis does: a negative (from the end) last wins.
        if abs as u32 > last as u32 {
            last = abs;
        }
        prev_last = last;
    }
    if first == i32::MAX {
        return KeyLayout { movable: true, ..none };
    }
    KeyLayout { first, last, step: 1, movable, plain: false }
}

/// The argv positions (and flags) of the keys one spec finds, Redis's way; `Err` when the spec
/// cannot tell (unknown, a bad key count, out of bounds).
fn spec_positions(spec: &KeySpec, argv: &[&[u8]]) -> Result<(i32, i32, i32), ()> {
    let argc = argv.len() as i32;
    let first = match spec.begin {
        Begin::Index(pos) => pos,
        Begin::Keyword { keyword, startfrom } => {
            let found = if startfrom > 0 {
                (startfrom..argc - 1).find(|&i| argv[i as usize].eq_ignore_ascii_case(keyword.as_bytes()))
            } else {
                (2..=argc + startfrom).rev().find(|&i| argv[i as usize].eq_ignore_ascii_case(keyword.as_bytes()))
            };
            match found {
                Some(i) => i + 1,
                // No keyword, no keys: not an error.
                None => return Ok((1, 0, 1)),
            }
        }
        Begin::Unknown => return Err(()),
    };
    let (first, last, step) = match spec.find {
        Find::Range { lastkey, step, limit } => {
            let last = if lastkey >= 0 {
                first + lastkey
            } else if limit == 0 {
                argc + lastkey
            } else {
                first + ((argc - first) / limit + lastkey)
            };
            (first, last, step)
        }
        Find::Keynum { keynumidx, firstkey, step } => {
            let at = first + keynumidx;
            let n = argv.get(at as usize).and_then(|a| std::str::from_utf8(a).ok()?.parse::<i64>().ok());
            match n {
                Some(n) if n >= 0 && n <= argc as i64 => (first + firstkey, first + firstkey + n as i32 - 1, step),
                _ => return Err(()),
            }
        }
        Find::Unknown => return Err(()),
    };
    if last >= argc || last < first || first >= argc {
        return Err(());
    }
    Ok((first, last, step.max(1)))
}

/// COMMAND GETKEYS's answer from the specs alone, as Redis's spec search: every real key's
/// position and flags, or `Err` if any spec cannot tell (the command's own extraction then
/// decides, see `Command::getkeys`).
pub fn positions(specs: &[KeySpec], argv: &[&[u8]]) -> Result<Vec<(usize, u16)>, ()> {
    let mut out = Vec::new();
    for spec in specs.iter().filter(|s| s.flags & NOT_KEY == 0) {
        let (first, last, step) = spec_positions(spec, argv)?;
        if first > last {
            continue; // a keyword that is absent
        }
        out.extend((first..=last).step_by(step as usize).map(|i| (i as usize, spec.flags)));
        if spec.flags & INCOMPLETE != 0 {
            return Err(());
        }
    }
    Ok(out)
}

/// The keys dispatch locks: the plain range as before specs existed (GET, MSET), or each
/// spec's keys, leniently: a spec that cannot tell locks every argument it might name, so a
/// handler that goes on to refuse the arguments never touches an unlocked key.
pub struct Keys<'a> {
    argv: &'a [&'a [u8]],
    specs: &'static [KeySpec],
    next_spec: usize,
    at: i32,
    last: i32,
    step: i32,
}

impl<'a> Keys<'a> {
    pub(crate) fn new(argv: &'a [&'a [u8]], specs: &'static [KeySpec], layout: &KeyLayout) -> Keys<'a> {
        if layout.plain {
            let argc = argv.len() as i32;
            let first = layout.first;
            let last = if layout.last < 0 { argc + layout.last } else { layout.last.min(argc - 1) };
            return Keys { argv, specs: &[], next_spec: 0, at: first, last, step: layout.step.max(1) };
        }
        Keys { argv, specs, next_spec: 0, at: 1, last: 0, step: 1 }
    }

    /// Loads the next spec's range; false when there is none.
    fn next_range(&mut self) -> bool {
        let argc = self.argv.len() as i32;
        while let Some(spec) = self.specs.get(self.next_spec) {
            self.next_spec += 1;
            if spec.flags & NOT_KEY != 0 {
                continue;
            }
            let (first, last, step) = match spec_positions(spec, self.argv) {
                Ok(r) => r,
                Err(()) => match (spec.begin, spec.find) {
                    // A bad key count: every argument from the first key on.
                    (Begin::Index(pos), Find::Keynum { firstkey, step, .. }) => (pos + firstkey, argc - 1, step.max(1)),
                    (Begin::Index(pos), Find::Range { step, .. }) => (pos, argc - 1, step.max(1)),
                    // Unknown keys: the row locks every shard (ALL_SHARDS).
                    _ => continue,
                },
            };
            (self.at, self.last, self.step) = (first, last.min(argc - 1), step);
            return true;
        }
        false
    }
}

impl<'a> Iterator for Keys<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        loop {
            if self.at <= self.last && self.at > 0 {
                let i = self.at;
                self.at += self.step;
                if let Some(k) = self.argv.get(i as usize) {
                    return Some(k);
                }
            }
            if !self.next_range() {
                return None;
            }
        }
    }
}

/// SORT's own key extraction (its STORE destination is a spec Redis cannot express): the
/// sorted key, and the last STORE's argument, skipping LIMIT's, GET's and BY's values.
pub fn sort_keys(argv: &[&[u8]]) -> Vec<(usize, u16)> {
    let mut keys = vec![(1, RO | ACCESS)];
    let mut store = None;
    let mut i = 2;
    while i < argv.len() {
        let a = argv[i];
        if a.eq_ignore_ascii_case(b"limit") {
            i += 2;
        } else if a.eq_ignore_ascii_case(b"get") || a.eq_ignore_ascii_case(b"by") {
            i += 1;
        } else if a.eq_ignore_ascii_case(b"store") && i + 1 < argv.len() {
            store = Some(i + 1);
        }
        i += 1;
    }
    keys.extend(store.map(|at| (at, OW | UPDATE)));
    keys
}

/// SORT_RO's: the sorted key.
pub fn sort_ro_keys(_argv: &[&[u8]]) -> Vec<(usize, u16)> {
    vec![(1, RO | ACCESS)]
}

/// BITFIELD's (Redis's `bitfieldGetKeys`): read-only while its arguments hold only GETs and
/// OVERFLOWs up to the first SET or INCRBY; anything else, a bad argument too, counts as a write.
pub fn bitfield_keys(argv: &[&[u8]]) -> Vec<(usize, u16)> {
    let mut i = 2;
    let mut read_only = true;
    while i < argv.len() {
        let left = argv.len() - i - 1;
        let a = argv[i];
        if a.eq_ignore_ascii_case(b"get") && left >= 2 {
            i += 3;
        } else if a.eq_ignore_ascii_case(b"overflow") && left >= 1 {
            i += 2;
        } else {
            read_only = false;
            break;
        }
    }
    vec![(1, if read_only { RO | ACCESS } else { RW | ACCESS | UPDATE })]
}

/// SET's: its key's flags depend on GET (read and written) or not (overwritten).
pub fn set_keys(argv: &[&[u8]]) -> Vec<(usize, u16)> {
    let get = argv.iter().skip(3).any(|a| a.eq_ignore_ascii_case(b"get"));
    vec![(1, if get { RW | ACCESS | UPDATE } else { OW | UPDATE })]
}
