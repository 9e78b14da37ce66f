//! Command execution with arbitrary argv: the name is picked from the command table (so every
//! handler is reached), the arguments are arbitrary bytes.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use vitrine_engine::{Config, Engine};

const NOW: u64 = 1_700_000_000_000;

#[derive(Arbitrary, Debug)]
struct Call {
    command: u16,
    args: Vec<Vec<u8>>,
}

fuzz_target!(|calls: Vec<Call>| {
    let config = Config::default();
    config.set("proto-max-bulk-len", "1mb").unwrap();
    let engine = Engine::new(config, NOW, 1);
    let mut session = engine.new_session("127.0.0.1:1", "127.0.0.1:6379", NOW);
    let names: Vec<&str> = vitrine_engine::inspect::command_names().collect();
    for (i, call) in calls.iter().enumerate() {
        let name = names[call.command as usize % names.len()].as_bytes().to_vec();
        // CONFIG SET could lift the bulk limit above and make a SETRANGE allocate gigabytes.
        if name == b"CONFIG" && call.args.first().is_some_and(|a| a.eq_ignore_ascii_case(b"SET")) {
            continue;
        }
        let mut argv = vec![name];
        argv.extend(call.args.iter().take(16).cloned());
        let _ = engine.call(&mut session, &argv, NOW + i as u64);
    }
    engine.end_session(&session);
    let mut admin = engine.new_session("127.0.0.1:2", "127.0.0.1:6379", NOW);
    admin.authenticated = true;
    engine.call(&mut admin, &["FLUSHALL"], NOW);
    assert_eq!(engine.snapshot(NOW).used_memory, 0);
});
