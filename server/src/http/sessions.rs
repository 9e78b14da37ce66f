//! Console sessions for `POST /api/command` and `POST /api/console`: a command sent with `"session": "<id>"` runs in
//! the engine session kept under that id, so MULTI/EXEC, WATCH and CLIENT SETNAME
//! carry over from one request to the next, as they do on one redis-cli connection. Without
//! an id every command gets a fresh session, as before.
//!
//! Sessions are few and short-lived: one per open console page. Each counts as a connected
//! client (`admin-http` in CLIENT LIST) while it lives; one left idle for [`IDLE_LIMIT`] is
//! closed, and past [`MAX_SESSIONS`] the least recently used is closed first. A session runs
//! as the request's principal (`permissions::Principal`): a signed-in user's console is that
//! user's connection, and the engine refuses what its ACL does not allow.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use vitrine_engine::{Engine, Reply, Session};

use super::permissions::Principal;

/// How long a console session may sit unused before it is closed.
pub const IDLE_LIMIT: Duration = Duration::from_secs(10 * 60);
/// The most sessions kept at once.
pub const MAX_SESSIONS: usize = 64;
/// The longest id accepted.
const MAX_ID_LEN: usize = 64;

/// Whether `id` can name a session: 1 to 64 letters, digits, `-` or `_` (a UUID fits).
pub fn valid_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= MAX_ID_LEN && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// A session for the admin API: a client named `admin-http`, already authenticated (the admin
/// API has its own token), acting as the request's user when one signed in, so the engine
/// checks its commands as it would a RESP client's. A user gone since signing in gets a
/// session that is not authenticated: every command answers NOAUTH.
pub fn open_session(engine: &Engine, principal: &Principal, now_ms: u64) -> Session {
    let mut session = engine.new_session("admin-http", "admin-http", now_ms);
    session.authenticated = match principal {
        Principal::Admin => true,
        Principal::User(user) => engine.session_as(&mut session, user.as_bytes()),
    };
    session
}

/// The map's key of console session `id` of `principal`: one user cannot pick up another's
/// session (and its MULTI queue or selected user) by guessing its id.
fn key(principal: &Principal, id: &str) -> String {
    match principal {
        Principal::Admin => format!("admin\0{id}"),
        Principal::User(user) => format!("user\0{user}\0{id}"),
    }
}

#[derive(Default)]
pub struct Sessions {
    open: Mutex<HashMap<String, (Session, Instant)>>,
}

impl Sessions {
    /// Runs `argv` in the session named `id`, opening it if needed. The session is taken out
    /// of the map while the command runs, so a slow command holds no lock over the others.
    pub fn call<A: AsRef<[u8]>>(
        &self,
        engine: &Arc<Engine>,
        principal: &Principal,
        id: &str,
        argv: &[A],
        now_ms: u64,
    ) -> Reply {
        self.with(engine, principal, id, now_ms, |engine, session| engine.call(session, argv, now_ms))
    }

    /// Runs `f` with the session named `id` (opened if needed), as [`Sessions::call`] runs
    /// one command: for a console line, which may answer without running anything.
    pub fn with<R>(
        &self,
        engine: &Arc<Engine>,
        principal: &Principal,
        id: &str,
        now_ms: u64,
        f: impl FnOnce(&Engine, &mut Session) -> R,
    ) -> R {
        let id = key(principal, id);
        let id = id.as_str();
        let taken = self.open.lock().remove(id).map(|(session, _)| session);
        let mut session = taken.unwrap_or_else(|| open_session(engine, principal, now_ms));
        let reply = f(engine, &mut session);
        if session.closing || session.client.is_killed() {
            // QUIT or CLIENT KILL: the session ends here; the next command opens a new one.
            engine.end_session(&session);
            return reply;
        }
        let now = Instant::now();
        let mut open = self.open.lock();
        let mut closed: Vec<Session> = Vec::new();
        let idle: Vec<String> = open
            .iter()
            .filter(|(_, (_, used))| now.duration_since(*used) >= IDLE_LIMIT)
            .map(|(k, _)| k.clone())
            .collect();
        for key in idle {
            if let Some((s, _)) = open.remove(&key) {
                closed.push(s);
            }
        }
        while open.len() >= MAX_SESSIONS {
            let Some(oldest) = open.iter().min_by_key(|(_, (_, used))| *used).map(|(k, _)| k.clone()) else { break };
            if let Some((s, _)) = open.remove(&oldest) {
                closed.push(s);
            }
        }
        if let Some((displaced, _)) = open.insert(id.to_string(), (session, now)) {
            // Two requests raced on one id: the later one's session wins.
            closed.push(displaced);
        }
        drop(open);
        for s in &closed {
            engine.end_session(s);
        }
        reply
    }

    /// Number of open sessions.
    pub fn len(&self) -> usize {
        self.open.lock().len()
    }
}
