//! The Clients and Monitor pages' views: every connection as CLIENT LIST sees it (with its
//! name, library, address, database, age, idle time, last command and memory), closing one,
//! and the commands run lately as the dashboard's monitor streams them.

use std::sync::atomic::Ordering::Relaxed;

use serde::Serialize;
use ts_rs::TS;

use crate::table;
use crate::Engine;

/// One connection.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct ClientRow {
    pub id: u64,
    pub name: Option<String>,
    /// CLIENT SETINFO's library name and version.
    pub lib_name: Option<String>,
    pub lib_ver: Option<String>,
    pub addr: String,
    pub laddr: String,
    pub db: u32,
    pub age_s: u64,
    pub idle_s: u64,
    /// CLIENT LIST's flags (`N`, `P` subscriber, `x` in MULTI, `O` monitor, ...).
    pub flags: String,
    /// The last command run, as Redis names it (`client|list`); null before the first.
    pub last_command: Option<String>,
    /// CLIENT LIST's `tot-mem`: buffers, queued commands and the client itself.
    pub memory: u64,
    /// Replies and messages waiting to be sent (`omem`).
    pub output: u64,
    pub subscriptions: u64,
    pub resp: u8,
    /// CLIENT TRACKING, while it is on.
    pub tracking: Option<TrackingRow>,
}

/// A connection's client-side caching (CLIENT TRACKINGINFO's facts).
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct TrackingRow {
    /// `default` (the keys it reads), `bcast` (prefixes), `optin` or `optout`.
    pub mode: String,
    pub noloop: bool,
    /// The client its invalidations go to, if redirected.
    pub redirect: Option<u64>,
    /// The redirect's client has gone (flag `R`).
    pub broken_redirect: bool,
    /// BCAST prefixes (the empty prefix is every key).
    pub prefixes: Vec<String>,
}

/// `GET /api/clients`.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct ClientsView {
    pub now_ms: u64,
    pub clients: Vec<ClientRow>,
    /// Connections in MONITOR mode.
    pub monitors: u32,
    /// When a CLIENT PAUSE ends (unix ms), while one runs.
    pub paused_until_ms: Option<u64>,
}

fn text(v: &parking_lot::Mutex<Option<Vec<u8>>>) -> Option<String> {
    v.lock().as_ref().map(|b| String::from_utf8_lossy(b).into_owned())
}

/// Every connection, by id.
pub fn clients(engine: &Engine, now_ms: u64) -> ClientsView {
    let clients = engine
        .clients
        .all()
        .iter()
        .map(|c| ClientRow {
            id: c.id,
            name: text(&c.name),
            lib_name: text(&c.lib_name),
            lib_ver: text(&c.lib_ver),
            addr: c.addr.clone(),
            laddr: c.laddr.clone(),
            db: c.db.load(Relaxed) as u32,
            age_s: c.age_s(now_ms),
            idle_s: now_ms.saturating_sub(c.last_ms.load(Relaxed)) / 1000,
            flags: c.flags(),
            last_command: table::name_of(c.last_cmd.load(Relaxed)),
            memory: c.total_memory(0) as u64,
            output: c.output_bytes() as u64,
            subscriptions: (c.sub.load(Relaxed) + c.psub.load(Relaxed) + c.ssub.load(Relaxed)) as u64,
            resp: c.resp.load(Relaxed),
            tracking: engine.tracking.describe(c.id).map(|(mode, prefixes)| TrackingRow {
                mode: if mode.bcast {
                    "bcast"
                } else if mode.optin {
                    "optin"
                } else if mode.optout {
                    "optout"
                } else {
                    "default"
                }
                .into(),
                noloop: mode.noloop,
                redirect: (mode.redirect != 0).then_some(mode.redirect),
                broken_redirect: c.tracking.load(Relaxed) & crate::tracking::FLAG_BROKEN_REDIRECT != 0,
                prefixes: prefixes.iter().map(|p| String::from_utf8_lossy(p).into_owned()).collect(),
            }),
        })
        .collect();
    ClientsView { now_ms, clients, monitors: engine.monitor_count() as u32, paused_until_ms: engine.pause_end(now_ms) }
}

/// Closes connection `id` (as CLIENT KILL ID); false when there is none.
pub fn kill_client(engine: &Engine, id: u64) -> bool {
    match engine.clients.get(id) {
        Some(c) if !c.is_killed() => {
            c.kill();
            true
        }
        _ => false,
    }
}

/// One command the monitor saw.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct MonitorEventView {
    pub seq: u64,
    /// Unix time in microseconds.
    pub time_us: u64,
    pub db: u32,
    pub client_id: u64,
    pub addr: String,
    pub client_name: Option<String>,
    /// The command's name, lower case (`set`).
    pub command: String,
    /// The arguments after the name, quoted as MONITOR quotes them.
    pub args: Vec<String>,
}

/// `GET /api/monitor?since=N`: the commands run since event `since`, oldest first (at most
/// the engine's ring of the latest ones).
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct MonitorView {
    pub events: Vec<MonitorEventView>,
    /// The newest event's `seq` (`since` for the next poll).
    pub last_seq: u64,
}

/// The monitor's events after `since`; asking keeps the engine recording for a few seconds.
pub fn monitor(engine: &Engine, since: u64, now_ms: u64) -> MonitorView {
    let events: Vec<MonitorEventView> = engine
        .monitor_events(since, now_ms)
        .into_iter()
        .map(|e| {
            let mut args = e.args.into_iter();
            let command = args.next().unwrap_or_default();
            MonitorEventView {
                seq: e.seq,
                time_us: e.time_us,
                db: e.db as u32,
                client_id: e.client_id,
                addr: e.addr,
                client_name: e.name,
                command: command.trim_matches('"').to_ascii_lowercase(),
                args: args.collect(),
            }
        })
        .collect();
    let last_seq = events.last().map_or(since, |e| e.seq);
    MonitorView { events, last_seq }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TestEngine;

    #[test]
    fn clients_view_lists_connections_and_kill_closes_one() {
        let mut t = TestEngine::default();
        t.run(&["CLIENT", "SETNAME", "web"]);
        t.run(&["CLIENT", "SETINFO", "LIB-NAME", "redis-py"]);
        t.run(&["SELECT", "3"]);
        let other = t.engine.new_session("10.0.0.9:5", "127.0.0.1:6379", t.now);
        t.advance(3000);
        let view = clients(&t.engine, t.now);
        assert_eq!(view.clients.len(), 2);
        let me = &view.clients[0];
        assert_eq!(
            (me.name.as_deref(), me.lib_name.as_deref(), me.db, me.age_s, me.idle_s),
            (Some("web"), Some("redis-py"), 3, 3, 3)
        );
        assert_eq!(me.last_command.as_deref(), Some("select"));
        assert!(me.memory > 0);
        assert_eq!(view.clients[1].last_command, None);
        assert!(kill_client(&t.engine, other.id()));
        assert!(other.client.is_killed());
        assert!(!kill_client(&t.engine, other.id()), "already closing");
        assert!(!kill_client(&t.engine, 999));
    }

    #[test]
    fn monitor_view_gives_commands_after_a_sequence_number() {
        let mut t = TestEngine::default();
        assert!(monitor(&t.engine, 0, t.now).events.is_empty());
        t.run(&["SET", "k", "v"]);
        t.run(&["get", "k"]);
        let first = monitor(&t.engine, 0, t.now);
        assert_eq!(first.events.len(), 2);
        assert_eq!((first.events[1].command.as_str(), first.events[1].args.clone()), ("get", vec!["\"k\"".into()]));
        t.run(&["PING"]);
        let next = monitor(&t.engine, first.last_seq, t.now);
        assert_eq!(next.events.len(), 1);
        assert_eq!(next.events[0].command, "ping");
        assert_eq!(monitor(&t.engine, next.last_seq, t.now).last_seq, next.last_seq);
        // Unread for long, the ring stops recording (and forgets).
        t.advance(60_000);
        t.run(&["PING"]);
        assert!(monitor(&t.engine, 0, t.now).events.is_empty());
    }
}
