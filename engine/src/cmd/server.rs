//! server commands (stubs until implemented).

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::reply::Reply;

/// PING (not implemented yet)
pub fn ping(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// ECHO (not implemented yet)
pub fn echo(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// QUIT (not implemented yet)
pub fn quit(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// SELECT (not implemented yet)
pub fn select(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// HELLO (not implemented yet)
pub fn hello(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// AUTH (not implemented yet)
pub fn auth(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// CLIENT (not implemented yet)
pub fn client(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// COMMAND (not implemented yet)
pub fn command(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// INFO (not implemented yet)
pub fn info(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// CONFIG (not implemented yet)
pub fn config(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// TIME (not implemented yet)
pub fn time(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// LASTSAVE (not implemented yet)
pub fn lastsave(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}
