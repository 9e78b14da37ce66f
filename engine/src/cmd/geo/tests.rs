//! GEO* command tests through the engine, with replies checked against redis-server 7.0.15,
//! plus what they log, the events they publish and the memory they leave.

use crate::reply::Reply;
use crate::testing::{arr, bulk, bulks, drain_log, err, int, nil, ok, TestEngine, NOT_FLOAT, SYNTAX, WRONGTYPE};

fn sicily() -> TestEngine {
    let mut t = TestEngine::default();
    let add = ["GEOADD", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"];
    assert_eq!(t.run(&add), int(2));
    t
}

#[test]
fn geoadd_stores_zadd_scores() {
    let mut t = sicily();
    assert_eq!(t.run(&["ZSCORE", "Sicily", "Palermo"]), Reply::Double(3479099956230698.0));
    assert_eq!(t.run(&["GEOADD", "Sicily", "NX", "CH", "13", "38", "Palermo", "1", "1", "x"]), int(1));
    assert_eq!(t.run(&["GEOADD", "Sicily", "XX", "CH", "1", "2", "x", "3", "3", "y"]), int(1));
    assert_eq!(t.run(&["GEOADD", "Sicily", "XX", "1", "2", "x"]), int(0));
    assert_eq!(t.run(&["GEOADD", "Sicily", "NX", "XX", "1", "2", "x"]), err(SYNTAX));
    assert_eq!(t.run(&["GEOADD", "Sicily", "1", "2", "x", "3"]), err(SYNTAX));
    assert_eq!(t.run(&["GEOADD", "Sicily", "GT", "1", "2", "x", "y", "z"]), err(NOT_FLOAT));
    assert_eq!(
        t.run(&["GEOADD", "Sicily", "200", "10", "a"]),
        err("ERR invalid longitude,latitude pair 200.000000,10.000000")
    );
    assert_eq!(
        t.run(&["GEOADD", "Sicily", "inf", "10", "a"]),
        err("ERR invalid longitude,latitude pair inf,10.000000")
    );
    t.run(&["SET", "s", "v"]);
    // Coordinates are checked before the key's type.
    assert_eq!(
        t.run(&["GEOADD", "s", "200", "10", "a"]),
        err("ERR invalid longitude,latitude pair 200.000000,10.000000")
    );
    assert_eq!(t.run(&["GEOADD", "s", "20", "10", "a"]), err(WRONGTYPE));
}

#[test]
fn geopos_geohash_geodist_reply_as_redis() {
    let mut t = sicily();
    let pos = t.run(&["GEOPOS", "Sicily", "Palermo", "nosuch"]);
    assert_eq!(
        pos.to_resp(false),
        b"*2\r\n*2\r\n$20\r\n13.36138933897018433\r\n$20\r\n38.11555639549629859\r\n*-1\r\n"
    );
    assert_eq!(pos.to_resp(true), b"*2\r\n*2\r\n,13.36138933897018433\r\n,38.11555639549629859\r\n_\r\n");
    assert_eq!(t.run(&["GEOPOS", "none", "a"]), arr(vec![Reply::NilArray]));
    assert_eq!(
        t.run(&["GEOHASH", "Sicily", "Palermo", "Catania", "x"]),
        arr(vec![bulk("sqc8b49rny0"), bulk("sqdtr74hyu0"), nil()])
    );
    assert_eq!(t.run(&["GEODIST", "Sicily", "Palermo", "Catania"]), bulk("166274.1516"));
    assert_eq!(t.run(&["GEODIST", "Sicily", "Palermo", "Catania", "km"]), bulk("166.2742"));
    assert_eq!(t.run(&["GEODIST", "Sicily", "Palermo", "Catania", "MI"]), bulk("103.3182"));
    assert_eq!(t.run(&["GEODIST", "Sicily", "Palermo", "Palermo"]), bulk("0.0000"));
    assert_eq!(t.run(&["GEODIST", "Sicily", "Palermo", "x"]), nil());
    assert_eq!(t.run(&["GEODIST", "none", "a", "b"]), nil());
    assert_eq!(
        t.run(&["GEODIST", "none", "a", "b", "yd"]),
        err("ERR unsupported unit provided. please use M, KM, FT, MI")
    );
    assert_eq!(t.run(&["GEODIST", "Sicily", "a", "b", "km", "x"]), err(SYNTAX));
}

#[test]
fn geosearch_replies_in_redis_order() {
    let mut t = sicily();
    let r =
        t.run(&["GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km", "WITHCOORD", "WITHDIST"]);
    // Bytes from redis-server 7.0.15 over RESP3.
    let want =
        "*2\r\n*3\r\n$7\r\nPalermo\r\n$8\r\n190.4424\r\n*2\r\n,13.36138933897018433\r\n,38.11555639549629859\r\n\
                *3\r\n$7\r\nCatania\r\n$7\r\n56.4413\r\n*2\r\n,15.08726745843887329\r\n,37.50266842333162032\r\n";
    assert_eq!(String::from_utf8_lossy(&r.to_resp(true)), want);
    let near = t.run(&["GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "200", "km", "DESC", "WITHHASH"]);
    assert_eq!(
        near,
        arr(vec![arr(vec![bulk("Catania"), int(3479447370796909)]), arr(vec![bulk("Palermo"), int(3479099956230698)])])
    );
    assert_eq!(
        t.run(&["GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "COUNT", "1"]),
        bulks(&["Catania"])
    );
    assert_eq!(
        t.run(&["geosearch", "Sicily", "BYRADIUS", "1", "km", "ASC", "DESC"]),
        err("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for geosearch")
    );
    assert_eq!(
        t.run(&["GEOSEARCH", "Sicily", "FROMMEMBER", "x", "BYRADIUS", "1", "km"]),
        err("ERR could not decode requested zset member")
    );
    assert_eq!(
        t.run(&["GEOSEARCH", "Sicily", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km", "ANY"]),
        err("ERR the ANY argument requires COUNT argument")
    );
    assert_eq!(
        t.run(&["GEOSEARCH", "Sicily", "FROMLONLAT", "0", "0", "BYRADIUS", "-1", "km"]),
        err("ERR radius cannot be negative")
    );
    assert_eq!(
        t.run(&["GEOSEARCH", "Sicily", "FROMLONLAT", "0", "0", "BYBOX", "x", "1", "km"]),
        err("ERR need numeric width")
    );
    assert_eq!(
        t.run(&["GEOSEARCH", "Sicily", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km", "COUNT", "0"]),
        err("ERR COUNT must be > 0")
    );
    assert_eq!(t.run(&["GEORADIUS_RO", "Sicily", "15", "37", "1", "km", "STORE", "d"]), err(SYNTAX));
    assert_eq!(
        t.run(&["GEORADIUS", "Sicily", "15", "37", "1", "km", "STORE", "d", "WITHDIST"]),
        err("ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options")
    );
    // A missing source: an empty reply, before the member is looked for.
    assert_eq!(t.run(&["GEORADIUSBYMEMBER", "none", "x", "bad", "yd"]), arr(vec![]));
    t.run(&["SET", "s", "v"]);
    assert_eq!(t.run(&["GEOSEARCH", "s", "BOGUS", "x", "y", "z", "w"]), err(WRONGTYPE));
}

#[test]
fn store_forms_write_events_and_log() {
    let mut t = sicily();
    assert_eq!(t.run(&["CONFIG", "SET", "notify-keyspace-events", "KEA"]), ok());
    t.engine.propagation().set_enabled(true);
    let after = t.engine.notifier.last_seq();
    assert_eq!(t.run(&["GEOADD", "g", "1", "2", "m"]), int(1));
    assert_eq!(
        t.run(&["GEOSEARCHSTORE", "d", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "300", "km", "STOREDIST"]),
        int(2)
    );
    assert_eq!(t.run(&["ZRANGE", "d", "0", "-1", "WITHSCORES"]).to_resp(false), {
        let mut want = Vec::new();
        arr(vec![bulk("Palermo"), Reply::Double(0.0), bulk("Catania"), Reply::Double(166.27415156960032)])
            .encode(false, &mut want);
        want
    });
    assert_eq!(t.run(&["GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "e"]), int(2));
    assert_eq!(t.run(&["GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "100", "0", "BYRADIUS", "1", "km"]), int(0));
    assert_eq!(
        t.run(&["GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"]),
        bulks(&["Palermo", "Catania"])
    );
    let events: Vec<String> = t
        .engine
        .notifier
        .since(after, usize::MAX)
        .iter()
        .map(|e| format!("{} {}", e.event, String::from_utf8_lossy(&e.key)))
        .collect();
    assert_eq!(events, ["zadd g", "geosearchstore d", "georadiusstore e", "del d"]);
    let log: Vec<String> = drain_log(&t).into_iter().filter(|l| l != "SELECT 0").collect();
    assert_eq!(log[0], format!("ZADD g {} m", crate::geo::score_of(1.0, 2.0).unwrap()));
    assert!(log[1].starts_with("GEOSEARCHSTORE d Sicily"), "{log:?}");
    assert!(log[2].starts_with("GEORADIUS Sicily"), "{log:?}");
    assert!(log[3].starts_with("GEOSEARCHSTORE d Sicily FROMLONLAT 100"), "{log:?}");
    // Reads log nothing.
    assert_eq!(log.len(), 4, "{log:?}");
}

#[test]
fn memory_returns_to_baseline() {
    let mut t = TestEngine::default();
    let baseline = t.used_memory();
    for i in 0..300 {
        let (lon, lat) = (format!("{}", -170.0 + i as f64), format!("{}", -80.0 + (i % 160) as f64));
        t.run(&["GEOADD", "g", &lon, &lat, &format!("member:{i}")]);
    }
    assert!(t.used_memory() > baseline);
    for i in 0..300 {
        t.run(&["ZREM", "g", &format!("member:{i}")]);
    }
    assert_eq!(t.run(&["EXISTS", "g"]), int(0));
    assert_eq!(t.used_memory(), baseline);
}

#[test]
fn works_in_multi() {
    let mut t = sicily();
    assert_eq!(t.run(&["MULTI"]), ok());
    t.run(&["GEOADD", "g", "1", "2", "m"]);
    t.run(&["GEOPOS", "g", "m"]);
    let r = t.run(&["EXEC"]);
    let Reply::Array(items) = r else { panic!("{r:?}") };
    assert_eq!(items[0], int(1));
    // GEOPOS g m in redis-server 7.0.15 after GEOADD g 1 2 m.
    assert_eq!(items[1].to_resp(false), b"*1\r\n*2\r\n$19\r\n0.99999994039535522\r\n$18\r\n2.0000001856465488\r\n");
}

#[cfg(feature = "scripting")]
#[test]
fn works_in_scripts_over_both_protocols() {
    let mut t = sicily();
    let pos = |t: &mut TestEngine, script: &str| t.run(&["EVAL", script, "1", "Sicily"]);
    // Answers from redis-server 7.0.15: the human text over RESP2, a double over RESP3.
    assert_eq!(
        pos(&mut t, "return redis.call('GEOPOS', KEYS[1], 'Palermo')"),
        arr(vec![bulks(&["13.36138933897018433", "38.11555639549629859"])])
    );
    let r = pos(&mut t, "redis.setresp(3); return redis.call('GEOPOS', KEYS[1], 'Palermo')");
    assert_eq!(r.to_resp(false), b"*1\r\n*2\r\n$18\r\n13.361389338970184\r\n$18\r\n38.115556395496299\r\n");
    assert_eq!(pos(&mut t, "return redis.call('GEOADD', KEYS[1], 1, 2, 'x')"), int(1));
}
