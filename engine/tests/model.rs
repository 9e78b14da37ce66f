//! Property test: random sequences of string and key commands run against the engine and a
//! plain `BTreeMap` model must give the same replies, with time moving between commands.

use std::collections::BTreeMap;

use proptest::prelude::*;
use vitrine_engine::testing::TestEngine;
use vitrine_engine::Reply;

#[derive(Debug, Clone)]
enum Op {
    Set(u8, String, Option<u64>),
    Get(u8),
    Del(Vec<u8>),
    Exists(Vec<u8>),
    Append(u8, String),
    Incr(u8),
    IncrBy(u8, i64),
    Strlen(u8),
    Expire(u8, u64),
    Persist(u8),
    Ttl(u8),
    GetDel(u8),
    Rename(u8, u8),
    SetNx(u8, String),
    Dbsize,
    Advance(u64),
}

fn key(k: u8) -> String {
    format!("key{k}")
}

fn op() -> impl Strategy<Value = Op> {
    let k = 0u8..6;
    let val = prop_oneof!["[a-z]{0,8}", (-100i64..100).prop_map(|n| n.to_string())];
    prop_oneof![
        (k.clone(), val.clone(), proptest::option::of(1u64..5000)).prop_map(|(k, v, px)| Op::Set(k, v, px)),
        k.clone().prop_map(Op::Get),
        proptest::collection::vec(0u8..6, 1..4).prop_map(Op::Del),
        proptest::collection::vec(0u8..6, 1..4).prop_map(Op::Exists),
        (k.clone(), "[a-z0-9]{0,4}").prop_map(|(k, v)| Op::Append(k, v)),
        k.clone().prop_map(Op::Incr),
        (k.clone(), -1000i64..1000).prop_map(|(k, n)| Op::IncrBy(k, n)),
        k.clone().prop_map(Op::Strlen),
        (k.clone(), 1u64..5).prop_map(|(k, s)| Op::Expire(k, s)),
        k.clone().prop_map(Op::Persist),
        k.clone().prop_map(Op::Ttl),
        k.clone().prop_map(Op::GetDel),
        (k.clone(), k.clone()).prop_map(|(a, b)| Op::Rename(a, b)),
        (k.clone(), val).prop_map(|(k, v)| Op::SetNx(k, v)),
        Just(Op::Dbsize),
        (0u64..3000).prop_map(Op::Advance),
    ]
}

/// The reference: what Redis would hold, as a map from key to (value, expiry).
#[derive(Default)]
struct Model {
    data: BTreeMap<String, (Vec<u8>, Option<u64>)>,
}

impl Model {
    fn live(&mut self, k: &str, now: u64) -> Option<&mut (Vec<u8>, Option<u64>)> {
        if matches!(self.data.get(k), Some((_, Some(at))) if *at <= now) {
            self.data.remove(k);
        }
        self.data.get_mut(k)
    }

    fn incr(&mut self, k: &str, by: i64, now: u64) -> Reply {
        let cur = match self.live(k, now) {
            None => 0,
            Some((v, _)) => match std::str::from_utf8(v)
                .ok()
                .and_then(|s| s.parse::<i64>().ok())
                .filter(|n| n.to_string().as_bytes() == v.as_slice())
            {
                Some(n) => n,
                None => return Reply::Error("ERR value is not an integer or out of range".into()),
            },
        };
        let Some(n) = cur.checked_add(by) else {
            return Reply::Error("ERR increment or decrement would overflow".into());
        };
        let ttl = self.live(k, now).and_then(|e| e.1);
        self.data.insert(k.to_string(), (n.to_string().into_bytes(), ttl));
        Reply::Int(n)
    }

    fn apply(&mut self, op: &Op, now: u64) -> (Vec<String>, Reply) {
        match op {
            Op::Set(k, v, px) => {
                self.data.insert(key(*k), (v.clone().into_bytes(), px.map(|ms| now + ms)));
                let mut argv = vec!["SET".into(), key(*k), v.clone()];
                if let Some(ms) = px {
                    argv.extend(["PX".into(), ms.to_string()]);
                }
                (argv, Reply::Ok)
            }
            Op::Get(k) => (vec!["GET".into(), key(*k)], Reply::opt_bulk(self.live(&key(*k), now).map(|e| e.0.clone()))),
            Op::Del(ks) => {
                let mut n = 0;
                let mut seen = vec![];
                for k in ks {
                    if !seen.contains(k) && self.live(&key(*k), now).is_some() {
                        self.data.remove(&key(*k));
                        n += 1;
                    }
                    seen.push(*k);
                }
                (std::iter::once("DEL".to_string()).chain(ks.iter().map(|k| key(*k))).collect(), Reply::Int(n))
            }
            Op::Exists(ks) => {
                let n = ks.iter().filter(|k| self.live(&key(**k), now).is_some()).count() as i64;
                (std::iter::once("EXISTS".to_string()).chain(ks.iter().map(|k| key(*k))).collect(), Reply::Int(n))
            }
            Op::Append(k, v) => {
                let entry = match self.live(&key(*k), now) {
                    Some(e) => e,
                    None => self.data.entry(key(*k)).or_insert((vec![], None)),
                };
                entry.0.extend_from_slice(v.as_bytes());
                (vec!["APPEND".into(), key(*k), v.clone()], Reply::Int(entry.0.len() as i64))
            }
            Op::Incr(k) => (vec!["INCR".into(), key(*k)], self.incr(&key(*k), 1, now)),
            Op::IncrBy(k, n) => (vec!["INCRBY".into(), key(*k), n.to_string()], self.incr(&key(*k), *n, now)),
            Op::Strlen(k) => {
                (vec!["STRLEN".into(), key(*k)], Reply::Int(self.live(&key(*k), now).map_or(0, |e| e.0.len() as i64)))
            }
            Op::Expire(k, s) => {
                let r = match self.live(&key(*k), now) {
                    Some(e) => {
                        e.1 = Some(now + s * 1000);
                        1
                    }
                    None => 0,
                };
                (vec!["EXPIRE".into(), key(*k), s.to_string()], Reply::Int(r))
            }
            Op::Persist(k) => {
                let r = match self.live(&key(*k), now) {
                    Some(e) if e.1.is_some() => {
                        e.1 = None;
                        1
                    }
                    _ => 0,
                };
                (vec!["PERSIST".into(), key(*k)], Reply::Int(r))
            }
            Op::Ttl(k) => {
                let r = match self.live(&key(*k), now) {
                    None => -2,
                    Some((_, None)) => -1,
                    Some((_, Some(at))) => ((*at - now + 500) / 1000) as i64,
                };
                (vec!["TTL".into(), key(*k)], Reply::Int(r))
            }
            Op::GetDel(k) => {
                let v = self.live(&key(*k), now).map(|e| e.0.clone());
                self.data.remove(&key(*k));
                (vec!["GETDEL".into(), key(*k)], Reply::opt_bulk(v))
            }
            Op::Rename(a, b) => {
                let argv = vec!["RENAME".into(), key(*a), key(*b)];
                match self.live(&key(*a), now).cloned() {
                    None => (argv, Reply::Error("ERR no such key".into())),
                    Some(e) => {
                        self.data.remove(&key(*a));
                        self.data.insert(key(*b), e);
                        (argv, Reply::Ok)
                    }
                }
            }
            Op::SetNx(k, v) => {
                let argv = vec!["SETNX".into(), key(*k), v.clone()];
                if self.live(&key(*k), now).is_some() {
                    (argv, Reply::Int(0))
                } else {
                    self.data.insert(key(*k), (v.clone().into_bytes(), None));
                    (argv, Reply::Int(1))
                }
            }
            Op::Dbsize => {
                // DBSIZE counts keys not yet collected; collect first so both sides agree.
                let expired: Vec<String> = self
                    .data
                    .iter()
                    .filter(|(_, (_, t))| matches!(t, Some(at) if *at <= now))
                    .map(|(k, _)| k.clone())
                    .collect();
                for k in expired {
                    self.data.remove(&k);
                }
                (vec!["DBSIZE".into()], Reply::Int(self.data.len() as i64))
            }
            Op::Advance(_) => (vec![], Reply::Ok),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn engine_matches_model(ops in proptest::collection::vec(op(), 1..60)) {
        let mut t = TestEngine::default();
        let mut model = Model::default();
        for op in &ops {
            if let Op::Advance(ms) = op {
                t.advance(*ms);
                continue;
            }
            if matches!(op, Op::Dbsize) {
                // Let the engine collect expired keys the same way before counting.
                for k in 0..6u8 {
                    t.run(&["EXISTS", &key(k)]);
                }
            }
            let (argv, expected) = model.apply(op, t.now);
            let got = t.run(&argv);
            prop_assert_eq!(&got, &expected, "command {:?}", argv);
        }
        // Memory accounting returns to zero once everything is deleted.
        t.run(&["FLUSHALL"]);
        prop_assert_eq!(t.used_memory(), 0);
    }
}
