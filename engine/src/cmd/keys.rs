//! keys commands (stubs until implemented).

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::reply::Reply;

/// DEL (not implemented yet)
pub fn del(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// UNLINK (not implemented yet)
pub fn unlink(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// EXISTS (not implemented yet)
pub fn exists(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// TYPE (not implemented yet)
pub fn type_(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// EXPIRE (not implemented yet)
pub fn expire(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// PEXPIRE (not implemented yet)
pub fn pexpire(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// EXPIREAT (not implemented yet)
pub fn expireat(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// PEXPIREAT (not implemented yet)
pub fn pexpireat(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// TTL (not implemented yet)
pub fn ttl(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// PTTL (not implemented yet)
pub fn pttl(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// EXPIRETIME (not implemented yet)
pub fn expiretime(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// PEXPIRETIME (not implemented yet)
pub fn pexpiretime(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// PERSIST (not implemented yet)
pub fn persist(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// RENAME (not implemented yet)
pub fn rename(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// RENAMENX (not implemented yet)
pub fn renamenx(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// KEYS (not implemented yet)
pub fn keys(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// SCAN (not implemented yet)
pub fn scan(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// RANDOMKEY (not implemented yet)
pub fn randomkey(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// DBSIZE (not implemented yet)
pub fn dbsize(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// FLUSHDB (not implemented yet)
pub fn flushdb(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// FLUSHALL (not implemented yet)
pub fn flushall(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// TOUCH (not implemented yet)
pub fn touch(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// OBJECT (not implemented yet)
pub fn object(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}

/// MEMORY (not implemented yet)
pub fn memory(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Err(CmdError::err("not implemented"))
}
