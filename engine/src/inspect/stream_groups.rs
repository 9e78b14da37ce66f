//! A stream's consumer groups as the key browser shows them: each group's last-delivered ID,
//! entries read, lag and pending count, and its consumers with their pending counts and idle
//! times (what XINFO GROUPS and XINFO CONSUMERS say, in one view).

use serde::Serialize;
use ts_rs::TS;

use super::Bytes;
use crate::store::stream::Stream;

/// One consumer group of a stream.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct StreamGroupView {
    pub name: Bytes,
    /// The last ID delivered with `>`.
    pub last_delivered_id: String,
    /// Entries the group has read; null when it cannot be known (after deletions).
    pub entries_read: Option<u64>,
    /// Entries not yet delivered to the group; null when it cannot be known.
    pub lag: Option<u64>,
    /// Entries delivered and not acknowledged.
    pub pending: usize,
    /// In name order.
    pub consumers: Vec<StreamConsumerView>,
}

/// One consumer of a group.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct StreamConsumerView {
    pub name: Bytes,
    pub pending: usize,
    /// Milliseconds since it last read or claimed.
    pub idle_ms: u64,
    /// Milliseconds since it last got an entry; null if it never did.
    pub inactive_ms: Option<u64>,
}

/// The groups of `stream` at `now_ms`, in name order (empty when it has none).
pub fn stream_groups(stream: &Stream, now_ms: u64) -> Vec<StreamGroupView> {
    let facts = stream.facts();
    let Some(groups) = &stream.groups else { return Vec::new() };
    groups
        .iter()
        .map(|(name, g)| StreamGroupView {
            name: Bytes(name.to_vec()),
            last_delivered_id: g.last_id.to_string(),
            entries_read: g.entries_read,
            lag: g.lag(&facts),
            pending: g.pel().len(),
            consumers: g
                .consumers()
                .values()
                .map(|c| StreamConsumerView {
                    name: Bytes(c.name.to_vec()),
                    pending: c.pel.len(),
                    idle_ms: now_ms.saturating_sub(c.seen_time),
                    inactive_ms: c.active_time.map(|t| now_ms.saturating_sub(t)),
                })
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::inspect::key_detail;
    use crate::testing::TestEngine;

    #[test]
    fn the_key_detail_of_a_stream_shows_its_groups() {
        let mut t = TestEngine::default();
        for id in ["1-0", "2-0", "3-0"] {
            t.run(&["XADD", "s", id, "f", "v"]);
        }
        t.run(&["XGROUP", "CREATE", "s", "workers", "0"]);
        t.run(&["XREADGROUP", "GROUP", "workers", "alice", "COUNT", "2", "STREAMS", "s", ">"]);
        t.run(&["XGROUP", "CREATECONSUMER", "s", "workers", "bob"]);
        let detail = key_detail(&t.engine, 0, b"s", t.now + 1500).expect("the stream");
        let groups = detail.stream_groups.expect("a stream has a groups view");
        assert_eq!(groups.len(), 1);
        let g = &groups[0];
        assert_eq!((g.last_delivered_id.as_str(), g.entries_read, g.lag, g.pending), ("2-0", Some(2), Some(1), 2));
        let alice = &g.consumers[0];
        assert_eq!((alice.pending, alice.idle_ms, alice.inactive_ms), (2, 1500, Some(1500)));
        assert_eq!((g.consumers[1].pending, g.consumers[1].inactive_ms), (0, None));
        let json = serde_json::to_value(g).unwrap();
        assert_eq!(json["consumers"][1]["name"], "bob");
        t.run(&["SET", "str", "v"]);
        assert_eq!(key_detail(&t.engine, 0, b"str", t.now).unwrap().stream_groups, None);
    }
}
