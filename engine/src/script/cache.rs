//! The script cache: scripts by the SHA1 of their body (EVALSHA, SCRIPT LOAD / EXISTS /
//! FLUSH), each with its shebang flags parsed once.

use std::collections::HashMap;
use std::sync::Arc;

/// A script's shebang flags (`#!lua flags=no-writes,allow-oom`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Flags {
    /// The script has a shebang: flags are declared (Redis then applies them strictly).
    pub shebang: bool,
    pub no_writes: bool,
    pub allow_oom: bool,
    pub allow_stale: bool,
    pub no_cluster: bool,
    pub allow_cross_slot_keys: bool,
}

/// One cached script.
#[derive(Debug)]
pub struct Script {
    pub sha: String,
    pub body: Vec<u8>,
    pub flags: Flags,
}

/// The lower-case hex SHA1 of `body`, as Redis names scripts.
pub fn sha1hex(body: &[u8]) -> String {
    sha1_smol::Sha1::from(body).digest().to_string()
}

/// Parses a script's first line when it is a shebang. Errors are Redis's texts.
pub fn parse_shebang(body: &[u8]) -> Result<Flags, String> {
    if !body.starts_with(b"#!") {
        return Ok(Flags::default());
    }
    let line_end = body.iter().position(|&b| b == b'\n').unwrap_or(body.len());
    let line = String::from_utf8_lossy(&body[..line_end]);
    let mut parts = line.split(' ').filter(|p| !p.is_empty());
    let engine = parts.next().unwrap_or("");
    if engine != "#!lua" {
        return Err(format!("ERR Unexpected engine in script shebang: {line}"));
    }
    let mut flags = Flags { shebang: true, ..Flags::default() };
    for part in parts {
        let Some(list) = part.strip_prefix("flags=") else {
            return Err(format!("ERR Unknown lua shebang option: {part}"));
        };
        for flag in list.split(',').filter(|f| !f.is_empty()) {
            match flag {
                "no-writes" => flags.no_writes = true,
                "allow-oom" => flags.allow_oom = true,
                "allow-stale" => flags.allow_stale = true,
                "no-cluster" => flags.no_cluster = true,
                "allow-cross-slot-keys" => flags.allow_cross_slot_keys = true,
                other => return Err(format!("ERR Unexpected flag in script shebang: {other}")),
            }
        }
    }
    Ok(flags)
}

/// The cached scripts, by SHA.
#[derive(Default)]
pub struct Cache {
    scripts: HashMap<String, Arc<Script>>,
}

impl Cache {
    /// Adds `body` (parsing its shebang) unless it is cached, and returns it.
    pub fn add(&mut self, body: &[u8]) -> Result<Arc<Script>, String> {
        let sha = sha1hex(body);
        if let Some(s) = self.scripts.get(&sha) {
            return Ok(s.clone());
        }
        let flags = parse_shebang(body)?;
        let script = Arc::new(Script { sha: sha.clone(), body: body.to_vec(), flags });
        self.scripts.insert(sha, script.clone());
        Ok(script)
    }

    /// The script of this SHA (any case, as Redis lower-cases it).
    pub fn get(&self, sha: &[u8]) -> Option<Arc<Script>> {
        if sha.len() != 40 {
            return None;
        }
        let sha = String::from_utf8_lossy(sha).to_ascii_lowercase();
        self.scripts.get(&sha).cloned()
    }

    /// Every cached script, in no order (the dashboard's Scripts page).
    pub fn scripts(&self) -> impl Iterator<Item = &Arc<Script>> {
        self.scripts.values()
    }

    pub fn flush(&mut self) {
        self.scripts.clear();
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.scripts.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha1hex_matches_redis() {
        assert_eq!(sha1hex(b""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
        assert_eq!(sha1hex(b"return 1"), "e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
    }

    #[test]
    fn shebangs_parse_as_redis() {
        assert_eq!(parse_shebang(b"return 1"), Ok(Flags::default()));
        let f = parse_shebang(b"#!lua flags=no-writes,allow-oom\nreturn 1").unwrap();
        assert!(f.shebang && f.no_writes && f.allow_oom && !f.allow_stale);
        assert!(parse_shebang(b"#!lua\nreturn 1").unwrap().shebang);
        assert_eq!(parse_shebang(b"#!lua flags=bogus\n"), Err("ERR Unexpected flag in script shebang: bogus".into()));
        assert_eq!(parse_shebang(b"#!luax\n"), Err("ERR Unexpected engine in script shebang: #!luax".into()));
    }

    #[test]
    fn the_cache_finds_scripts_by_sha_in_any_case() {
        let mut c = Cache::default();
        let s = c.add(b"return 1").unwrap();
        assert!(c.get(s.sha.to_ascii_uppercase().as_bytes()).is_some());
        assert!(c.get(b"nope").is_none());
        c.flush();
        assert_eq!(c.len(), 0);
    }
}
