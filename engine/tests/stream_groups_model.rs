//! Property test: random sequences of consumer-group commands (XADD, XDEL, XREADGROUP new
//! and history, XACK, XCLAIM, XGROUP DELCONSUMER, XPENDING, XINFO GROUPS) run against the
//! engine and a plain model (per group: last-delivered ID, pending entries by ID with owner
//! and delivery count, consumers) must give the same replies; afterwards every pending list
//! agrees, and deleting the stream brings `used_memory` back to 0.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use vitrine_engine::testing::TestEngine;
use vitrine_engine::Reply;

const GROUPS: u8 = 2;
const CONSUMERS: u8 = 3;

#[derive(Debug, Clone)]
enum Op {
    Add,
    /// An entry ID (ms) to delete.
    Del(u8),
    /// Group, consumer, count (0 = all), NOACK.
    Read(u8, u8, u8, bool),
    /// Group, consumer: its pending entries from the start.
    History(u8, u8),
    Ack(u8, Vec<u8>),
    /// Group, consumer, IDs, JUSTID.
    Claim(u8, u8, Vec<u8>, bool),
    DelConsumer(u8, u8),
    Pending(u8),
    Groups,
}

fn op() -> impl Strategy<Value = Op> {
    let g = 0..GROUPS;
    let c = 0..CONSUMERS;
    let id = 1u8..40;
    prop_oneof![
        6 => Just(Op::Add),
        1 => id.clone().prop_map(Op::Del),
        6 => (g.clone(), c.clone(), 0u8..4, proptest::bool::weighted(0.2)).prop_map(|(g, c, n, x)| Op::Read(g, c, n, x)),
        2 => (g.clone(), c.clone()).prop_map(|(g, c)| Op::History(g, c)),
        3 => (g.clone(), proptest::collection::vec(id.clone(), 1..4)).prop_map(|(g, ids)| Op::Ack(g, ids)),
        3 => (g.clone(), c.clone(), proptest::collection::vec(id, 1..4), any::<bool>())
            .prop_map(|(g, c, ids, j)| Op::Claim(g, c, ids, j)),
        1 => (g.clone(), c).prop_map(|(g, c)| Op::DelConsumer(g, c)),
        2 => g.prop_map(Op::Pending),
        1 => Just(Op::Groups),
    ]
}

#[derive(Default, Clone)]
struct Group {
    last: u64,
    /// ID -> (owner, deliveries).
    pel: BTreeMap<u64, (u8, u64)>,
    consumers: BTreeSet<u8>,
}

#[derive(Default)]
struct Model {
    /// Live entry IDs (ms; the sequence is always 0).
    entries: BTreeSet<u64>,
    next: u64,
    groups: Vec<Group>,
}

fn bulk(s: impl AsRef<[u8]>) -> Reply {
    Reply::Bulk(s.as_ref().to_vec())
}

fn id(ms: u64) -> String {
    format!("{ms}-0")
}

fn entry(ms: u64) -> Reply {
    Reply::Array(vec![bulk(id(ms)), Reply::Array(vec![bulk("f"), bulk(format!("v{ms}"))])])
}

fn group(g: u8) -> String {
    format!("g{g}")
}

fn consumer(c: u8) -> String {
    format!("c{c}")
}

fn one_stream(entries: Vec<Reply>) -> Reply {
    Reply::Array(vec![Reply::Array(vec![bulk("s"), Reply::Array(entries)])])
}

impl Model {
    /// Applies `op` and answers what Redis would, with the command that does it.
    fn apply(&mut self, op: &Op) -> (Vec<String>, Reply) {
        match op {
            Op::Add => {
                self.next += 1;
                self.entries.insert(self.next);
                (
                    vec!["XADD".into(), "s".into(), id(self.next), "f".into(), format!("v{}", self.next)],
                    bulk(id(self.next)),
                )
            }
            Op::Del(ms) => {
                let n = self.entries.remove(&u64::from(*ms)) as i64;
                (vec!["XDEL".into(), "s".into(), id(u64::from(*ms))], Reply::Int(n))
            }
            Op::Read(g, c, n, noack) => {
                let mut argv = vec!["XREADGROUP".into(), "GROUP".into(), group(*g), consumer(*c)];
                if *n > 0 {
                    argv.extend(["COUNT".into(), n.to_string()]);
                }
                if *noack {
                    argv.push("NOACK".into());
                }
                argv.extend(["STREAMS".into(), "s".into(), ">".into()]);
                let grp = &mut self.groups[usize::from(*g)];
                grp.consumers.insert(*c);
                let take = if *n == 0 { usize::MAX } else { usize::from(*n) };
                let new: Vec<u64> = self.entries.range(grp.last + 1..).copied().take(take).collect();
                if new.is_empty() {
                    return (argv, Reply::NilArray);
                }
                for &ms in &new {
                    grp.last = ms;
                    if !noack {
                        grp.pel.insert(ms, (*c, 1));
                    }
                }
                (argv, one_stream(new.into_iter().map(entry).collect()))
            }
            Op::History(g, c) => {
                let argv = vec![
                    "XREADGROUP".into(),
                    "GROUP".into(),
                    group(*g),
                    consumer(*c),
                    "STREAMS".into(),
                    "s".into(),
                    "0".into(),
                ];
                let grp = &mut self.groups[usize::from(*g)];
                grp.consumers.insert(*c);
                let mut out = Vec::new();
                for (&ms, (owner, count)) in grp.pel.iter_mut() {
                    if owner != c {
                        continue;
                    }
                    if self.entries.contains(&ms) {
                        *count += 1;
                        out.push(entry(ms));
                    } else {
                        out.push(Reply::Array(vec![bulk(id(ms)), Reply::NilArray]));
                    }
                }
                (argv, one_stream(out))
            }
            Op::Ack(g, ids) => {
                let mut argv = vec!["XACK".into(), "s".into(), group(*g)];
                argv.extend(ids.iter().map(|&ms| id(u64::from(ms))));
                let grp = &mut self.groups[usize::from(*g)];
                let n = ids.iter().filter(|&&ms| grp.pel.remove(&u64::from(ms)).is_some()).count();
                (argv, Reply::Int(n as i64))
            }
            Op::Claim(g, c, ids, justid) => {
                let mut argv = vec!["XCLAIM".into(), "s".into(), group(*g), consumer(*c), "0".into()];
                argv.extend(ids.iter().map(|&ms| id(u64::from(ms))));
                if *justid {
                    argv.push("JUSTID".into());
                }
                let grp = &mut self.groups[usize::from(*g)];
                grp.consumers.insert(*c);
                let mut out = Vec::new();
                for &ms in ids {
                    let ms = u64::from(ms);
                    if !self.entries.contains(&ms) {
                        grp.pel.remove(&ms);
                        continue;
                    }
                    let Some((owner, count)) = grp.pel.get_mut(&ms) else { continue };
                    *owner = *c;
                    if !justid {
                        *count += 1;
                    }
                    out.push(if *justid { bulk(id(ms)) } else { entry(ms) });
                }
                (argv, Reply::Array(out))
            }
            Op::DelConsumer(g, c) => {
                let argv = vec!["XGROUP".into(), "DELCONSUMER".into(), "s".into(), group(*g), consumer(*c)];
                let grp = &mut self.groups[usize::from(*g)];
                if !grp.consumers.remove(c) {
                    return (argv, Reply::Int(0));
                }
                let before = grp.pel.len();
                grp.pel.retain(|_, (owner, _)| owner != c);
                (argv, Reply::Int((before - grp.pel.len()) as i64))
            }
            Op::Pending(g) => {
                let argv = vec!["XPENDING".into(), "s".into(), group(*g)];
                let grp = &self.groups[usize::from(*g)];
                let (Some(first), Some(last)) = (grp.pel.keys().next(), grp.pel.keys().next_back()) else {
                    return (argv, Reply::Array(vec![Reply::Int(0), Reply::Nil, Reply::Nil, Reply::NilArray]));
                };
                let mut per: BTreeMap<u8, usize> = BTreeMap::new();
                for (owner, _) in grp.pel.values() {
                    *per.entry(*owner).or_default() += 1;
                }
                let owners = per.into_iter().map(|(c, n)| Reply::Array(vec![bulk(consumer(c)), bulk(n.to_string())]));
                let reply = Reply::Array(vec![
                    Reply::Int(grp.pel.len() as i64),
                    bulk(id(*first)),
                    bulk(id(*last)),
                    Reply::Array(owners.collect()),
                ]);
                (argv, reply)
            }
            Op::Groups => (vec!["XINFO".into(), "GROUPS".into(), "s".into()], Reply::Nil),
        }
    }
}

/// The parts of XINFO GROUPS the model keeps: name, consumers, pending, last-delivered ID.
fn groups_summary(reply: &Reply) -> Vec<(Reply, Reply, Reply, Reply)> {
    let Reply::Array(groups) = reply else { panic!("{reply:?}") };
    groups
        .iter()
        .map(|g| {
            let Reply::Map(f) = g else { panic!("{g:?}") };
            (f[0].1.clone(), f[1].1.clone(), f[2].1.clone(), f[3].1.clone())
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    #[test]
    fn groups_match_the_model_and_memory_returns_to_zero(ops in proptest::collection::vec(op(), 1..150)) {
        let mut t = TestEngine::default();
        let mut m = Model { groups: vec![Group::default(); usize::from(GROUPS)], ..Model::default() };
        t.run(&["XGROUP", "CREATE", "s", "g0", "0", "MKSTREAM"]);
        t.run(&["XGROUP", "CREATE", "s", "g1", "0"]);
        for op in &ops {
            let (argv, expected) = m.apply(op);
            let got = t.run(&argv);
            if let Op::Groups = op {
                let want: Vec<_> = m.groups.iter().enumerate().map(|(i, g)| {
                    (bulk(group(i as u8)), Reply::Int(g.consumers.len() as i64), Reply::Int(g.pel.len() as i64), bulk(id(g.last)))
                }).collect();
                prop_assert_eq!(groups_summary(&got), want, "{:?}", argv);
                continue;
            }
            prop_assert_eq!(&got, &expected, "{:?}", argv);
        }
        for (g, grp) in m.groups.iter().enumerate() {
            let got = t.run(&["XPENDING", "s", &group(g as u8), "-", "+", "1000"]);
            let want = Reply::Array(grp.pel.iter().map(|(&ms, &(c, n))| {
                Reply::Array(vec![bulk(id(ms)), bulk(consumer(c)), Reply::Int(0), Reply::Int(n as i64)])
            }).collect());
            prop_assert_eq!(got, want);
        }
        t.run(&["DEL", "s"]);
        prop_assert_eq!(t.used_memory(), 0);
    }
}
