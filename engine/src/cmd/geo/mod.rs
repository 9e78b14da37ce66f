//! Geospatial commands on sorted sets of 52-bit geohashes: GEOADD, GEOPOS, GEODIST,
//! GEOHASH here, and the searches (GEOSEARCH, GEOSEARCHSTORE and the deprecated GEORADIUS
//! family) in `search`. The cell arithmetic lives in `crate::geo`.
//!
//! A geo index is an ordinary sorted set: GEOADD runs ZADD with the encoded scores (so its
//! keyspace event is `zadd` and it is logged as that ZADD, as Redis propagates it), and
//! every ZSET command works on it.

mod search;
#[cfg(test)]
mod tests;

pub use search::{georadius, georadius_ro, georadiusbymember, georadiusbymember_ro, geosearch, geosearchstore};

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::geo;
use crate::reply::Reply;
use crate::store::zset::ZSetValue;

/// The sorted set at `key` for a read (counts a keyspace hit or miss).
fn read<'a>(ctx: &'a mut Ctx<'_>, key: &[u8]) -> Result<Option<&'a ZSetValue>, CmdError> {
    crate::cmd::collection::read(ctx, key)
}

/// A double argument as Redis's `getDoubleFromObjectOrReply`, with its error text.
fn parse_double(arg: &[u8], error: Option<&str>) -> Result<f64, CmdError> {
    crate::cmd::zset::parse_score(arg).ok_or_else(|| match error {
        Some(text) => CmdError::err(text),
        None => CmdError::NotFloat,
    })
}

/// A longitude, latitude pair, checked against the storable limits.
fn parse_lon_lat(lon: &[u8], lat: &[u8]) -> Result<(f64, f64), CmdError> {
    let (lon, lat) = (parse_double(lon, None)?, parse_double(lat, None)?);
    if !geo::valid(lon, lat) {
        return Err(CmdError::err(format!("invalid longitude,latitude pair {lon:.6},{lat:.6}")));
    }
    Ok((lon, lat))
}

/// Meters per unit for `m`, `km`, `ft`, `mi`.
fn parse_unit(arg: &[u8]) -> Result<f64, CmdError> {
    const UNITS: [(&[u8], f64); 4] = [(b"m", 1.0), (b"km", 1000.0), (b"ft", 0.3048), (b"mi", 1609.34)];
    UNITS
        .iter()
        .find(|(name, _)| arg.eq_ignore_ascii_case(name))
        .map(|&(_, m)| m)
        .ok_or_else(|| CmdError::err("unsupported unit provided. please use M, KM, FT, MI"))
}

/// A distance as Redis prints it: rounded (ties to even) to four decimals, always four.
fn distance_reply(d: f64) -> Reply {
    if d == 0.0 {
        return Reply::bulk("0.0000");
    }
    let scaled = (d * 10000.0).round_ties_even();
    // Distances are finite and far below i64's range; the cast saturates otherwise.
    let v = scaled as i64;
    let (sign, v) = if v < 0 { ("-", v.unsigned_abs()) } else { ("", v as u64) };
    Reply::bulk(format!("{sign}{}.{:04}", v / 10000, v % 10000))
}

/// A point's coordinates: `[longitude, latitude]` in Redis's human long-double form.
fn coords_reply((lon, lat): (f64, f64)) -> Reply {
    Reply::Array(vec![Reply::HumanDouble(lon), Reply::HumanDouble(lat)])
}

/// Adds members at longitude, latitude points (stored as ZADD scores), or moves them. NX
/// only adds, XX only updates, CH counts moved members too.
///
/// ```text
/// GEOADD key [NX | XX] [CH] longitude latitude member [longitude latitude member ...]
/// ```
pub fn geoadd(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let mut options: Vec<&[u8]> = Vec::new();
    let (mut nx, mut xx) = (false, false);
    while let Some(opt) = args.peek() {
        if opt.eq_ignore_ascii_case(b"NX") {
            nx = true;
        } else if opt.eq_ignore_ascii_case(b"XX") {
            xx = true;
        } else if !opt.eq_ignore_ascii_case(b"CH") {
            break;
        }
        options.push(args.bytes()?);
    }
    let triples = args.rest();
    if !triples.len().is_multiple_of(3) || (nx && xx) {
        return Err(CmdError::Syntax);
    }
    // Redis turns the command into ZADD with every point encoded (all checked first).
    let mut zadd: Vec<Vec<u8>> = vec![b"ZADD".to_vec(), key.to_vec()];
    zadd.extend(options.iter().map(|o| o.to_vec()));
    for t in triples.chunks_exact(3) {
        let (lon, lat) = parse_lon_lat(t[0], t[1])?;
        let score = geo::score_of(lon, lat).unwrap_or(0);
        zadd.push(score.to_string().into_bytes());
        zadd.push(t[2].to_vec());
    }
    let argv: Vec<&[u8]> = zadd.iter().map(|a| a.as_slice()).collect();
    let reply = crate::cmd::zset::zadd(ctx, &mut Args::new(&argv[1..]))?;
    ctx.session.log_as = Some(vec![zadd]);
    Ok(reply)
}

/// The coordinates of members, nil for each one missing.
///
/// ```text
/// GEOPOS key [member [member ...]]
/// ```
pub fn geopos(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let members = args.rest();
    let z = read(ctx, key)?;
    let at = |m: &[u8]| z.and_then(|z| z.score(m)).map_or(Reply::NilArray, |s| coords_reply(geo::decode_score(s)));
    Ok(Reply::Array(members.iter().map(|m| at(m)).collect()))
}

/// The distance between two members (meters unless a unit is given), nil if either is
/// missing.
///
/// ```text
/// GEODIST key member1 member2 [M | KM | FT | MI]
/// ```
pub fn geodist(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let (a, b) = (args.bytes()?, args.bytes()?);
    let to_meters = match args.len() {
        0 => 1.0,
        1 => parse_unit(args.bytes()?)?,
        _ => return Err(CmdError::Syntax),
    };
    let Some(z) = read(ctx, key)? else { return Ok(Reply::Nil) };
    let (Some(sa), Some(sb)) = (z.score(a), z.score(b)) else { return Ok(Reply::Nil) };
    let ((lon1, lat1), (lon2, lat2)) = (geo::decode_score(sa), geo::decode_score(sb));
    Ok(distance_reply(geo::distance(lon1, lat1, lon2, lat2) / to_meters))
}

/// Members' positions as 11-character standard geohash strings, nil for each one missing.
///
/// ```text
/// GEOHASH key [member [member ...]]
/// ```
pub fn geohash(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let members = args.rest();
    let z = read(ctx, key)?;
    let at = |m: &[u8]| z.and_then(|z| z.score(m)).map_or(Reply::Nil, |s| Reply::bulk(geo::standard_hash(s)));
    Ok(Reply::Array(members.iter().map(|m| at(m)).collect()))
}
