//! COMMAND and its subcommands: the command table as Redis 7 reports it, subcommands
//! included (COMMAND INFO nests each container's subcommand entries, COMMAND DOCS maps them,
//! COMMAND LIST names them `container|sub`).

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::glob;
use crate::reply::Reply;
use crate::table::keyspec::{self, Begin, Find, KeySpec};
use crate::table::{lookup, lookup_full_name, lookup_subcommand, Arg, Command, COMMANDS};

use super::help_reply;

/// One command's COMMAND INFO entry, Redis 7's ten fields: name, arity, flags, first key,
/// last key, step, ACL categories, tips, key specs, subcommands' entries.
fn info_entry(c: &Command) -> Reply {
    let meta = c.meta();
    let layout = &c.key_layout;
    Reply::Array(vec![
        Reply::bulk(c.full_name()),
        Reply::Int(c.arity as i64),
        Reply::Set(c.info_flags().into_iter().map(Reply::status).collect()),
        Reply::Int(layout.first as i64),
        Reply::Int(layout.last as i64),
        Reply::Int(layout.step as i64),
        Reply::Set(meta.acl_categories.iter().map(|&n| Reply::status(n)).collect()),
        Reply::Set(meta.tips.iter().map(|&t| Reply::bulk(t)).collect()),
        Reply::Set(c.key_specs.iter().map(key_spec).collect()),
        // Redis answers an empty set for a command without subcommands, an array otherwise.
        if c.is_container() {
            Reply::Array(c.subcommands.iter().map(info_entry).collect())
        } else {
            Reply::Set(vec![])
        },
    ])
}

fn key_flags(flags: u16) -> Reply {
    Reply::Set(keyspec::key_flag_names(flags).map(Reply::status).collect())
}

/// A key spec as COMMAND INFO shows it: notes, flags, begin_search and find_keys maps.
fn key_spec(k: &KeySpec) -> Reply {
    let s = |t: &str| Reply::bulk(t);
    let int = |n: i32| Reply::Int(n as i64);
    let typed =
        |kind: &str, spec: Vec<(Reply, Reply)>| Reply::Map(vec![(s("type"), s(kind)), (s("spec"), Reply::Map(spec))]);
    let begin = match k.begin {
        Begin::Index(pos) => typed("index", vec![(s("index"), int(pos))]),
        Begin::Keyword { keyword, startfrom } => {
            typed("keyword", vec![(s("keyword"), s(keyword)), (s("startfrom"), int(startfrom))])
        }
        Begin::Unknown => typed("unknown", vec![]),
    };
    let find = match k.find {
        Find::Range { lastkey, step, limit } => {
            typed("range", vec![(s("lastkey"), int(lastkey)), (s("keystep"), int(step)), (s("limit"), int(limit))])
        }
        Find::Keynum { keynumidx, firstkey, step } => typed(
            "keynum",
            vec![(s("keynumidx"), int(keynumidx)), (s("firstkey"), int(firstkey)), (s("keystep"), int(step))],
        ),
        Find::Unknown => typed("unknown", vec![]),
    };
    let mut fields = Vec::with_capacity(4);
    if let Some(notes) = k.notes {
        fields.push((s("notes"), s(notes)));
    }
    fields.extend([(s("flags"), key_flags(k.flags)), (s("begin_search"), begin), (s("find_keys"), find)]);
    Reply::Map(fields)
}

/// Arguments as COMMAND DOCS lists them: a map per argument, nested for `oneof` and `block`.
fn args_reply(args: &[Arg]) -> Reply {
    let s = |t: &str| Reply::bulk(t);
    Reply::Array(
        args.iter()
            .map(|a| {
                let mut m = vec![(s("name"), s(a.name)), (s("type"), s(a.kind))];
                if a.key_spec_index >= 0 {
                    m.push((s("key_spec_index"), Reply::Int(a.key_spec_index as i64)));
                }
                let optional = [
                    ("token", a.token),
                    ("summary", a.summary),
                    ("since", a.since),
                    ("deprecated_since", a.deprecated_since),
                ];
                m.extend(optional.into_iter().filter_map(|(k, v)| Some((s(k), s(v?)))));
                if !a.flags.is_empty() {
                    m.push((s("flags"), Reply::Set(a.flags.iter().map(|&f| Reply::status(f)).collect())));
                }
                if matches!(a.kind, "oneof" | "block") {
                    m.push((s("arguments"), args_reply(a.args)));
                }
                Reply::Map(m)
            })
            .collect(),
    )
}

/// One command's COMMAND DOCS map (Redis's fields, each only when it has a value), with a
/// `subcommands` map for a container.
fn docs_entry(c: &Command) -> Reply {
    let s = |t: &str| Reply::bulk(t);
    let meta = c.meta();
    let mut fields = vec![(s("summary"), s(c.summary))];
    fields.extend(meta.since.map(|v| (s("since"), s(v))));
    fields.push((s("group"), s(c.group)));
    fields.extend(meta.complexity.map(|v| (s("complexity"), s(v))));
    if !meta.doc_flags.is_empty() {
        fields.push((s("doc_flags"), Reply::Set(meta.doc_flags.iter().map(|&f| Reply::status(f)).collect())));
    }
    fields.extend(meta.deprecated_since.map(|v| (s("deprecated_since"), s(v))));
    fields.extend(meta.replaced_by.map(|v| (s("replaced_by"), s(v))));
    if !meta.history.is_empty() {
        let history = meta.history.iter().map(|(v, change)| Reply::Array(vec![s(v), s(change)]));
        fields.push((s("history"), Reply::Set(history.collect())));
    }
    if !meta.args.is_empty() {
        fields.push((s("arguments"), args_reply(meta.args)));
    }
    if c.is_container() {
        fields.push((s("subcommands"), docs_map(c.subcommands.iter())));
    }
    Reply::Map(fields)
}

fn docs_map<'a>(commands: impl Iterator<Item = &'a Command>) -> Reply {
    Reply::Map(commands.map(|c| (Reply::bulk(c.full_name()), docs_entry(c))).collect())
}

/// Every command's COMMAND INFO entry (what COMMAND alone and COMMAND INFO alone answer).
fn all_info() -> Reply {
    Reply::Array(COMMANDS.iter().map(info_entry).collect())
}

/// The command table, as Redis's COMMAND reports it: every command's entry.
///
/// ```text
/// COMMAND
/// ```
pub fn all(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(all_info())
}

/// How many commands there are (containers count once, as in Redis).
///
/// ```text
/// COMMAND COUNT
/// ```
pub fn count(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(Reply::Int(COMMANDS.len() as i64))
}

/// Every command's full name, each container followed by its subcommands (`client|list`),
/// optionally filtered. Vitrine has no modules; ACL categories are Redis's.
///
/// ```text
/// COMMAND LIST [FILTERBY <MODULE module-name | ACLCAT category | PATTERN pattern>]
/// ```
pub fn list(_ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let mut filter: Option<(String, &[u8])> = None;
    while !args.is_empty() {
        // As Redis: FILTERBY must be followed by exactly a type and its argument.
        if args.len() != 3 || !args.flag("FILTERBY") {
            return Err(CmdError::Syntax);
        }
        let kind = args.option()?;
        if !matches!(kind.as_str(), "MODULE" | "ACLCAT" | "PATTERN") {
            return Err(CmdError::Syntax);
        }
        filter = Some((kind, args.bytes()?));
    }
    let keep = |c: &Command| match &filter {
        None => true,
        Some((kind, arg)) => match kind.as_str() {
            "PATTERN" => glob::matches_case(arg, c.full_name().as_bytes(), true),
            // `write` or `@write`? Redis takes the bare name only; an unknown one matches nothing.
            "ACLCAT" => c.meta().acl_categories.iter().any(|n| n.as_bytes()[1..].eq_ignore_ascii_case(arg)),
            _ => false,
        },
    };
    let every = COMMANDS.iter().flat_map(|c| std::iter::once(c).chain(c.subcommands));
    Ok(Reply::Array(every.filter(|c| keep(c)).map(|c| Reply::bulk(c.full_name())).collect()))
}

/// The COMMAND INFO entry of each named command (`name` or `container|sub`), a nil bulk for
/// an unknown one (Redis's `addReplyNull`: `$-1` in RESP2); every command's without names.
///
/// ```text
/// COMMAND INFO [command-name [command-name ...]]
/// ```
pub fn info(_ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    if args.is_empty() {
        return Ok(all_info());
    }
    let entries = args.rest().iter().map(|n| lookup_full_name(n).map_or(Reply::Nil, info_entry));
    Ok(Reply::Array(entries.collect()))
}

/// The documentation of each named command that exists (unknown ones are left out), or of
/// every command.
///
/// ```text
/// COMMAND DOCS [command-name [command-name ...]]
/// ```
pub fn docs(_ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    if args.is_empty() {
        return Ok(docs_map(COMMANDS.iter()));
    }
    Ok(docs_map(args.rest().iter().filter_map(|n| lookup_full_name(n))))
}

/// The command that `COMMAND GETKEYS` names, with Redis's checks: it exists (a container
/// with a subcommand names the subcommand), it has keys, its arity fits.
fn getkeys_target(argv: &[&[u8]]) -> Result<Vec<(usize, u16)>, CmdError> {
    let invalid = || CmdError::err("Invalid command specified");
    let (index, base) = lookup(argv.first().ok_or_else(invalid)?).ok_or_else(invalid)?;
    let cmd = match argv.get(1) {
        Some(sub) if base.is_container() => lookup_subcommand(index, base, sub).ok_or_else(invalid)?.1,
        _ => base,
    };
    if !cmd.has_keys() {
        return Err(CmdError::err("The command has no key arguments"));
    }
    let argc = argv.len() as i32;
    if (cmd.arity > 0 && cmd.arity != argc) || argc < -cmd.arity {
        return Err(CmdError::err("Invalid number of arguments specified for command"));
    }
    let keys = match cmd.getkeys(argv) {
        Some(keys) => keys,
        None if cmd.meta().flags.contains(&"no_mandatory_keys") => vec![],
        None => return Err(CmdError::err("Invalid arguments specified for command")),
    };
    Ok(keys)
}

/// The keys a full command line names, as the key specs find them.
///
/// ```text
/// COMMAND GETKEYS command [arg [arg ...]]
/// ```
pub fn getkeys(_ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let argv = args.rest();
    let keys = getkeys_target(argv)?;
    Ok(Reply::Array(keys.iter().map(|&(at, _)| Reply::bulk(argv[at])).collect()))
}

/// The keys a full command line names, each with its key-spec flags.
///
/// ```text
/// COMMAND GETKEYSANDFLAGS command [arg [arg ...]]
/// ```
pub fn getkeysandflags(_ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let argv = args.rest();
    let keys = getkeys_target(argv)?;
    let entry = |&(at, flags): &(usize, u16)| Reply::Array(vec![Reply::bulk(argv[at]), key_flags(flags)]);
    Ok(Reply::Array(keys.iter().map(entry).collect()))
}

/// COMMAND's subcommands.
///
/// ```text
/// COMMAND HELP
/// ```
pub fn help(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(help_reply(&[
        "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "(no subcommand)",
        "    Return details about all Redis commands.",
        "COUNT",
        "    Return the total number of commands in this Redis server.",
        "LIST",
        "    Return a list of all commands in this Redis server.",
        "INFO [<command-name> ...]",
        "    Return details about multiple Redis commands.",
        "    If no command names are given, documentation details for all",
        "    commands are returned.",
        "DOCS [<command-name> ...]",
        "    Return documentation details about multiple Redis commands.",
        "    If no command names are given, documentation details for all",
        "    commands are returned.",
        "GETKEYS <full-command>",
        "    Return the keys from a full Redis command.",
        "GETKEYSANDFLAGS <full-command>",
        "    Return the keys and the access flags from a full Redis command.",
    ]))
}

#[cfg(test)]
mod tests {
    use crate::table::{rows, COMMANDS};
    use crate::testing::*;
    use crate::Reply;

    #[test]
    fn command_table_introspection() {
        let mut t = TestEngine::default();
        assert_eq!(t.run(&["COMMAND", "COUNT"]), int(crate::table::COMMANDS.len() as i64));
        let Reply::Array(info) = t.run(&["COMMAND", "INFO", "get", "nosuch"]) else { panic!() };
        assert_eq!(info[1], Reply::Nil);
        let Reply::Array(get) = &info[0] else { panic!() };
        assert_eq!(get[0], bulk("get"));
        assert_eq!(get[1], int(2));
        let Reply::Map(docs) = t.run(&["COMMAND", "DOCS", "set"]) else { panic!() };
        assert_eq!(docs[0].0, bulk("set"));
    }

    /// The fields of a COMMAND INFO entry: name, arity, first, last, step, subcommand names.
    fn entry(reply: &Reply) -> (Reply, Reply, Reply, Reply, Reply, Vec<Reply>) {
        let Reply::Array(e) = reply else { panic!("{reply:?}") };
        // Redis: an array of entries for a container, an empty set for any other command.
        let (Reply::Array(subs) | Reply::Set(subs)) = &e[9] else { panic!("{reply:?}") };
        let names = subs.iter().map(|s| if let Reply::Array(s) = s { s[0].clone() } else { panic!() }).collect();
        (e[0].clone(), e[1].clone(), e[3].clone(), e[4].clone(), e[5].clone(), names)
    }

    #[test]
    fn command_info_nests_subcommands_and_finds_them_by_full_name() {
        let mut t = TestEngine::default();
        let Reply::Array(info) = t.run(&["COMMAND", "INFO", "object", "OBJECT|ENCODING", "memory|usage", "get|x"])
        else {
            panic!()
        };
        let (name, arity, first, last, step, subs) = entry(&info[0]);
        assert_eq!((name, arity, first, last, step), (bulk("object"), int(-2), int(0), int(0), int(0)));
        assert!(subs.contains(&bulk("object|encoding")) && subs.contains(&bulk("object|help")), "{subs:?}");
        let (name, arity, first, last, step, subs) = entry(&info[1]);
        assert_eq!((name, arity, first, last, step), (bulk("object|encoding"), int(3), int(2), int(2), int(1)));
        assert!(subs.is_empty());
        let (name, arity, first, ..) = entry(&info[2]);
        assert_eq!((name, arity, first), (bulk("memory|usage"), int(-3), int(2)));
        assert_eq!(info[3], Reply::Nil);
        // COMMAND alone and COMMAND INFO alone: every command once, subcommands nested.
        let Reply::Array(all) = t.run(&["COMMAND"]) else { panic!() };
        assert_eq!(all.len(), COMMANDS.len());
        assert_eq!(t.run(&["COMMAND", "INFO"]), Reply::Array(all));
    }

    #[test]
    fn command_docs_maps_subcommands() {
        let mut t = TestEngine::default();
        let Reply::Map(docs) = t.run(&["COMMAND", "DOCS", "config", "config|get", "nosuch"]) else { panic!() };
        assert_eq!(docs.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>(), vec![bulk("config"), bulk("config|get")]);
        let Reply::Map(config) = &docs[0].1 else { panic!() };
        let subs = config.iter().find(|(k, _)| *k == bulk("subcommands")).map(|(_, v)| v.clone());
        let Some(Reply::Map(subs)) = subs else { panic!("{config:?}") };
        assert!(subs.iter().any(|(k, _)| *k == bulk("config|set")));
        let Reply::Map(get) = &docs[1].1 else { panic!() };
        assert!(get.contains(&(bulk("summary"), bulk("Returns the effective values of configuration parameters."))));
        assert!(!get.iter().any(|(k, _)| *k == bulk("subcommands")));
    }

    #[test]
    fn command_list_names_every_row_and_filters() {
        let mut t = TestEngine::default();
        let Reply::Array(names) = t.run(&["COMMAND", "LIST"]) else { panic!() };
        assert_eq!(names.len(), rows().len());
        let at = |n: &str| names.iter().position(|x| *x == bulk(n)).unwrap_or_else(|| panic!("no {n}"));
        assert_eq!(at("client") + 1, at("client|id"), "a container is followed by its subcommands");
        assert_eq!(
            t.run(&["COMMAND", "LIST", "FILTERBY", "PATTERN", "OBJECT|*"]),
            arr(["object|encoding", "object|freq", "object|idletime", "object|refcount", "object|help"]
                .iter()
                .map(|n| bulk(n))
                .collect())
        );
        assert_eq!(t.run(&["COMMAND", "LIST", "FILTERBY", "MODULE", "x"]), arr(vec![]));
        let Reply::Array(hash) = t.run(&["COMMAND", "LIST", "filterby", "aclcat", "hash"]) else { panic!() };
        assert!(hash.contains(&bulk("hget")) && !hash.contains(&bulk("get")));
        for bad in [
            &["COMMAND", "LIST", "x"][..],
            &["COMMAND", "LIST", "FILTERBY", "PATTERN"],
            &["COMMAND", "LIST", "FILTERBY", "NAME", "x"],
        ] {
            assert_eq!(t.run(bad), err("ERR syntax error"), "{bad:?}");
        }
        assert_eq!(t.run(&["COMMAND", "COUNT", "x"]), err("ERR wrong number of arguments for 'command|count' command"));
        assert_eq!(t.run(&["COMMAND", "HELP", "x"]), err("ERR wrong number of arguments for 'command|help' command"));
        assert_eq!(t.run(&["COMMAND", "FOO"]), err("ERR unknown subcommand 'FOO'. Try COMMAND HELP."));
    }

    #[test]
    fn command_info_reports_key_specs_categories_and_movablekeys() {
        let mut t = TestEngine::default();
        let Reply::Array(info) = t.run(&["COMMAND", "INFO", "lmpop", "get"]) else { panic!() };
        let Reply::Array(lmpop) = &info[0] else { panic!() };
        assert_eq!(lmpop[2], Reply::Set(vec![Reply::status("write"), Reply::status("movablekeys")]));
        assert_eq!((lmpop[3].clone(), lmpop[4].clone(), lmpop[5].clone()), (int(0), int(0), int(0)));
        assert_eq!(lmpop[6], Reply::Set(["@write", "@list", "@slow"].map(Reply::status).to_vec()));
        let Reply::Set(specs) = &lmpop[8] else { panic!() };
        let Reply::Map(spec) = &specs[0] else { panic!() };
        assert_eq!(spec[0], (bulk("flags"), Reply::Set(["RW", "access", "delete"].map(Reply::status).to_vec())));
        let find = Reply::Map(vec![
            (bulk("type"), bulk("keynum")),
            (
                bulk("spec"),
                Reply::Map(vec![(bulk("keynumidx"), int(0)), (bulk("firstkey"), int(1)), (bulk("keystep"), int(1))]),
            ),
        ]);
        assert_eq!(spec[2], (bulk("find_keys"), find));
        assert_eq!(lmpop[9], Reply::Set(vec![]), "no subcommands: an empty set, as Redis");
        let Reply::Array(get) = &info[1] else { panic!() };
        assert_eq!(get[6], Reply::Set(["@read", "@string", "@fast"].map(Reply::status).to_vec()));
    }

    #[test]
    fn command_docs_lists_arguments_and_history() {
        let mut t = TestEngine::default();
        let Reply::Map(docs) = t.run(&["COMMAND", "DOCS", "lpos"]) else { panic!() };
        let Reply::Map(lpos) = &docs[0].1 else { panic!() };
        let fields: Vec<Reply> = lpos.iter().map(|(k, _)| k.clone()).collect();
        assert_eq!(fields, ["summary", "since", "group", "complexity", "arguments"].map(bulk).to_vec());
        let Some((_, Reply::Array(args))) = lpos.iter().find(|(k, _)| *k == bulk("arguments")) else { panic!() };
        assert_eq!(args.len(), 5);
        let rank = Reply::Map(vec![
            (bulk("name"), bulk("rank")),
            (bulk("type"), bulk("integer")),
            (bulk("token"), bulk("RANK")),
            (bulk("flags"), Reply::Set(vec![Reply::status("optional")])),
        ]);
        assert_eq!(args[2], rank);
        let Reply::Map(docs) = t.run(&["COMMAND", "DOCS", "zadd"]) else { panic!() };
        let Reply::Map(zadd) = &docs[0].1 else { panic!() };
        assert!(zadd.iter().any(|(k, v)| *k == bulk("history") && matches!(v, Reply::Set(h) if h.len() >= 3)));
    }

    #[test]
    fn command_getkeys_answers_as_redis() {
        let mut t = TestEngine::default();
        assert_eq!(t.run(&["COMMAND", "GETKEYS", "MSET", "a", "1", "b", "2"]), arr(vec![bulk("a"), bulk("b")]));
        assert_eq!(
            t.run(&["COMMAND", "GETKEYSANDFLAGS", "LMOVE", "a", "b", "LEFT", "RIGHT"]),
            arr(vec![
                arr(vec![bulk("a"), Reply::Set(["RW", "access", "delete"].map(Reply::status).to_vec())]),
                arr(vec![bulk("b"), Reply::Set(["RW", "insert"].map(Reply::status).to_vec())]),
            ])
        );
        assert_eq!(t.run(&["COMMAND", "GETKEYS", "OBJECT", "ENCODING", "k"]), arr(vec![bulk("k")]));
        assert_eq!(t.run(&["COMMAND", "GETKEYS", "nosuch"]), err("ERR Invalid command specified"));
        assert_eq!(t.run(&["COMMAND", "GETKEYS", "CLIENT", "nosuch"]), err("ERR Invalid command specified"));
        assert_eq!(t.run(&["COMMAND", "GETKEYS", "PING"]), err("ERR The command has no key arguments"));
        assert_eq!(t.run(&["COMMAND", "GETKEYS", "OBJECT"]), err("ERR The command has no key arguments"));
        assert_eq!(t.run(&["COMMAND", "GETKEYS", "GET"]), err("ERR Invalid number of arguments specified for command"));
        assert_eq!(
            t.run(&["COMMAND", "GETKEYS", "GET", "a", "b"]),
            err("ERR Invalid number of arguments specified for command")
        );
        assert_eq!(
            t.run(&["COMMAND", "GETKEYS", "LMPOP", "0", "a", "LEFT"]),
            err("ERR Invalid arguments specified for command")
        );
        assert_eq!(t.run(&["COMMAND", "GETKEYS"]), err("ERR wrong number of arguments for 'command|getkeys' command"));
    }

    #[test]
    fn command_list_filters_by_redis_acl_category() {
        let mut t = TestEngine::default();
        let list = |t: &mut TestEngine, cat: &str| {
            let Reply::Array(names) = t.run(&["COMMAND", "LIST", "FILTERBY", "ACLCAT", cat]) else { panic!() };
            names
        };
        let blocking = list(&mut t, "Blocking");
        assert!(
            blocking.contains(&bulk("blpop"))
                && blocking.contains(&bulk("bzmpop"))
                && !blocking.contains(&bulk("lpop"))
        );
        let keyspace = list(&mut t, "keyspace");
        assert!(keyspace.contains(&bulk("del")) && keyspace.contains(&bulk("object|encoding")));
        assert!(list(&mut t, "@read").is_empty(), "Redis takes the bare name");
        assert!(list(&mut t, "nosuch").is_empty());
    }
}
