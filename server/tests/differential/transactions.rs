//! Transactions: MULTI/EXEC/DISCARD and WATCH, broken by writes from this or another connection.

use std::time::Duration;

use rand::Rng;

use crate::harness::*;

/// MULTI/EXEC/DISCARD/WATCH sequences in a seeded random order: queued replies, EXEC's
/// array (runtime errors inside it included), EXECABORT after a refused command, the control
/// errors, and WATCH broken (or not) by writes from the same or another connection and by
/// expiry. The main random test mixes the single-connection sequences into its commands too
/// (`Gen::transaction`).
///
/// Deliberate difference, avoided by the generator: Vitrine marks a watched key touched by
/// any successful write command that names it while it exists, where Redis only by one that
/// changed it. The writes sent between WATCH and EXEC (SET, DEL, INCR, APPEND) change the key
/// whenever they succeed on an existing one, so both servers agree; SETNX, PERSIST or SADD
/// of a member already there are not sent there (SMOVE is exact: `smove_breaks_watch_only_on_changed_sets`).
#[test]
fn random_transactions_match_redis() {
    let Some(servers) = Servers::start_or_skip("random_transactions_match_redis") else {
        return;
    };
    let mut peers = servers.peers();
    // Another client of each server, whose writes break the first one's WATCH.
    let mut others = servers.peers();
    for seed in seeds() {
        peers.begin(&format!("transactions, seed {seed}"));
        others.begin(&format!("transactions (other connection), seed {seed}"));
        peers.call(&[b"FLUSHALL".to_vec()], Check::Exact);
        let mut gen = Gen::new(seed);
        for op in 0..OPS_PER_SEED / 3 {
            peers.op = op;
            let (k, v) = (gen.key(), gen.value());
            for (by, step) in gen.transaction_with_others(k, v) {
                match by {
                    By::Own => peers.run(step),
                    By::Other => others.run(step),
                }
            }
        }
    }
}

/// Which connection sends a step of a transaction sequence.
enum By {
    Own,
    Other,
}

impl Gen {
    /// A single-connection transaction sequence (for the main random test's `OPS`).
    pub fn transaction(&mut self, k: Vec<u8>, v: Vec<u8>) -> Vec<Step> {
        let steps = self.tx_sequence(k, v, false);
        steps.into_iter().map(|(_, step)| step).collect()
    }

    fn transaction_with_others(&mut self, k: Vec<u8>, v: Vec<u8>) -> Vec<(By, Step)> {
        self.tx_sequence(k, v, true)
    }

    /// A command to queue: string and key commands whose replies compare exactly, with
    /// runtime errors among them (INCR of a non-number, SADD on a string).
    fn tx_command(&mut self) -> Vec<Vec<u8>> {
        let (k, v) = (self.key(), self.value());
        let mut argv = match self.rng.gen_range(0..11) {
            0 | 1 => args!["SET", k, v],
            2 => args!["GET", k],
            3 => args!["INCR", k],
            4 => args!["APPEND", k, v],
            5 => args!["DEL", k],
            6 => {
                let mut argv = args!["MGET"];
                argv.extend(self.keys(3));
                argv
            }
            7 => {
                let by = self.int(-10..10);
                args!["INCRBY", k, by]
            }
            8 => args!["EXISTS", k],
            9 => args!["SADD", k, v],
            _ => args!["STRLEN", k],
        };
        argv[0] = self.casing(&String::from_utf8_lossy(&argv[0]));
        argv
    }

    /// A write that changes `k` whenever it succeeds (see `random_transactions_match_redis`).
    fn tx_write(&mut self, k: Vec<u8>, v: Vec<u8>) -> Vec<Vec<u8>> {
        match self.rng.gen_range(0..4) {
            0 => args!["SET", k, v],
            1 => args!["DEL", k],
            2 => args!["INCR", k],
            _ => args!["APPEND", k, v],
        }
    }

    fn tx_sequence(&mut self, k: Vec<u8>, v: Vec<u8>, others: bool) -> Vec<(By, Step)> {
        let own = |argv: Vec<Vec<u8>>| (By::Own, Step::Call(argv, Check::Exact));
        let mut steps = Vec::new();
        let queue = |g: &mut Gen, steps: &mut Vec<(By, Step)>| {
            steps.push(own(args!["MULTI"]));
            for _ in 0..g.rng.gen_range(0..5) {
                steps.push(own(g.tx_command()));
            }
        };
        match self.rng.gen_range(0..16) {
            // MULTI ... EXEC, or DISCARD.
            0..=3 => {
                queue(self, &mut steps);
                let end = if self.chance(80) { "EXEC" } else { "DISCARD" };
                steps.push(own(args![end]));
            }
            // A command refused while queuing aborts the whole transaction.
            4 | 5 => {
                queue(self, &mut steps);
                let refused = if self.chance(50) { self.wrong_arity() } else { self.unknown_command() };
                steps.extend(refused.into_iter().map(|s| (By::Own, s)));
                steps.push(own(self.tx_command()));
                steps.push(own(args!["EXEC"]));
            }
            // WATCH, then maybe a write to a watched key (or another one), then EXEC.
            6..=12 => {
                let mut watched = vec![k.clone()];
                if self.chance(30) {
                    watched.push(self.key());
                }
                let mut watch = args!["WATCH"];
                watch.extend(watched.iter().cloned());
                steps.push(own(watch));
                let target = if self.chance(70) { k } else { self.key() };
                let write = self.tx_write(target, v);
                match self.rng.gen_range(0..3) {
                    0 if others => steps.push((By::Other, Step::Call(write, Check::Exact))),
                    0 | 1 => steps.push(own(write)),
                    _ => {}
                }
                if self.chance(20) {
                    steps.push(own(args!["UNWATCH"]));
                }
                queue(self, &mut steps);
                steps.push(own(args!["EXEC"]));
            }
            // WATCH and expiry: a key alive at WATCH that expires before EXEC breaks it; one
            // already expired at WATCH does not. (Rare: each waits out a TTL.)
            13 => {
                let alive = self.chance(50);
                steps.push(own(args!["SET", k.clone(), v, "PX", "80"]));
                let wait = || (By::Own, Step::Sleep(Duration::from_millis(110)));
                if !alive {
                    steps.push(wait());
                }
                steps.push(own(args!["WATCH", k.clone()]));
                if alive {
                    steps.push(wait());
                }
                // Read it now, so lazy expiry removes it in both servers (else DBSIZE would
                // depend on when each one's active expiry gets to it).
                steps.push(own(args!["GET", k]));
                queue(self, &mut steps);
                steps.push(own(args!["EXEC"]));
            }
            // The control errors: EXEC or DISCARD without MULTI, MULTI or WATCH inside MULTI.
            _ => match self.rng.gen_range(0..3) {
                0 => steps.push(own(args![self.pick(&["EXEC", "DISCARD", "UNWATCH"])])),
                _ => {
                    steps.push(own(args!["MULTI"]));
                    steps.push(own(args!["MULTI"]));
                    steps.push(own(args!["WATCH", k]));
                    steps.push(own(self.tx_command()));
                    steps.push(own(args!["EXEC"]));
                }
            },
        }
        steps
    }
}

/// SMOVE breaks a WATCH only on the sets it changes, as Redis signals them: the source when
/// the member left it, the destination when the member was new there (not when it already
/// had it), neither when nothing moved.
#[test]
fn smove_breaks_watch_only_on_changed_sets() {
    let Some(servers) = Servers::start_or_skip("smove_breaks_watch_only_on_changed_sets") else {
        return;
    };
    let mut peers = servers.peers();
    let mut others = servers.peers();
    peers.begin("SMOVE and WATCH");
    others.begin("SMOVE and WATCH (other connection)");
    let cases: &[(&[&str], &str, &[&str])] = &[
        (&["a", "b"], "dst", &["src", "dst", "a"]),
        (&["a", "b"], "src", &["src", "dst", "a"]),
        (&["a", "b"], "dst", &["src", "dst", "b"]),
        (&["a", "b"], "src", &["src", "dst", "b"]),
        (&["a", "b"], "src", &["src", "dst", "zz"]),
        (&["a", "b"], "dst", &["src", "dst", "zz"]),
        (&["a", "b"], "src", &["src", "src", "a"]),
        (&["a"], "src", &["src", "dst", "a"]),
        (&["a"], "dst", &["src", "dst", "a"]),
        (&["a"], "dst", &["nosuch", "dst", "a"]),
        (&["a"], "dst", &["nosuch", "dst", "b"]),
    ];
    let exact = |argv| Step::Call(argv, Check::Exact);
    for &(src, watched, smove) in cases {
        for by_other in [false, true] {
            peers.run(exact(args!["FLUSHALL"]));
            let mut sadd = args!["SADD", "src"];
            sadd.extend(src.iter().map(|m| m.as_bytes().to_vec()));
            peers.run(exact(sadd));
            peers.run(exact(args!["SADD", "dst", "a"]));
            peers.run(exact(args!["WATCH", watched]));
            let mut argv = args!["SMOVE"];
            argv.extend(smove.iter().map(|a| a.as_bytes().to_vec()));
            if by_other {
                others.run(exact(argv));
            } else {
                peers.run(exact(argv));
            }
            peers.run(exact(args!["MULTI"]));
            peers.run(exact(args!["PING"]));
            peers.run(exact(args!["EXEC"]));
        }
    }
}
