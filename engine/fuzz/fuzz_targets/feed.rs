//! `Engine::feed` on arbitrary bytes, split in two chunks at the first byte's position, as a
//! server would see them; then FLUSHALL must bring `used_memory` back to zero.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vitrine_engine::{Config, Engine};

const NOW: u64 = 1_700_000_000_000;

fuzz_target!(|data: &[u8]| {
    let config = Config::default();
    config.set("proto-max-bulk-len", "1mb").unwrap();
    let engine = Engine::new(config, NOW, 1);
    let mut session = engine.new_session("127.0.0.1:1", "127.0.0.1:6379", NOW);
    let split = data.first().map_or(0, |&b| (b as usize).min(data.len()));
    let mut buf = Vec::new();
    let mut out = Vec::new();
    for chunk in [&data[..split], &data[split..]] {
        buf.extend_from_slice(chunk);
        match engine.feed(&mut session, &buf, &mut out, NOW) {
            Ok(used) => {
                assert!(used <= buf.len());
                buf.drain(..used);
                if session.blocked.is_some() {
                    engine.unblock_timeout(&mut session, &mut out);
                }
                if session.closing {
                    break;
                }
            }
            Err(_) => break,
        }
    }
    engine.end_session(&session);
    let mut admin = engine.new_session("127.0.0.1:2", "127.0.0.1:6379", NOW);
    admin.authenticated = true;
    engine.call(&mut admin, &["FLUSHALL"], NOW);
    assert_eq!(engine.snapshot(NOW).used_memory, 0);
});
