//! The table of every configuration parameter: the ones `CONFIG GET *` lists on Redis 7.2 (with
//! their aliases, types, bounds, defaults and mutability as Redis declares them) and Vitrine's
//! own few. What each one does in Vitrine is said by its [`Effect`]; the dashboard groups them
//! by [`Group`] and shows their one-line description.

use serde::Serialize;
use ts_rs::TS;

/// How a parameter's value is parsed, validated and shown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// `yes` or `no`.
    Bool,
    /// A decimal integer within the bounds. `unsigned` types check bounds as Redis's unsigned
    /// configs do (a negative number wraps around and fails the upper bound).
    Int { min: i128, max: i128, unsigned: bool },
    /// A memory amount (`100`, `1kb`, `2gb`); shown in bytes.
    Memory { min: i128, max: i128, unsigned: bool },
    /// A memory amount or a percentage (`maxmemory-clients`): a percentage is stored negated.
    MemoryPercent { min: i128, max: i128 },
    /// An octal number (`unixsocketperm`).
    Octal { max: i128 },
    /// One of these names (several names may share a value; the first is shown).
    Enum(&'static [(&'static str, u32)]),
    /// Several of these flag names, separated by spaces (`shutdown-on-sigint`).
    Flags(&'static [(&'static str, u32)]),
    /// Any text.
    Str,
    /// A parameter with its own syntax.
    Special(Special),
}

/// Parameters with their own syntax.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    Save,
    OutputLimits,
    OomValues,
    Notify,
    Bind,
    ReplicaOf,
    Percentiles,
    Dir,
}

/// Where the dashboard lists a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum Group {
    General,
    Network,
    Security,
    Clients,
    Memory,
    Lazyfree,
    Encoding,
    Persistence,
    Replication,
    Cluster,
    Tls,
    Monitoring,
    Advanced,
}

/// What setting a parameter does in Vitrine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum Effect {
    /// Obeyed from the next command (or connection) on.
    Live,
    /// Read when the server starts.
    Startup,
    /// Accepted and reported, no effect yet (replication, cluster, RDB, TLS, ...).
    None,
}

/// `CONFIG SET` refuses it: "can't set immutable config".
pub const IMMUTABLE: u8 = 1;
/// `CONFIG SET` refuses it as Redis does with `enable-protected-configs no`.
pub const PROTECTED: u8 = 2;
/// A secret: hidden in the admin view.
pub const SENSITIVE: u8 = 4;
/// Not matched by a pattern; `CONFIG GET` of its exact name answers it (Redis's debugging
/// parameters).
pub const HIDDEN: u8 = 8;

/// One parameter.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    pub name: &'static str,
    pub alias: Option<&'static str>,
    pub kind: Kind,
    /// The value `CONFIG GET` shows before any change.
    pub default: &'static str,
    pub flags: u8,
    pub group: Group,
    pub effect: Effect,
    pub doc: &'static str,
}

impl Param {
    pub fn mutable(&self) -> bool {
        self.flags & (IMMUTABLE | PROTECTED) == 0
    }

    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    /// Whether `name` (lower case) is this parameter's name or alias.
    pub fn named(&self, name: &str) -> bool {
        self.name == name || self.alias == Some(name)
    }
}

const INT_MAX: i128 = i32::MAX as i128;
const INT_MIN: i128 = i32::MIN as i128;
const UINT_MAX: i128 = u32::MAX as i128;
const LONG_MAX: i128 = i64::MAX as i128;
const ULLONG_MAX: i128 = u64::MAX as i128;

const fn int(min: i128, max: i128) -> Kind {
    Kind::Int { min, max, unsigned: false }
}
const fn uint(min: i128, max: i128) -> Kind {
    Kind::Int { min, max, unsigned: true }
}
const fn mem(min: i128, max: i128) -> Kind {
    Kind::Memory { min, max, unsigned: false }
}
const fn umem(min: i128, max: i128) -> Kind {
    Kind::Memory { min, max, unsigned: true }
}

use Effect::{Live, None as NoEffect, Startup};
use Group::*;

const fn p(
    name: &'static str,
    kind: Kind,
    default: &'static str,
    group: Group,
    effect: Effect,
    doc: &'static str,
) -> Param {
    Param { name, alias: None, kind, default, flags: 0, group, effect, doc }
}

impl Param {
    const fn alias(mut self, alias: &'static str) -> Param {
        self.alias = Some(alias);
        self
    }
    const fn flags(mut self, flags: u8) -> Param {
        self.flags |= flags;
        self
    }
}

pub const POLICIES: &[(&str, u32)] = &[
    ("volatile-lru", 0),
    ("volatile-lfu", 1),
    ("volatile-random", 2),
    ("volatile-ttl", 3),
    ("allkeys-lru", 4),
    ("allkeys-lfu", 5),
    ("allkeys-random", 6),
    ("noeviction", 7),
];
const SYSLOG_FACILITIES: &[(&str, u32)] = &[
    ("user", 0),
    ("local0", 1),
    ("local1", 2),
    ("local2", 3),
    ("local3", 4),
    ("local4", 5),
    ("local5", 6),
    ("local6", 7),
    ("local7", 8),
];
const LOGLEVELS: &[(&str, u32)] = &[("debug", 0), ("verbose", 1), ("notice", 2), ("warning", 3), ("nothing", 4)];
const SUPERVISED: &[(&str, u32)] = &[("upstart", 0), ("systemd", 1), ("auto", 2), ("no", 3)];
pub const FSYNC: &[(&str, u32)] = &[("everysec", 0), ("always", 1), ("no", 2)];
const SHUTDOWN: &[(&str, u32)] = &[("default", 0), ("save", 1), ("nosave", 2), ("now", 4), ("force", 8)];
const DISKLESS_LOAD: &[(&str, u32)] = &[("disabled", 0), ("on-empty-db", 1), ("swapdb", 2)];
const TLS_AUTH: &[(&str, u32)] = &[("no", 0), ("yes", 1), ("optional", 2)];
const OOM_ADJ: &[(&str, u32)] = &[("no", 0), ("yes", 1), ("relative", 1), ("absolute", 2)];
const ACL_PUBSUB: &[(&str, u32)] = &[("allchannels", 1), ("resetchannels", 0)];
const SANITIZE: &[(&str, u32)] = &[("no", 0), ("yes", 1), ("clients", 2)];
const PROTECTED_ACTION: &[(&str, u32)] = &[("no", 0), ("yes", 1), ("local", 2)];
const ENDPOINT: &[(&str, u32)] = &[("ip", 0), ("hostname", 1), ("unknown-endpoint", 2)];
const PROPAGATION_ERROR: &[(&str, u32)] = &[("ignore", 0), ("panic", 1), ("panic-on-replicas", 2)];

const IMM: u8 = IMMUTABLE;

/// Every parameter, in Redis's declaration order by type, then Vitrine's own.
#[rustfmt::skip]
pub const PARAMS: &[Param] = &[
    // Bool configs
    p("rdbchecksum", Kind::Bool, "yes", Persistence, NoEffect, "Add a CRC64 checksum to RDB files.").flags(IMM),
    p("daemonize", Kind::Bool, "no", General, NoEffect, "Run as a daemon (Vitrine always runs in the foreground).").flags(IMM),
    p("io-threads-do-reads", Kind::Bool, "no", Advanced, NoEffect, "Let I/O threads read and parse commands too.").flags(IMM),
    p("always-show-logo", Kind::Bool, "no", General, NoEffect, "Show the ASCII logo at start-up even when logging to a file.").flags(IMM),
    p("protected-mode", Kind::Bool, "yes", Security, Live, "Without a password, refuse clients that are not on loopback."),
    p("rdbcompression", Kind::Bool, "yes", Persistence, NoEffect, "Compress strings in RDB files with LZF."),
    p("rdb-del-sync-files", Kind::Bool, "no", Persistence, NoEffect, "Delete RDB files used by replication when persistence is off."),
    p("activerehashing", Kind::Bool, "yes", Advanced, NoEffect, "Rehash the main dictionaries incrementally in the background."),
    p("stop-writes-on-bgsave-error", Kind::Bool, "yes", Persistence, NoEffect, "Refuse writes while the last background save failed."),
    p("set-proc-title", Kind::Bool, "yes", General, NoEffect, "Change the process title shown by ps.").flags(IMM),
    p("dynamic-hz", Kind::Bool, "yes", Advanced, NoEffect, "Raise hz temporarily with many clients connected."),
    p("lazyfree-lazy-eviction", Kind::Bool, "no", Lazyfree, NoEffect, "Free evicted values in the background (Vitrine frees them at once)."),
    p("lazyfree-lazy-expire", Kind::Bool, "no", Lazyfree, NoEffect, "Free expired values in the background (Vitrine frees them at once)."),
    p("lazyfree-lazy-server-del", Kind::Bool, "no", Lazyfree, NoEffect, "Free values overwritten by the server in the background."),
    p("lazyfree-lazy-user-del", Kind::Bool, "no", Lazyfree, NoEffect, "Make DEL free values in the background, as UNLINK."),
    p("lazyfree-lazy-user-flush", Kind::Bool, "no", Lazyfree, NoEffect, "Make FLUSHDB/FLUSHALL without a mode asynchronous."),
    p("repl-disable-tcp-nodelay", Kind::Bool, "no", Replication, NoEffect, "Disable TCP_NODELAY on the replica link."),
    p("repl-diskless-sync", Kind::Bool, "yes", Replication, NoEffect, "Send the RDB to replicas over the socket, without disk."),
    p("aof-rewrite-incremental-fsync", Kind::Bool, "yes", Persistence, NoEffect, "fsync the rewritten AOF every 4 MB while it is written."),
    p("no-appendfsync-on-rewrite", Kind::Bool, "no", Persistence, NoEffect, "Skip fsync of the AOF while a rewrite runs."),
    p("cluster-require-full-coverage", Kind::Bool, "yes", Cluster, NoEffect, "Stop answering when some hash slot is not covered."),
    p("rdb-save-incremental-fsync", Kind::Bool, "yes", Persistence, NoEffect, "fsync the RDB every 4 MB while it is written."),
    p("aof-load-truncated", Kind::Bool, "yes", Persistence, Startup, "Load a truncated AOF (cutting it at the last whole command) instead of refusing to start."),
    p("aof-use-rdb-preamble", Kind::Bool, "yes", Persistence, NoEffect, "Start a rewritten AOF with an RDB image."),
    p("aof-timestamp-enabled", Kind::Bool, "no", Persistence, NoEffect, "Write timestamp annotations into the AOF."),
    p("cluster-replica-no-failover", Kind::Bool, "no", Cluster, NoEffect, "Never fail over to this replica automatically.").alias("cluster-slave-no-failover"),
    p("replica-lazy-flush", Kind::Bool, "no", Replication, NoEffect, "Flush the replica's data asynchronously before a full sync.").alias("slave-lazy-flush"),
    p("replica-serve-stale-data", Kind::Bool, "yes", Replication, NoEffect, "Answer clients while the replica's link is down.").alias("slave-serve-stale-data"),
    p("replica-read-only", Kind::Bool, "yes", Replication, NoEffect, "Refuse writes on a replica.").alias("slave-read-only"),
    p("replica-ignore-maxmemory", Kind::Bool, "yes", Replication, NoEffect, "A replica leaves eviction to its master.").alias("slave-ignore-maxmemory"),
    p("jemalloc-bg-thread", Kind::Bool, "yes", Advanced, NoEffect, "Let jemalloc purge memory from a background thread."),
    p("activedefrag", Kind::Bool, "no", Advanced, NoEffect, "Defragment memory in the background."),
    p("syslog-enabled", Kind::Bool, "no", General, NoEffect, "Log to syslog.").flags(IMM),
    p("cluster-enabled", Kind::Bool, "no", Cluster, NoEffect, "Run as a cluster node.").flags(IMM),
    p("appendonly", Kind::Bool, "no", Persistence, Startup, "Keep an append-only file of writes and load it at start-up.").flags(IMM),
    p("cluster-allow-reads-when-down", Kind::Bool, "no", Cluster, NoEffect, "Serve reads while the cluster is down."),
    p("cluster-allow-pubsubshard-when-down", Kind::Bool, "yes", Cluster, NoEffect, "Serve sharded pub/sub while the cluster is down."),
    p("crash-log-enabled", Kind::Bool, "yes", General, NoEffect, "Write a crash report to the log."),
    p("crash-memcheck-enabled", Kind::Bool, "yes", General, NoEffect, "Run a memory test after a crash."),
    p("use-exit-on-panic", Kind::Bool, "no", General, NoEffect, "Exit instead of aborting on a panic (tests).").flags(HIDDEN),
    p("disable-thp", Kind::Bool, "yes", Advanced, NoEffect, "Turn off transparent huge pages for the process.").flags(IMM),
    p("cluster-allow-replica-migration", Kind::Bool, "yes", Cluster, NoEffect, "Let replicas migrate to orphaned masters."),
    p("replica-announced", Kind::Bool, "yes", Replication, NoEffect, "List this replica in Sentinel's answers."),
    p("latency-tracking", Kind::Bool, "yes", Monitoring, Live, "Track per-command latency histograms."),
    p("aof-disable-auto-gc", Kind::Bool, "no", Persistence, NoEffect, "Keep old AOF base and incremental files.").flags(HIDDEN),
    p("replica-ignore-disk-write-errors", Kind::Bool, "no", Replication, NoEffect, "Keep replicating when writing to disk fails."),
    // String configs
    p("aclfile", Kind::Str, "", Security, Startup, "File of ACL users (ACL SAVE / LOAD), loaded at start-up.").flags(IMM),
    p("unixsocket", Kind::Str, "", Network, NoEffect, "Path of a Unix socket to listen on.").flags(IMM),
    p("pidfile", Kind::Str, "", General, NoEffect, "File to write the process id to.").flags(IMM),
    p("replica-announce-ip", Kind::Str, "", Replication, NoEffect, "Address this replica reports to its master.").alias("slave-announce-ip"),
    p("masteruser", Kind::Str, "", Replication, NoEffect, "User to authenticate to the master as.").flags(SENSITIVE),
    p("cluster-announce-ip", Kind::Str, "", Cluster, NoEffect, "Address this node announces to the cluster."),
    p("cluster-config-file", Kind::Str, "nodes.conf", Cluster, NoEffect, "File where the cluster keeps its state.").flags(IMM),
    p("cluster-announce-hostname", Kind::Str, "", Cluster, NoEffect, "Hostname this node announces to the cluster."),
    p("cluster-announce-human-nodename", Kind::Str, "", Cluster, NoEffect, "Human-readable name this node announces to the cluster."),
    p("syslog-ident", Kind::Str, "redis", General, NoEffect, "Identity in syslog messages.").flags(IMM),
    p("dbfilename", Kind::Str, "dump.rdb", Persistence, NoEffect, "Name of the RDB file in dir.").flags(PROTECTED),
    p("appendfilename", Kind::Str, "appendonly.aof", Persistence, Startup, "Name of the append-only file in dir.").flags(IMM),
    p("appenddirname", Kind::Str, "appendonlydir", Persistence, NoEffect, "Directory of Redis's multi-part AOF (Vitrine keeps one file).").flags(IMM),
    p("server_cpulist", Kind::Str, "", Advanced, NoEffect, "CPUs the main threads are pinned to.").flags(IMM),
    p("bio_cpulist", Kind::Str, "", Advanced, NoEffect, "CPUs the background I/O threads are pinned to.").flags(IMM),
    p("aof_rewrite_cpulist", Kind::Str, "", Advanced, NoEffect, "CPUs the AOF rewrite child is pinned to.").flags(IMM),
    p("bgsave_cpulist", Kind::Str, "", Advanced, NoEffect, "CPUs the background save child is pinned to.").flags(IMM),
    p("ignore-warnings", Kind::Str, "", General, NoEffect, "Start-up warnings to silence."),
    p("proc-title-template", Kind::Str, "{title} {listen-addr} {server-mode}", General, NoEffect, "Template of the process title."),
    p("bind-source-addr", Kind::Str, "", Network, NoEffect, "Source address of outgoing connections."),
    p("logfile", Kind::Str, "", General, NoEffect, "Log file (empty: standard output).").flags(IMM),
    p("locale-collate", Kind::Str, "", Advanced, NoEffect, "Locale used to compare strings (SORT ALPHA)."),
    // SDS configs
    p("masterauth", Kind::Str, "", Replication, NoEffect, "Password to authenticate to the master with.").flags(SENSITIVE),
    p("requirepass", Kind::Str, "", Security, Live, "Password clients must give with AUTH (empty: none).").flags(SENSITIVE),
    // Enum configs
    p("supervised", Kind::Enum(SUPERVISED), "no", General, NoEffect, "Talk to an upstart or systemd supervisor.").flags(IMM),
    p("syslog-facility", Kind::Enum(SYSLOG_FACILITIES), "local0", General, NoEffect, "Syslog facility.").flags(IMM),
    p("repl-diskless-load", Kind::Enum(DISKLESS_LOAD), "disabled", Replication, NoEffect, "How a replica loads the RDB it receives."),
    p("loglevel", Kind::Enum(LOGLEVELS), "notice", General, NoEffect, "How much the server logs."),
    p("maxmemory-policy", Kind::Enum(POLICIES), "noeviction", Memory, Live, "What to evict when a write needs room past maxmemory."),
    p("appendfsync", Kind::Enum(FSYNC), "everysec", Persistence, Live, "When the append-only file is fsynced: always, everysec or no."),
    p("oom-score-adj", Kind::Enum(OOM_ADJ), "no", Advanced, NoEffect, "Adjust the process's Linux OOM score."),
    p("acl-pubsub-default", Kind::Enum(ACL_PUBSUB), "resetchannels", Security, Live, "Channels a new ACL user may use (allchannels or resetchannels)."),
    p("sanitize-dump-payload", Kind::Enum(SANITIZE), "no", Security, NoEffect, "Check RESTORE payloads deeply."),
    p("enable-protected-configs", Kind::Enum(PROTECTED_ACTION), "no", Security, NoEffect, "Allow CONFIG SET of protected parameters (dir, dbfilename).").flags(IMM),
    p("enable-debug-command", Kind::Enum(PROTECTED_ACTION), "no", Security, NoEffect, "Allow the DEBUG command.").flags(IMM),
    p("enable-module-command", Kind::Enum(PROTECTED_ACTION), "no", Security, NoEffect, "Allow the MODULE command.").flags(IMM),
    p("cluster-preferred-endpoint-type", Kind::Enum(ENDPOINT), "ip", Cluster, NoEffect, "Endpoint type cluster redirections name."),
    p("propagation-error-behavior", Kind::Enum(PROPAGATION_ERROR), "ignore", Replication, NoEffect, "What a replica does when a propagated command fails."),
    p("shutdown-on-sigint", Kind::Flags(SHUTDOWN), "default", General, NoEffect, "How to shut down on SIGINT."),
    p("shutdown-on-sigterm", Kind::Flags(SHUTDOWN), "default", General, NoEffect, "How to shut down on SIGTERM."),
    // Integer configs
    // Redis accepts up to INT_MAX; each database costs a shard per stripe (about 100 bytes
    // each), so Vitrine stops at a few thousand.
    p("databases", int(1, 4096), "16", General, Startup, "Number of databases (start-up only).").flags(IMM),
    p("port", int(0, 65535), "6379", Network, Startup, "TCP port of the RESP server (start-up only in Vitrine).").flags(IMM),
    p("io-threads", int(1, 128), "1", Advanced, NoEffect, "Redis's I/O threads (Vitrine: --threads).").flags(IMM),
    p("auto-aof-rewrite-percentage", int(0, INT_MAX), "100", Persistence, NoEffect, "Rewrite the AOF when it grew by this percentage."),
    p("cluster-replica-validity-factor", int(0, INT_MAX), "10", Cluster, NoEffect, "How stale a replica may be and still fail over.").alias("cluster-slave-validity-factor"),
    p("list-max-listpack-size", int(INT_MIN, INT_MAX), "-2", Encoding, Live, "Largest listpack of a list: negative = bytes (-2: 8 KB), positive = elements.").alias("list-max-ziplist-size"),
    p("tcp-keepalive", int(0, INT_MAX), "300", Network, Startup, "TCP keepalive interval of client connections, in seconds."),
    p("cluster-migration-barrier", int(0, INT_MAX), "1", Cluster, NoEffect, "Replicas a master keeps before one may migrate."),
    p("active-defrag-cycle-min", int(1, 99), "1", Advanced, NoEffect, "Least CPU percentage spent defragmenting."),
    p("active-defrag-cycle-max", int(1, 99), "25", Advanced, NoEffect, "Most CPU percentage spent defragmenting."),
    p("active-defrag-threshold-lower", int(0, 1000), "10", Advanced, NoEffect, "Fragmentation percentage that starts defragmenting."),
    p("active-defrag-threshold-upper", int(0, 1000), "100", Advanced, NoEffect, "Fragmentation percentage of the most effort."),
    p("lfu-log-factor", int(0, INT_MAX), "10", Memory, Live, "How slowly the LFU counter grows."),
    p("lfu-decay-time", int(0, INT_MAX), "1", Memory, Live, "Minutes after which an idle key's LFU counter halves."),
    p("replica-priority", int(0, INT_MAX), "100", Replication, NoEffect, "Sentinel's preference among replicas.").alias("slave-priority"),
    p("repl-diskless-sync-delay", int(0, INT_MAX), "5", Replication, NoEffect, "Seconds to wait for more replicas before a diskless sync."),
    p("maxmemory-samples", int(1, INT_MAX), "5", Memory, Live, "Keys sampled per eviction round (Vitrine samples at most 64)."),
    p("maxmemory-eviction-tenacity", int(0, 100), "10", Memory, NoEffect, "How long one eviction pass may run."),
    p("timeout", int(0, INT_MAX), "0", Clients, Live, "Close a client after this many idle seconds (0: never)."),
    p("replica-announce-port", int(0, 65535), "0", Replication, NoEffect, "Port this replica reports to its master.").alias("slave-announce-port"),
    p("tcp-backlog", int(0, INT_MAX), "511", Network, NoEffect, "Backlog of the listening socket.").flags(IMM),
    p("cluster-port", int(0, 65535), "0", Cluster, NoEffect, "Port of the cluster bus.").flags(IMM),
    p("cluster-announce-bus-port", int(0, 65535), "0", Cluster, NoEffect, "Cluster bus port this node announces."),
    p("cluster-announce-port", int(0, 65535), "0", Cluster, NoEffect, "Client port this node announces."),
    p("cluster-announce-tls-port", int(0, 65535), "0", Cluster, NoEffect, "TLS port this node announces."),
    p("repl-timeout", int(1, INT_MAX), "60", Replication, NoEffect, "Seconds before a replication link is considered down."),
    p("repl-ping-replica-period", int(1, INT_MAX), "10", Replication, NoEffect, "Seconds between the master's pings to replicas.").alias("repl-ping-slave-period"),
    p("list-compress-depth", int(0, INT_MAX), "0", Encoding, NoEffect, "Quicklist nodes left uncompressed at each end of a list."),
    p("rdb-key-save-delay", int(INT_MIN, INT_MAX), "0", Persistence, NoEffect, "Delay per key while saving (tests).").flags(HIDDEN),
    p("key-load-delay", int(INT_MIN, INT_MAX), "0", Persistence, NoEffect, "Delay per key while loading (tests).").flags(HIDDEN),
    p("active-expire-effort", int(1, 10), "1", Advanced, Live, "Effort of active expiry: each cycle may run longer (25 ms, plus 8% a step)."),
    p("hz", int(0, INT_MAX), "10", Advanced, Live, "Background task frequency: expiry rounds per second (1-500)."),
    p("min-replicas-to-write", int(0, INT_MAX), "0", Replication, NoEffect, "Refuse writes with fewer good replicas than this.").alias("min-slaves-to-write"),
    p("min-replicas-max-lag", int(0, INT_MAX), "10", Replication, NoEffect, "Seconds of lag a good replica may have.").alias("min-slaves-max-lag"),
    p("watchdog-period", int(0, INT_MAX), "0", General, NoEffect, "Software watchdog period in milliseconds (debugging).").flags(HIDDEN),
    p("shutdown-timeout", int(0, INT_MAX), "10", General, NoEffect, "Seconds to wait for replicas at shutdown."),
    p("repl-diskless-sync-max-replicas", int(0, INT_MAX), "0", Replication, NoEffect, "Start a diskless sync once this many replicas wait."),
    // Unsigned int configs
    p("maxclients", uint(1, UINT_MAX), "10000", Clients, Live, "Most clients connected at once."),
    p("unixsocketperm", Kind::Octal { max: 0o777 }, "0", Network, NoEffect, "Permissions of the Unix socket.").flags(IMM),
    p("socket-mark-id", uint(0, UINT_MAX), "0", Network, NoEffect, "Mark of the listening sockets.").flags(IMM),
    // Unsigned long configs
    p("active-defrag-max-scan-fields", uint(1, LONG_MAX), "1000", Advanced, NoEffect, "Fields defragmented per step of a big value."),
    p("slowlog-max-len", uint(0, LONG_MAX), "128", Monitoring, Live, "Entries the slow log keeps."),
    p("acllog-max-len", uint(0, LONG_MAX), "128", Security, Live, "Entries ACL LOG keeps."),
    // Long long configs
    p("busy-reply-threshold", int(0, LONG_MAX), "5000", Advanced, Live, "Milliseconds a script may run before other clients get BUSY and it can be killed.").alias("lua-time-limit"),
    p("cluster-node-timeout", int(0, LONG_MAX), "15000", Cluster, NoEffect, "Milliseconds before a node is considered failing."),
    p("cluster-ping-interval", int(0, LONG_MAX), "0", Cluster, NoEffect, "Cluster ping interval (tests).").flags(HIDDEN),
    p("slowlog-log-slower-than", int(-1, LONG_MAX), "10000", Monitoring, Live, "Microseconds after which a command is logged as slow (-1: off, 0: every command)."),
    p("latency-monitor-threshold", int(0, LONG_MAX), "0", Monitoring, Live, "Milliseconds after which an event is a latency spike (0: off)."),
    p("proto-max-bulk-len", mem(1024 * 1024, LONG_MAX), "536870912", Clients, Live, "Longest single argument a client may send."),
    p("stream-node-max-entries", int(0, LONG_MAX), "100", Encoding, Live, "Entries (deleted ones too) per stream block; 0 for no limit."),
    p("repl-backlog-size", mem(1, LONG_MAX), "1048576", Replication, NoEffect, "Size of the replication backlog."),
    // Unsigned long long configs
    p("maxmemory", umem(0, ULLONG_MAX), "0", Memory, Live, "Memory limit for data (0: none)."),
    p("cluster-link-sendbuf-limit", umem(0, ULLONG_MAX), "0", Cluster, NoEffect, "Output limit of a cluster bus link."),
    // Size_t configs
    p("hash-max-listpack-entries", uint(0, LONG_MAX), "128", Encoding, Live, "Most fields of a hash kept as a listpack.").alias("hash-max-ziplist-entries"),
    p("set-max-intset-entries", uint(0, LONG_MAX), "512", Encoding, Live, "Most members of a set of integers kept as an intset."),
    p("set-max-listpack-entries", uint(0, LONG_MAX), "128", Encoding, Live, "Most members of a set kept as a listpack."),
    p("set-max-listpack-value", uint(0, LONG_MAX), "64", Encoding, Live, "Longest member of a set kept as a listpack."),
    p("zset-max-listpack-entries", uint(0, LONG_MAX), "128", Encoding, Live, "Most members of a sorted set kept as a listpack.").alias("zset-max-ziplist-entries"),
    p("active-defrag-ignore-bytes", umem(1, LONG_MAX), "104857600", Advanced, NoEffect, "Fragmentation below this many bytes is ignored."),
    p("hash-max-listpack-value", umem(0, LONG_MAX), "64", Encoding, Live, "Longest field or value of a hash kept as a listpack.").alias("hash-max-ziplist-value"),
    p("stream-node-max-bytes", umem(0, LONG_MAX), "4096", Encoding, Live, "Bytes a stream block grows to before a new one starts."),
    p("zset-max-listpack-value", umem(0, LONG_MAX), "64", Encoding, Live, "Longest member of a sorted set kept as a listpack.").alias("zset-max-ziplist-value"),
    p("hll-sparse-max-bytes", umem(0, LONG_MAX), "3000", Encoding, Live, "Bytes a sparse HyperLogLog grows to before it turns dense."),
    p("tracking-table-max-keys", uint(0, LONG_MAX), "1000000", Clients, Live, "Keys the client-tracking table remembers."),
    p("client-query-buffer-limit", umem(1024 * 1024, LONG_MAX), "1073741824", Clients, Live, "Most bytes of one client's unprocessed input."),
    p("maxmemory-clients", Kind::MemoryPercent { min: -100, max: LONG_MAX }, "0", Memory, NoEffect, "Memory all clients' buffers may use together."),
    // Other configs
    p("repl-backlog-ttl", int(0, LONG_MAX), "3600", Replication, NoEffect, "Seconds before a master without replicas frees its backlog."),
    p("auto-aof-rewrite-min-size", mem(0, LONG_MAX), "67108864", Persistence, NoEffect, "Smallest AOF that is rewritten automatically."),
    p("loading-process-events-interval-bytes", int(1024, INT_MAX), "2097152", Persistence, NoEffect, "Bytes loaded between event-loop turns.").flags(HIDDEN),
    p("tls-port", int(0, 65535), "0", Tls, NoEffect, "TLS port (no TLS yet)."),
    p("tls-session-cache-size", int(0, INT_MAX), "20480", Tls, NoEffect, "TLS sessions cached."),
    p("tls-session-cache-timeout", int(0, INT_MAX), "300", Tls, NoEffect, "Seconds a cached TLS session lives."),
    p("tls-cluster", Kind::Bool, "no", Tls, NoEffect, "Use TLS on the cluster bus."),
    p("tls-replication", Kind::Bool, "no", Tls, NoEffect, "Use TLS for replication."),
    p("tls-auth-clients", Kind::Enum(TLS_AUTH), "yes", Tls, NoEffect, "Require client certificates."),
    p("tls-prefer-server-ciphers", Kind::Bool, "no", Tls, NoEffect, "Prefer the server's cipher order."),
    p("tls-session-caching", Kind::Bool, "yes", Tls, NoEffect, "Cache TLS sessions."),
    p("tls-cert-file", Kind::Str, "", Tls, NoEffect, "Server certificate."),
    p("tls-key-file", Kind::Str, "", Tls, NoEffect, "Server private key."),
    p("tls-key-file-pass", Kind::Str, "", Tls, NoEffect, "Passphrase of the server private key.").flags(SENSITIVE),
    p("tls-client-cert-file", Kind::Str, "", Tls, NoEffect, "Client certificate for outgoing links."),
    p("tls-client-key-file", Kind::Str, "", Tls, NoEffect, "Client private key for outgoing links."),
    p("tls-client-key-file-pass", Kind::Str, "", Tls, NoEffect, "Passphrase of the client private key.").flags(SENSITIVE),
    p("tls-dh-params-file", Kind::Str, "", Tls, NoEffect, "Diffie-Hellman parameters."),
    p("tls-ca-cert-file", Kind::Str, "", Tls, NoEffect, "CA certificate bundle."),
    p("tls-ca-cert-dir", Kind::Str, "", Tls, NoEffect, "Directory of CA certificates."),
    p("tls-protocols", Kind::Str, "", Tls, NoEffect, "TLS protocol versions allowed."),
    p("tls-ciphers", Kind::Str, "", Tls, NoEffect, "Ciphers allowed (TLS 1.2)."),
    p("tls-ciphersuites", Kind::Str, "", Tls, NoEffect, "Cipher suites allowed (TLS 1.3)."),
    // Special configs
    p("dir", Kind::Special(Special::Dir), ".", Persistence, Startup, "Working directory of the files the server keeps.").flags(PROTECTED),
    p("save", Kind::Special(Special::Save), "", Persistence, NoEffect, "RDB save points: seconds and changes (no RDB snapshots yet)."),
    p("client-output-buffer-limit", Kind::Special(Special::OutputLimits), "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60", Clients, Live, "Output limits per class of client: hard, soft bytes and soft seconds."),
    p("oom-score-adj-values", Kind::Special(Special::OomValues), "0 200 800", Advanced, NoEffect, "OOM score adjustments of master, replica and child."),
    p("notify-keyspace-events", Kind::Special(Special::Notify), "", Monitoring, NoEffect, "Keyspace notification classes (stored; notifications come later)."),
    p("bind", Kind::Special(Special::Bind), "127.0.0.1", Network, Startup, "Addresses the RESP server listens on (start-up only in Vitrine).").flags(IMM),
    p("replicaof", Kind::Special(Special::ReplicaOf), "", Replication, NoEffect, "Master to replicate from.").alias("slaveof").flags(IMM),
    p("latency-tracking-info-percentiles", Kind::Special(Special::Percentiles), "50 99 99.9", Monitoring, Live, "Percentiles INFO latencystats reports."),
    // Vitrine's own
    p("default-ttl", int(0, LONG_MAX), "0", Memory, Live, "Vitrine: TTL in seconds given to keys written without one (0: none)."),
    p("http-port", int(0, 65535), "8080", Network, Startup, "Vitrine: port of the admin HTTP API and dashboard.").flags(IMM),
    p("vitrine-ledger-delimiter", Kind::Str, ":", Memory, Live, "Vitrine: the one character the memory ledger splits key prefixes on (the Memory page)."),
    p("http-bind", Kind::Str, "127.0.0.1", Network, Startup, "Vitrine: address of the admin HTTP API and dashboard.").flags(IMM),
    p("lua-maxmemory", umem(0, LONG_MAX), "268435456", Memory, Live, "Vitrine: most memory the scripts' Lua VM may hold; a script that needs more stops with an error (0: no cap)."),
];

/// The parameter named `name` (lower case), or aliased so.
pub fn find(name: &str) -> Option<(usize, &'static Param)> {
    PARAMS.iter().enumerate().find(|(_, p)| p.named(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases_are_unique_and_lower_case() {
        let mut seen = std::collections::HashSet::new();
        for p in PARAMS {
            for n in std::iter::once(p.name).chain(p.alias) {
                assert!(seen.insert(n), "{n} twice");
                assert_eq!(n, n.to_ascii_lowercase());
            }
            assert!(!p.doc.is_empty());
        }
    }
}
