//! Replays playground scripts natively and prints their transcripts, for the wasm parity test:
//!
//!     cargo run -p vitrine-wasm --example replay -- wasm/tests/scripts/strings.redis
//!
//! With no file, reads one script from stdin. See `vitrine_wasm::replay` for the format.

use std::io::Read;

fn main() -> std::io::Result<()> {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        let mut script = String::new();
        std::io::stdin().read_to_string(&mut script)?;
        print!("{}", vitrine_wasm::replay::transcript(&script));
    }
    for path in paths {
        print!("{}", vitrine_wasm::replay::transcript(&std::fs::read_to_string(path)?));
    }
    Ok(())
}
