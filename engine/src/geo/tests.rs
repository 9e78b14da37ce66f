//! Unit tests of the geohash arithmetic against digits redis-server 7.0.15 prints.

use super::*;
use crate::num::format_human;

#[test]
fn encodes_and_decodes_as_redis() {
    // GEOADD g 13.361389 38.115556 Palermo; ZSCORE and GEOPOS in redis-server 7.0.15.
    assert_eq!(score_of(13.361389, 38.115556), Some(3479099956230698));
    assert_eq!(score_of(15.087269, 37.502669), Some(3479447370796909));
    let (lon, lat) = decode_score(3479099956230698.0);
    assert_eq!(format_human(lon), "13.36138933897018433");
    assert_eq!(format_human(lat), "38.11555639549629859");
    // The corners of the storable range.
    assert_eq!(score_of(-180.0, -85.05112878), Some(0));
    assert!(score_of(180.0, 85.05112878).is_some());
    assert_eq!(score_of(180.0001, 0.0), None);
    assert_eq!(score_of(0.0, -85.06), None);
}

#[test]
fn standard_geohash_text() {
    assert_eq!(&standard_hash(3479099956230698.0), b"sqc8b49rny0");
    assert_eq!(&standard_hash(3479447370796909.0), b"sqdtr74hyu0");
}

#[test]
fn distances_use_redis_radius() {
    let (a, b) = (decode_score(3479099956230698.0), decode_score(3479447370796909.0));
    // GEODIST g Palermo Catania: 166274.1516 m.
    let d = distance(a.0, a.1, b.0, b.1);
    assert!((d - 166274.1516).abs() < 0.00005, "{d}");
    assert_eq!(distance(1.0, 2.0, 1.0, 2.0), 0.0);
    assert_eq!(distance(10.0, 0.0, 10.0, 1.0), lat_distance(0.0, 1.0));
}

#[test]
fn neighbours_wrap_and_invert() {
    let cell = encode(LON_RANGE, LAT_RANGE, 13.36, 38.11, 10).expect("valid");
    let east = neighbour(cell, 1, 0);
    assert_eq!(neighbour(east, -1, 0), cell);
    let north = neighbour(cell, 0, 1);
    assert_eq!(neighbour(north, 0, -1), cell);
    let (a, e) = (decode(LON_RANGE, LAT_RANGE, cell), decode(LON_RANGE, LAT_RANGE, east));
    assert_eq!(a.lon_max, e.lon_min);
    // The eastmost column's east neighbour is the westmost one.
    let edge = encode(LON_RANGE, LAT_RANGE, 179.9, 0.0, 4).expect("valid");
    let wrapped = decode(LON_RANGE, LAT_RANGE, neighbour(edge, 1, 0));
    assert_eq!(wrapped.lon_min, -180.0);
}

#[test]
fn step_estimates_follow_redis() {
    assert_eq!(estimate_steps(0.0, 0.0), 26);
    assert_eq!(estimate_steps(1.0, 0.0), 24);
    assert_eq!(estimate_steps(200_000.0, 0.0), 6);
    assert_eq!(estimate_steps(200_000.0, 70.0), 5);
    assert_eq!(estimate_steps(200_000.0, -85.0), 4);
    assert_eq!(estimate_steps(1e9, 0.0), 1);
}

#[test]
fn search_cells_cover_the_area() {
    let shape = Shape { lon: 15.0, lat: 37.0, conversion: 1000.0, kind: ShapeKind::Radius(200.0) };
    let cells = shape.cells();
    assert!(cells[0].is_some());
    // Catania (56 km away) lies in one of the scanned cells' score ranges.
    let catania = 3479447370796909.0;
    assert!(cells.iter().flatten().any(|c| {
        let (min, max) = score_range(*c);
        (min..max).contains(&catania)
    }));
    let ((_, _), d) = shape.contains(catania).expect("inside 200 km");
    assert_eq!(format!("{:.4}", d / 1000.0), "56.4413");
    let tiny = Shape { kind: ShapeKind::Radius(1.0), ..shape };
    assert!(tiny.contains(catania).is_none());
    let boxed = Shape { kind: ShapeKind::Box { width: 400.0, height: 400.0 }, ..shape };
    assert!(boxed.contains(catania).is_some());
    let thin = Shape { kind: ShapeKind::Box { width: 400.0, height: 1.0 }, ..shape };
    assert!(thin.contains(catania).is_none());
}

#[test]
fn odd_scores_decode_without_panicking() {
    for s in [-1.0, 1e30, f64::INFINITY, 4503599627370496.0] {
        let (lon, lat) = decode_score(s);
        assert!(valid(lon, lat), "{s}: {lon} {lat}");
    }
}
