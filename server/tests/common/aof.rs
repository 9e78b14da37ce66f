//! Shared by the append-only file tests: a scratch `--dir` removed when dropped, and a key's
//! type and contents as text, to compare keyspaces across restarts and with redis-server.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub struct Dir(pub PathBuf);

impl Dir {
    pub fn new(name: &str) -> Dir {
        let d = std::env::temp_dir().join(format!("vitrine-aof-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Dir(d)
    }

    pub fn arg(&self) -> &str {
        self.0.to_str().unwrap()
    }

    pub fn aof(&self) -> PathBuf {
        self.0.join("appendonly.aof")
    }

    /// Every file under the directory (recursively) with its bytes, by relative path.
    pub fn files(&self) -> BTreeMap<String, Vec<u8>> {
        fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
            for e in std::fs::read_dir(dir).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(root, &p, out);
                } else {
                    out.insert(p.strip_prefix(root).unwrap().display().to_string(), std::fs::read(&p).unwrap());
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(&self.0, &self.0, &mut out);
        out
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A key's type and its contents as one string (members of sets and fields of hashes sorted,
/// as their order means nothing).
pub fn typed_value(c: &mut redis::Connection, k: &str) -> (String, String) {
    let t: String = redis::cmd("TYPE").arg(k).query(c).unwrap();
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v.join(",")
    };
    let v = match t.as_str() {
        "string" => redis::cmd("GET").arg(k).query::<String>(c).unwrap(),
        "list" => redis::cmd("LRANGE").arg(k).arg(0).arg(-1).query::<Vec<String>>(c).unwrap().join(","),
        "hash" => {
            let pairs: Vec<(String, String)> = redis::cmd("HGETALL").arg(k).query(c).unwrap();
            sorted(pairs.into_iter().map(|(f, v)| format!("{f}={v}")).collect())
        }
        "set" => sorted(redis::cmd("SMEMBERS").arg(k).query(c).unwrap()),
        "zset" => {
            redis::cmd("ZRANGE").arg(k).arg(0).arg(-1).arg("WITHSCORES").query::<Vec<String>>(c).unwrap().join(",")
        }
        "stream" => {
            let entries: Vec<(String, Vec<String>)> = redis::cmd("XRANGE").arg(k).arg("-").arg("+").query(c).unwrap();
            entries.into_iter().map(|(id, fields)| format!("{id}:{}", fields.join("="))).collect::<Vec<_>>().join(",")
        }
        other => other.to_string(),
    };
    (t, v)
}

/// Waits (bounded) until the server behind `c` (vitrine or redis-server) has finished its
/// first append-only file rewrite.
pub fn wait_for_first_rewrite(c: &mut redis::Connection) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let text: String = redis::cmd("INFO").arg("persistence").query(c).unwrap();
        if text.contains("aof_rewrite_in_progress:0") && text.contains("aof_rewrites:1") {
            return;
        }
        assert!(std::time::Instant::now() < deadline, "{text}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// A server with the append-only file on in `dir`, fsynced before each reply
/// (`appendfsync always`), as the AOF tests of each type start it.
pub fn start(dir: &Dir) -> super::Server {
    super::Server::start(&["--dir", dir.arg(), "--appendonly", "yes", "--appendfsync", "always"])
}

/// A blocking redis-rs connection to `server`.
pub fn conn(server: &super::Server) -> redis::Connection {
    redis::Client::open(server.url()).unwrap().get_connection().unwrap()
}

/// Runs one command, panicking with its arguments when it fails.
pub fn cmd(c: &mut redis::Connection, args: &[&str]) -> redis::Value {
    let mut cmd = redis::cmd(args[0]);
    for a in &args[1..] {
        cmd.arg(*a);
    }
    cmd.query(c).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}
