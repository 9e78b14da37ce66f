//! string commands (stubs until implemented).

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::reply::Reply;

/// GET (not implemented yet)
pub fn get(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// SET (not implemented yet)
pub fn set(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// SETNX (not implemented yet)
pub fn setnx(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// SETEX (not implemented yet)
pub fn setex(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// PSETEX (not implemented yet)
pub fn psetex(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// MGET (not implemented yet)
pub fn mget(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// MSET (not implemented yet)
pub fn mset(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// MSETNX (not implemented yet)
pub fn msetnx(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// GETSET (not implemented yet)
pub fn getset(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// GETDEL (not implemented yet)
pub fn getdel(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// GETEX (not implemented yet)
pub fn getex(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// APPEND (not implemented yet)
pub fn append(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// STRLEN (not implemented yet)
pub fn strlen(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// GETRANGE (not implemented yet)
pub fn getrange(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// SETRANGE (not implemented yet)
pub fn setrange(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// INCR (not implemented yet)
pub fn incr(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// DECR (not implemented yet)
pub fn decr(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// INCRBY (not implemented yet)
pub fn incrby(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// DECRBY (not implemented yet)
pub fn decrby(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// INCRBYFLOAT (not implemented yet)
pub fn incrbyfloat(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// Bytes SETRANGE may add: its offset.
pub fn setrange_growth(argv: &[&[u8]]) -> usize {
    argv.get(2).and_then(|a| crate::args::parse_i64(a)).map(|n| n.max(0) as usize).unwrap_or(0)
}
