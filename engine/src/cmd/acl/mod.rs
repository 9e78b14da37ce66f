//! ACL's subcommands: define, show and delete users, list categories, try a command as a user
//! (DRYRUN), make a password, read the log of refusals, and save or load the aclfile. Each is
//! a row of the command table under ACL; the rules themselves are `crate::acl`'s.

use crate::acl::{Selector, User, CATEGORIES};
use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::reply::Reply;
use crate::table;

use super::help_reply;

/// GENPASS's largest size, in bits, and its default.
const GENPASS_MAX_BITS: i64 = 4096;
const GENPASS_DEFAULT_BITS: i64 = 256;

/// ACL LOG's entries when no count is given.
const LOG_DEFAULT_COUNT: usize = 10;

/// Redis's reply to a subcommand given more arguments than its own check takes (the table's
/// arity lets them through: `ACL CAT a b`).
fn too_many(ctx: &Ctx<'_>) -> CmdError {
    CmdError::err(format!(
        "unknown subcommand or wrong number of arguments for '{}'. Try ACL HELP.",
        String::from_utf8_lossy(ctx.argv[1]),
    ))
}

/// Creates the user or changes it, all rules or none (the first bad one is the error).
///
/// ```text
/// ACL SETUSER username [rule [rule ...]]
/// ```
pub fn setuser(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let name = args.bytes()?;
    crate::acl::rules::valid_username(name)?;
    let rules = args.rest();
    ctx.engine.acl_set_user(name, rules, ctx.engine.config().acl_pubsub_all())?;
    Ok(Reply::Ok)
}

/// The user's flags, password hashes and permissions (the root selector's, then each other
/// selector's); nil for an unknown user.
///
/// ```text
/// ACL GETUSER username
/// ```
pub fn getuser(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let name = args.bytes()?;
    let Some(user) = ctx.engine.acl().user(name) else { return Ok(Reply::Nil) };
    Ok(getuser_reply(&user))
}

/// GETUSER's map: `flags` (a set), `passwords`, the root selector's `commands`, `keys` and
/// `channels`, and `selectors` (a map each).
fn getuser_reply(user: &User) -> Reply {
    let flags = user.flags().into_iter().map(Reply::bulk).collect();
    let passwords = user.password_hexes().into_iter().map(Reply::bulk).collect();
    let mut fields =
        vec![(Reply::bulk("flags"), Reply::Set(flags)), (Reply::bulk("passwords"), Reply::Array(passwords))];
    fields.extend(selector_fields(user.root()));
    let selectors = user.selectors.iter().skip(1).map(|s| Reply::Map(selector_fields(s))).collect();
    fields.push((Reply::bulk("selectors"), Reply::Array(selectors)));
    Reply::Map(fields)
}

fn selector_fields(s: &Selector) -> Vec<(Reply, Reply)> {
    vec![
        (Reply::bulk("commands"), Reply::bulk(s.describe_commands())),
        (Reply::bulk("keys"), Reply::bulk(s.describe_keys())),
        (Reply::bulk("channels"), Reply::bulk(s.describe_channels())),
    ]
}

/// Lower-case hex, as GENPASS's passwords.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Deletes the users that exist and disconnects their clients; `default` refuses the call.
///
/// ```text
/// ACL DELUSER username [username ...]
/// ```
pub fn deluser(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let removed = ctx.engine.acl().delete_users(args.rest())?;
    let names: Vec<&[u8]> = removed.iter().map(|u| u.name.as_slice()).collect();
    ctx.engine.disconnect_users(&names);
    Ok(Reply::Int(removed.len() as i64))
}

/// Every user's name, sorted.
///
/// ```text
/// ACL USERS
/// ```
pub fn users(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(Reply::Array(ctx.engine.acl().users().iter().map(|u| Reply::bulk(&u.name)).collect()))
}

/// Every user as its config-file line (`user default on nopass ~* &* +@all`), sorted.
///
/// ```text
/// ACL LIST
/// ```
pub fn list(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(Reply::Array(ctx.engine.acl().users().iter().map(|u| Reply::bulk(u.describe())).collect()))
}

/// The user this connection acts as.
///
/// ```text
/// ACL WHOAMI
/// ```
pub fn whoami(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(Reply::bulk(&ctx.engine.session_user(ctx.session).name))
}

/// The 21 categories, or the commands of one (full names, subcommands as `config|get`).
///
/// ```text
/// ACL CAT [category]
/// ```
pub fn cat(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    if args.len() > 1 {
        return Err(too_many(ctx));
    }
    let Some(name) = args.peek() else {
        return Ok(Reply::Array(CATEGORIES.iter().map(|c| Reply::bulk(*c)).collect()));
    };
    let Some(at) = crate::acl::user::category_index(name) else {
        return Err(CmdError::err(format!("Unknown category '{}'", String::from_utf8_lossy(name))));
    };
    let masks = crate::acl::user::category_masks();
    let names = table::rows()
        .iter()
        .zip(masks)
        .filter(|(_, mask)| *mask & (1 << at) != 0)
        .map(|(cmd, _)| Reply::bulk(cmd.full_name()))
        .collect();
    Ok(Reply::Array(names))
}

/// Whether the user may run the command as given, without running it or logging: `+OK`, or
/// the refusal as a bulk string.
///
/// ```text
/// ACL DRYRUN username command [arg [arg ...]]
/// ```
pub fn dryrun(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let user = args.bytes()?;
    match ctx.engine.acl_dryrun(user, args.rest())? {
        None => Ok(Reply::Ok),
        Some(refusal) => Ok(Reply::bulk(refusal)),
    }
}

/// A random password of `bits` bits (256 by default) as hex: ceil(bits / 4) characters.
///
/// ```text
/// ACL GENPASS [bits]
/// ```
pub fn genpass(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    if args.len() > 1 {
        return Err(too_many(ctx));
    }
    let bits = if args.is_empty() { GENPASS_DEFAULT_BITS } else { args.int()? };
    if bits <= 0 || bits > GENPASS_MAX_BITS {
        return Err(CmdError::err(format!(
            "ACL GENPASS argument must be the number of bits for the output password, a positive number up to \
             {GENPASS_MAX_BITS}"
        )));
    }
    let chars = (bits as usize).div_ceil(4);
    let mut random = vec![0u8; chars.div_ceil(2)];
    if !ctx.engine.config().fill_random(&mut random) {
        return Err(CmdError::err("ACL GENPASS needs a random source and this host has none working"));
    }
    let mut text = hex(&random);
    text.truncate(chars);
    Ok(Reply::bulk(text))
}

/// The latest refusals, newest first (10 by default), or `RESET` to empty the log.
///
/// ```text
/// ACL LOG [count | RESET]
/// ```
pub fn log(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    if args.len() > 1 {
        return Err(too_many(ctx));
    }
    let mut count = LOG_DEFAULT_COUNT;
    if let Some(arg) = args.peek() {
        if arg.eq_ignore_ascii_case(b"RESET") {
            ctx.engine.acl().log.lock().reset();
            return Ok(Reply::Ok);
        }
        count = args.int()?.max(0) as usize;
    }
    let now = ctx.now;
    let entries = ctx.engine.acl().log.lock().entries(count);
    let entries = entries
        .iter()
        .map(|e| {
            // Printed as a double with 17 significant digits, as Redis does.
            let age = e.age_seconds(now);
            Reply::Map(vec![
                (Reply::bulk("count"), Reply::Int(e.count as i64)),
                (Reply::bulk("reason"), Reply::bulk(e.reason.as_str())),
                (Reply::bulk("context"), Reply::bulk(e.context.as_str())),
                (Reply::bulk("object"), Reply::bulk(&e.object)),
                (Reply::bulk("username"), Reply::bulk(&e.username)),
                (Reply::bulk("age-seconds"), Reply::Double(age)),
                (Reply::bulk("client-info"), Reply::bulk(&e.client_info)),
            ])
        })
        .collect();
    Ok(Reply::Array(entries))
}

/// Writes every user to the aclfile (the host does the writing).
///
/// ```text
/// ACL SAVE
/// ```
pub fn save(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    ctx.engine.acl_save_file()?;
    Ok(Reply::Ok)
}

/// Replaces every user with the aclfile's, all or nothing, then disconnects the clients of
/// every user but `default` (Redis 7.0 frees them all, changed or not).
///
/// ```text
/// ACL LOAD
/// ```
pub fn load(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let before = ctx.engine.acl_load_file()?;
    let names: Vec<&[u8]> = before.iter().map(Vec::as_slice).collect();
    ctx.engine.disconnect_users(&names);
    Ok(Reply::Ok)
}

/// ACL's subcommands.
///
/// ```text
/// ACL HELP
/// ```
pub fn help(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(help_reply(&[
        "ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "CAT [<category>]",
        "    List all commands that belong to <category>, or all command categories",
        "    when no category is specified.",
        "DELUSER <username> [<username> ...]",
        "    Delete a list of users.",
        "DRYRUN <username> <command> [<arg> ...]",
        "    Returns whether the user can execute the given command without executing the command.",
        "GETUSER <username>",
        "    Get the user's details.",
        "GENPASS [<bits>]",
        "    Generate a secure 256-bit user password. The optional `bits` argument can",
        "    be used to specify a different size.",
        "LIST",
        "    Show users details in config file format.",
        "LOAD",
        "    Reload users from the ACL file.",
        "LOG [<count> | RESET]",
        "    Show the ACL log entries.",
        "SAVE",
        "    Save the current config to the ACL file.",
        "SETUSER <username> <attribute> [<attribute> ...]",
        "    Create or modify a user with the specified attributes.",
        "USERS",
        "    List all the registered usernames.",
        "WHOAMI",
        "    Return the current connection username.",
        "HELP",
        "    Prints this help.",
    ]))
}

#[cfg(test)]
mod tests;
