//! Prefetching for pipelines: while one command of a batch runs, the keys of the next few
//! are already on their way from memory.
//!
//! A GET or SET in a large keyspace spends most of its time waiting for two cache misses,
//! the table slot and then the key's node (perf on a 100,000-key redis-benchmark load:
//! `Table::find` alone was over a quarter of the server's CPU). A pipeline shows us the next
//! commands before we run them, so their misses can overlap the current command's work:
//! stage one warms the slots of the commands [`AHEAD`] places on, stage two, one command
//! ahead, reads the (now cached) slot and warms its node. A single command per read (no
//! pipeline) costs nothing extra. Everything here is a hint: a wrong guess wastes a prefetch.
//!
//! Part of dispatch (only `Engine::feed` uses it), which is why it may reach both the RESP
//! decoder and the store.

use crate::resp::peek_key;
use crate::store::Store;

/// How many commands ahead stage one runs.
const AHEAD: usize = 4;

/// What stage one learnt about a planned command's key, for stage two (`None`: no key, or
/// its shard was busy).
type Planned = Option<(usize, usize, u32)>;

#[derive(Default)]
pub(crate) struct Prefetcher {
    /// Whether the first command of the batch has been seen (planning starts after it).
    started: bool,
    /// Where the next command to plan starts in the input; `usize::MAX` once planning stops.
    next: usize,
    /// Planned commands in order; the front is the next one to run.
    planned: [Planned; AHEAD],
    head: usize,
    len: usize,
}

impl Prefetcher {
    /// Call as each command of the batch is about to run; `end` is where that command ends
    /// in `input`.
    pub(crate) fn before_command(&mut self, store: &Store, db: usize, input: &[u8], end: usize) {
        if self.started {
            // This command was the front of the plan.
            if self.len > 0 {
                self.head = (self.head + 1) % AHEAD;
                self.len -= 1;
            }
        } else {
            self.started = true;
            self.next = end;
        }
        while self.len < AHEAD && self.next < input.len() {
            match peek_key(&input[self.next..]) {
                Some((key, len)) => {
                    self.planned[(self.head + self.len) % AHEAD] = key.and_then(|k| store.prefetch_slot(db, k));
                    self.len += 1;
                    self.next += len;
                }
                None => self.next = usize::MAX,
            }
        }
        if self.len > 0 {
            if let Some(planned) = self.planned[self.head] {
                store.prefetch_node(planned);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(key: &str) -> Vec<u8> {
        format!("*3\r\n$3\r\nSET\r\n${}\r\n{key}\r\n$1\r\nv\r\n", key.len()).into_bytes()
    }

    #[test]
    fn plans_the_commands_after_the_first_and_keeps_them_in_order() {
        let store = Store::new(Default::default(), std::sync::Arc::new(()), Default::default(), 4, 1, 7, 0);
        let mut input = Vec::new();
        let mut ends = Vec::new();
        for k in ["a", "b", "c", "d", "e", "f"] {
            input.extend_from_slice(&set(k));
            ends.push(input.len());
        }
        let mut p = Prefetcher::default();
        p.before_command(&store, 0, &input, ends[0]);
        assert_eq!(p.len, AHEAD, "commands 2..=5 planned");
        assert_eq!(p.next, ends[AHEAD]);
        for (i, k) in ["b", "c", "d", "e"].iter().enumerate() {
            let (shard, _, _) = p.planned[(p.head + i) % AHEAD].expect("an idle shard is planned");
            assert_eq!(shard, store.stripe_index(k.as_bytes()), "plan {i} is for key {k}");
        }
        // Running command 2 drops it from the front and plans command 6; then the input ends.
        p.before_command(&store, 0, &input, ends[1]);
        assert_eq!((p.len, p.next), (AHEAD, input.len()));
        for end in &ends[2..] {
            p.before_command(&store, 0, &input, *end);
        }
        assert_eq!(p.len, 0);
    }

    #[test]
    fn one_command_or_unusual_input_plans_nothing() {
        let store = Store::new(Default::default(), std::sync::Arc::new(()), Default::default(), 4, 1, 7, 0);
        let one = set("a");
        let mut p = Prefetcher::default();
        p.before_command(&store, 0, &one, one.len());
        assert_eq!(p.len, 0);

        let mut mixed = set("a");
        let first = mixed.len();
        mixed.extend_from_slice(b"GET inline\r\n");
        mixed.extend_from_slice(&set("b"));
        let mut p = Prefetcher::default();
        p.before_command(&store, 0, &mixed, first);
        assert_eq!((p.len, p.next), (0, usize::MAX), "planning stops at the inline command");
    }
}
