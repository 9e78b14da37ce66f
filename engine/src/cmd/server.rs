//! Server and connection commands: PING, ECHO, QUIT, SELECT, HELLO, AUTH, INFO, TIME,
//! LASTSAVE, BGREWRITEAOF. CLIENT, COMMAND and CONFIG have their own modules.

use std::fmt::Write as _;
use std::sync::atomic::Ordering::Relaxed;

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::reply::Reply;

/// The Redis version Vitrine answers as, so tools that gate features on it work.
pub const REDIS_COMPAT_VERSION: &str = "7.2.0";

/// Liveness check: `+PONG`, or the message back as a bulk string.
///
/// ```text
/// PING [message]
/// ```
pub fn ping(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    // A subscribed RESP2 connection reads every reply as a message: Redis answers there with
    // an array, `pong` and the message (empty without one).
    if !ctx.session.resp3 && ctx.session.subs.any() && args.len() <= 1 {
        let msg = args.rest().first().copied().unwrap_or_default();
        return Ok(Reply::Array(vec![Reply::bulk("pong"), Reply::bulk(msg)]));
    }
    match args.len() {
        0 => Ok(Reply::status("PONG")),
        1 => Ok(Reply::bulk(args.bytes()?)),
        _ => Err(CmdError::WrongArity(ctx.cmd.full_name())),
    }
}

/// Returns the message.
///
/// ```text
/// ECHO message
/// ```
pub fn echo(_ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(Reply::bulk(args.bytes()?))
}

/// Answers OK; the host closes the connection after writing it.
///
/// ```text
/// QUIT
/// ```
pub fn quit(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    ctx.session.closing = true;
    Ok(Reply::Ok)
}

/// Resets the connection as if it were new: leaves any transaction, watched keys and
/// subscriptions, returns to RESP2, database 0, no name, and (with a password set) to not
/// authenticated.
///
/// ```text
/// RESET
/// ```
pub fn reset(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    super::tx::discard(ctx.engine, ctx.session);
    super::pubsub::unsubscribe_all(ctx);
    ctx.session.resp3 = false;
    ctx.session.client.resp.store(2, Relaxed);
    ctx.session.db = 0;
    *ctx.session.client.name.lock() = None;
    // Back to `default`, authenticated only if that user needs no password.
    let default = ctx.engine.acl().default_user();
    ctx.session.authenticated = default.on && default.nopass;
    ctx.engine.set_session_user(ctx.session, default);
    // And out of monitor mode, with every reply and the default client flags.
    if ctx.session.client.monitor.load(Relaxed) {
        ctx.engine.monitors.remove(ctx.session.id(), ctx.now);
    }
    ctx.session.reply_mode = crate::session::ReplyMode::On;
    ctx.session.client.no_touch.store(false, Relaxed);
    ctx.session.client.no_evict.store(false, Relaxed);
    if ctx.session.tracking.mode.take().is_some() {
        ctx.engine.tracking.disable(ctx.session.id());
    }
    ctx.session.tracking.caching = false;
    Ok(Reply::status("RESET"))
}

/// Switches the connection to `user` when `pass` is one of its passwords (any, for a
/// `nopass` user) and it is `on`. A failure leaves the session as it was and is logged in ACL
/// LOG (reason `auth`, object the command as typed, the name tried); dispatch counts it.
fn authenticate(ctx: &mut Ctx<'_>, user: &[u8], pass: &[u8]) -> Result<(), CmdError> {
    let engine = ctx.engine;
    match engine.acl().authenticate(user, pass) {
        Some(u) => {
            engine.acl().note_auth(user, ctx.now);
            engine.set_session_user(ctx.session, u);
            ctx.session.authenticated = true;
            Ok(())
        }
        None => {
            let argv_mem = ctx.argv.iter().map(|a| a.len()).sum();
            let info = ctx.session.client.describe(ctx.now, crate::table::name_of, argv_mem);
            engine.log_auth_failure(ctx.argv[0], user, info, ctx.now, false);
            Err(CmdError::WrongPass)
        }
    }
}

/// Authenticates the connection as an ACL user (`default` when no name is given).
///
/// ```text
/// AUTH [username] password
/// ```
pub fn auth(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let (user, pass) = match args.len() {
        1 => {
            // Redis keeps the old error of the password-only form while `default` is nopass.
            if ctx.engine.acl().default_user().nopass {
                return Err(CmdError::err(
                    "AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?",
                ));
            }
            (&b"default"[..], args.bytes()?)
        }
        2 => (args.bytes()?, args.bytes()?),
        _ => return Err(CmdError::Syntax),
    };
    authenticate(ctx, user, pass)?;
    Ok(Reply::Ok)
}

/// Handshake: switches protocol (2 or 3), optionally authenticates and names the client,
/// and describes the server.
///
/// ```text
/// HELLO [protover [AUTH username password] [SETNAME clientname]]
/// ```
pub fn hello(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let mut proto = None;
    if !args.is_empty() {
        let v = args.int().map_err(|_| CmdError::err("Protocol version is not an integer or out of range"))?;
        if v != 2 && v != 3 {
            return Err(CmdError::Other("NOPROTO unsupported protocol version".into()));
        }
        proto = Some(v);
    }
    let mut name = None;
    while !args.is_empty() {
        if args.flag("AUTH") && args.len() >= 2 {
            let (user, pass) = (args.bytes()?, args.bytes()?);
            authenticate(ctx, user, pass)?;
        } else if args.flag("SETNAME") && !args.is_empty() {
            name = Some(super::client::valid_client_name(args.bytes()?)?);
        } else {
            let opt = String::from_utf8_lossy(args.bytes()?).into_owned();
            return Err(CmdError::err(format!("Syntax error in HELLO option '{opt}'")));
        }
    }
    if !ctx.session.authenticated {
        return Err(CmdError::Other("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time".into()));
    }
    if let Some(name) = name {
        *ctx.session.client.name.lock() = name;
    }
    if let Some(v) = proto {
        ctx.session.resp3 = v == 3;
        ctx.session.client.resp.store(v as u8, Relaxed);
    }
    let s = |t: &str| Reply::bulk(t);
    Ok(Reply::Map(vec![
        // `redis`, as clients that look at it expect; Vitrine's own version is the last pair.
        (s("server"), s("redis")),
        (s("version"), s(REDIS_COMPAT_VERSION)),
        (s("proto"), Reply::Int(if ctx.session.resp3 { 3 } else { 2 })),
        (s("id"), Reply::Int(ctx.session.id() as i64)),
        (s("mode"), s("standalone")),
        (s("role"), s("master")),
        (s("modules"), Reply::Array(vec![])),
        (s("vitrine"), s(env!("CARGO_PKG_VERSION"))),
    ]))
}

fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "K", "M", "G", "T"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes}B")
    } else {
        format!("{v:.2}{}", UNITS[u])
    }
}

/// Sections INFO gives only when named or asked for `all`/`everything`.
const NOT_DEFAULT_SECTIONS: &[&str] = &["commandstats", "latencystats"];

/// INFO memory, with Redis 7's fields in its order (`used_memory` the data and overhead, see
/// `MemoryFigures`; the fields of features Vitrine lacks, Lua, replication, AOF buffers, as
/// Redis reports them without those features).
fn memory_info(snap: &crate::stats::StatsSnapshot, maxmemory: u64, functions: [u64; 3]) -> String {
    let m = &snap.memory;
    let h = &snap.host;
    let pct = |part: u64, whole: u64| if whole == 0 { 0.0 } else { part as f64 * 100.0 / whole as f64 };
    let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    // Redis's dataset percentage is of what the server took beyond its start-up.
    let dataset_perc = pct(m.dataset, m.used_memory.saturating_sub(m.startup));
    let allocator = if h.allocator_name.is_empty() { "libc" } else { h.allocator_name.as_str() };
    let mut out = String::new();
    let _ = write!(
        out,
        "used_memory:{used}\r\nused_memory_human:{}\r\nused_memory_rss:{rss}\r\nused_memory_rss_human:{}\r\nused_memory_peak:{peak}\r\nused_memory_peak_human:{}\r\nused_memory_peak_perc:{:.2}%\r\nused_memory_overhead:{}\r\nused_memory_startup:{}\r\nused_memory_dataset:{}\r\nused_memory_dataset_perc:{dataset_perc:.2}%\r\nallocator_allocated:{}\r\nallocator_active:{}\r\nallocator_resident:{}\r\ntotal_system_memory:{}\r\ntotal_system_memory_human:{}\r\n",
        human(m.used_memory),
        human(m.rss),
        human(m.peak),
        pct(m.used_memory, m.peak),
        m.overhead,
        m.startup,
        m.dataset,
        h.allocator_bytes,
        h.allocator_active,
        h.allocator_resident,
        h.total_system_memory,
        human(h.total_system_memory),
        used = m.used_memory,
        rss = m.rss,
        peak = m.peak,
    );
    // Scripting, in Redis 7.0's order: the EVAL VM and cache, then the function libraries
    // (`cmd::functions`), then the totals of both.
    let sc = &snap.scripting;
    let (vm_eval, scripts_eval) = (sc.used_memory_vm_eval, sc.used_memory_scripts_eval);
    let [functions, libraries, vm_functions] = functions;
    // The libraries' own bookkeeping is not counted (Redis's `used_memory_functions`).
    let functions_caches = 0;
    let _ = write!(
        out,
        "used_memory_lua:{vm_eval}\r\nused_memory_vm_eval:{vm_eval}\r\nused_memory_lua_human:{}\r\nused_memory_scripts_eval:{scripts_eval}\r\nnumber_of_cached_scripts:{}\r\n",
        human(vm_eval),
        sc.number_of_cached_scripts,
    );
    let _ = write!(
        out,
        "number_of_functions:{functions}\r\nnumber_of_libraries:{libraries}\r\nused_memory_vm_functions:{vm_functions}\r\n",
    );
    let _ = write!(
        out,
        "used_memory_vm_total:{}\r\nused_memory_vm_total_human:{}\r\nused_memory_functions:{functions_caches}\r\nused_memory_scripts:{}\r\nused_memory_scripts_human:{}\r\n",
        vm_eval + vm_functions,
        human(vm_eval + vm_functions),
        scripts_eval + functions_caches,
        human(scripts_eval + functions_caches),
    );
    let _ = write!(
        out,
        "maxmemory:{maxmemory}\r\nmaxmemory_human:{}\r\nmaxmemory_policy:{}\r\nmaxmemory_samples:{}\r\n",
        human(maxmemory),
        snap.maxmemory_policy,
        snap.maxmemory_samples,
    );
    let (active, resident) = (h.allocator_active, h.allocator_resident);
    let _ = write!(
        out,
        "allocator_frag_ratio:{:.2}\r\nallocator_frag_bytes:{}\r\nallocator_rss_ratio:{:.2}\r\nallocator_rss_bytes:{}\r\nrss_overhead_ratio:{:.2}\r\nrss_overhead_bytes:{}\r\nmem_fragmentation_ratio:{:.2}\r\nmem_fragmentation_bytes:{}\r\nmem_not_counted_for_evict:0\r\nmem_replication_backlog:0\r\nmem_total_replication_buffers:0\r\nmem_clients_slaves:0\r\nmem_clients_normal:0\r\nmem_cluster_links:0\r\nmem_aof_buffer:0\r\nmem_allocator:{allocator}\r\nactive_defrag_running:0\r\nlazyfree_pending_objects:0\r\nlazyfreed_objects:0\r\n",
        ratio(active, h.allocator_bytes),
        active as i64 - h.allocator_bytes as i64,
        ratio(resident, active),
        resident as i64 - active as i64,
        ratio(m.rss, resident),
        m.rss as i64 - resident as i64,
        m.fragmentation_ratio,
        m.fragmentation_bytes,
    );
    out
}

/// INFO persistence: no RDB (Redis's figures before any save, the last save time being the
/// start, as LASTSAVE answers), and the host's AOF fields when it keeps one.
fn persistence_info(ctx: &Ctx<'_>) -> String {
    let host = ctx.engine.propagation().host_info();
    let aof = if host.is_empty() {
        "aof_enabled:0\r\naof_rewrite_in_progress:0\r\naof_rewrite_scheduled:0\r\naof_last_rewrite_time_sec:-1\r\naof_current_rewrite_time_sec:-1\r\naof_last_bgrewrite_status:ok\r\naof_rewrites:0\r\naof_rewrites_consecutive_failures:0\r\naof_last_write_status:ok\r\naof_last_cow_size:0\r\n".to_string()
    } else {
        host
    };
    format!(
        "loading:0\r\nasync_loading:0\r\ncurrent_cow_peak:0\r\ncurrent_cow_size:0\r\ncurrent_cow_size_age:0\r\ncurrent_fork_perc:0.00\r\ncurrent_save_keys_processed:0\r\ncurrent_save_keys_total:0\r\nrdb_changes_since_last_save:0\r\nrdb_bgsave_in_progress:0\r\nrdb_last_save_time:{}\r\nrdb_last_bgsave_status:ok\r\nrdb_last_bgsave_time_sec:-1\r\nrdb_current_bgsave_time_sec:-1\r\nrdb_saves:0\r\nrdb_last_cow_size:0\r\nrdb_last_load_keys_expired:0\r\nrdb_last_load_keys_loaded:0\r\n{aof}module_fork_in_progress:0\r\nmodule_fork_last_cow_size:0\r\n",
        ctx.engine.start_ms() / 1000
    )
}

/// INFO server, with Redis 7's fields in its order. The build fields are what Redis prints
/// when built outside git (no commit, not dirty); `gcc_version` what it prints when no GCC
/// built it (rustc does); `atomicvar_api` names Rust's atomics, LLVM's builtins under the C11
/// memory model as Redis's `c11-builtin`; `lru_clock` is Redis's LRU clock, unix seconds
/// modulo 2^24. The host gives the process's own facts (empty in the playground).
fn server_info(ctx: &Ctx<'_>, snap: &crate::stats::StatsSnapshot) -> String {
    let h = &snap.host;
    let cfg = ctx.engine.config();
    let or = |v: &str, absent: &'static str| if v.is_empty() { absent.to_string() } else { v.to_string() };
    format!(
        "redis_version:{REDIS_COMPAT_VERSION}\r\nvitrine_version:{}\r\nredis_git_sha1:00000000\r\nredis_git_dirty:0\r\nredis_build_id:{}\r\nredis_mode:standalone\r\nos:{}\r\narch_bits:{}\r\nmonotonic_clock:{}\r\nmultiplexing_api:{}\r\natomicvar_api:c11-builtin\r\ngcc_version:0.0.0\r\nprocess_id:{}\r\nprocess_supervised:no\r\nrun_id:{}\r\ntcp_port:{}\r\nserver_time_usec:{}\r\nuptime_in_seconds:{}\r\nuptime_in_days:{}\r\nhz:{}\r\nconfigured_hz:{}\r\nlru_clock:{}\r\nexecutable:{}\r\nconfig_file:{}\r\nio_threads_active:{}\r\n",
        snap.version,
        or(&h.build_id, "0"),
        or(&h.os, std::env::consts::OS),
        usize::BITS,
        or(&h.monotonic_clock, "POSIX clock_gettime"),
        or(&h.multiplexing_api, "none"),
        h.process_id,
        or(&h.run_id, "0000000000000000000000000000000000000000"),
        h.tcp_port,
        ctx.now * 1000,
        snap.uptime_s,
        snap.uptime_s / 86400,
        cfg.hz(),
        cfg.hz(),
        (ctx.now / 1000) & ((1 << 24) - 1),
        h.executable,
        h.config_file,
        h.threads,
    )
}

/// The INFO text for the requested sections, with Redis's section and field names.
pub fn info_text(ctx: &mut Ctx<'_>, sections: &[String]) -> String {
    let snap = ctx.engine.snapshot_in(&mut ctx.db, ctx.now);
    let cfg = ctx.engine.config();
    // As Redis: no section or `default` gives the default sections, `all` and `everything`
    // every section (Vitrine has no modules, so the two are the same), a name its section.
    let every = sections.iter().any(|s| s == "all" || s == "everything");
    let default = sections.is_empty() || sections.iter().any(|s| s == "default");
    let want =
        |name: &str| every || sections.iter().any(|s| s == name) || (default && !NOT_DEFAULT_SECTIONS.contains(&name));
    let mut out = String::new();
    let mut section = |title: &str, body: String| {
        if !out.is_empty() {
            out.push_str("\r\n");
        }
        let _ = write!(out, "# {title}\r\n{body}");
    };
    if want("server") {
        section("Server", server_info(ctx, &snap));
    }
    if want("clients") {
        let (max_input, max_output) = ctx.engine.clients.recent_max_buffers();
        section(
            "Clients",
            format!(
                "connected_clients:{}\r\ncluster_connections:0\r\nmaxclients:{}\r\nclient_recent_max_input_buffer:{max_input}\r\nclient_recent_max_output_buffer:{max_output}\r\nblocked_clients:{}\r\ntracking_clients:{}\r\nclients_in_timeout_table:{}\r\n",
                snap.connected_clients,
                cfg.maxclients(),
                ctx.engine.blocked_clients(),
                snap.tracking.clients,
                ctx.engine.blocked_clients_with_timeout(),
            ),
        );
    }
    if want("memory") {
        section(
            "Memory",
            memory_info(&snap, ctx.engine.config().maxmemory(), super::functions::info_figures(ctx.engine)),
        );
    }
    if want("persistence") {
        section("Persistence", persistence_info(ctx));
    }
    if want("stats") {
        let pubsub = &ctx.engine.pubsub;
        section(
            "Stats",
            format!(
                "total_connections_received:{}\r\ntotal_commands_processed:{}\r\ninstantaneous_ops_per_sec:{}\r\ntotal_net_input_bytes:{}\r\ntotal_net_output_bytes:{}\r\ntotal_net_repl_input_bytes:0\r\ntotal_net_repl_output_bytes:0\r\ninstantaneous_input_kbps:{:.2}\r\ninstantaneous_output_kbps:{:.2}\r\ninstantaneous_input_repl_kbps:0.00\r\ninstantaneous_output_repl_kbps:0.00\r\nrejected_connections:{}\r\nsync_full:0\r\nsync_partial_ok:0\r\nsync_partial_err:0\r\nexpired_keys:{}\r\nexpired_stale_perc:0.00\r\nexpired_time_cap_reached_count:0\r\nexpire_cycle_cpu_milliseconds:0\r\nevicted_keys:{}\r\nevicted_clients:0\r\nevicted_scripts:{}\r\ntotal_eviction_exceeded_time:0\r\ncurrent_eviction_exceeded_time:0\r\nkeyspace_hits:{}\r\nkeyspace_misses:{}\r\npubsub_channels:{}\r\npubsub_patterns:{}\r\npubsubshard_channels:{}\r\nlatest_fork_usec:0\r\ntotal_forks:0\r\nmigrate_cached_sockets:0\r\nslave_expires_tracked_keys:0\r\nactive_defrag_hits:0\r\nactive_defrag_misses:0\r\nactive_defrag_key_hits:0\r\nactive_defrag_key_misses:0\r\ntotal_active_defrag_time:0\r\ncurrent_active_defrag_time:0\r\ntracking_total_keys:{}\r\ntracking_total_items:{}\r\ntracking_total_prefixes:{}\r\nunexpected_error_replies:0\r\ntotal_error_replies:{}\r\ndump_payload_sanitizations:0\r\ntotal_reads_processed:{}\r\ntotal_writes_processed:{}\r\nio_threaded_reads_processed:0\r\nio_threaded_writes_processed:0\r\nreply_buffer_shrinks:0\r\nreply_buffer_expands:0\r\nrejected_oom_commands:{}\r\nprotocol_errors:{}\r\nclient_output_buffer_limit_disconnections:{}\r\nacl_access_denied_auth:{}\r\nacl_access_denied_cmd:{}\r\nacl_access_denied_key:{}\r\nacl_access_denied_channel:{}\r\n",
                snap.connections_received,
                snap.commands_processed,
                snap.ops_per_sec as u64,
                snap.net_input_bytes,
                snap.net_output_bytes,
                snap.net_input_per_sec / 1024.0,
                snap.net_output_per_sec / 1024.0,
                snap.rejected_connections,
                snap.expired_keys,
                snap.evicted_keys,
                snap.scripting.evicted_scripts,
                snap.hits,
                snap.misses,
                pubsub.channels(false, None).len(),
                pubsub.numpat(),
                pubsub.channels(true, None).len(),
                snap.tracking.keys,
                snap.tracking.items,
                snap.tracking.prefixes,
                snap.error_replies,
                ctx.engine.stats().reads_processed.load(Relaxed),
                ctx.engine.stats().writes_processed.load(Relaxed),
                snap.rejected_oom,
                snap.protocol_errors,
                snap.client_output_buffer_limit_disconnections,
                snap.acl_access_denied_auth,
                snap.acl_access_denied_cmd,
                snap.acl_access_denied_key,
                snap.acl_access_denied_channel,
            ),
        );
    }
    if want("replication") {
        // A lone master, as Redis with no replicas reports itself.
        section(
            "Replication",
            "role:master\r\nconnected_slaves:0\r\nmaster_failover_state:no-failover\r\nmaster_replid:0000000000000000000000000000000000000000\r\nmaster_replid2:0000000000000000000000000000000000000000\r\nmaster_repl_offset:0\r\nsecond_repl_offset:-1\r\nrepl_backlog_active:0\r\nrepl_backlog_size:1048576\r\nrepl_backlog_first_byte_offset:0\r\nrepl_backlog_histlen:0\r\n".into(),
        );
    }
    if want("cpu") {
        let c = snap.host.cpu;
        section(
            "CPU",
            format!(
                "used_cpu_sys:{:.6}\r\nused_cpu_user:{:.6}\r\nused_cpu_sys_children:{:.6}\r\nused_cpu_user_children:{:.6}\r\nused_cpu_sys_main_thread:{:.6}\r\nused_cpu_user_main_thread:{:.6}\r\n",
                c.sys, c.user, c.sys_children, c.user_children, c.sys_main_thread, c.user_main_thread
            ),
        );
    }
    if want("modules") {
        section("Modules", String::new());
    }
    if want("commandstats") {
        let mut body = String::new();
        for c in &snap.commands {
            let per_call = if c.calls == 0 { 0.0 } else { c.usec as f64 / c.calls as f64 };
            let _ = write!(
                body,
                "cmdstat_{}:calls={},usec={},usec_per_call={per_call:.2},rejected_calls={},failed_calls={}\r\n",
                c.name.to_ascii_lowercase(),
                c.calls,
                c.usec,
                c.rejected,
                c.failed
            );
        }
        section("Commandstats", body);
    }
    if want("errorstats") {
        let body: String =
            ctx.engine.timing().errors().iter().map(|(code, n)| format!("errorstat_{code}:count={n}\r\n")).collect();
        section("Errorstats", body);
    }
    if want("latencystats") {
        let mut body = String::new();
        if cfg.latency_tracking() {
            let percentiles = cfg.latency_percentiles();
            for (i, row) in crate::table::rows().iter().enumerate() {
                let Some(values) = ctx.engine.timing().percentiles(i, &percentiles) else { continue };
                let values: Vec<String> = values
                    .iter()
                    .map(|(p, us)| format!("p{}={us}.000", crate::cmd::timing::percentile_name(*p)))
                    .collect();
                let _ =
                    write!(body, "latency_percentiles_usec_{}:{}\r\n", row.name.to_ascii_lowercase(), values.join(","));
            }
        }
        section("Latencystats", body);
    }
    if want("cluster") {
        section("Cluster", "cluster_enabled:0\r\n".into());
    }
    // Vitrine's own section, only when named (Redis 8.6's HOTKEYS command does not fit: see
    // `store::hotkeys`).
    if sections.iter().any(|s| s == "hotkeys") {
        let stripes = ctx.engine.store().stripe_count();
        section("Hotkeys", crate::store::hotkeys::info(&ctx.db.hot_keys(stripes, ctx.now), ctx.now));
    }
    if want("keyspace") {
        // One line per non-empty database; avg_ttl is in ms, as Redis prints it.
        let body: String = snap
            .keyspace
            .iter()
            .map(|d| format!("db{}:keys={},expires={},avg_ttl={}\r\n", d.db, d.keys, d.expires, d.avg_ttl_ms))
            .collect();
        section("Keyspace", body);
    }
    out
}

/// Server information and statistics, in Redis's format.
///
/// ```text
/// INFO [section [section ...]]
/// ```
pub fn info(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let sections: Vec<String> = args.rest().iter().map(|s| String::from_utf8_lossy(s).to_ascii_lowercase()).collect();
    Ok(Reply::Verbatim(info_text(ctx, &sections)))
}

/// The server's clock: unix seconds and microseconds.
///
/// ```text
/// TIME
/// ```
pub fn time(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(Reply::Array(vec![
        Reply::bulk((ctx.now / 1000).to_string()),
        Reply::bulk(((ctx.now % 1000) * 1000).to_string()),
    ]))
}

/// When data was last saved. Vitrine has no snapshots; it answers its start time, as Redis
/// does before its first save.
///
/// ```text
/// LASTSAVE
/// ```
pub fn lastsave(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(Reply::Int((ctx.engine.start_ms() / 1000) as i64))
}

/// Asks the host to rewrite its append-only file in the background (see `crate::propagate`).
///
/// ```text
/// BGREWRITEAOF
/// ```
pub fn bgrewriteaof(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    if !ctx.engine.propagation().enabled() {
        return Err(CmdError::Other("ERR the append only file is off (start the server with --appendonly yes)".into()));
    }
    ctx.engine.propagation().request_rewrite();
    Ok(Reply::Status("Background append only file rewriting started".into()))
}

/// Asks the host to stop: it syncs the append-only file and ends, as on SIGTERM. The client
/// gets no reply; its connection closes with the server. While a script is busy only
/// `NOSAVE` is served, and it stops the script even after writes (whose effects the log then
/// never holds), as in Redis. `SAVE` is accepted (Vitrine's persistence is the append-only
/// file, synced either way); there is no delayed shutdown to `ABORT`.
///
/// ```text
/// SHUTDOWN [NOSAVE | SAVE] [NOW] [FORCE] [ABORT]
/// ```
pub fn shutdown(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let (mut nosave, mut save, mut abort, mut other) = (false, false, false, false);
    for word in args.rest() {
        match word.to_ascii_uppercase().as_slice() {
            b"NOSAVE" => nosave = true,
            b"SAVE" => save = true,
            b"NOW" | b"FORCE" => other = true,
            b"ABORT" => abort = true,
            _ => return Err(CmdError::Syntax),
        }
    }
    if (abort && (nosave || save || other)) || (nosave && save) {
        return Err(CmdError::Syntax);
    }
    if abort {
        return Err(CmdError::err("No shutdown in progress."));
    }
    let engine = ctx.engine;
    let busy = engine.script_run();
    if !nosave {
        if let Some(e) = busy.busy_error() {
            return Err(e);
        }
    }
    if !engine.request_shutdown() {
        return Err(CmdError::err("SHUTDOWN is not available here: this engine runs inside a host that cannot stop"));
    }
    if busy.is_busy() {
        busy.kill_for_shutdown();
    }
    ctx.session.closing = true;
    Ok(Reply::Many(Vec::new()))
}

#[cfg(test)]
mod tests {
    use crate::testing::*;
    use crate::Reply;

    #[test]
    fn ping_echo_select() {
        let mut t = TestEngine::default();
        assert_eq!(t.run(&["PING"]), Reply::status("PONG"));
        assert_eq!(t.run(&["ping", "hi"]), bulk("hi"));
        assert_eq!(t.run(&["PING", "a", "b"]), err("ERR wrong number of arguments for 'ping' command"));
        assert_eq!(t.run(&["ECHO", "x"]), bulk("x"));
        assert_eq!(t.run(&["SELECT", "0"]), ok());
        assert_eq!(t.run(&["SELECT", "15"]), ok());
        assert_eq!(t.run(&["SELECT", "16"]), err("ERR DB index is out of range"));
        assert_eq!(t.run(&["SELECT", "-1"]), err("ERR DB index is out of range"));
        assert_eq!(t.run(&["SELECT", "x"]), err("ERR value is not an integer or out of range"));
        let too_big = "ERR value is out of range, value must between -2147483648 and 2147483647";
        assert_eq!(t.run(&["SELECT", "99999999999"]), err(too_big));
        assert_eq!(t.session.db, 15, "a refused SELECT leaves the database as it was");
    }

    #[test]
    fn unknown_command_and_arity_texts() {
        let mut t = TestEngine::default();
        assert_eq!(t.run(&["FOO", "a", "b"]), err("ERR unknown command 'FOO', with args beginning with: 'a' 'b' "));
        assert_eq!(t.run(&["ECHO"]), err("ERR wrong number of arguments for 'echo' command"));
        assert_eq!(t.run(&["CONFIG", "NOPE"]), err("ERR unknown subcommand 'NOPE'. Try CONFIG HELP."));
        assert_eq!(t.run(&["CONFIG", "GET"]), err("ERR wrong number of arguments for 'config|get' command"));
        // CONFIG SET's arity is -4; an odd count of the rest is Redis's syntax error.
        assert_eq!(t.run(&["CONFIG", "SET", "hz"]), err("ERR wrong number of arguments for 'config|set' command"));
        assert_eq!(t.run(&["CONFIG", "SET", "hz", "10", "maxmemory"]), err("ERR syntax error"));
    }

    #[test]
    fn auth_and_hello() {
        let mut t = TestEngine::default();
        assert_eq!(
            t.run(&["AUTH", "x"]),
            err("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
        );
        t.run(&["CONFIG", "SET", "requirepass", "secret"]);
        let mut s = t.engine.new_session("127.0.0.1:2", "127.0.0.1:6379", t.now);
        assert_eq!(t.engine.call(&mut s, &["PING"], t.now), err("NOAUTH Authentication required."));
        assert_eq!(
            t.engine.call(&mut s, &["AUTH", "wrong"], t.now),
            err("WRONGPASS invalid username-password pair or user is disabled.")
        );
        assert!(!t.engine.call(&mut s, &["HELLO", "3", "AUTH", "default", "secret"], t.now).is_error());
        assert!(s.resp3);
        assert_eq!(t.engine.call(&mut s, &["PING"], t.now), Reply::status("PONG"));
        assert_eq!(t.engine.call(&mut s, &["HELLO", "4"], t.now), err("NOPROTO unsupported protocol version"));
        let hello = t.engine.call(&mut s, &["HELLO", "2"], t.now);
        assert!(!s.resp3);
        assert!(String::from_utf8_lossy(&hello.to_resp(false)).contains("proto\r\n:2"));
    }

    #[test]
    fn config_get_set_and_info() {
        let mut t = TestEngine::default();
        assert_eq!(t.run(&["CONFIG", "SET", "maxmemory", "2mb", "maxmemory-policy", "allkeys-lru"]), ok());
        let Reply::Map(mut pairs) = t.run(&["CONFIG", "GET", "maxmemory*"]) else { panic!("a map") };
        pairs.sort_by_key(|(k, _)| match k {
            Reply::Bulk(name) => name.clone(),
            _ => Vec::new(),
        });
        assert_eq!(
            pairs,
            vec![
                (bulk("maxmemory"), bulk("2097152")),
                (bulk("maxmemory-clients"), bulk("0")),
                (bulk("maxmemory-eviction-tenacity"), bulk("10")),
                (bulk("maxmemory-policy"), bulk("allkeys-lru")),
                (bulk("maxmemory-samples"), bulk("5")),
            ]
        );
        assert_eq!(
            t.run(&["CONFIG", "SET", "maxmemory-policy", "bogus"]),
            err("ERR CONFIG SET failed (possibly related to argument 'maxmemory-policy') - argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction")
        );
        assert_eq!(
            t.run(&["CONFIG", "SET", "nope", "1"]),
            err("ERR Unknown option or number of arguments for CONFIG SET - 'nope'")
        );
        // Redis 7.0's texts for a bool parameter, checked against redis-server 7.0.15.
        assert_eq!(t.run(&["CONFIG", "SET", "protected-mode", "no"]), ok());
        assert_eq!(t.run(&["CONFIG", "GET", "protected-mode"]), Reply::Map(vec![(bulk("protected-mode"), bulk("no"))]));
        assert_eq!(
            t.run(&["CONFIG", "SET", "protected-mode", "maybe"]),
            err("ERR CONFIG SET failed (possibly related to argument 'protected-mode') - argument must be 'yes' or 'no'")
        );
        // All or nothing.
        t.run(&["CONFIG", "SET", "hz", "20", "maxmemory", "junk"]);
        assert_eq!(t.run(&["CONFIG", "GET", "hz"]), Reply::Map(vec![(bulk("hz"), bulk("10"))]));
        let Reply::Verbatim(info) = t.run(&["INFO"]) else { panic!("not text") };
        for field in [
            "redis_version:",
            "used_memory:",
            "maxmemory:2097152",
            "maxmemory_policy:allkeys-lru",
            "keyspace_hits:",
            "connected_clients:1",
        ] {
            assert!(info.contains(field), "missing {field}");
        }
        let Reply::Verbatim(mem) = t.run(&["INFO", "memory"]) else { panic!("not text") };
        assert!(mem.starts_with("# Memory\r\n") && !mem.contains("# Server"));
    }

    /// The value of `field` in an INFO text.
    fn info_field(info: &str, field: &str) -> String {
        let prefix = format!("{field}:");
        info.lines().find_map(|l| l.strip_prefix(&prefix)).unwrap_or_else(|| panic!("no {field} in {info}")).into()
    }

    fn info(t: &mut TestEngine, args: &[&str]) -> String {
        let mut cmd = vec!["INFO"];
        cmd.extend_from_slice(args);
        let Reply::Verbatim(text) = t.run(&cmd) else { panic!("not text") };
        text
    }

    #[test]
    fn used_memory_counts_data_and_overhead_as_redis() {
        let mut t = TestEngine::default();
        t.run(&["SET", "k", &"v".repeat(1000)]);
        let data = t.used_memory() as u64;
        let fixed = crate::stats::FIXED_OVERHEAD_BYTES;
        // No allocator figures (the playground): the data plus the engine's fixed overhead.
        let mem = info(&mut t, &["memory"]);
        assert_eq!(info_field(&mem, "used_memory"), (data + fixed).to_string());
        assert_eq!(info_field(&mem, "used_memory_dataset"), data.to_string());
        assert_eq!(info_field(&mem, "used_memory_overhead"), fixed.to_string());
        assert_eq!(info_field(&mem, "used_memory_startup"), fixed.to_string());
        assert_eq!(info_field(&mem, "mem_allocator"), "libc");
        assert_eq!(info_field(&mem, "lazyfree_pending_objects"), "0");
        // With the host's figures: used_memory is the allocator's, and the fragmentation ratio
        // RSS over it (not over the data alone, which read ~50,000 on an empty server).
        t.engine.set_host_facts(crate::HostFacts {
            rss_bytes: 8_000_000,
            allocator_bytes: 2_000_000,
            allocator_active: 2_500_000,
            allocator_resident: 5_000_000,
            allocator_startup_bytes: 1_500_000,
            allocator_name: "jemalloc-5.3.0".into(),
            total_system_memory: 16 << 30,
            ..Default::default()
        });
        let mem = info(&mut t, &["memory"]);
        assert_eq!(info_field(&mem, "used_memory"), "2000000");
        assert_eq!(info_field(&mem, "used_memory_human"), "1.91M");
        assert_eq!(info_field(&mem, "used_memory_overhead"), (2_000_000 - data).to_string());
        assert_eq!(info_field(&mem, "used_memory_startup"), "1500000");
        assert_eq!(info_field(&mem, "mem_fragmentation_ratio"), "4.00");
        assert_eq!(info_field(&mem, "mem_fragmentation_bytes"), "6000000");
        assert_eq!(info_field(&mem, "allocator_frag_ratio"), "1.25");
        assert_eq!(info_field(&mem, "allocator_rss_bytes"), "2500000");
        assert_eq!(info_field(&mem, "rss_overhead_ratio"), "1.60");
        assert_eq!(info_field(&mem, "mem_allocator"), "jemalloc-5.3.0");
        assert_eq!(info_field(&mem, "total_system_memory_human"), "16.00G");
        // The peak stays when memory goes down.
        t.engine.set_host_facts(crate::HostFacts { allocator_bytes: 1_800_000, rss_bytes: 1, ..Default::default() });
        let mem = info(&mut t, &["memory"]);
        assert_eq!(info_field(&mem, "used_memory"), "1800000");
        assert_eq!(info_field(&mem, "used_memory_peak"), "2000000");
        assert_eq!(info_field(&mem, "used_memory_peak_perc"), "90.00%");
    }

    #[test]
    fn info_clients_counts_timeouts_and_recent_buffer_peaks() {
        let mut t = TestEngine::default();
        let feed = |t: &TestEngine, s: &mut crate::Session, input: &str| {
            let mut out = Vec::new();
            t.engine.feed(s, input.as_bytes(), &mut out, t.now).unwrap_or(0)
        };
        let mut a = t.engine.new_session("127.0.0.1:1", "127.0.0.1:6379", t.now);
        let mut b = t.engine.new_session("127.0.0.1:2", "127.0.0.1:6379", t.now);
        feed(&t, &mut a, "BLPOP q 0\r\n");
        feed(&t, &mut b, "BLPOP q 5\r\n");
        let text = info(&mut t, &["clients"]);
        assert_eq!(info_field(&text, "blocked_clients"), "2");
        assert_eq!(info_field(&text, "clients_in_timeout_table"), "1");
        // The host reports `a`'s buffers: 100 bytes of input in 16 KiB, 40,000 unsent.
        a.client.io.report(100, 16_284, 40_000, 65_536);
        b.client.io.report(0, 16_384, 0, 16_384);
        t.engine.track_client_buffers(t.now);
        let text = info(&mut t, &["clients"]);
        assert_eq!(info_field(&text, "client_recent_max_input_buffer"), "16384");
        assert_eq!(info_field(&text, "client_recent_max_output_buffer"), "40000");
        // CLIENT LIST: the 16 KiB past the first 16 KiB make 2 blocks, as Redis's reply list.
        a.client.io.note_out_fill(50_000);
        let list = match t.run(&["CLIENT", "LIST", "ID", &a.id().to_string()]) {
            Reply::Verbatim(s) => s,
            Reply::Bulk(b) => String::from_utf8_lossy(&b).into_owned(),
            other => panic!("{other:?}"),
        };
        assert!(list.contains(" rbs=65536 rbp=50000 obl=16384 oll=2 omem=40000 "), "{list}");
        // Peaks last the 8 seconds Redis keeps, and `rbp` starts over every 5 s.
        a.client.io.report(0, 16_384, 0, 16_384);
        for _ in 0..8 {
            t.advance(1000);
            t.engine.track_client_buffers(t.now);
        }
        let text = info(&mut t, &["clients"]);
        assert_eq!(info_field(&text, "client_recent_max_output_buffer"), "0");
        assert_eq!(a.client.io.out_peak.load(std::sync::atomic::Ordering::Relaxed), 0);
        t.engine.end_session(&a);
        t.engine.end_session(&b);
    }

    #[test]
    fn info_server_fields_as_redis() {
        let mut t = TestEngine::default();
        let text = info(&mut t, &["server"]);
        assert_eq!(info_field(&text, "lru_clock"), ((t.now / 1000) % (1 << 24)).to_string());
        assert_eq!(info_field(&text, "run_id").len(), 40);
        assert_eq!(info_field(&text, "config_file"), "");
        t.engine.set_host_facts(crate::HostFacts {
            run_id: "ab".repeat(20),
            config_file: "/etc/v.conf".into(),
            ..Default::default()
        });
        let text = info(&mut t, &["server"]);
        assert_eq!(info_field(&text, "run_id"), "ab".repeat(20));
        assert_eq!(info_field(&text, "config_file"), "/etc/v.conf");
    }

    #[test]
    fn info_sections_default_all_and_everything_as_redis() {
        let mut t = TestEngine::default();
        t.run(&["SET", "k", "v"]);
        let titles = |text: &str| text.lines().filter(|l| l.starts_with("# ")).map(String::from).collect::<Vec<_>>();
        let default = [
            "# Server",
            "# Clients",
            "# Memory",
            "# Persistence",
            "# Stats",
            "# Replication",
            "# CPU",
            "# Modules",
            "# Errorstats",
            "# Cluster",
            "# Keyspace",
        ];
        assert_eq!(titles(&info(&mut t, &[])), default);
        assert_eq!(titles(&info(&mut t, &["default"])), default);
        for every in ["all", "everything", "ALL"] {
            let text = info(&mut t, &[every]);
            assert!(titles(&text).contains(&"# Commandstats".to_string()), "{every}");
            assert!(text.contains("cmdstat_set:calls=1"), "{every}");
        }
        assert_eq!(titles(&info(&mut t, &["cpu", "persistence"])), ["# Persistence", "# CPU"]);
        let cpu = info(&mut t, &["cpu"]);
        for f in ["used_cpu_sys", "used_cpu_user", "used_cpu_sys_children", "used_cpu_user_main_thread"] {
            assert_eq!(info_field(&cpu, f), "0.000000");
        }
        let p = info(&mut t, &["persistence"]);
        assert_eq!(info_field(&p, "rdb_last_bgsave_status"), "ok");
        assert_eq!(info_field(&p, "aof_enabled"), "0");
        assert_eq!(info_field(&p, "rdb_last_save_time"), (t.engine.start_ms() / 1000).to_string());
        let stats = info(&mut t, &["stats"]);
        assert_eq!(info_field(&stats, "pubsub_channels"), "0");
        assert_eq!(info_field(&stats, "instantaneous_input_kbps"), "0.00");
        assert_eq!(info_field(&info(&mut t, &["replication"]), "role"), "master");
    }

    #[test]
    fn time_is_the_callers_clock() {
        let mut t = TestEngine::default();
        t.advance(123);
        assert_eq!(t.run(&["TIME"]), arr(vec![bulk("1700000000"), bulk("123000")]));
    }
}
