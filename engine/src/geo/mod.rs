//! Geohashes as Redis's geo commands use them: 52-bit interleaved cells over the Web
//! Mercator latitude range, their neighbours, the 9-cell cover of a search area, and
//! haversine distances with Redis's earth radius. Plain functions, no store access.
//!
//! Every formula follows Redis 7.0's `geohash.c` and `geohash_helper.c` operation by
//! operation (same constants, same order of floating-point steps), because the digits
//! GEOPOS, GEODIST and WITHDIST print depend on it.

#[cfg(test)]
mod tests;

/// Steps (bits per coordinate) of a stored point: 26, so a score holds 52 bits.
pub const STEP_MAX: u8 = 26;
pub const LAT_MIN: f64 = -85.05112878;
pub const LAT_MAX: f64 = 85.05112878;
pub const LONG_MIN: f64 = -180.0;
pub const LONG_MAX: f64 = 180.0;

/// Redis's mean earth radius (meters), used by every distance.
const EARTH_RADIUS_M: f64 = 6372797.560856;
/// Redis's `MERCATOR_MAX`, which bounds the step estimate.
const MERCATOR_MAX: f64 = 20037726.37;
/// `M_PI / 180.0`, as Redis's `deg_rad` and `rad_deg` use it.
const D_R: f64 = std::f64::consts::PI / 180.0;

/// A cell: `step` bits of each coordinate, interleaved (latitude in the even bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    pub bits: u64,
    pub step: u8,
}

/// A cell's extent in degrees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Area {
    pub lon_min: f64,
    pub lon_max: f64,
    pub lat_min: f64,
    pub lat_max: f64,
}

/// A coordinate range (`min..max` degrees).
#[derive(Debug, Clone, Copy)]
pub struct Range {
    pub min: f64,
    pub max: f64,
}

/// Redis's ranges for stored points.
pub const LON_RANGE: Range = Range { min: LONG_MIN, max: LONG_MAX };
pub const LAT_RANGE: Range = Range { min: LAT_MIN, max: LAT_MAX };

/// Whether a longitude, latitude pair can be stored (GEOADD's check).
pub fn valid(lon: f64, lat: f64) -> bool {
    (LONG_MIN..=LONG_MAX).contains(&lon) && (LAT_MIN..=LAT_MAX).contains(&lat)
}

/// Spreads the low 32 bits of `v` to the even bit positions.
fn spread(v: u32) -> u64 {
    let mut x = v as u64;
    x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF;
    x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF;
    x = (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | (x << 2)) & 0x3333_3333_3333_3333;
    (x | (x << 1)) & 0x5555_5555_5555_5555
}

/// The inverse of `spread`: the even bits of `v`, packed.
fn squeeze(v: u64) -> u32 {
    let mut x = v & 0x5555_5555_5555_5555;
    x = (x | (x >> 1)) & 0x3333_3333_3333_3333;
    x = (x | (x >> 2)) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | (x >> 4)) & 0x00FF_00FF_00FF_00FF;
    x = (x | (x >> 8)) & 0x0000_FFFF_0000_FFFF;
    (x | (x >> 16)) as u32
}

/// The cell of `step` bits holding a point, over the given ranges; `None` outside them
/// (or outside the stored-point limits, which Redis checks for every range).
pub fn encode(lon_range: Range, lat_range: Range, lon: f64, lat: f64, step: u8) -> Option<Cell> {
    if step == 0 || step > 32 || !valid(lon, lat) {
        return None;
    }
    if lat < lat_range.min || lat > lat_range.max || lon < lon_range.min || lon > lon_range.max {
        return None;
    }
    let scale = (1u64 << step) as f64;
    let lat_offset = (lat - lat_range.min) / (lat_range.max - lat_range.min) * scale;
    let lon_offset = (lon - lon_range.min) / (lon_range.max - lon_range.min) * scale;
    // C converts the offsets to `uint32_t` by truncation, as `as` does for these values.
    Some(Cell { bits: spread(lat_offset as u32) | (spread(lon_offset as u32) << 1), step })
}

/// The 52-bit score GEOADD stores for a valid point.
pub fn score_of(lon: f64, lat: f64) -> Option<u64> {
    encode(LON_RANGE, LAT_RANGE, lon, lat, STEP_MAX).map(align52)
}

/// A cell's bits shifted to the top of 52 (its first score).
pub fn align52(cell: Cell) -> u64 {
    cell.bits << (52 - cell.step as u32 * 2)
}

/// A cell's extent over the given ranges.
pub fn decode(lon_range: Range, lat_range: Range, cell: Cell) -> Area {
    let lat_scale = lat_range.max - lat_range.min;
    let lon_scale = lon_range.max - lon_range.min;
    let ilat = squeeze(cell.bits);
    let ilon = squeeze(cell.bits >> 1);
    let div = (1u64 << cell.step) as f64;
    Area {
        lat_min: lat_range.min + (ilat as f64 * 1.0 / div) * lat_scale,
        lat_max: lat_range.min + (ilat.wrapping_add(1) as f64 * 1.0 / div) * lat_scale,
        lon_min: lon_range.min + (ilon as f64 * 1.0 / div) * lon_scale,
        lon_max: lon_range.min + (ilon.wrapping_add(1) as f64 * 1.0 / div) * lon_scale,
    }
}

/// C's `(uint64_t)d` as x86-64 compilers emit it (scores that were never geohashes decode
/// to somewhere, as in Redis, rather than panicking).
fn c_to_u64(d: f64) -> u64 {
    const TWO63: f64 = 9_223_372_036_854_775_808.0;
    let cvtt = |x: f64| if x.is_nan() || !(-TWO63..TWO63).contains(&x) { i64::MIN } else { x as i64 };
    if d < TWO63 {
        cvtt(d) as u64
    } else {
        (cvtt(d - TWO63) as u64) ^ (1 << 63)
    }
}

/// The point a stored score stands for: the centre of its cell, clamped to the limits.
pub fn decode_score(score: f64) -> (f64, f64) {
    let area = decode(LON_RANGE, LAT_RANGE, Cell { bits: c_to_u64(score), step: STEP_MAX });
    let lon = ((area.lon_min + area.lon_max) / 2.0).clamp(LONG_MIN, LONG_MAX);
    let lat = ((area.lat_min + area.lat_max) / 2.0).clamp(LAT_MIN, LAT_MAX);
    (lon, lat)
}

/// GEOHASH's text: the point re-encoded over the standard ranges (latitude ±90), as 11
/// base32 characters of which the last is always `0` (52 bits fill only ten).
pub fn standard_hash(score: f64) -> [u8; 11] {
    const ALPHABET: &[u8; 32] = b"0123456789bcdefghjkmnpqrstuvwxyz";
    let (lon, lat) = decode_score(score);
    let bits = encode(LON_RANGE, Range { min: -90.0, max: 90.0 }, lon, lat, STEP_MAX).map_or(0, |c| c.bits);
    let mut out = [b'0'; 11];
    for (i, c) in out.iter_mut().take(10).enumerate() {
        *c = ALPHABET[((bits >> (52 - (i + 1) * 5)) & 0x1f) as usize];
    }
    out
}

fn move_x(cell: &mut Cell, d: i8) {
    let x = cell.bits & 0xaaaa_aaaa_aaaa_aaaa;
    let y = cell.bits & 0x5555_5555_5555_5555;
    let shift = 64 - cell.step as u32 * 2;
    let zz = 0x5555_5555_5555_5555u64 >> shift;
    let x = if d > 0 { x.wrapping_add(zz + 1) } else { (x | zz).wrapping_sub(zz + 1) };
    cell.bits = (x & (0xaaaa_aaaa_aaaa_aaaa >> shift)) | y;
}

fn move_y(cell: &mut Cell, d: i8) {
    let x = cell.bits & 0xaaaa_aaaa_aaaa_aaaa;
    let y = cell.bits & 0x5555_5555_5555_5555;
    let shift = 64 - cell.step as u32 * 2;
    let zz = 0xaaaa_aaaa_aaaa_aaaau64 >> shift;
    let y = if d > 0 { y.wrapping_add(zz + 1) } else { (y | zz).wrapping_sub(zz + 1) };
    cell.bits = x | (y & (0x5555_5555_5555_5555 >> shift));
}

/// A cell moved by `dx` columns and `dy` rows (each -1, 0 or 1), wrapping around.
pub fn neighbour(cell: Cell, dx: i8, dy: i8) -> Cell {
    let mut c = cell;
    if dx != 0 {
        move_x(&mut c, dx);
    }
    if dy != 0 {
        move_y(&mut c, dy);
    }
    c
}

/// Redis's step estimate for a search radius at a latitude: the cell size just above the
/// radius, one or two steps coarser towards the poles.
pub fn estimate_steps(range_m: f64, lat: f64) -> u8 {
    if range_m == 0.0 {
        return 26;
    }
    let mut range = range_m;
    let mut step: i32 = 1;
    while range < MERCATOR_MAX {
        range *= 2.0;
        step += 1;
    }
    step -= 2;
    if !(-66.0..=66.0).contains(&lat) {
        step -= 1;
        if !(-80.0..=80.0).contains(&lat) {
            step -= 1;
        }
    }
    step.clamp(1, 26) as u8
}

fn deg_rad(a: f64) -> f64 {
    a * D_R
}

fn rad_deg(a: f64) -> f64 {
    a / D_R
}

/// The distance in meters along a meridian between two latitudes.
pub fn lat_distance(lat1: f64, lat2: f64) -> f64 {
    EARTH_RADIUS_M * (deg_rad(lat2) - deg_rad(lat1)).abs()
}

/// The haversine distance in meters between two points (degrees).
pub fn distance(lon1: f64, lat1: f64, lon2: f64, lat2: f64) -> f64 {
    let lon1r = deg_rad(lon1);
    let lon2r = deg_rad(lon2);
    let v = ((lon2r - lon1r) / 2.0).sin();
    // Same longitude: the cheaper meridian distance, as Redis takes it.
    if v == 0.0 {
        return lat_distance(lat1, lat2);
    }
    let lat1r = deg_rad(lat1);
    let lat2r = deg_rad(lat2);
    let u = ((lat2r - lat1r) / 2.0).sin();
    let a = u * u + lat1r.cos() * lat2r.cos() * v * v;
    2.0 * EARTH_RADIUS_M * a.sqrt().asin()
}

/// A search area: a circle or a box (width × height) around a point, its sizes in the
/// caller's unit and `conversion` meters per unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shape {
    pub lon: f64,
    pub lat: f64,
    pub conversion: f64,
    pub kind: ShapeKind,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ShapeKind {
    Radius(f64),
    Box { width: f64, height: f64 },
}

impl Shape {
    /// The area's bounding box: `[lon_min, lat_min, lon_max, lat_max]`.
    fn bounds(&self) -> [f64; 4] {
        let (half_h, half_w) = match self.kind {
            ShapeKind::Radius(r) => (r, r),
            ShapeKind::Box { width, height } => (height / 2.0, width / 2.0),
        };
        let height = self.conversion * half_h;
        let width = self.conversion * half_w;
        let lat_delta = rad_deg(height / EARTH_RADIUS_M);
        let lon_delta_top = rad_deg(width / EARTH_RADIUS_M / deg_rad(self.lat + lat_delta).cos());
        let lon_delta_bottom = rad_deg(width / EARTH_RADIUS_M / deg_rad(self.lat - lat_delta).cos());
        // The wider edge is the one nearer the pole.
        let lon_delta = if self.lat < 0.0 { lon_delta_bottom } else { lon_delta_top };
        [self.lon - lon_delta, self.lat - lat_delta, self.lon + lon_delta, self.lat + lat_delta]
    }

    /// The cells to scan, in Redis's order (centre, N, S, E, W, NE, NW, SE, SW); `None` for
    /// the neighbours the area does not reach.
    pub fn cells(&self) -> [Option<Cell>; 9] {
        let [min_lon, min_lat, max_lon, max_lat] = self.bounds();
        let radius_m = self.conversion
            * match self.kind {
                ShapeKind::Radius(r) => r,
                ShapeKind::Box { width, height } => {
                    ((width / 2.0) * (width / 2.0) + (height / 2.0) * (height / 2.0)).sqrt()
                }
            };
        let mut steps = estimate_steps(radius_m, self.lat);
        let at =
            |steps| encode(LON_RANGE, LAT_RANGE, self.lon, self.lat, steps).unwrap_or(Cell { bits: 0, step: steps });
        let mut cell = at(steps);
        let area_of = |c| decode(LON_RANGE, LAT_RANGE, c);
        // A cell too coarse at the edges of the area: one step finer.
        let decrease = area_of(neighbour(cell, 0, 1)).lat_max < max_lat
            || area_of(neighbour(cell, 0, -1)).lat_min > min_lat
            || area_of(neighbour(cell, 1, 0)).lon_max < max_lon
            || area_of(neighbour(cell, -1, 0)).lon_min > min_lon;
        if steps > 1 && decrease {
            steps -= 1;
            cell = at(steps);
        }
        let area = area_of(cell);
        // Neighbours on a side the centre cell already reaches past are not needed.
        let fine = steps >= 2;
        let no_south = fine && area.lat_min < min_lat;
        let no_north = fine && area.lat_max > max_lat;
        let no_west = fine && area.lon_min < min_lon;
        let no_east = fine && area.lon_max > max_lon;
        let keep = |dx: i8, dy: i8, drop: bool| (!drop).then(|| neighbour(cell, dx, dy));
        [
            Some(cell),
            keep(0, 1, no_north),
            keep(0, -1, no_south),
            keep(1, 0, no_east),
            keep(-1, 0, no_west),
            keep(1, 1, no_north || no_east),
            keep(-1, 1, no_north || no_west),
            keep(1, -1, no_south || no_east),
            keep(-1, -1, no_south || no_west),
        ]
    }

    /// A stored point if it lies in the area: its coordinates and its distance (meters)
    /// from the centre.
    pub fn contains(&self, score: f64) -> Option<((f64, f64), f64)> {
        let (lon, lat) = decode_score(score);
        let dist = match self.kind {
            ShapeKind::Radius(r) => {
                let d = distance(self.lon, self.lat, lon, lat);
                (d <= r * self.conversion).then_some(d)?
            }
            ShapeKind::Box { width, height } => {
                if lat_distance(lat, self.lat) > height * self.conversion / 2.0 {
                    return None;
                }
                if distance(lon, lat, self.lon, lat) > width * self.conversion / 2.0 {
                    return None;
                }
                distance(self.lon, self.lat, lon, lat)
            }
        };
        Some(((lon, lat), dist))
    }
}

/// The scores of a cell's points: `min` included, `max` excluded.
pub fn score_range(cell: Cell) -> (f64, f64) {
    let min = align52(cell);
    let max = align52(Cell { bits: cell.bits + 1, step: cell.step });
    (min as f64, max as f64)
}
