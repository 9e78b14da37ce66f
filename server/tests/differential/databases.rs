//! Numbered databases: SELECT, MOVE, COPY ... DB, SWAPDB, FLUSHDB and DBSIZE, mixed with every
//! family's operations (the main random test's) so each runs in several databases. SORT's
//! patterns are checked per database in the edge cases: mixed with the random operations,
//! redis-server 7.0 would fail numeric sorts for good after any out-of-range float (it reads
//! a stale `errno`; see `sort.rs`).

use rand::Rng;

use crate::harness::*;

/// Databases the random test moves between (and, rarely, ones out of range).
const DBS: &[&str] = &["0", "1", "2", "3"];
const BAD_DBS: &[&str] = &["16", "-1", "x", "1.5", "99999999999", ""];

impl Gen {
    fn db(&mut self) -> Vec<u8> {
        if self.chance(5) {
            self.pick(BAD_DBS).as_bytes().to_vec()
        } else {
            self.pick(DBS).as_bytes().to_vec()
        }
    }

    /// One operation on databases themselves.
    fn db_op(&mut self) -> Vec<Step> {
        let call = |argv| vec![Step::Call(argv, Check::Exact)];
        match self.rng.gen_range(0..100) {
            0..=24 => call(vec![self.casing("SELECT"), self.db()]),
            25..=44 => {
                let (k, db) = (self.key(), self.db());
                call(vec![self.casing("MOVE"), k, db])
            }
            45..=69 => {
                let mut argv = vec![self.casing("COPY"), self.key(), self.key()];
                let mut opts: Vec<Vec<Vec<u8>>> = Vec::new();
                if self.chance(60) {
                    opts.push(vec![self.casing("DB"), self.db()]);
                }
                if self.chance(40) {
                    opts.push(vec![self.casing("REPLACE")]);
                }
                if self.chance(3) {
                    opts.push(vec![b"DB".to_vec()]);
                }
                if self.chance(50) {
                    opts.reverse();
                }
                argv.extend(opts.into_iter().flatten());
                call(argv)
            }
            70..=79 => {
                let (a, b) = (self.db(), self.db());
                call(vec![self.casing("SWAPDB"), a, b])
            }
            80..=87 => call(args!["DBSIZE"]),
            88..=94 => vec![Step::Call(args!["KEYS", "*"], Check::Unordered)],
            95..=96 => vec![Step::Scan(args!["COUNT", "7"])],
            _ => call(vec![self.casing("FLUSHDB")]),
        }
    }
}

#[test]
fn random_commands_across_databases_match_redis() {
    let Some(servers) = Servers::start_or_skip("random_commands_across_databases_match_redis") else {
        return;
    };
    let mut peers = servers.peers();
    for seed in seeds() {
        peers.begin(&format!("databases, seed {seed}"));
        peers.run(Step::Call(args!["SELECT", "0"], Check::Exact));
        peers.run(Step::Call(args!["FLUSHALL"], Check::Exact));
        let mut gen = Gen::new(seed ^ 0xdb);
        for op in 0..OPS_PER_SEED {
            peers.op = op;
            let steps = if gen.chance(30) { gen.db_op() } else { gen.op() };
            for step in steps {
                peers.run(step);
            }
        }
        // Every database ends as Redis's does.
        for db in DBS {
            peers.run(Step::Call(args!["SELECT", *db], Check::Exact));
            peers.run(Step::Call(args!["DBSIZE"], Check::Exact));
            peers.run(Step::Call(args!["KEYS", "*"], Check::Unordered));
        }
    }
}

#[test]
fn database_edge_cases_match_redis() {
    let Some(servers) = Servers::start_or_skip("database_edge_cases_match_redis") else {
        return;
    };
    let mut peers = servers.peers();
    peers.begin("database edge cases");
    let cases: Vec<Vec<Vec<u8>>> = vec![
        args!["FLUSHALL"],
        args!["SELECT"],
        args!["SELECT", "0", "1"],
        args!["SELECT", " 1"],
        args!["SELECT", "+1"],
        args!["SELECT", "2147483648"],
        args!["SELECT", "-2147483649"],
        args!["SET", "k", "v", "PX", "100000"],
        args!["MOVE", "k", "0"],
        args!["MOVE", "nokey", "0"],
        args!["MOVE", "k", "1"],
        args!["PTTL", "k"],
        args!["SELECT", "1"],
        args!["EXISTS", "k"],
        args!["MOVE", "k", "0"],
        args!["COPY", "k", "k"],
        args!["COPY", "k", "k", "DB", "1"],
        args!["COPY", "k", "k", "DB", "2"],
        args!["COPY", "k", "k", "DB", "2"],
        args!["COPY", "k", "k", "DB", "2", "REPLACE"],
        args!["COPY", "k", "j", "REPLACE", "DB", "0", "REPLACE"],
        args!["COPY", "k", "j", "DB", "3", "DB", "x"],
        args!["SWAPDB", "0", "2"],
        args!["SWAPDB", "0"],
        args!["SWAPDB", "-1", "0"],
        args!["SWAPDB", "2", "99999999999"],
        args!["DBSIZE"],
        args!["SELECT", "0"],
        args!["DBSIZE"],
        args!["KEYS", "*"],
        // WATCH sees a SWAPDB that changes a watched key that exists ...
        args!["WATCH", "k"],
        args!["SWAPDB", "0", "3"],
        args!["MULTI"],
        args!["PING"],
        args!["EXEC"],
        // ... and not one where the key exists in neither database.
        args!["WATCH", "nothere"],
        args!["SWAPDB", "0", "3"],
        args!["MULTI"],
        args!["PING"],
        args!["EXEC"],
        // A transaction that selects: the later commands run in the database it selected.
        args!["MULTI"],
        args!["SET", "tx", "0"],
        args!["SELECT", "5"],
        args!["SET", "tx", "5"],
        args!["EXEC"],
        args!["GET", "tx"],
        args!["SELECT", "0"],
        args!["GET", "tx"],
        // MOVE of lists, sets and hashes keep their contents.
        args!["RPUSH", "l", "a", "b"],
        args!["SADD", "s", "x"],
        args!["HSET", "h", "f", "v"],
        args!["MOVE", "l", "6"],
        args!["COPY", "s", "s", "DB", "6"],
        args!["COPY", "h", "h2", "DB", "6"],
        args!["SELECT", "6"],
        args!["LRANGE", "l", "0", "-1"],
        args!["SMEMBERS", "s"],
        args!["HGETALL", "h2"],
        args!["FLUSHDB"],
        args!["DBSIZE"],
        // SORT's BY and GET patterns read the selected database's keys only.
        args!["RPUSH", "ids", "1", "2", "3"],
        args!["MSET", "w_1", "30", "w_2", "10", "w_3", "20", "name_1", "one", "name_2", "two"],
        args!["HSET", "obj_3", "name", "three"],
        args!["SELECT", "7"],
        args!["RPUSH", "ids", "3", "1"],
        args!["MSET", "w_1", "5", "w_3", "1", "name_1", "uno"],
        args!["SORT", "ids", "BY", "w_*", "GET", "#", "GET", "name_*", "GET", "obj_*->name"],
        args!["SORT", "ids", "BY", "w_*", "DESC", "STORE", "sorted"],
        args!["LRANGE", "sorted", "0", "-1"],
        args!["SORT_RO", "ids", "BY", "nosort", "GET", "name_*"],
        args!["SELECT", "6"],
        args!["SORT", "ids", "BY", "w_*", "GET", "#", "GET", "name_*", "GET", "obj_*->name"],
        args!["SORT", "ids", "BY", "w_*", "STORE", "sorted"],
        args!["LRANGE", "sorted", "0", "-1"],
        args!["EXISTS", "sorted"],
        args!["SELECT", "7"],
        args!["LRANGE", "sorted", "0", "-1"],
        args!["SELECT", "0"],
        args!["DBSIZE"],
        args!["FLUSHALL"],
    ];
    for argv in cases {
        peers.call(&argv, Check::Exact);
    }
}
