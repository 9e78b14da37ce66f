//! GEOSEARCH, GEOSEARCHSTORE and the deprecated GEORADIUS, GEORADIUSBYMEMBER and their
//! `_RO` forms: one parser and one search, as Redis's `georadiusGeneric`.
//!
//! The search scans the sorted set's score ranges of up to nine cells around the centre
//! (in Redis's order, skipping a cell equal to the one scanned just before), keeps the
//! points inside the area, then sorts them by distance when asked (or when COUNT is given
//! without ANY). Unsorted results come in scan order, as Redis's do.

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::geo::{self, Shape, ShapeKind};
use crate::notify::class;
use crate::reply::Reply;
use crate::store::zset::{ScoreBound, ZSetValue};

use super::{coords_reply, distance_reply, parse_double, parse_lon_lat, parse_unit, read};

/// Which command runs the search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    /// GEORADIUS (`store` false: GEORADIUS_RO).
    Radius {
        store: bool,
    },
    /// GEORADIUSBYMEMBER (`store` false: GEORADIUSBYMEMBER_RO).
    ByMember {
        store: bool,
    },
    Search,
    SearchStore,
}

impl Variant {
    fn is_search(self) -> bool {
        matches!(self, Variant::Search | Variant::SearchStore)
    }
}

/// Members of a geo index within a radius of a point.
///
/// ```text
/// GEORADIUS key longitude latitude radius <M | KM | FT | MI> [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC | DESC] [STORE key | STOREDIST key]
/// ```
pub fn georadius(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    generic(ctx, args, Variant::Radius { store: true })
}

/// GEORADIUS without STORE, for read-only use.
///
/// ```text
/// GEORADIUS_RO key longitude latitude radius <M | KM | FT | MI> [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC | DESC]
/// ```
pub fn georadius_ro(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    generic(ctx, args, Variant::Radius { store: false })
}

/// Members of a geo index within a radius of one of its members.
///
/// ```text
/// GEORADIUSBYMEMBER key member radius <M | KM | FT | MI> [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC | DESC] [STORE key | STOREDIST key]
/// ```
pub fn georadiusbymember(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    generic(ctx, args, Variant::ByMember { store: true })
}

/// GEORADIUSBYMEMBER without STORE, for read-only use.
///
/// ```text
/// GEORADIUSBYMEMBER_RO key member radius <M | KM | FT | MI> [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC | DESC]
/// ```
pub fn georadiusbymember_ro(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    generic(ctx, args, Variant::ByMember { store: false })
}

/// Members of a geo index inside a circle or a box around a member or a point.
///
/// ```text
/// GEOSEARCH key <FROMMEMBER member | FROMLONLAT longitude latitude> <BYRADIUS radius <M | KM | FT | MI> | BYBOX width height <M | KM | FT | MI>> [ASC | DESC] [COUNT count [ANY]] [WITHCOORD] [WITHDIST] [WITHHASH]
/// ```
pub fn geosearch(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    generic(ctx, args, Variant::Search)
}

/// GEOSEARCH's result stored as a sorted set at destination (scores the geohashes, or
/// the distances with STOREDIST); answers how many were stored.
///
/// ```text
/// GEOSEARCHSTORE destination source <FROMMEMBER member | FROMLONLAT longitude latitude> <BYRADIUS radius <M | KM | FT | MI> | BYBOX width height <M | KM | FT | MI>> [ASC | DESC] [COUNT count [ANY]] [STOREDIST]
/// ```
pub fn geosearchstore(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    generic(ctx, args, Variant::SearchStore)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sort {
    None,
    Asc,
    Desc,
}

/// A point found by the search.
struct Found {
    member: Box<[u8]>,
    lon: f64,
    lat: f64,
    /// Meters from the centre (in the request's unit once answered).
    dist: f64,
    score: f64,
}

/// A radius and its unit (`BYRADIUS`, GEORADIUS's fixed arguments).
fn parse_radius(radius: &[u8], unit: &[u8]) -> Result<(f64, f64), CmdError> {
    let r = parse_double(radius, Some("need numeric radius"))?;
    if r < 0.0 {
        return Err(CmdError::err("radius cannot be negative"));
    }
    Ok((r, parse_unit(unit)?))
}

/// A box's width, height and unit (`BYBOX`).
fn parse_box(width: &[u8], height: &[u8], unit: &[u8]) -> Result<(f64, f64, f64), CmdError> {
    let w = parse_double(width, Some("need numeric width"))?;
    let h = parse_double(height, Some("need numeric height"))?;
    if h < 0.0 || w < 0.0 {
        return Err(CmdError::err("height or width cannot be negative"));
    }
    Ok((w, h, parse_unit(unit)?))
}

const NO_MEMBER: &str = "could not decode requested zset member";

/// The centre of a search around a member.
fn member_point(z: &ZSetValue, member: &[u8]) -> Result<(f64, f64), CmdError> {
    z.score(member).map(geo::decode_score).ok_or_else(|| CmdError::err(NO_MEMBER))
}

/// What the options asked for.
struct Request<'a> {
    shape: Shape,
    store: Option<&'a [u8]>,
    storedist: bool,
    withdist: bool,
    withhash: bool,
    withcoord: bool,
    sort: Sort,
    any: bool,
    count: usize,
}

/// Redis's `georadiusGeneric`: the source key is looked up (and its type checked) first,
/// then the arguments are read in order, each failing with its own error.
fn generic(ctx: &mut Ctx<'_>, args: &mut Args<'_>, variant: Variant) -> Result<Reply, CmdError> {
    let argv = args.rest();
    let name = String::from_utf8_lossy(ctx.argv[0]).into_owned();
    let src = if variant == Variant::SearchStore { argv[1] } else { argv[0] };
    let z = read(ctx, src)?;
    let req = parse(argv, variant, z, &name)?;
    let Some(z) = z else {
        return Ok(match req.store {
            Some(dst) => {
                if ctx.db.shard(dst).remove(dst).is_some() {
                    ctx.notify(class::GENERIC, "del", dst);
                } else {
                    ctx.session.log_as = Some(Vec::new());
                }
                Reply::Int(0)
            }
            None => {
                ctx.session.log_as = Some(Vec::new());
                Reply::Array(Vec::new())
            }
        });
    };
    let mut found = search(z, &req.shape, if req.any { req.count } else { 0 });
    let mut sort = req.sort;
    if req.count != 0 && sort == Sort::None && !req.any {
        sort = Sort::Asc;
    }
    // A stable sort: equal distances keep their scan order.
    match sort {
        Sort::Asc => found.sort_by(|a, b| a.dist.total_cmp(&b.dist)),
        Sort::Desc => found.sort_by(|a, b| b.dist.total_cmp(&a.dist)),
        Sort::None => {}
    }
    if req.count != 0 {
        found.truncate(req.count);
    }
    for f in &mut found {
        f.dist /= req.shape.conversion;
    }
    let Some(dst) = req.store else {
        ctx.session.log_as = Some(Vec::new());
        return Ok(answer(found, &req));
    };
    store(ctx, dst, found, req.storedist, variant)
}

/// Reads the arguments after the fixed ones. `z` is the source set (the member searches
/// skip decoding their centre when it is missing, as Redis does).
fn parse<'a>(argv: &[&'a [u8]], variant: Variant, z: Option<&ZSetValue>, name: &str) -> Result<Request<'a>, CmdError> {
    let mut req = Request {
        shape: Shape { lon: 0.0, lat: 0.0, conversion: 0.0, kind: ShapeKind::Radius(0.0) },
        store: None,
        storedist: false,
        withdist: false,
        withhash: false,
        withcoord: false,
        sort: Sort::None,
        any: false,
        count: 0,
    };
    let base = match variant {
        Variant::Radius { .. } => {
            let (lon, lat) = parse_lon_lat(argv[1], argv[2])?;
            let (r, conversion) = parse_radius(argv[3], argv[4])?;
            req.shape = Shape { lon, lat, conversion, kind: ShapeKind::Radius(r) };
            5
        }
        Variant::ByMember { .. } => {
            if let Some(z) = z {
                let (lon, lat) = member_point(z, argv[1])?;
                let (r, conversion) = parse_radius(argv[2], argv[3])?;
                req.shape = Shape { lon, lat, conversion, kind: ShapeKind::Radius(r) };
            }
            4
        }
        Variant::Search => 1,
        Variant::SearchStore => {
            req.store = Some(argv[0]);
            2
        }
    };
    let can_store = matches!(variant, Variant::Radius { store: true } | Variant::ByMember { store: true });
    let (mut frommember, mut fromloc, mut byradius, mut bybox) = (false, false, false, false);
    let rest = &argv[base..];
    let mut i = 0;
    while i < rest.len() {
        let arg = rest[i];
        let left = rest.len() - i - 1;
        let is = |word: &str| arg.eq_ignore_ascii_case(word.as_bytes());
        if is("withdist") {
            req.withdist = true;
        } else if is("withhash") {
            req.withhash = true;
        } else if is("withcoord") {
            req.withcoord = true;
        } else if is("any") {
            req.any = true;
        } else if is("asc") {
            req.sort = Sort::Asc;
        } else if is("desc") {
            req.sort = Sort::Desc;
        } else if is("count") && left >= 1 {
            let count = crate::num::parse_i64(rest[i + 1]).ok_or(CmdError::NotInteger)?;
            if count <= 0 {
                return Err(CmdError::err("COUNT must be > 0"));
            }
            req.count = usize::try_from(count).unwrap_or(usize::MAX);
            i += 1;
        } else if (is("store") || is("storedist")) && left >= 1 && can_store {
            req.store = Some(rest[i + 1]);
            req.storedist = is("storedist");
            i += 1;
        } else if is("storedist") && variant == Variant::SearchStore {
            req.storedist = true;
        } else if is("frommember") && left >= 1 && variant.is_search() && !fromloc {
            if let Some(z) = z {
                (req.shape.lon, req.shape.lat) = member_point(z, rest[i + 1])?;
            }
            frommember = true;
            i += 1;
        } else if is("fromlonlat") && left >= 2 && variant.is_search() && !frommember {
            (req.shape.lon, req.shape.lat) = parse_lon_lat(rest[i + 1], rest[i + 2])?;
            fromloc = true;
            i += 2;
        } else if is("byradius") && left >= 2 && variant.is_search() && !bybox {
            let (r, conversion) = parse_radius(rest[i + 1], rest[i + 2])?;
            req.shape.kind = ShapeKind::Radius(r);
            req.shape.conversion = conversion;
            byradius = true;
            i += 2;
        } else if is("bybox") && left >= 3 && variant.is_search() && !byradius {
            let (width, height, conversion) = parse_box(rest[i + 1], rest[i + 2], rest[i + 3])?;
            req.shape.kind = ShapeKind::Box { width, height };
            req.shape.conversion = conversion;
            bybox = true;
            i += 3;
        } else {
            return Err(CmdError::Syntax);
        }
        i += 1;
    }
    if req.store.is_some() && (req.withdist || req.withhash || req.withcoord) {
        let what = if variant == Variant::SearchStore { "GEOSEARCHSTORE" } else { "STORE option in GEORADIUS" };
        return Err(CmdError::err(format!("{what} is not compatible with WITHDIST, WITHHASH and WITHCOORD options")));
    }
    if variant.is_search() && !(frommember || fromloc) {
        return Err(CmdError::err(format!("exactly one of FROMMEMBER or FROMLONLAT can be specified for {name}")));
    }
    if variant.is_search() && !(byradius || bybox) {
        return Err(CmdError::err(format!("exactly one of BYRADIUS and BYBOX can be specified for {name}")));
    }
    if req.any && req.count == 0 {
        return Err(CmdError::err("the ANY argument requires COUNT argument"));
    }
    Ok(req)
}

/// The points of `z` inside `shape`, in scan order; with `limit` (COUNT ... ANY) the scan
/// stops once that many are found.
fn search(z: &ZSetValue, shape: &Shape, limit: usize) -> Vec<Found> {
    let cells = shape.cells();
    let mut found = Vec::new();
    let full = |found: &Vec<Found>| limit != 0 && found.len() >= limit;
    // Redis compares a cell with the last one scanned, and never with the centre (index 0).
    let mut last = 0;
    for (i, cell) in cells.iter().enumerate() {
        let Some(cell) = *cell else { continue };
        if last != 0 && cells[last] == Some(cell) {
            continue;
        }
        if full(&found) {
            break;
        }
        let (min, max) = geo::score_range(cell);
        let ranks =
            z.score_ranks(ScoreBound { value: min, exclusive: false }, ScoreBound { value: max, exclusive: true });
        for (member, score) in z.range(ranks.start, ranks.len(), false) {
            if let Some(((lon, lat), dist)) = shape.contains(score) {
                found.push(Found { member: member.into(), lon, lat, dist, score });
            }
            if full(&found) {
                break;
            }
        }
        last = i;
    }
    found
}

/// The search's reply: members, or [member, dist?, hash?, coords?] arrays with options.
fn answer(found: Vec<Found>, req: &Request<'_>) -> Reply {
    let plain = !(req.withdist || req.withhash || req.withcoord);
    let items = found.into_iter().map(|f| {
        if plain {
            return Reply::Bulk(f.member.into_vec());
        }
        let mut item = vec![Reply::Bulk(f.member.into_vec())];
        if req.withdist {
            item.push(distance_reply(f.dist));
        }
        if req.withhash {
            item.push(Reply::Int(f.score as i64));
        }
        if req.withcoord {
            item.push(coords_reply((f.lon, f.lat)));
        }
        Reply::Array(item)
    });
    Reply::Array(items.collect())
}

/// The STORE forms: the points as a sorted set at `dst` (scores their geohashes, or their
/// distances with STOREDIST), or `dst` deleted when none were found.
fn store(
    ctx: &mut Ctx<'_>,
    dst: &[u8],
    found: Vec<Found>,
    storedist: bool,
    variant: Variant,
) -> Result<Reply, CmdError> {
    let mut seen = std::collections::HashSet::new();
    // A huge area can scan one cell twice (neighbours wrap around the globe); a member is
    // stored once.
    let items: Vec<(Box<[u8]>, f64)> = found
        .into_iter()
        .filter(|f| seen.insert(f.member.clone()))
        .map(|f| {
            let score = if storedist { f.dist } else { f.score };
            (f.member, score)
        })
        .collect();
    let len = items.len();
    if len == 0 {
        if ctx.db.shard(dst).remove(dst).is_some() {
            ctx.notify(class::GENERIC, "del", dst);
        } else {
            ctx.session.log_as = Some(Vec::new());
        }
    } else {
        crate::cmd::collection::create(ctx.engine, &mut ctx.db, dst, ZSetValue::from_distinct(items), ctx.now);
        let event = if variant.is_search() { "geosearchstore" } else { "georadiusstore" };
        ctx.notify(class::ZSET, event, dst);
    }
    Ok(Reply::Int(len as i64))
}
