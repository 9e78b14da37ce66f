//! The process's configuration: command-line flags with Redis's option names, each also read
//! from a `VITRINE_<NAME>` environment variable, over an optional redis.conf-style file.
//!
//! Precedence, lowest first: built-in defaults, the config file, environment variables, flags.
//! The file is applied by turning each `name value` line into `--name value` for every option
//! that neither a flag nor an environment variable set, and parsing once more, so one parser
//! (clap's) validates every source the same way.
//!
//! Options the engine obeys at run time (`maxmemory`, `hz`, ...) stay strings here and are
//! parsed by `vitrine_engine::Config::set`, the same code `CONFIG SET` runs, so a value is
//! accepted at startup exactly when `CONFIG SET` would accept it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser};
use std::sync::Arc;

use vitrine_engine::{Config, Engine};

/// Vitrine: a Redis-compatible in-memory cache you can see into.
#[derive(Debug, Clone, Parser)]
#[command(name = "vitrine", version)]
pub struct ServerConfig {
    /// A redis.conf-style file: one `name value` per line, `#` starts a comment. Flags and
    /// environment variables override it.
    #[arg(value_name = "CONFIG_FILE", env = "VITRINE_CONFIG_FILE")]
    pub config_file: Option<PathBuf>,

    /// TCP port of the RESP server (0 picks a free port; see --port-file).
    #[arg(long, env = "VITRINE_PORT", default_value_t = 6379)]
    pub port: u16,

    /// Addresses to listen on for RESP, space separated; a leading `-` makes one optional
    /// (skipped when it cannot be bound), as in Redis.
    #[arg(long, env = "VITRINE_BIND", default_value = "127.0.0.1")]
    pub bind: String,

    /// Memory limit for data, e.g. `100mb`, `2gb` (0 = no limit).
    #[arg(long, env = "VITRINE_MAXMEMORY", default_value = "0")]
    pub maxmemory: String,

    /// What to do when a write needs room: noeviction, allkeys-lru, allkeys-lfu,
    /// allkeys-random, volatile-lru, volatile-lfu, volatile-random, volatile-ttl.
    #[arg(long, env = "VITRINE_MAXMEMORY_POLICY", default_value = "noeviction")]
    pub maxmemory_policy: String,

    /// Keys sampled per eviction round (1-64).
    #[arg(long, env = "VITRINE_MAXMEMORY_SAMPLES", default_value = "5")]
    pub maxmemory_samples: String,

    /// Background task frequency (active expiry rounds per second, 1-500).
    #[arg(long, env = "VITRINE_HZ", default_value = "10")]
    pub hz: String,

    /// Numbered databases (SELECT 0 to N-1), fixed for the life of the process.
    #[arg(long, env = "VITRINE_DATABASES", default_value_t = 16)]
    pub databases: u64,

    /// TTL in seconds given to keys written without one (0 = none).
    #[arg(long, env = "VITRINE_DEFAULT_TTL", default_value = "0")]
    pub default_ttl: String,

    /// Most memory the scripts' Lua VM may hold, e.g. `64mb`; a script that needs more stops
    /// with an error instead of growing the server (0 = no cap).
    #[arg(long, env = "VITRINE_LUA_MAXMEMORY", default_value = "256mb")]
    pub lua_maxmemory: String,

    /// Keyspace notifications to publish, as Redis's flags (`KEA`: every class on both
    /// channel kinds; empty: none).
    #[arg(long, env = "VITRINE_NOTIFY_KEYSPACE_EVENTS", default_value = "")]
    pub notify_keyspace_events: String,

    /// Password clients must send with AUTH (or HELLO ... AUTH) before other commands.
    #[arg(long, env = "VITRINE_REQUIREPASS", hide_env_values = true)]
    pub requirepass: Option<String>,

    /// Threads serving RESP connections, one event loop each (default: CPUs minus one, at
    /// least one).
    #[arg(long, env = "VITRINE_THREADS", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,

    /// Most clients connected at once; more are refused with an error.
    #[arg(long, env = "VITRINE_MAXCLIENTS", default_value = "10000")]
    pub maxclients: String,

    /// Close a client after this many idle seconds (0 = never).
    #[arg(long, env = "VITRINE_TIMEOUT", default_value = "0")]
    pub timeout: String,

    /// Seconds a client may stay connected without authenticating while --requirepass is set
    /// (0 = no limit).
    #[arg(long, env = "VITRINE_UNAUTHENTICATED_TIMEOUT", default_value_t = 10)]
    pub unauthenticated_timeout: u64,

    /// With no password set, refuse RESP clients that do not connect from loopback with
    /// Redis's -DENIED reply: yes or no (changeable with CONFIG SET protected-mode).
    #[arg(long, env = "VITRINE_PROTECTED_MODE", default_value = "yes")]
    pub protected_mode: String,

    /// TCP keepalive interval in seconds for client connections (0 = off).
    #[arg(long, env = "VITRINE_TCP_KEEPALIVE", default_value_t = 300)]
    pub tcp_keepalive: u64,

    /// Longest single argument a client may send, e.g. `512mb`.
    #[arg(long, env = "VITRINE_PROTO_MAX_BULK_LEN", default_value = "512mb")]
    pub proto_max_bulk_len: String,

    /// Most bytes of one client's unprocessed input; past it the client is closed.
    #[arg(long, env = "VITRINE_CLIENT_QUERY_BUFFER_LIMIT", default_value = "1gb")]
    pub client_query_buffer_limit: String,

    /// Output limits of a class of clients, as Redis's `<class> <hard> <soft> <seconds>`:
    /// `pubsub 32mb 8mb 60` (the default) disconnects a subscriber whose unsent messages
    /// reach 32 MB, or stay over 8 MB for more than 60 s. Repeatable, one class each.
    #[arg(long, env = "VITRINE_CLIENT_OUTPUT_BUFFER_LIMIT", action = clap::ArgAction::Append)]
    pub client_output_buffer_limit: Vec<String>,

    /// Write the RESP port actually bound to this file once listening (for scripts and tests
    /// that start the server with --port 0).
    #[arg(long, env = "VITRINE_PORT_FILE")]
    pub port_file: Option<PathBuf>,

    /// TCP port of the admin HTTP API and dashboard.
    #[arg(long, env = "VITRINE_HTTP_PORT", default_value_t = 8080)]
    pub http_port: u16,

    /// Address of the admin HTTP API and dashboard.
    #[arg(long, env = "VITRINE_HTTP_BIND", default_value = "127.0.0.1")]
    pub http_bind: String,

    /// Bearer token the admin HTTP API requires (set it whenever --http-bind is not loopback).
    /// Without one, the API requires the RESP password (--requirepass) when one is set. A
    /// token given as this flag is visible to every local user in `ps` and /proc/<pid>/cmdline:
    /// prefer VITRINE_ADMIN_TOKEN or --admin-token-file.
    #[arg(long, env = "VITRINE_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<String>,

    /// Read the admin token from this file (a trailing newline is removed; an empty or
    /// unreadable file stops the start). Keeps the token out of `ps`.
    #[arg(long, env = "VITRINE_ADMIN_TOKEN_FILE", value_name = "PATH")]
    pub admin_token_file: Option<PathBuf>,

    /// Serve the admin HTTP API on a non-loopback --http-bind without --admin-token (anyone
    /// who can reach it can read and change the cache).
    #[arg(long, env = "VITRINE_ADMIN_INSECURE")]
    pub admin_insecure: bool,

    /// Seconds a client of the admin port has to send a request's headers, and the longest an
    /// idle keep-alive connection stays open; slower connections are closed.
    #[arg(long, env = "VITRINE_HTTP_HEADER_TIMEOUT", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub http_header_timeout: u64,

    /// Seconds a request body on the admin port may pause between two pieces before the
    /// request is answered 408 and the connection closed.
    #[arg(long, env = "VITRINE_HTTP_BODY_TIMEOUT", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub http_body_timeout: u64,

    /// Seconds an admin request may take from its headers to the start of its answer, body
    /// upload included (408 after that). Streams (the dashboard's live feed) are not limited.
    #[arg(long, env = "VITRINE_HTTP_REQUEST_TIMEOUT", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub http_request_timeout: u64,

    /// Most connections open at once on the admin port; more are answered 503 and closed. It
    /// is lowered to an eighth of the open-files limit, so the admin port cannot take the
    /// descriptors RESP clients need.
    #[arg(long, env = "VITRINE_HTTP_MAX_CONNECTIONS", default_value_t = 128, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub http_max_connections: u32,

    /// Write the admin HTTP port actually bound to this file once listening (for --http-port 0).
    #[arg(long, env = "VITRINE_HTTP_PORT_FILE")]
    pub http_port_file: Option<PathBuf>,

    /// Working directory for files the server keeps (benchmark history), as Redis's `dir`.
    #[arg(long, env = "VITRINE_DIR", default_value = ".")]
    pub dir: PathBuf,

    /// Keep an append-only file of writes in --dir and load it at start-up: yes or no.
    #[arg(long, env = "VITRINE_APPENDONLY", default_value = "no", value_parser = ["yes", "no"])]
    pub appendonly: String,

    /// When the append-only file is fsynced: always (before each write is acknowledged),
    /// everysec, or no (left to the OS).
    #[arg(long, env = "VITRINE_APPENDFSYNC", default_value = "everysec", value_parser = ["always", "everysec", "no"])]
    pub appendfsync: String,

    /// Name of the append-only file inside --dir.
    #[arg(long, env = "VITRINE_APPENDFILENAME", default_value = "appendonly.aof")]
    pub appendfilename: String,

    /// When the append-only file ends in the middle of a command or block (a crash mid-write):
    /// yes loads what is complete and cuts the file there, keeping the cut bytes in a copy
    /// (`<file>.torn-<unix time>`); no refuses to start. Redis's option and default.
    #[arg(long, env = "VITRINE_AOF_LOAD_TRUNCATED", default_value = "yes", value_parser = ["yes", "no"])]
    pub aof_load_truncated: String,

    /// Directory of the built dashboard (served on the admin port when it has an index.html).
    #[arg(long, env = "VITRINE_WEB_DIR", default_value = "web/dist")]
    pub web_dir: PathBuf,

    /// The ACL file (`ACL SAVE` / `ACL LOAD`), loaded at start-up; a relative path is taken
    /// from --dir, as Redis reads it after changing to `dir`. Not together with `user` lines.
    #[arg(long, env = "VITRINE_ACLFILE", value_name = "PATH")]
    pub aclfile: Option<PathBuf>,

    /// The config file's `user <name> <rules...>` lines, in file order.
    #[arg(skip)]
    pub user_directives: Vec<Directive>,

    /// Lines of the config file naming engine parameters that have no flag
    /// (`hash-max-listpack-entries 64`, `databases 4`, `save 60 1`, ...), in file order.
    #[arg(skip)]
    pub engine_directives: Vec<Directive>,
}

/// Engine parameters set from this config, by their Redis (and `--flag`) name.
const ENGINE_PARAMS: &[&str] = &[
    "maxmemory",
    "maxmemory-policy",
    "maxmemory-samples",
    "hz",
    "default-ttl",
    "lua-maxmemory",
    "maxclients",
    "timeout",
    "proto-max-bulk-len",
    "client-query-buffer-limit",
    "protected-mode",
    "notify-keyspace-events",
];

impl ServerConfig {
    /// Parses the process's arguments and environment (and the config file they name).
    /// On `--help`, `--version` or a usage error, prints and exits like any clap program.
    pub fn from_process() -> anyhow::Result<ServerConfig> {
        match ServerConfig::try_load(std::env::args_os()) {
            Ok(config) => Ok(config),
            Err(e) => match e.downcast::<clap::Error>() {
                Ok(clap_error) => clap_error.exit(),
                Err(other) => Err(other),
            },
        }
    }

    /// Parses `args` (program name first) and the environment, then applies the config file
    /// under them if one is named.
    pub fn try_load<I, T>(args: I) -> anyhow::Result<ServerConfig>
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
        let matches = ServerConfig::command().try_get_matches_from(&args)?;
        let first = ServerConfig::from_arg_matches(&matches)?;
        let Some(path) = first.config_file.clone() else {
            return Ok(first);
        };
        let text =
            std::fs::read_to_string(&path).with_context(|| format!("cannot read config file {}", path.display()))?;
        let directives = parse_conf(&text).with_context(|| format!("in config file {}", path.display()))?;
        // `user` may repeat and is the ACL's, applied once the engine exists (`apply_acl`).
        let (user_directives, directives): (Vec<Directive>, Vec<Directive>) =
            directives.into_iter().partition(|d| d.name == "user");
        let (flagged, engine_directives): (Vec<Directive>, Vec<Directive>) =
            directives.into_iter().partition(|d| is_flag(&d.name) || Config::default().get(&d.name).is_none());
        let from_file = file_args(&flagged, &matches).with_context(|| format!("in config file {}", path.display()))?;
        if from_file.is_empty() {
            return Ok(ServerConfig { engine_directives, user_directives, ..first });
        }
        // File options go before the command line's: clap then sees each option once.
        let mut merged = Vec::with_capacity(args.len() + from_file.len());
        merged.extend(args.first().cloned());
        merged.extend(from_file);
        merged.extend(args.iter().skip(1).cloned());
        let matches = ServerConfig::command()
            .try_get_matches_from(&merged)
            .map_err(|e| anyhow::anyhow!("{}", first_line(&e)))
            .with_context(|| format!("in config file {}", path.display()))?;
        Ok(ServerConfig { engine_directives, user_directives, ..ServerConfig::from_arg_matches(&matches)? })
    }

    /// The engine's run-time settings, validated by the same code as `CONFIG SET`, with the
    /// host's read-only parameters (`port`, `bind`, ...) recorded for `CONFIG GET`.
    pub fn engine_config(&self) -> anyhow::Result<Config> {
        let config = Config::default();
        for &name in ENGINE_PARAMS {
            let value = self.engine_value(name);
            if let Err(reason) = config.set(name, value) {
                bail!("invalid --{name} '{value}': {reason}");
            }
        }
        for limit in &self.client_output_buffer_limit {
            if let Err(reason) = config.set("client-output-buffer-limit", limit) {
                bail!("invalid --client-output-buffer-limit '{limit}': {reason}");
            }
        }
        config
            .set_startup("databases", &self.databases.to_string())
            .map_err(|reason| anyhow::anyhow!("invalid --databases: {reason}"))?;
        if let Some(pass) = &self.requirepass {
            config.set("requirepass", pass).map_err(|reason| anyhow::anyhow!("invalid --requirepass: {reason}"))?;
        }
        self.apply_engine_directives(&config)?;
        config.set_host_param("port", &self.port.to_string());
        config.set_host_param("bind", &self.bind);
        config.set_host_param("tcp-keepalive", &self.tcp_keepalive.to_string());
        config.set_host_param("http-port", &self.http_port.to_string());
        config.set_host_param("http-bind", &self.http_bind);
        config.set_host_param("dir", &self.dir_absolute().display().to_string());
        config.set_host_param("appendonly", &self.appendonly);
        config.set_host_param("appendfsync", &self.appendfsync);
        config.set_host_param("appendfilename", &self.appendfilename);
        config.set_host_param("aof-load-truncated", &self.aof_load_truncated);
        if let Some(path) = &self.aclfile {
            config.set_host_param("aclfile", &path.display().to_string());
        }
        Ok(config)
    }

    /// The ACL at start-up, as Redis's `ACLLoadUsersAtStartup`: the config file's `user`
    /// lines, or the aclfile (not both), then the random source ACL GENPASS draws from. An
    /// error stops the start.
    pub fn apply_acl(&self, engine: &Engine) -> anyhow::Result<()> {
        engine.set_entropy(os_entropy);
        if self.aclfile.is_some() && !self.user_directives.is_empty() {
            bail!(
                "Configuring Redis with users defined in redis.conf and at the same setting an ACL file path is \
                 invalid. This setup is very likely to lead to configuration errors and security holes, please \
                 define either an ACL file or declare users directly in your redis.conf, but not both."
            );
        }
        let lines: Vec<(usize, Vec<Vec<u8>>)> =
            self.user_directives.iter().map(|d| (d.line, split_words(&d.value))).collect();
        if let Err(e) = engine.set_config_users(&lines) {
            let path = self.config_file.as_deref().unwrap_or(Path::new("")).display().to_string();
            bail!("in config file {path}: {e}");
        }
        if let Some(path) = &self.aclfile {
            let path = self.dir_absolute().join(path);
            if let Err(e) = engine.load_acl_file(Arc::new(AclFilePath(path))) {
                bail!("Aborting Redis startup because of ACL errors: {e}");
            }
        }
        Ok(())
    }

    /// The config file's engine parameters without a flag, as Redis reads them: `save` lines
    /// add up (`save ""` clears them), `client-output-buffer-limit` lines each set a class,
    /// and immutable ones such as `databases` are accepted here, at start-up.
    fn apply_engine_directives(&self, config: &Config) -> anyhow::Result<()> {
        let mut save: Option<Vec<&str>> = None;
        for d in &self.engine_directives {
            if d.name == "save" {
                let points = save.get_or_insert_with(Vec::new);
                if d.value.is_empty() {
                    points.clear();
                } else {
                    points.push(&d.value);
                }
                continue;
            }
            config
                .set_startup(&d.name, &d.value)
                .map_err(|reason| anyhow::anyhow!("line {}: invalid {} '{}': {reason}", d.line, d.name, d.value))?;
        }
        if let Some(points) = save {
            config
                .set_startup("save", &points.join(" "))
                .map_err(|reason| anyhow::anyhow!("invalid save: {reason}"))?;
        }
        if let Some(path) = &self.config_file {
            let path = std::path::absolute(path).unwrap_or_else(|_| path.clone());
            config.set_config_file(std::sync::Arc::new(ConfigFilePath(path)));
        }
        Ok(())
    }

    fn engine_value(&self, name: &str) -> &str {
        match name {
            "maxmemory" => &self.maxmemory,
            "maxmemory-policy" => &self.maxmemory_policy,
            "maxmemory-samples" => &self.maxmemory_samples,
            "hz" => &self.hz,
            "default-ttl" => &self.default_ttl,
            "lua-maxmemory" => &self.lua_maxmemory,
            "maxclients" => &self.maxclients,
            "timeout" => &self.timeout,
            "proto-max-bulk-len" => &self.proto_max_bulk_len,
            "client-query-buffer-limit" => &self.client_query_buffer_limit,
            "protected-mode" => &self.protected_mode,
            "notify-keyspace-events" => &self.notify_keyspace_events,
            _ => unreachable!("ENGINE_PARAMS lists only the names above"),
        }
    }

    /// Event loops for RESP connections: `--threads`, or one per CPU but one (at least one).
    ///
    /// The CPU left over is for the kernel's network work, the admin runtime and clients on
    /// the same machine. Measured on 2 CPUs shared with redis-benchmark (`-P 16`, 50
    /// clients): two loops and the client are three busy threads on two cores, and a loop
    /// descheduled for a time slice stalls its connections, so p99 rose to 8 ms against
    /// 1.4 ms with one loop, at the same throughput.
    pub fn worker_threads(&self) -> usize {
        match self.threads {
            Some(n) => n as usize,
            None => default_threads(std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)),
        }
    }

    /// The admin token: `--admin-token` (or its variable), or the contents of
    /// `--admin-token-file` without its trailing newline. An empty or unreadable file is an
    /// error, so a mistyped path never leaves the API open. An empty `--admin-token` counts as
    /// none (docker-compose.yml passes `VITRINE_ADMIN_TOKEN` through, empty when unset).
    pub fn admin_token(&self) -> anyhow::Result<Option<String>> {
        let given = self.admin_token.clone().filter(|t| !t.is_empty());
        let Some(path) = &self.admin_token_file else { return Ok(given) };
        if given.is_some() {
            bail!("give the admin token once: --admin-token (VITRINE_ADMIN_TOKEN) or --admin-token-file (VITRINE_ADMIN_TOKEN_FILE)");
        }
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the admin token file {}", path.display()))?;
        let token = text.trim_end_matches(['\n', '\r']);
        if token.is_empty() {
            bail!("the admin token file {} is empty", path.display());
        }
        Ok(Some(token.to_string()))
    }

    /// `--dir` as an absolute path (relative ones are taken from the working directory), as
    /// Redis reports `dir`.
    pub fn dir_absolute(&self) -> PathBuf {
        std::path::absolute(&self.dir).unwrap_or_else(|_| self.dir.clone())
    }

    /// The addresses in `--bind`, each with whether it may be skipped when unavailable.
    pub fn bind_addrs(&self) -> Vec<(String, bool)> {
        self.bind
            .split_whitespace()
            .map(|a| match a.strip_prefix('-') {
                Some(rest) => (rest.to_string(), true),
                None => (a.to_string(), false),
            })
            .collect()
    }
}

/// One `name value` line of a config file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directive {
    pub line: usize,
    pub name: String,
    pub value: String,
}

/// Splits a redis.conf-style text into directives: blank lines and lines starting with `#`
/// are skipped; the first word is the name (case-insensitive), the rest of the line the
/// value, with one pair of surrounding quotes removed.
pub fn parse_conf(text: &str) -> anyhow::Result<Vec<Directive>> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (name, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let value = unquote(rest.trim());
        out.push(Directive { line: i + 1, name: name.to_ascii_lowercase(), value });
    }
    Ok(out)
}

/// clap's message without its `error: ` prefix and usage hint.
fn first_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let line = text.lines().next().unwrap_or_default();
    line.strip_prefix("error: ").unwrap_or(line).to_string()
}

/// The value without one pair of surrounding quotes; inside double quotes, `\"`, `\\`, `\n`,
/// `\r` and `\t` are read as CONFIG REWRITE writes them.
fn unquote(s: &str) -> String {
    if s.len() >= 2 && s.starts_with('"') && s.ends_with('"') {
        let mut out = String::with_capacity(s.len());
        let mut chars = s[1..s.len() - 1].chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('r') => out.push('\r'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => out.push('\\'),
            }
        }
        return out;
    }
    if s.len() >= 2 && s.starts_with('\'') && s.ends_with('\'') {
        return s[1..s.len() - 1].to_string();
    }
    s.to_string()
}

/// Whether `name` is one of the process's flags (`--name`).
fn is_flag(name: &str) -> bool {
    ServerConfig::command().get_arguments().any(|a| a.get_long() == Some(name))
}

/// The config file `CONFIG REWRITE` replaces, written atomically.
struct ConfigFilePath(PathBuf);

impl vitrine_engine::ConfigFile for ConfigFilePath {
    fn read(&self) -> Result<String, String> {
        std::fs::read_to_string(&self.0).map_err(|e| e.to_string())
    }

    fn write(&self, text: &str) -> Result<(), String> {
        write_atomically(&self.0, text).map_err(|e| format!("{e:#}"))
    }
}

/// The aclfile: ACL LOAD reads it, ACL SAVE replaces it atomically.
struct AclFilePath(PathBuf);

impl vitrine_engine::AclFile for AclFilePath {
    fn path(&self) -> String {
        self.0.display().to_string()
    }

    fn read(&self) -> Result<String, String> {
        std::fs::read_to_string(&self.0).map_err(|e| os_reason(&e))
    }

    fn write(&self, text: &str) -> Result<(), String> {
        write_atomically(&self.0, text).map_err(|e| {
            tracing::warn!("ACL SAVE: {e:#}");
            format!("{e:#}")
        })
    }
}

/// An I/O error as C's `strerror` words it (`No such file or directory`), without Rust's
/// ` (os error 2)`.
fn os_reason(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// The OS's CSPRNG, for ACL GENPASS (a failure refuses the command).
fn os_entropy(buf: &mut [u8]) -> bool {
    getrandom::getrandom(buf).map_err(|e| tracing::warn!("the OS random source failed: {e}")).is_ok()
}

/// A `user` line's words as redis.conf splits them: on whitespace, a word in double quotes
/// (with `\"`, `\\`, `\n` escapes) or single quotes kept whole.
fn split_words(line: &str) -> Vec<Vec<u8>> {
    let mut words = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let Some(&first) = chars.peek() else { break };
        let mut word = String::new();
        if first == '"' || first == '\'' {
            chars.next();
            while let Some(c) = chars.next() {
                match c {
                    c if c == first => break,
                    '\\' if first == '"' => match chars.next() {
                        Some('n') => word.push('\n'),
                        Some('r') => word.push('\r'),
                        Some('t') => word.push('\t'),
                        Some(other) => word.push(other),
                        None => {}
                    },
                    c => word.push(c),
                }
            }
        } else {
            while let Some(c) = chars.next_if(|c| !c.is_whitespace()) {
                word.push(c);
            }
        }
        words.push(word.into_bytes());
    }
    words
}

/// The `--name value` arguments for the file's directives that no flag or environment
/// variable already set. Unknown names are errors, as in Redis.
fn file_args(directives: &[Directive], matches: &ArgMatches) -> anyhow::Result<Vec<OsString>> {
    let command = ServerConfig::command();
    let mut args = Vec::new();
    for d in directives {
        let Some(arg) = command.get_arguments().find(|a| a.get_long() == Some(d.name.as_str())) else {
            bail!("line {}: unknown option '{}' (Bad directive or wrong number of arguments)", d.line, d.name);
        };
        let from_file_wins =
            matches!(matches.value_source(arg.get_id().as_str()), None | Some(ValueSource::DefaultValue));
        if from_file_wins {
            args.push(OsString::from(format!("--{}", d.name)));
            args.push(OsString::from(&d.value));
        }
    }
    Ok(args)
}

/// Writes `contents` to `path` so that a reader never sees a partial file.
pub fn write_atomically(path: &Path, contents: &str) -> anyhow::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, contents).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot rename {} to {}", tmp.display(), path.display()))?;
    Ok(())
}

/// The default number of event loops on a machine with `cpus` CPUs.
pub fn default_threads(cpus: usize) -> usize {
    cpus.saturating_sub(1).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use vitrine_engine::Policy;

    fn load(args: &[&str]) -> anyhow::Result<ServerConfig> {
        ServerConfig::try_load(std::iter::once("vitrine").chain(args.iter().copied()))
    }

    #[test]
    fn client_output_buffer_limits_by_class() {
        let two = ["--client-output-buffer-limit", "pubsub 1mb 0 0", "--client-output-buffer-limit", "normal 0 0 0"];
        let limit = load(&two).unwrap().engine_config().unwrap().pubsub_output_limit();
        assert_eq!((limit.hard, limit.soft, limit.soft_seconds), (1 << 20, 0, 0));
        let Err(bad) = load(&["--client-output-buffer-limit", "pubsub 1mb"]).unwrap().engine_config() else {
            panic!("a wrong number of words must be refused");
        };
        assert!(format!("{bad:#}").contains("Wrong number of arguments in buffer limit configuration."), "{bad:#}");
    }

    /// A config file that is removed when dropped.
    struct TempConf(PathBuf);

    impl TempConf {
        fn arg(&self) -> &str {
            self.0.to_str().unwrap()
        }
    }

    impl Drop for TempConf {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    fn temp_file(name: &str, contents: &str) -> TempConf {
        let path = std::env::temp_dir().join(format!("vitrine-config-test-{}-{name}", std::process::id()));
        std::fs::write(&path, contents).unwrap();
        TempConf(path)
    }

    #[test]
    fn defaults_follow_redis() {
        let c = load(&[]).unwrap();
        assert_eq!(c.port, 6379);
        assert_eq!(c.bind, "127.0.0.1");
        assert_eq!(c.maxmemory, "0");
        assert_eq!(c.maxmemory_policy, "noeviction");
        assert_eq!(c.tcp_keepalive, 300);
        assert_eq!(c.http_port, 8080);
        assert_eq!(c.http_bind, "127.0.0.1");
        assert_eq!(c.dir, PathBuf::from("."));
        assert_eq!(c.web_dir, PathBuf::from("web/dist"));
        assert!(!c.admin_insecure);
        assert!(c.requirepass.is_none());
        let e = c.engine_config().unwrap();
        assert_eq!(e.maxmemory(), 0);
        assert_eq!(e.policy(), Policy::NoEviction);
        assert_eq!(e.maxclients(), 10000);
        assert_eq!(e.proto_max_bulk_len(), 512 << 20);
        assert_eq!(e.client_query_buffer_limit(), 1 << 30);
        assert!(!e.auth_required());
        assert_eq!(e.get("port").as_deref(), Some("6379"));
    }

    #[test]
    fn flags_reach_the_engine() {
        let c = load(&[
            "--port",
            "0",
            "--maxmemory",
            "2mb",
            "--maxmemory-policy",
            "allkeys-lru",
            "--hz",
            "50",
            "--requirepass",
            "secret",
            "--timeout",
            "30",
            "--threads",
            "3",
        ])
        .unwrap();
        assert_eq!(c.port, 0);
        assert_eq!(c.worker_threads(), 3);
        let e = c.engine_config().unwrap();
        assert_eq!(e.maxmemory(), 2 * 1024 * 1024);
        assert_eq!(e.policy(), Policy::AllkeysLru);
        assert_eq!(e.hz(), 50);
        assert_eq!(e.timeout_s(), 30);
        assert_eq!(e.requirepass().as_deref(), Some(&b"secret"[..]));
    }

    #[test]
    fn protected_mode_starts_the_engines_value() {
        assert!(load(&[]).unwrap().engine_config().unwrap().protected_mode(), "on by default, as in Redis");
        // Case-insensitive, as Redis's bool options.
        let off = load(&["--protected-mode", "NO"]).unwrap().engine_config().unwrap();
        assert!(!off.protected_mode());
        assert_eq!(off.get("protected-mode").as_deref(), Some("no"));
    }

    #[test]
    fn default_event_loops_leave_one_cpu_over() {
        assert_eq!((default_threads(1), default_threads(2), default_threads(8)), (1, 1, 7));
        assert_eq!(default_threads(0), 1);
    }

    #[test]
    fn invalid_values_name_the_flag() {
        let engine_err = |args: &[&str]| match load(args).unwrap().engine_config() {
            Ok(_) => panic!("{args:?} accepted"),
            Err(e) => e.to_string(),
        };
        let err = engine_err(&["--maxmemory", "abc"]);
        assert_eq!(err, "invalid --maxmemory 'abc': argument must be a memory value");
        let err = engine_err(&["--maxmemory-policy", "lru"]);
        assert!(err.starts_with("invalid --maxmemory-policy 'lru': argument(s) must be one of"), "{err}");
        let err = engine_err(&["--maxmemory-samples", "0"]);
        assert!(err.contains("between 1 and 2147483647"), "Redis's bound: {err}");
        let err = engine_err(&["--protected-mode", "maybe"]);
        assert_eq!(err, "invalid --protected-mode 'maybe': argument must be 'yes' or 'no'");
        assert!(load(&["--port", "70000"]).is_err());
        assert!(load(&["--threads", "0"]).is_err());
        assert!(load(&["--no-such-flag"]).is_err());
    }

    #[test]
    fn conf_lines_split_into_name_and_value() {
        let text = "# a comment\n\n  maxmemory 100mb\nMAXMEMORY-POLICY allkeys-lfu\nrequirepass \"two words\"\nbind 127.0.0.1 -::1\nflag\n";
        let d = parse_conf(text).unwrap();
        let pairs: Vec<(&str, &str)> = d.iter().map(|d| (d.name.as_str(), d.value.as_str())).collect();
        assert_eq!(
            pairs,
            [
                ("maxmemory", "100mb"),
                ("maxmemory-policy", "allkeys-lfu"),
                ("requirepass", "two words"),
                ("bind", "127.0.0.1 -::1"),
                ("flag", ""),
            ]
        );
        assert_eq!(d[0].line, 3);
    }

    #[test]
    fn file_applies_under_flags() {
        let path = temp_file("under-flags.conf", "port 7000\nmaxmemory 1mb\nhz 20\n# hz 30\n");
        let c = load(&[path.arg(), "--port", "7001"]).unwrap();
        assert_eq!(c.port, 7001, "a flag beats the file");
        assert_eq!(c.maxmemory, "1mb", "the file beats the default");
        assert_eq!(c.hz, "20");
        assert_eq!(c.maxmemory_policy, "noeviction");
    }

    #[test]
    fn file_sets_every_engine_parameter_even_start_up_ones() {
        let text = "databases 4\nlazyfree-lazy-eviction yes\nhash-max-ziplist-entries 9\nsave 60 1\nsave 30 5\nrequirepass \"a \\\"b\\\"\"\n";
        let path = temp_file("engine.conf", text);
        let e = load(&[path.arg()]).unwrap().engine_config().unwrap();
        assert_eq!(e.databases(), 4);
        assert_eq!(e.get("lazyfree-lazy-eviction").as_deref(), Some("yes"));
        assert_eq!(e.get("hash-max-listpack-entries").as_deref(), Some("9"));
        assert_eq!(e.get("save").as_deref(), Some("60 1 30 5"), "save lines add up");
        assert_eq!(e.requirepass().as_deref(), Some(&b"a \"b\""[..]), "quotes read as CONFIG REWRITE writes them");
    }

    #[test]
    fn file_errors_name_the_file_and_line() {
        let path = temp_file("unknown.conf", "port 7000\nno-such-option yes\n");
        let err = format!("{:#}", load(&[path.arg()]).unwrap_err());
        assert!(err.contains("unknown.conf") && err.contains("line 2") && err.contains("no-such-option"), "{err}");

        let path = temp_file("badengine.conf", "port 7000\nhash-max-listpack-entries lots\n");
        let Err(err) = load(&[path.arg()]).unwrap().engine_config() else { panic!("accepted") };
        let err = format!("{err:#}");
        assert!(err.contains("line 2") && err.contains("hash-max-listpack-entries"), "{err}");

        let path = temp_file("badport.conf", "port seventy\n");
        let err = format!("{:#}", load(&[path.arg()]).unwrap_err());
        assert!(err.contains("badport.conf") && err.contains("seventy"), "{err}");

        let missing = std::env::temp_dir().join("vitrine-no-such-dir/none.conf");
        assert!(load(&[missing.to_str().unwrap()]).is_err());
    }

    #[test]
    fn environment_sets_options() {
        // The only test that touches these variables; others do not read these fields.
        std::env::set_var("VITRINE_MAXMEMORY_SAMPLES", "7");
        std::env::set_var("VITRINE_ADMIN_TOKEN", "tok");
        let c = load(&[]).unwrap();
        assert_eq!(c.maxmemory_samples, "7");
        assert_eq!(c.admin_token.as_deref(), Some("tok"));
        // The environment beats the file; a flag beats the environment.
        let path = temp_file("env.conf", "maxmemory-samples 9\n");
        assert_eq!(load(&[path.arg()]).unwrap().maxmemory_samples, "7");
        assert_eq!(load(&["--maxmemory-samples", "3"]).unwrap().maxmemory_samples, "3");
        std::env::remove_var("VITRINE_MAXMEMORY_SAMPLES");
        std::env::remove_var("VITRINE_ADMIN_TOKEN");
    }

    #[test]
    fn the_admin_token_comes_from_a_file_without_its_newline() {
        let file = temp_file("token", "t0ken-from-file\n");
        let c = load(&["--admin-token-file", file.arg()]).unwrap();
        assert_eq!(c.admin_token().unwrap().as_deref(), Some("t0ken-from-file"));
        let crlf = temp_file("token-crlf", "t0ken\r\n");
        assert_eq!(load(&["--admin-token-file", crlf.arg()]).unwrap().admin_token().unwrap().as_deref(), Some("t0ken"));
        let empty = temp_file("token-empty", "\n");
        let err = load(&["--admin-token-file", empty.arg()]).unwrap().admin_token().unwrap_err();
        assert!(err.to_string().contains("is empty"), "{err}");
        let missing = std::env::temp_dir().join("vitrine-no-such-dir/token");
        let err = load(&["--admin-token-file", missing.to_str().unwrap()]).unwrap().admin_token().unwrap_err();
        assert!(err.to_string().contains("cannot read the admin token file"), "{err}");
        let both = load(&["--admin-token", "a", "--admin-token-file", file.arg()]).unwrap().admin_token();
        assert!(both.unwrap_err().to_string().contains("give the admin token once"));
        let empty_flag = load(&["--admin-token", "", "--admin-token-file", file.arg()]).unwrap();
        assert_eq!(empty_flag.admin_token().unwrap().as_deref(), Some("t0ken-from-file"), "as compose passes it");
        assert_eq!(load(&["--admin-token", "flag"]).unwrap().admin_token().unwrap().as_deref(), Some("flag"));
        assert_eq!(load(&[]).unwrap().admin_token().unwrap(), None);
    }

    #[test]
    fn help_warns_that_a_token_flag_shows_in_ps() {
        let help = ServerConfig::command().render_long_help().to_string();
        let token = help.split("--admin-token <ADMIN_TOKEN>").nth(1).unwrap_or_default();
        let token = token.split("--admin-token-file").next().unwrap_or_default();
        assert!(token.contains("visible to every local user in `ps`"), "{help}");
        assert!(help.contains("--admin-token-file <PATH>"), "{help}");
        for flag in ["--http-header-timeout", "--http-body-timeout", "--http-request-timeout", "--http-max-connections"]
        {
            assert!(help.contains(flag), "{flag} missing from --help");
        }
    }

    #[test]
    fn bind_lists_optional_addresses() {
        let c = load(&["--bind", "127.0.0.1 -::1"]).unwrap();
        assert_eq!(c.bind_addrs(), [("127.0.0.1".to_string(), false), ("::1".to_string(), true)]);
    }

    #[test]
    fn port_file_is_written_whole() {
        let path = std::env::temp_dir().join(format!("vitrine-port-file-test-{}", std::process::id()));
        write_atomically(&path, "1234\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "1234\n");
        std::fs::remove_file(&path).unwrap();
    }
}
