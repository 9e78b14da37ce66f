//! The sparse encoding: walking its opcodes, setting one register in place (splitting a run
//! and re-merging equal neighbours exactly as Redis's `hllSparseSet`, so the bytes match),
//! promotion to dense, and PFDEBUG DECODE's text.

use super::{dense_put, dense_set, invalidate, HllError, DENSE, DENSE_SIZE, HDR, REGISTERS};

const XZERO_BIT: u8 = 0x40;
const VAL_BIT: u8 = 0x80;
const VAL_MAX_VALUE: u8 = 32;
const VAL_MAX_LEN: u64 = 4;
const ZERO_MAX_LEN: u64 = 64;

/// One opcode: registers covered, their value (0 for the zero runs) and its bytes.
#[derive(Clone, Copy)]
struct Op {
    run: u64,
    value: u8,
    len: usize,
    xzero: bool,
}

/// The opcode at `p` (which is inside the string). An XZERO cut off by the end reads its
/// second byte as 0, the sds terminator Redis reads there.
fn op_at(s: &[u8], p: usize) -> Op {
    let b = s[p];
    if b & 0xc0 == 0 {
        Op { run: u64::from(b & 0x3f) + 1, value: 0, len: 1, xzero: false }
    } else if b & VAL_BIT != 0 {
        Op { run: u64::from(b & 3) + 1, value: ((b >> 2) & 0x1f) + 1, len: 1, xzero: false }
    } else {
        let low = s.get(p + 1).copied().unwrap_or(0);
        Op { run: ((u64::from(b & 0x3f) << 8) | u64::from(low)) + 1, value: 0, len: 2, xzero: true }
    }
}

fn val_byte(value: u8, run: u64) -> u8 {
    ((value - 1) << 2) | (run - 1) as u8 | VAL_BIT
}

fn push_zeros(seq: &mut Vec<u8>, run: u64) {
    if run > ZERO_MAX_LEN {
        let l = run - 1;
        seq.push((l >> 8) as u8 | XZERO_BIT);
        seq.push((l & 0xff) as u8);
    } else {
        seq.push((run - 1) as u8);
    }
}

/// Calls `f(run, value)` for each opcode of a sparse HLL's body, in order, until it answers
/// false; true if the walk reached the end.
pub(super) fn for_each_run(s: &[u8], mut f: impl FnMut(u64, u8) -> bool) -> bool {
    let mut p = HDR;
    while p < s.len() {
        let op = op_at(s, p);
        if !f(op.run, op.value) {
            return false;
        }
        p += op.len;
    }
    true
}

/// Redis's `hllSparseSet`: raises register `index` to `count` in a sparse HLL; true if it
/// changed. Promotes to dense when `count` does not fit a VAL opcode or the string would grow
/// past `sparse_max`. `Corrupt` when the body does not cover `index` (or promotion finds it
/// malformed).
pub fn sparse_set(s: &mut Vec<u8>, index: usize, count: u8, sparse_max: usize) -> Result<bool, HllError> {
    if count > VAL_MAX_VALUE {
        return promote(s, index, count);
    }
    let index = index as u64;
    let end = s.len();
    let (mut p, mut first, mut prev, mut span) = (HDR, 0u64, None, 0u64);
    let mut op = None;
    while p < end {
        let o = op_at(s, p);
        span = o.run;
        if index < first + span {
            op = Some(o);
            break;
        }
        prev = Some(p);
        p += o.len;
        first += span;
    }
    let Some(op) = op.filter(|_| span != 0) else { return Err(HllError::Corrupt) };
    if op.value != 0 {
        // A VAL run already at least as high needs nothing; a VAL of one register is
        // rewritten in place.
        if op.value >= count {
            return Ok(false);
        }
        if op.run == 1 {
            s[p] = val_byte(count, 1);
            merge_neighbours(s, prev.unwrap_or(HDR));
            return Ok(true);
        }
    } else if !op.xzero && op.run == 1 {
        s[p] = val_byte(count, 1);
        merge_neighbours(s, prev.unwrap_or(HDR));
        return Ok(true);
    }
    // Split the run into (before, our register, after): at most XZERO-VAL-XZERO, 5 bytes.
    let last = first + op.run - 1;
    let mut seq = Vec::with_capacity(5);
    if op.value == 0 {
        if index != first {
            push_zeros(&mut seq, index - first);
        }
        seq.push(val_byte(count, 1));
        if index != last {
            push_zeros(&mut seq, last - index);
        }
    } else {
        if index != first {
            seq.push(val_byte(op.value, index - first));
        }
        seq.push(val_byte(count, 1));
        if index != last {
            seq.push(val_byte(op.value, last - index));
        }
    }
    let new_len = (end + seq.len()).saturating_sub(op.len);
    if seq.len() > op.len && new_len > sparse_max {
        return promote(s, index as usize, count);
    }
    // The opcode's bytes are replaced; an XZERO cut off by the end had only one byte here,
    // and what Redis writes past the new length is not part of the string.
    let old_end = (p + op.len).min(end);
    s.splice(p..old_end, seq);
    s.truncate(new_len);
    merge_neighbours(s, prev.unwrap_or(HDR));
    Ok(true)
}

/// Redis's step 4: merges adjacent VAL opcodes of equal value, scanning five opcodes from
/// the one before the change, then marks the cached cardinality stale.
fn merge_neighbours(s: &mut Vec<u8>, from: usize) {
    let mut p = from;
    let mut scan = 5;
    while p < s.len() && scan > 0 {
        scan -= 1;
        let b = s[p];
        if b & 0xc0 == XZERO_BIT {
            p += 2;
            continue;
        }
        if b & 0xc0 == 0 {
            p += 1;
            continue;
        }
        if let Some(&next) = s.get(p + 1) {
            if next & VAL_BIT != 0 {
                let (a, b) = (op_at(s, p), op_at(s, p + 1));
                let run = a.run + b.run;
                if a.value == b.value && run <= VAL_MAX_LEN {
                    s[p + 1] = val_byte(a.value, run);
                    s.remove(p);
                    continue;
                }
            }
        }
        p += 1;
    }
    invalidate(s);
}

/// Promotes, then sets the register in the dense body (which always raises it).
fn promote(s: &mut Vec<u8>, index: usize, count: u8) -> Result<bool, HllError> {
    to_dense(s)?;
    dense_set(&mut s[HDR..], index, count);
    Ok(true)
}

/// Redis's `hllSparseToDense`: rewrites a sparse HLL as dense (the header, cached
/// cardinality included, carries over). False if it was dense already.
pub fn to_dense(s: &mut Vec<u8>) -> Result<bool, HllError> {
    if s[4] == DENSE {
        return Ok(false);
    }
    let mut dense = Vec::with_capacity(DENSE_SIZE);
    dense.extend_from_slice(&s[..HDR]);
    dense[4] = DENSE;
    dense.resize(DENSE_SIZE, 0);
    let mut idx = 0u64;
    // A VAL run past the last register is corrupt even when the runs before it add up:
    // Debian's redis-server 7.0.15 has the CVE-2025-32023 fix, which refuses it.
    let complete = for_each_run(s, |run, value| {
        if value == 0 {
            idx += run;
            return true;
        }
        if idx + run > REGISTERS as u64 {
            return false;
        }
        for i in idx..idx + run {
            dense_put(&mut dense[HDR..], i as usize, value);
        }
        idx += run;
        true
    });
    if !complete || idx != REGISTERS as u64 {
        return Err(HllError::Corrupt);
    }
    *s = dense;
    Ok(true)
}

/// PFDEBUG DECODE: `z:len`, `Z:len` and `v:value,len`, space-separated.
pub fn decode(s: &[u8]) -> String {
    let mut out = String::new();
    let mut p = HDR;
    while p < s.len() {
        let op = op_at(s, p);
        if !out.is_empty() {
            out.push(' ');
        }
        match (op.value, op.xzero) {
            (0, false) => out.push_str(&format!("z:{}", op.run)),
            (0, true) => out.push_str(&format!("Z:{}", op.run)),
            (v, _) => out.push_str(&format!("v:{},{}", v, op.run)),
        }
        p += op.len;
    }
    out
}
