//! A sorted set's members as points on the globe, for the key view's scatter: when every
//! score is a 52-bit geohash (what GEOADD stores), each member's longitude and latitude as
//! GEOPOS would answer them. Like every view it counts no keyspace hit and leaves the key's
//! LRU/LFU stamps alone.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::keys::not_found;
use super::{Bytes, Refusal, Status};
use crate::store::entry::ValueRef;
use crate::Engine;

/// Most points one request may ask for.
pub const MAX_POINTS: usize = 10_000;
/// Points answered when the query does not say.
pub const DEFAULT_POINTS: usize = 1_000;

/// The query (`GET /api/geo-points/{key}?db=&limit=`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeoQuery {
    pub db: Option<usize>,
    /// Points to answer (1 to [`MAX_POINTS`], default [`DEFAULT_POINTS`]), lowest scores first.
    pub limit: Option<usize>,
}

/// One member and where it is.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct GeoPointView {
    pub member: Bytes,
    pub longitude: f64,
    pub latitude: f64,
}

/// A sorted set read as a geo index.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct GeoPoints {
    /// Members in the set.
    pub length: u64,
    /// Whether every score is a geohash GEOADD could have stored (an integer below 2^52):
    /// only then is the set shown as points. `points` is empty otherwise.
    pub is_geo: bool,
    /// Up to `limit` points, in the set's order (by geohash, so nearby points come together).
    pub points: Vec<GeoPointView>,
    /// Whether there were more points than `limit`.
    pub truncated: bool,
}

/// Whether a score is one GEOADD stores: an integer in 0..2^52.
fn is_geohash(score: f64) -> bool {
    (0.0..4_503_599_627_370_496.0).contains(&score) && score.fract() == 0.0
}

/// The sorted set at `key` in database `db` as points: refused (404) when there is no such
/// key, (422) when it holds another type, (400) on a bad limit.
pub fn geo_points(
    engine: &Engine,
    db: usize,
    key: &[u8],
    limit: Option<usize>,
    now_ms: u64,
) -> Result<GeoPoints, Refusal> {
    let limit = match limit {
        None => DEFAULT_POINTS,
        Some(n @ 1..=MAX_POINTS) => n,
        Some(_) => {
            let message = format!("limit must be between 1 and {MAX_POINTS}");
            return Err(Refusal::new(Status::BadRequest, "bad_parameter", message));
        }
    };
    let store = engine.store();
    let mut locked = store.lock_keys(db, [key]);
    let entry = locked.peek(key, now_ms).ok_or_else(|| not_found(key))?;
    let ValueRef::ZSet(z) = entry.value else {
        return Err(Refusal::new(Status::Unprocessable, "wrong_type", "the key holds no sorted set"));
    };
    let is_geo = z.iter().all(|(_, score)| is_geohash(score));
    let points = if is_geo {
        z.iter()
            .take(limit)
            .map(|(member, score)| {
                let (longitude, latitude) = crate::geo::decode_score(score);
                GeoPointView { member: Bytes::from(member), longitude, latitude }
            })
            .collect()
    } else {
        Vec::new()
    };
    Ok(GeoPoints { length: z.len() as u64, is_geo, truncated: is_geo && z.len() > limit, points })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TestEngine;

    #[test]
    fn points_of_a_geo_index_only() {
        let mut t = TestEngine::default();
        t.run(&["GEOADD", "g", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"]);
        let p = geo_points(&t.engine, 0, b"g", None, t.now).unwrap();
        assert!(p.is_geo && !p.truncated);
        assert_eq!(p.points[0].member, Bytes::from(&b"Palermo"[..]));
        assert_eq!(crate::num::format_human(p.points[0].longitude), "13.36138933897018433");
        let p = geo_points(&t.engine, 0, b"g", Some(1), t.now).unwrap();
        assert_eq!((p.points.len(), p.truncated, p.length), (1, true, 2));
        // A score that is no geohash makes it a plain sorted set.
        t.run(&["ZADD", "g", "1.5", "x"]);
        let p = geo_points(&t.engine, 0, b"g", None, t.now).unwrap();
        assert!(!p.is_geo && p.points.is_empty());
        assert_eq!(geo_points(&t.engine, 0, b"g", Some(0), t.now).unwrap_err().status, Status::BadRequest);
        t.run(&["SET", "s", "v"]);
        assert_eq!(geo_points(&t.engine, 0, b"s", None, t.now).unwrap_err().status, Status::Unprocessable);
        assert_eq!(geo_points(&t.engine, 0, b"none", None, t.now).unwrap_err().status, Status::NotFound);
    }
}
