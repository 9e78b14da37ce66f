//! Differential test: the same seeded random sequences of commands go to the real `vitrine`
//! binary and to a real `redis-server` (Debian's 7.0), and every reply must agree. Replies are
//! parsed as RESP2 and compared as values; TTLs by class and within a tolerance, key listings
//! as sets.
//!
//! `harness` starts both servers, sends, compares and holds the generator every family draws
//! from; each other module is one command family with its own random test and edge cases
//! (`strings_keys` is the main random test, which mixes in every other family's operations).
//!
//! A failure names the seed and the command. Rerun one seed alone with
//! `DIFFERENTIAL_SEED=<seed> cargo test -p vitrine-server --test differential`, explore more
//! seeds with `DIFFERENTIAL_SEED=100..300`, and print every command and reply with
//! `DIFFERENTIAL_TRACE=1` (and `-- --nocapture`).
//!
//! Without `redis-server` on PATH the tests say so and pass, except under CI, where they fail.
//!
//! Deliberate differences, each avoided by the generator or normalized where noted (each family
//! module lists its own):
//! - INFO and HELLO are not sent: Vitrine answers them with its own fields.
//! - SELECT is sent by the `databases` family only (the other families run in database 0;
//!   that one mixes their operations with SELECT, MOVE, COPY ... DB and SWAPDB).
//! - OBJECT ENCODING is asked only right after a plain SET (see `set_then_encoding`).
//! - An error that quotes an argument holds its raw bytes in Redis; Vitrine's error texts
//!   are strings, so bytes that are not UTF-8 become U+FFFD. Errors are compared after the
//!   same lossy decoding (see `normalized`).
//! - Redis compares option names as C strings, so `NX\0junk` counts as NX there; Vitrine
//!   compares whole arguments. Option names are never sent with a NUL byte inside.
//! - SET with EXAT/PXAT in the past writes nothing in Vitrine, and in Redis 7.0 a key that
//!   has already expired, which DBSIZE counts until Redis's active expiry gets to it. The
//!   key is read right after, so lazy expiry removes it in both (see `expire_past`).
//! - Timing: GT/LT never compare two expiries set a moment apart (see `rel_ms`), absolute
//!   times are either far ahead or long past, and a key given a TTL of a few ms is touched
//!   right after a pause, so lazy expiry decides in both (see `short_expiry`).

// The socket helpers the other test files share stay in tests/common/.
#[path = "../common/mod.rs"]
mod common;

mod harness;

mod acl;
mod bitmaps;
mod clients;
mod command_table;
mod config;
mod databases;
mod dump;
mod functions;
mod geo;
mod hashes_sets;
mod hyperloglog;
mod introspection;
mod lists;
mod notifications;
mod pubsub;
mod scripting;
mod sort;
mod sorted_sets;
mod stream_groups;
mod streams;
mod strings_keys;
mod timing;
mod transactions;
