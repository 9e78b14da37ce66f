//! The hash that places a key in its shard and in the miss record: the same value on every
//! target, so the browser playground (wasm32) puts each key in the same shard as the server
//! and therefore lists keys in the same order and evicts the same ones.
//!
//! foldhash, used for the maps inside a shard, is deliberately target-dependent (on 32-bit
//! targets it approximates its 128-bit multiply and hashes lengths as 4 bytes), which is fine
//! for a map's buckets but not for anything a client can see. This is a small wyhash-style
//! function: 64x64->128-bit multiplies, which Rust computes the same way everywhere (one
//! instruction on x86-64 and aarch64). It is as fast as foldhash for cache-sized keys.

const P0: u64 = 0xa076_1d64_78bd_642f;
const P1: u64 = 0xe703_7ed1_a0b4_28db;

#[inline(always)]
fn mum(a: u64, b: u64) -> u64 {
    let r = (a as u128).wrapping_mul(b as u128);
    (r as u64) ^ ((r >> 64) as u64)
}

#[inline(always)]
fn read8(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

#[inline(always)]
fn read4(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(w) as u64
}

/// A seeded 64-bit hash of `bytes`, identical on every target.
#[inline]
pub fn key_hash(seed: u64, bytes: &[u8]) -> u64 {
    let len = bytes.len();
    let mut h = seed ^ P0;
    let (a, b) = if len <= 16 {
        if len >= 8 {
            (read8(bytes, 0), read8(bytes, len - 8))
        } else if len >= 4 {
            (read4(bytes, 0), read4(bytes, len - 4))
        } else if len > 0 {
            (((bytes[0] as u64) << 16) | ((bytes[len / 2] as u64) << 8) | bytes[len - 1] as u64, 0)
        } else {
            (0, 0)
        }
    } else {
        let mut i = 0;
        while i + 16 < len {
            h = mum(read8(bytes, i) ^ P1, read8(bytes, i + 8) ^ h);
            i += 16;
        }
        (read8(bytes, len - 16), read8(bytes, len - 8))
    };
    mum(P1 ^ len as u64, mum(a ^ P1, b ^ h))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_pinned() {
        // Fixed outputs: a change here moves every key to another shard, and must be made
        // knowingly. The wasm parity test checks that wasm32 computes the same.
        let keys: [&[u8]; 6] = [b"", b"a", b"abcd", b"user:1234", b"bench:000000000042", &[7u8; 40]];
        let got: Vec<u64> = keys.iter().map(|k| key_hash(0x5eed, k)).collect();
        assert_eq!(
            got,
            [
                0xce86_bcee_f3e1_db04,
                0x3860_7a7c_b7fb_5f8f,
                0x666e_aade_d798_a6da,
                0x1978_f776_05aa_19a6,
                0xfaea_406c_0f99_bb75,
                0xc337_963f_dcde_bb11
            ]
        );
        assert_ne!(key_hash(1, b"k"), key_hash(2, b"k"), "the seed matters");
    }

    #[test]
    fn spreads_keys_over_shards() {
        let mut counts = [0usize; 64];
        for i in 0..64_000 {
            counts[(key_hash(7, format!("key:{i}").as_bytes()) % 64) as usize] += 1;
        }
        let (min, max) = (counts.iter().min().unwrap(), counts.iter().max().unwrap());
        assert!(*min > 850 && *max < 1150, "min {min} max {max}");
    }
}
