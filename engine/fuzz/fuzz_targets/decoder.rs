//! The RESP decoder on arbitrary bytes: consumes `0 < n <= len`, waits, or errs; never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vitrine_engine::testing::{parse_command, Limits};

fuzz_target!(|data: &[u8]| {
    let limits = Limits { max_bulk_len: 1024 * 1024, max_multibulk_len: 1024, max_inline_len: 64 * 1024, unauthenticated: false };
    let mut pos = 0;
    while pos < data.len() {
        match parse_command(&data[pos..], &limits) {
            Ok(Some((_, used))) => {
                assert!(used > 0 && used <= data.len() - pos);
                pos += used;
            }
            Ok(None) | Err(_) => break,
        }
    }
});
