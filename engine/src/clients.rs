//! The registry of connected clients, for `CLIENT LIST/INFO/KILL/ID` and the client count.
//! Each session holds an `Arc<Client>`; the registry holds the same, so a `CLIENT KILL` on one
//! connection can flag another, and the host's waker makes that connection notice at once.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::table::COMMANDS;

type Waker = Box<dyn Fn() + Send + Sync>;

/// What the server knows of one connection.
pub struct Client {
    pub id: u64,
    pub addr: String,
    pub laddr: String,
    pub created_ms: u64,
    pub last_ms: AtomicU64,
    /// Index into `COMMANDS` of the last command run (usize::MAX = none yet).
    pub last_cmd: AtomicUsize,
    pub resp: AtomicU8,
    pub name: Mutex<Option<Vec<u8>>>,
    pub lib_name: Mutex<Option<Vec<u8>>>,
    pub lib_ver: Mutex<Option<Vec<u8>>>,
    killed: AtomicBool,
    waker: Mutex<Option<Waker>>,
}

impl Client {
    pub fn is_killed(&self) -> bool {
        self.killed.load(Relaxed)
    }

    /// Marks the connection for closing and wakes its task.
    pub fn kill(&self) {
        self.killed.store(true, Relaxed);
        if let Some(w) = self.waker.lock().as_ref() {
            w();
        }
    }

    /// The host's way to be told when this client is killed (e.g. notify a task).
    pub fn set_waker(&self, waker: impl Fn() + Send + Sync + 'static) {
        *self.waker.lock() = Some(Box::new(waker));
    }

    /// One `CLIENT LIST` line, with Redis's field names.
    pub fn describe(&self, now_ms: u64, db: u32) -> String {
        let text = |m: &Mutex<Option<Vec<u8>>>| {
            m.lock().as_ref().map(|v| String::from_utf8_lossy(v).replace(' ', "_")).unwrap_or_default()
        };
        let cmd = COMMANDS
            .get(self.last_cmd.load(Relaxed))
            .map(|c| c.name.to_ascii_lowercase())
            .unwrap_or_else(|| "NULL".into());
        format!(
            "id={} addr={} laddr={} fd=-1 name={} age={} idle={} flags=N db={} sub=0 psub=0 ssub=0 multi=-1 qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=0 tot-mem=0 events=r cmd={} user=default redir=-1 resp={} lib-name={} lib-ver={}",
            self.id,
            self.addr,
            self.laddr,
            text(&self.name),
            now_ms.saturating_sub(self.created_ms) / 1000,
            now_ms.saturating_sub(self.last_ms.load(Relaxed)) / 1000,
            db,
            cmd,
            self.resp.load(Relaxed),
            text(&self.lib_name),
            text(&self.lib_ver),
        )
    }
}

/// All connected clients by id.
#[derive(Default)]
pub struct Clients {
    next_id: AtomicU64,
    by_id: Mutex<BTreeMap<u64, Arc<Client>>>,
}

impl Clients {
    pub fn register(&self, addr: &str, laddr: &str, now_ms: u64) -> Arc<Client> {
        let id = self.next_id.fetch_add(1, Relaxed) + 1;
        let client = Arc::new(Client {
            id,
            addr: addr.to_string(),
            laddr: laddr.to_string(),
            created_ms: now_ms,
            last_ms: AtomicU64::new(now_ms),
            last_cmd: AtomicUsize::new(usize::MAX),
            resp: AtomicU8::new(2),
            name: Mutex::new(None),
            lib_name: Mutex::new(None),
            lib_ver: Mutex::new(None),
            killed: AtomicBool::new(false),
            waker: Mutex::new(None),
        });
        self.by_id.lock().insert(id, client.clone());
        client
    }

    pub fn unregister(&self, id: u64) {
        self.by_id.lock().remove(&id);
    }

    pub fn all(&self) -> Vec<Arc<Client>> {
        self.by_id.lock().values().cloned().collect()
    }

    pub fn get(&self, id: u64) -> Option<Arc<Client>> {
        self.by_id.lock().get(&id).cloned()
    }

    pub fn count(&self) -> usize {
        self.by_id.lock().len()
    }
}
