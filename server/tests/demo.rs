//! The docker-compose demo, run without Docker: `vitrine` with exactly the environment the image
//! and docker-compose.yml give it, listening on 0.0.0.0 inside a network namespace this test
//! makes, and the compose file's own redis-benchmark lines run from outside it, so every client
//! arrives from a non-loopback address, as the `load` container and the host's published port
//! do. It proves the demo's password gets the load through protected mode, that the admin API
//! asks for that same password (there is no admin token in the demo) and, given it, shows the
//! load filling the dashboard (memory at the limit, evictions, ops/sec), and that without a password
//! the same server answers -DENIED until `CONFIG SET protected-mode no` is sent from loopback.
//!
//! Needs `ip`, redis-cli and redis-benchmark (Debian's iproute2 and redis-tools, which
//! scripts/test installs): without them it skips, saying why, except under CI, where it fails.
//! Where a network namespace cannot be made (not root), it says so and skips.

mod common;

use std::collections::BTreeMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use common::http::request_at;
use yaml_rust2::{Yaml, YamlLoader};

/// How long the server may take to pass the image's HEALTHCHECK, as compose waits for
/// `service_healthy` before it starts `load`.
const HEALTHY_TIMEOUT: Duration = Duration::from_secs(15);

/// The longest one of the compose file's redis-benchmark lines may run: a bound against a
/// hang, not a speed test. Against the debug build on 2 shared CPUs the first line takes a few
/// seconds on a quiet machine, but about 40 s while another build keeps both CPUs busy (the
/// debug server then serves 4-7k requests/s at pipeline 1), so they run unchanged, `-n`
/// included, under a generous bound.
const BENCHMARK_TIMEOUT: Duration = Duration::from_secs(150);

/// The longest a redis-cli call, `ip` call or the health check may take.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

/// The maxmemory the compose file sets (8mb).
const DEMO_MAXMEMORY: u64 = 8 << 20;

#[test]
fn the_compose_demo_serves_clients_from_other_hosts() {
    let started = Instant::now();
    let Some(tools) = Tools::find() else { return };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the repository root").to_path_buf();
    let dockerfile = Dockerfile::parse(&read(&root.join("Dockerfile")));
    let compose = Compose::parse(&read(&root.join("docker-compose.yml")));
    let net = match Netns::create() {
        Ok(net) => net,
        Err(why) => {
            eprintln!(
                "SKIPPED the_compose_demo_serves_clients_from_other_hosts: cannot make a network namespace: {why}"
            );
            return;
        }
    };
    let scratch = Scratch::new();
    let server_env = container_env(&dockerfile, &compose, &root, &scratch);
    let args = compose.command("vitrine");
    let ns_addr = net.ns_addr.to_string();

    // --- as `docker compose up` runs it: with the demo password -------------------------
    let password = server_env.get("VITRINE_REQUIREPASS").expect("the compose file sets VITRINE_REQUIREPASS").clone();
    assert!(!password.is_empty(), "the demo password is empty");
    let server = NsServer::start(&tools, &net, &server_env, &args, &scratch, "with-password", &dockerfile);
    let log = server.wait_for_log("admin API");
    assert!(log.contains("RESP        0.0.0.0:6379 (all interfaces)"), "{log}");
    assert!(log.contains("redis-cli -p 6379   (password required)"), "{log}");
    assert!(log.contains("dashboard   http://127.0.0.1:8080/ (listening on all interfaces"), "{log}");
    assert!(!log.contains("protected mode is on"), "no protected-mode warning with a password:\n{log}");
    // (The scratch directory's name may contain the demo password's words.)
    let logged = log.replace(&scratch.dir.display().to_string(), "<scratch>");
    assert!(!logged.contains(&password), "the password must never be logged:\n{log}");

    // A client from another host without the password is asked for it, not denied.
    let reply = tools.redis_cli(None, &["-h", &ns_addr, "-p", "6379", "PING"]);
    assert!(reply.contains("NOAUTH Authentication required"), "{reply}");

    // The load service's own command lines, from outside the namespace.
    let load_env = compose.environment("load");
    let lines = compose.benchmark_lines();
    assert!(lines.len() >= 2, "the load service runs redis-benchmark: {lines:?}");
    let mut requests = 0.0;
    for line in &lines {
        let line = line.replacen(" -h vitrine ", &format!(" -h {ns_addr} "), 1);
        assert!(line.contains(&format!(" -h {ns_addr} ")), "the line does not target the service `vitrine`: {line}");
        let t0 = Instant::now();
        let out = tools.run_load_line(&line, &load_env);
        eprintln!("{line}: {:?}\n{}{}", t0.elapsed(), out.stdout, out.stderr);
        assert!(out.status.success(), "{line}\nexited {}:\n{}{}", out.status, out.stdout, out.stderr);
        let rows = csv_results(&out.stdout);
        assert!(!rows.is_empty(), "{line}\nprinted no CSV results:\n{}{}", out.stdout, out.stderr);
        for (test, rps) in &rows {
            assert!(*rps > 0.0, "{line}\n{test}: {rps} requests per second:\n{}", out.stdout);
        }
        requests += rows.len() as f64 * option_value(&line, "-n").parse::<f64>().expect("-n N");
    }

    // What the dashboard shows: memory at the limit, evictions, commands and ops/sec. With no
    // admin token, the admin API wants the demo password, as the dashboard's sign-in does.
    let http = SocketAddr::new(net.ns_addr.into(), 8080);
    let refused = request_at(http, "GET", "/api/stats", &[], None);
    assert_eq!(refused.status, 401, "the admin API is no way around the demo password: {}", refused.text());
    assert_eq!(refused.json()["error"]["secret"], "password");
    let bearer = format!("Bearer {password}");
    let signed: &[(&str, &str)] = &[("Authorization", &bearer)];
    let stats = request_at(http, "GET", "/api/stats", signed, None).expect(200);
    let number = |v: &serde_json::Value, field: &str| v[field].as_f64().unwrap_or_else(|| panic!("{field}: {v}"));
    assert_eq!(number(&stats, "maxmemory") as u64, DEMO_MAXMEMORY, "{stats}");
    let used = number(&stats, "used_memory");
    assert!(used >= 0.9 * DEMO_MAXMEMORY as f64 && used <= DEMO_MAXMEMORY as f64, "used_memory {used}: {stats}");
    assert!(number(&stats, "evicted_keys") > 0.0, "{stats}");
    assert!(number(&stats, "commands_processed") >= requests, "{requests} requests sent: {stats}");
    let history = request_at(http, "GET", "/api/stats/history?seconds=120", signed, None).expect(200);
    let samples = history["samples"].as_array().expect("samples");
    assert!(samples.iter().any(|s| number(s, "ops_per_sec") > 0.0), "no ops/sec on the chart: {history}");
    assert!(samples.iter().any(|s| number(s, "evicted_per_sec") > 0.0), "no evictions on the chart: {history}");
    // The sessions' 1 s TTLs run out in the pause between rounds.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let stats = request_at(http, "GET", "/api/stats", signed, None).expect(200);
        if number(&stats, "expired_keys") > 0.0 {
            break;
        }
        assert!(Instant::now() < deadline, "no session key expired: {stats}");
        std::thread::sleep(Duration::from_millis(200));
    }
    drop(server);

    // --- the same container with no password: protected mode, changed at run time -------
    let mut open_env = server_env.clone();
    open_env.remove("VITRINE_REQUIREPASS");
    let server = NsServer::start(&tools, &net, &open_env, &args, &scratch, "no-password", &dockerfile);
    let log = server.wait_for_log("admin API");
    assert!(
        log.contains(
            "clients that are not on loopback will be refused with -DENIED on 0.0.0.0:6379 until --requirepass"
        ),
        "{log}"
    );
    let remote_ping = || tools.redis_cli(None, &["-h", &ns_addr, "-p", "6379", "PING"]);
    let local = |args: &[&str]| tools.redis_cli(Some(&net.name), &[&["-p", "6379"], args].concat());
    let denied = "DENIED Redis is running in protected mode because protected mode is enabled and no password is set";
    assert!(remote_ping().contains(denied), "{}", remote_ping());
    assert_eq!(local(&["CONFIG", "SET", "protected-mode", "no"]), "OK");
    assert_eq!(local(&["CONFIG", "GET", "protected-mode"]), "protected-mode\nno");
    assert_eq!(remote_ping(), "PONG", "served once protected mode is off");
    assert_eq!(local(&["CONFIG", "SET", "protected-mode", "yes"]), "OK");
    assert!(remote_ping().contains(denied), "denied again once it is back on");
    drop(server);

    let elapsed = started.elapsed();
    eprintln!("the compose demo checks took {elapsed:?}");
    assert!(elapsed < Duration::from_secs(60), "the demo test took {elapsed:?}");
}

/// The server's environment in the container: the image's `ENV`, then the compose service's
/// `environment` over it. Only paths that exist solely in the image are mapped onto this
/// machine: `/data` (the working directory and `VITRINE_DIR`) to a scratch directory, and the
/// built dashboard to the repository's web/dist (or an empty directory when it is not built).
/// Any other absolute path fails the test, so a new one is mapped here on purpose.
fn container_env(
    dockerfile: &Dockerfile,
    compose: &Compose,
    root: &Path,
    scratch: &Scratch,
) -> BTreeMap<String, String> {
    let web = root.join("web/dist");
    let web = if web.is_dir() { web } else { scratch.dir.join("web") };
    std::fs::create_dir_all(&web).expect("create the web dir");
    let image_paths: [(&str, &Path); 2] = [("/data", &scratch.data), ("/usr/share/vitrine/web", &web)];
    let mut env: BTreeMap<String, String> = dockerfile.env.iter().cloned().collect();
    env.extend(compose.environment("vitrine"));
    for (name, value) in env.iter_mut() {
        if let Some((_, here)) = image_paths.iter().find(|(there, _)| value == there) {
            *value = here.display().to_string();
        } else {
            assert!(!value.starts_with('/'), "{name}={value} is a path in the image: map it in container_env");
        }
    }
    env
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// The word after `option` in a command line.
fn option_value<'a>(line: &'a str, option: &str) -> &'a str {
    let mut words = line.split_whitespace().skip_while(|w| *w != option);
    words.nth(1).unwrap_or_else(|| panic!("no {option} in {line}"))
}

/// `(test, requests per second)` of each result line of redis-benchmark's `--csv` output
/// (`"test","rps","avg_latency_ms",...` then one line per test).
fn csv_results(stdout: &str) -> Vec<(String, f64)> {
    stdout
        .lines()
        .filter(|l| l.starts_with('"') && !l.starts_with("\"test\""))
        .filter_map(|l| {
            let mut fields = l.split("\",\"").map(|f| f.trim_matches('"'));
            let test = fields.next()?.to_string();
            let rps = fields.next()?.parse().ok()?;
            Some((test, rps))
        })
        .collect()
}

// --- the Dockerfile ---------------------------------------------------------------------

/// What the runtime stage (the Dockerfile's last `FROM`) sets.
struct Dockerfile {
    /// Every `ENV` name and value, in order.
    env: Vec<(String, String)>,
    /// The `HEALTHCHECK ... CMD [...]` command.
    healthcheck: Vec<String>,
    entrypoint: Vec<String>,
}

impl Dockerfile {
    fn parse(text: &str) -> Dockerfile {
        let instructions = instructions(text);
        let last_from = instructions.iter().rposition(|i| keyword(i) == "FROM").expect("a FROM line");
        let mut out = Dockerfile { env: Vec::new(), healthcheck: Vec::new(), entrypoint: Vec::new() };
        for instruction in &instructions[last_from..] {
            let rest = instruction[keyword(instruction).len()..].trim();
            match keyword(instruction).as_str() {
                "ENV" => out.env.extend(env_pairs(rest)),
                "ENTRYPOINT" => out.entrypoint = exec_form(rest),
                "HEALTHCHECK" => {
                    let (_, cmd) = rest.split_once("CMD ").expect("HEALTHCHECK ... CMD [...]");
                    out.healthcheck = exec_form(cmd);
                }
                _ => {}
            }
        }
        assert_eq!(out.entrypoint, ["vitrine"], "the image's ENTRYPOINT");
        out
    }
}

/// The Dockerfile's instructions, continuation lines (`\` at the end) joined and comment
/// lines dropped, as Docker reads them.
fn instructions(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('#') || (trimmed.is_empty() && current.is_empty()) {
            continue;
        }
        match trimmed.strip_suffix('\\') {
            Some(part) => {
                current.push_str(part);
                current.push(' ');
            }
            None => {
                current.push_str(trimmed);
                out.push(std::mem::take(&mut current));
            }
        }
    }
    out
}

fn keyword(instruction: &str) -> String {
    instruction.split_whitespace().next().unwrap_or_default().to_ascii_uppercase()
}

/// `ENV a=1 b="two words"` (or the old `ENV a 1`) as name/value pairs.
fn env_pairs(rest: &str) -> Vec<(String, String)> {
    if !rest.split_whitespace().next().unwrap_or_default().contains('=') {
        let (name, value) = rest.split_once(char::is_whitespace).expect("ENV name value");
        return vec![(name.to_string(), value.trim().to_string())];
    }
    let mut pairs = Vec::new();
    let mut chars = rest.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let name: String = std::iter::from_fn(|| chars.next_if(|c| *c != '=')).collect();
        if name.is_empty() {
            return pairs;
        }
        assert_eq!(chars.next(), Some('='), "ENV {rest}");
        let mut value = String::new();
        let mut quote = None;
        while let Some(c) = chars.next_if(|c| quote.is_some() || !c.is_whitespace()) {
            match (c, quote) {
                ('"' | '\'', None) => quote = Some(c),
                (c, Some(q)) if c == q => quote = None,
                _ => value.push(c),
            }
        }
        pairs.push((name.trim().to_string(), value));
    }
}

/// A JSON exec-form array (`["vitrine"]`).
fn exec_form(text: &str) -> Vec<String> {
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("not an exec-form array ({e}): {text}"))
}

// --- docker-compose.yml -----------------------------------------------------------------

struct Compose(Yaml);

impl Compose {
    fn parse(text: &str) -> Compose {
        let mut docs = YamlLoader::load_from_str(text).expect("docker-compose.yml is YAML");
        assert_eq!(docs.len(), 1, "one YAML document");
        Compose(docs.remove(0))
    }

    fn service(&self, name: &str) -> &Yaml {
        let service = &self.0["services"][name];
        assert!(service.as_hash().is_some(), "no service {name} in docker-compose.yml");
        service
    }

    /// A service's `environment` as compose passes it with no variables set: map or list
    /// form, `${VAR:-default}` resolved. A name with no value is taken from the (empty) shell,
    /// so it is not set.
    fn environment(&self, service: &str) -> BTreeMap<String, String> {
        let mut env = BTreeMap::new();
        match &self.service(service)["environment"] {
            Yaml::Hash(map) => {
                for (name, value) in map {
                    let name = scalar(name).expect("a variable name");
                    if let Some(value) = scalar(value) {
                        env.insert(interpolate(&name), interpolate(&value));
                    }
                }
            }
            Yaml::Array(items) => {
                for item in items {
                    let item = interpolate(&scalar(item).expect("NAME=value"));
                    if let Some((name, value)) = item.split_once('=') {
                        env.insert(name.to_string(), value.to_string());
                    }
                }
            }
            Yaml::BadValue | Yaml::Null => {}
            other => panic!("{service}.environment: {other:?}"),
        }
        env
    }

    /// A service's `command` arguments (none when it has none).
    fn command(&self, service: &str) -> Vec<String> {
        match &self.service(service)["command"] {
            Yaml::Array(items) => items.iter().map(|i| interpolate(&scalar(i).expect("an argument"))).collect(),
            // Compose splits a string as a shell would; the demo's are plain words.
            Yaml::String(s) => interpolate(s).split_whitespace().map(str::to_string).collect(),
            Yaml::BadValue | Yaml::Null => Vec::new(),
            other => panic!("{service}.command: {other:?}"),
        }
    }

    /// The redis-benchmark lines of the `load` service's script (`sh -c <script>`), with
    /// compose's escaping undone (`$$` is `$`) and the `|| sleep 5` retry dropped so a failure
    /// shows.
    fn benchmark_lines(&self) -> Vec<String> {
        let entrypoint: Vec<String> = match &self.service("load")["entrypoint"] {
            Yaml::Array(items) => items.iter().filter_map(scalar).collect(),
            other => panic!("load.entrypoint: {other:?}"),
        };
        assert_eq!(entrypoint, ["sh", "-c"], "the load script runs in sh -c, as this test runs its lines");
        self.command("load")
            .iter()
            .flat_map(|script| script.lines())
            .map(str::trim)
            .filter(|l| l.starts_with("redis-benchmark "))
            .map(|l| l.split(" || ").next().unwrap_or(l).trim().to_string())
            .collect()
    }
}

/// A YAML scalar as compose reads it (numbers and booleans as their text); `None` for null.
fn scalar(v: &Yaml) -> Option<String> {
    match v {
        Yaml::String(s) | Yaml::Real(s) => Some(s.clone()),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        Yaml::Null => None,
        other => panic!("not a scalar: {other:?}"),
    }
}

/// Compose's variable interpolation with no variables set: `$$` is a `$`, `${VAR:-default}`
/// and `${VAR-default}` are the default, `${VAR}`, `$VAR` and `${VAR:+alt}` are empty, and a
/// required `${VAR:?message}` fails the test, as `docker compose up` would fail.
fn interpolate(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
        } else if let Some(body) = after.strip_prefix('{') {
            let end = body.find('}').unwrap_or_else(|| panic!("unclosed ${{ in {text}"));
            let expr = &body[..end];
            let name_end = expr.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(expr.len());
            let op = &expr[name_end..];
            if let Some(default) = op.strip_prefix(":-").or_else(|| op.strip_prefix('-')) {
                out.push_str(&interpolate(default));
            } else if op.starts_with(":?") || op.starts_with('?') {
                panic!("{text} requires a variable that compose would not have: {expr}");
            } else {
                assert!(op.is_empty() || op.starts_with(":+") || op.starts_with('+'), "unsupported: ${{{expr}}}");
            }
            rest = &body[end + 1..];
        } else {
            let name_end = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(after.len());
            assert!(name_end > 0, "a lone $ in {text} (compose wants $$)");
            rest = &after[name_end..];
        }
    }
    out.push_str(rest);
    out
}

// --- processes ----------------------------------------------------------------------------

/// The programs the test runs.
struct Tools {
    vitrine: PathBuf,
    ip: PathBuf,
    redis_cli: PathBuf,
    redis_benchmark: PathBuf,
}

impl Tools {
    /// The binaries, or `None` (after saying why) when one is missing. The server is
    /// `VITRINE_BIN` when set (scripts/test sets it to the build it tests), else this build's.
    fn find() -> Option<Tools> {
        let vitrine = std::env::var_os("VITRINE_BIN")
            .map(PathBuf::from)
            .filter(|p| p.is_file())
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_vitrine")));
        let find = |name: &str, package: &str| {
            common::tool_or_skip("the_compose_demo_serves_clients_from_other_hosts", name, package)
        };
        Some(Tools {
            vitrine,
            ip: find("ip", "iproute2")?,
            redis_cli: find("redis-cli", "redis-tools")?,
            redis_benchmark: find("redis-benchmark", "redis-tools")?,
        })
    }

    /// redis-cli's output (stdout and stderr, trimmed), from the host or inside namespace `ns`.
    fn redis_cli(&self, ns: Option<&str>, args: &[&str]) -> String {
        let mut command = match ns {
            Some(ns) => {
                let mut c = Command::new(&self.ip);
                c.args(["netns", "exec", ns]).arg(&self.redis_cli);
                c
            }
            None => Command::new(&self.redis_cli),
        };
        command.args(args).env_remove("REDISCLI_AUTH");
        let out = run_bounded(&mut command, COMMAND_TIMEOUT);
        format!("{}{}", out.stdout, out.stderr).trim().to_string()
    }

    /// One line of the load script, in `sh` with the load service's environment, as the
    /// container runs it (`exec`, so a timeout stops redis-benchmark itself).
    fn run_load_line(&self, line: &str, env: &BTreeMap<String, String>) -> Output {
        let line = line.strip_prefix("redis-benchmark").expect("a redis-benchmark line");
        let mut command = Command::new("sh");
        command.arg("-c").arg(format!("exec \"$0\"{line}")).arg(&self.redis_benchmark);
        clear_vitrine_env(&mut command);
        command.envs(env);
        run_bounded(&mut command, BENCHMARK_TIMEOUT)
    }
}

/// Settings from the developer's environment must not reach the processes under test.
fn clear_vitrine_env(command: &mut Command) {
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy().into_owned();
        if name.starts_with("VITRINE_") || name.starts_with("REDISCLI_") || name == "RUST_LOG" {
            command.env_remove(name);
        }
    }
}

struct Output {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

/// Runs `command` to its end, or kills it after `limit` and fails the test.
fn run_bounded(command: &mut Command, limit: Duration) -> Output {
    let scratch = Scratch::new();
    let (out_path, err_path) = (scratch.dir.join("stdout"), scratch.dir.join("stderr"));
    let stdout = std::fs::File::create(&out_path).expect("create stdout file");
    let stderr = std::fs::File::create(&err_path).expect("create stderr file");
    let mut child = command.stdin(Stdio::null()).stdout(stdout).stderr(stderr).spawn().expect("spawn");
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{command:?} still running after {limit:?}:\n{}",
                std::fs::read_to_string(&out_path).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    Output { status, stdout: read(&out_path), stderr: read(&err_path) }
}

/// A scratch directory, removed when dropped.
struct Scratch {
    dir: PathBuf,
    /// The image's `/data`.
    data: PathBuf,
}

impl Scratch {
    fn new() -> Scratch {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("vitrine-demo-test-{}-{n}", std::process::id()));
        let data = dir.join("data");
        std::fs::create_dir_all(&data).expect("create the scratch dir");
        Scratch { dir, data }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `vitrine` inside the namespace, with the container's environment, killed when dropped.
struct NsServer {
    child: Child,
    log: PathBuf,
}

impl NsServer {
    /// Starts it and waits until the image's HEALTHCHECK passes inside the namespace, as
    /// compose does before it starts the `load` service.
    fn start(
        tools: &Tools,
        net: &Netns,
        env: &BTreeMap<String, String>,
        args: &[String],
        scratch: &Scratch,
        name: &str,
        dockerfile: &Dockerfile,
    ) -> NsServer {
        let log = scratch.dir.join(format!("{name}.log"));
        let mut command = Command::new(&tools.ip);
        command.args(["netns", "exec", &net.name]).arg(&tools.vitrine).args(args);
        clear_vitrine_env(&mut command);
        command.envs(env).current_dir(&scratch.data);
        let stderr = std::fs::File::create(&log).expect("create the log file");
        let child = command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(stderr).spawn().expect("spawn vitrine");
        let mut server = NsServer { child, log };
        let deadline = Instant::now() + HEALTHY_TIMEOUT;
        loop {
            if let Ok(Some(status)) = server.child.try_wait() {
                panic!("vitrine exited at start ({status}):\n{}", server.log());
            }
            let mut check = Command::new(&tools.ip);
            check.args(["netns", "exec", &net.name]).args(&dockerfile.healthcheck);
            clear_vitrine_env(&mut check);
            check.envs(env);
            if run_bounded(&mut check, COMMAND_TIMEOUT).status.success() {
                return server;
            }
            assert!(Instant::now() < deadline, "not healthy within {HEALTHY_TIMEOUT:?}:\n{}", server.log());
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The log once it contains `needle` (bounded).
    fn wait_for_log(&self, needle: &str) -> String {
        let deadline = Instant::now() + COMMAND_TIMEOUT;
        loop {
            let log = self.log();
            if log.contains(needle) {
                return log;
            }
            assert!(Instant::now() < deadline, "no {needle:?} in the log:\n{log}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for NsServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// --- the network namespace -----------------------------------------------------------------

/// A network namespace joined to this one by a veth pair on a /30 of 10.251.0.0/16, removed
/// (with the pair) when dropped. The server inside listens on 0.0.0.0 as in the container;
/// clients here reach it at `ns_addr`, so it sees them come from `host_addr`, not loopback.
struct Netns {
    name: String,
    host_if: String,
    ns_addr: Ipv4Addr,
}

impl Netns {
    fn create() -> Result<Netns, String> {
        remove_stale_namespaces();
        let pid = std::process::id();
        let name = format!("vitrine-demo-{pid}");
        // Interface names have at most 15 bytes.
        let (host_if, ns_if) = (format!("vtd{pid}h"), format!("vtd{pid}n"));
        let subnet = free_subnet(pid)?;
        let (host_addr, ns_addr) = (format!("10.251.{subnet}.1"), format!("10.251.{subnet}.2"));
        ip(&["netns", "add", &name])?;
        let net = Netns { name, host_if, ns_addr: ns_addr.parse().map_err(|e| format!("{e}"))? };
        let ns = net.name.as_str();
        ip(&["link", "add", &net.host_if, "type", "veth", "peer", "name", &ns_if, "netns", ns])?;
        ip(&["addr", "add", &format!("{host_addr}/30"), "dev", &net.host_if])?;
        ip(&["link", "set", &net.host_if, "up"])?;
        ip(&["-n", ns, "addr", "add", &format!("{ns_addr}/30"), "dev", &ns_if])?;
        ip(&["-n", ns, "link", "set", &ns_if, "up"])?;
        ip(&["-n", ns, "link", "set", "lo", "up"])?;
        Ok(net)
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        // Deleting one end of a veth pair deletes the other.
        let _ = ip(&["link", "del", &self.host_if]);
        let _ = ip(&["netns", "del", &self.name]);
    }
}

/// Namespaces this test made in a run that was killed before its guard could remove them
/// (named after a process that is gone, and with no process inside). Their veth pairs go
/// with them.
fn remove_stale_namespaces() {
    let Ok(list) = ip(&["netns", "list"]) else { return };
    for name in list.lines().filter_map(|l| l.split_whitespace().next()) {
        let Some(pid) = name.strip_prefix("vitrine-demo-").and_then(|p| p.parse::<u32>().ok()) else { continue };
        let empty = ip(&["netns", "pids", name]).is_ok_and(|pids| pids.trim().is_empty());
        if empty && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = ip(&["netns", "del", name]);
        }
    }
}

/// A third octet `n` such that nothing here uses 10.251.n.0/30 yet (no address or route
/// mentions 10.251.n.).
fn free_subnet(pid: u32) -> Result<u32, String> {
    let used = format!("{}\n{}", ip(&["-4", "addr"])?, ip(&["-4", "route", "show", "table", "all"])?);
    (0..64)
        .map(|k| (pid + k) % 254 + 1)
        .find(|n| !used.contains(&format!("10.251.{n}.")))
        .ok_or_else(|| "every 10.251.n.0/30 tried is in use".to_string())
}

/// Runs `ip ARGS`, answering its stdout, or why it failed.
fn ip(args: &[&str]) -> Result<String, String> {
    let ip = common::find_program("ip").ok_or("ip is not installed (iproute2)")?;
    let out = Command::new(ip).args(args).stdin(Stdio::null()).output().map_err(|e| format!("ip: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!("ip {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim()))
    }
}

// --- the parsers, on their own ------------------------------------------------------------

#[test]
fn compose_interpolation_with_no_variables_set() {
    assert_eq!(interpolate("${VITRINE_DEMO_PASSWORD:-vitrine-demo}"), "vitrine-demo");
    assert_eq!(interpolate("127.0.0.1:${PORT-6379}:6379"), "127.0.0.1:6379:6379");
    assert_eq!(interpolate("${VITRINE_ADMIN_TOKEN:-}"), "");
    assert_eq!(interpolate("a${X}b$Y c"), "ab c");
    assert_eq!(interpolate("${X:+set}"), "");
    assert_eq!(interpolate("end=$$(( $$(date +%s) + LOAD_SECONDS ))"), "end=$(( $(date +%s) + LOAD_SECONDS ))");
    assert_eq!(interpolate("-a \"$$VITRINE_DEMO_PASSWORD\""), "-a \"$VITRINE_DEMO_PASSWORD\"");
}

#[test]
fn dockerfile_env_of_the_last_stage() {
    let text = "FROM a AS build\nENV CI=true\n\nFROM b\n# Comment.\nENV A=1 \\\n    B=\"two words\" \\\n    C=/x\nENV D 4 5\nENTRYPOINT [\"vitrine\"]\nHEALTHCHECK --interval=5s \\\n    CMD [\"bash\", \"-c\", \"true\"]\n";
    let d = Dockerfile::parse(text);
    let env: Vec<(&str, &str)> = d.env.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    assert_eq!(env, [("A", "1"), ("B", "two words"), ("C", "/x"), ("D", "4 5")]);
    assert_eq!(d.healthcheck, ["bash", "-c", "true"]);
}

#[test]
fn benchmark_csv_results() {
    let out = "\"test\",\"rps\",\"avg_latency_ms\"\n\"SET\",\"29146.02\",\"0.334\"\n\"GET\",\"41771.09\",\"0.217\"\n";
    assert_eq!(csv_results(out), [("SET".to_string(), 29146.02), ("GET".to_string(), 41771.09)]);
}
