//! HyperLogLog as Redis 7 stores it, byte for byte: plain functions on the string value, so
//! GET, SET, APPEND and DUMP see exactly the bytes redis-server would hold.
//!
//! Layout (Redis's `src/hyperloglog.c`): a 16-byte header (`HYLL`, the encoding byte, three
//! unused bytes, the cached cardinality as 8 little-endian bytes whose top bit says "stale"),
//! then either 16384 six-bit registers packed little-endian (dense, 12288 bytes) or a run
//! length encoding of them (sparse: `ZERO` 00xxxxxx, `XZERO` 01xxxxxx yyyyyyyy, `VAL`
//! 1vvvvvxx). Elements hash with MurmurHash64A (seed `0xadc83b19`); the estimate is Ertl's
//! improved estimator, as Redis 7 computes it, to the same last bit.
//!
//! Corrupted input never panics here: a byte read past the end reads as 0 (Redis reads the
//! sds terminator there), and every loop is bounded by the string's length.

mod sparse;
#[cfg(test)]
mod tests;

pub use sparse::{decode, sparse_set, to_dense};

/// Header bytes before the registers.
pub const HDR: usize = 16;
/// Registers (2^14).
pub const REGISTERS: usize = 1 << P;
const P: u32 = 14;
/// Hash bits left after the register index.
const Q: u32 = 64 - P;
const REGISTER_MAX: u8 = 63;
/// A dense HLL's exact length.
pub const DENSE_SIZE: usize = HDR + REGISTERS * 6 / 8;
pub const DENSE: u8 = 0;
pub const SPARSE: u8 = 1;
/// Index of the cached cardinality's byte holding the "stale" bit.
const CARD_TOP: usize = 15;

/// Why a string is not a usable HLL (each has its Redis reply text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HllError {
    /// Not an HLL at all: `WRONGTYPE Key is not a valid HyperLogLog string value.`
    NotHll,
    /// An HLL whose registers do not decode: `INVALIDOBJ Corrupted HLL object detected`.
    Corrupt,
}

/// A new, empty HLL as PFADD creates it: sparse, its registers in one XZERO run.
pub fn new_sparse() -> Vec<u8> {
    let mut s = Vec::with_capacity(HDR + 2);
    s.extend_from_slice(b"HYLL");
    s.push(SPARSE);
    s.resize(HDR, 0);
    let run = REGISTERS - 1;
    s.push(0x40 | (run >> 8) as u8);
    s.push((run & 0xff) as u8);
    s
}

/// Redis's `isHLLObjectOrReply` on a string: the magic, a known encoding, and a dense one's
/// exact length. A sparse body is only checked when it is read.
pub fn validate(s: &[u8]) -> Result<(), HllError> {
    if s.len() < HDR || &s[..4] != b"HYLL" || s[4] > SPARSE || (s[4] == DENSE && s.len() != DENSE_SIZE) {
        return Err(HllError::NotHll);
    }
    Ok(())
}

pub fn is_dense(s: &[u8]) -> bool {
    s[4] == DENSE
}

/// The cached cardinality, when it is not marked stale.
pub fn cached(s: &[u8]) -> Option<u64> {
    if s[CARD_TOP] & 0x80 != 0 {
        return None;
    }
    let mut card = [0u8; 8];
    card.copy_from_slice(&s[8..16]);
    Some(u64::from_le_bytes(card))
}

/// Stores a freshly computed cardinality in the header (PFCOUNT's write-back).
pub fn set_cached(s: &mut [u8], card: u64) {
    s[8..16].copy_from_slice(&card.to_le_bytes());
}

/// Marks the cached cardinality stale.
pub fn invalidate(s: &mut [u8]) {
    s[CARD_TOP] |= 0x80;
}

/// MurmurHash64A as Redis has it (endian-neutral), the hash HLL elements go through.
pub fn murmur64a(key: &[u8], seed: u32) -> u64 {
    const M: u64 = 0xc6a4a7935bd1e995;
    const R: u32 = 47;
    let mut h = u64::from(seed) ^ (key.len() as u64).wrapping_mul(M);
    let mut chunks = key.chunks_exact(8);
    for chunk in &mut chunks {
        let mut k = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h ^= k;
        h = h.wrapping_mul(M);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        for (i, b) in rest.iter().enumerate() {
            h ^= u64::from(*b) << (8 * i);
        }
        h = h.wrapping_mul(M);
    }
    h ^= h >> R;
    h = h.wrapping_mul(M);
    h ^= h >> R;
    h
}

/// The register an element lands in and the length of its `0...01` run (1..=51).
pub fn pattern(ele: &[u8]) -> (usize, u8) {
    let hash = murmur64a(ele, 0xadc83b19);
    let index = (hash & (REGISTERS as u64 - 1)) as usize;
    // The guard bit bounds the run at Q + 1.
    let rest = (hash >> P) | (1u64 << Q);
    (index, rest.trailing_zeros() as u8 + 1)
}

/// Register `i` of a dense body (the bytes after the header).
pub fn dense_get(regs: &[u8], i: usize) -> u8 {
    let bit = i * 6;
    let (byte, fb) = (bit / 8, bit % 8);
    let b0 = u16::from(regs.get(byte).copied().unwrap_or(0));
    let b1 = u16::from(regs.get(byte + 1).copied().unwrap_or(0));
    (((b0 >> fb) | (b1 << (8 - fb))) & u16::from(REGISTER_MAX)) as u8
}

/// Sets register `i` of a dense body to `val` (at most 63).
pub fn dense_put(regs: &mut [u8], i: usize, val: u8) {
    let bit = i * 6;
    let (byte, fb) = (bit / 8, bit % 8);
    let v = u16::from(val & REGISTER_MAX);
    if let Some(b) = regs.get_mut(byte) {
        *b &= !((u16::from(REGISTER_MAX) << fb) as u8);
        *b |= (v << fb) as u8;
    }
    // The last register ends exactly on its byte: nothing spills into a next one.
    if let Some(b) = regs.get_mut(byte + 1) {
        *b &= !((u16::from(REGISTER_MAX) >> (8 - fb)) as u8);
        *b |= (v >> (8 - fb)) as u8;
    }
}

/// Raises dense register `i` to `count`; true if it changed.
pub fn dense_set(regs: &mut [u8], i: usize, count: u8) -> bool {
    if count > dense_get(regs, i) {
        dense_put(regs, i, count);
        true
    } else {
        false
    }
}

/// PFADD of one element: true if a register rose. A sparse HLL may be promoted to dense
/// (a run too long for a VAL opcode, or growth past `sparse_max` bytes).
pub fn add(s: &mut Vec<u8>, ele: &[u8], sparse_max: usize) -> Result<bool, HllError> {
    let (index, count) = pattern(ele);
    match s[4] {
        DENSE => Ok(dense_set(&mut s[HDR..], index, count)),
        SPARSE => sparse_set(s, index, count, sparse_max),
        _ => Err(HllError::Corrupt),
    }
}

/// The register histogram of a validated HLL; `Corrupt` when a sparse body does not cover
/// exactly 16384 registers.
fn histogram(s: &[u8]) -> Result<[u64; 64], HllError> {
    let mut histo = [0u64; 64];
    if is_dense(s) {
        for i in 0..REGISTERS {
            histo[usize::from(dense_get(&s[HDR..], i))] += 1;
        }
        return Ok(histo);
    }
    let mut covered = 0u64;
    sparse::for_each_run(s, |run, value| {
        covered += run;
        histo[usize::from(value)] += run;
        true
    });
    if covered != REGISTERS as u64 {
        return Err(HllError::Corrupt);
    }
    Ok(histo)
}

/// The estimate of a validated HLL (no cache involved).
pub fn count(s: &[u8]) -> Result<u64, HllError> {
    Ok(estimate(&histogram(s)?))
}

/// The estimate of raw registers, one byte each (PFCOUNT of several keys).
pub fn count_raw(max: &[u8; REGISTERS]) -> u64 {
    let mut histo = [0u64; 64];
    for r in max {
        histo[usize::from(*r & 63)] += 1;
    }
    estimate(&histo)
}

/// Raises `max` to each register of a validated HLL (PFCOUNT of several keys, PFMERGE).
pub fn merge_into(max: &mut [u8; REGISTERS], s: &[u8]) -> Result<(), HllError> {
    if is_dense(s) {
        for (i, m) in max.iter_mut().enumerate() {
            *m = (*m).max(dense_get(&s[HDR..], i));
        }
        return Ok(());
    }
    let mut i = 0usize;
    let complete = sparse::for_each_run(s, |run, value| {
        if value == 0 {
            i = i.saturating_add(run as usize);
            return true;
        }
        // A VAL run past the last register is corrupt (Redis's overflow check, as patched
        // for CVE-2025-32023).
        let Some(end) = i.checked_add(run as usize).filter(|e| *e <= REGISTERS) else { return false };
        for m in &mut max[i..end] {
            *m = (*m).max(value);
        }
        i = end;
        true
    });
    if !complete || i != REGISTERS {
        return Err(HllError::Corrupt);
    }
    Ok(())
}

/// Ertl's estimator ("New cardinality estimation algorithms for HyperLogLog sketches",
/// arXiv:1702.01284), evaluated in the order Redis evaluates it so the result rounds alike.
fn estimate(histo: &[u64; 64]) -> u64 {
    let m = REGISTERS as f64;
    let q = Q as usize;
    let mut z = m * tau((m - histo[q + 1] as f64) / m);
    for j in (1..=q).rev() {
        z += histo[j] as f64;
        z *= 0.5;
    }
    z += m * sigma(histo[0] as f64 / m);
    const ALPHA_INF: f64 = 0.721_347_520_444_481_7;
    llround_to_u64(ALPHA_INF * m * m / z)
}

/// Redis's `(uint64_t)(double)llroundl(x)` on x86-64: halves away from zero; a result
/// outside `long long` (all registers at 63 make `x` infinite) is `LLONG_MIN`, which the
/// conversions carry through as the bit pattern `1 << 63`.
fn llround_to_u64(x: f64) -> u64 {
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    let r = x.round();
    let ll = if r.is_finite() && (-LIMIT..LIMIT).contains(&r) { r as i64 } else { i64::MIN };
    let e = ll as f64;
    if e < 0.0 {
        (e as i64) as u64
    } else {
        e as u64
    }
}

fn sigma(mut x: f64) -> f64 {
    if x == 1.0 {
        return f64::INFINITY;
    }
    let (mut y, mut z) = (1.0, x);
    loop {
        x *= x;
        let before = z;
        z += x * y;
        y += y;
        if before == z {
            return z;
        }
    }
}

fn tau(mut x: f64) -> f64 {
    if x == 0.0 || x == 1.0 {
        return 0.0;
    }
    let (mut y, mut z) = (1.0, 1.0 - x);
    loop {
        x = x.sqrt();
        let before = z;
        y *= 0.5;
        z -= (1.0 - x) * (1.0 - x) * y;
        if before == z {
            return z / 3.0;
        }
    }
}

/// PFSELFTEST: register packing round-trips, and sparse and dense estimates agree and stay
/// within six standard errors up to `limit` elements. `Err` holds Redis's TESTFAILED text.
pub fn selftest(seed: u64, cycles: usize, limit: u64, sparse_max: usize) -> Result<(), String> {
    let mut rng = seed | 1;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut dense = vec![0u8; DENSE_SIZE];
    let mut bytes = vec![0u8; REGISTERS];
    for _ in 0..cycles {
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = (next() & 63) as u8;
            dense_put(&mut dense[HDR..], i, *b);
        }
        for (i, b) in bytes.iter().enumerate() {
            let val = dense_get(&dense[HDR..], i);
            if val != *b {
                return Err(format!("TESTFAILED Register {i} should be {b} but is {val}"));
            }
        }
    }
    dense.fill(0);
    dense[..4].copy_from_slice(b"HYLL");
    let mut hll = new_sparse();
    let relerr = 1.04 / (REGISTERS as f64).sqrt();
    let base = next();
    let mut checkpoint = 1u64;
    for j in 1..=limit {
        let ele = (j ^ base).to_le_bytes();
        let (index, run) = pattern(&ele);
        dense_set(&mut dense[HDR..], index, run);
        add(&mut hll, &ele, sparse_max).map_err(|_| "TESTFAILED corrupted HLL".to_string())?;
        if j != checkpoint {
            continue;
        }
        if (j as usize) < sparse_max / 2 && hll[4] != SPARSE {
            return Err("TESTFAILED sparse encoding not used".into());
        }
        let exact = count(&dense).map_err(|_| "TESTFAILED corrupted HLL".to_string())?;
        if Ok(exact) != count(&hll) {
            return Err("TESTFAILED dense/sparse disagree".into());
        }
        let abserr = checkpoint.abs_diff(exact);
        let maxerr = if j == 10 { 1 } else { (relerr * 6.0 * checkpoint as f64).ceil() as u64 };
        if abserr > maxerr {
            return Err(format!("TESTFAILED Too big error. card:{checkpoint} abserr:{abserr}"));
        }
        checkpoint *= 10;
    }
    Ok(())
}
