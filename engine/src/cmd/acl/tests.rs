//! ACL's subcommands: every reply's shape in RESP2 and RESP3 (bytes recorded from redis-server
//! 7.0.15), the error texts, GENPASS, the aclfile and the config file's `user` lines.

use std::sync::Arc;

use parking_lot::Mutex;

use crate::acl::log::LogEntry;
use crate::acl::{LogContext, LogReason};
use crate::config::{AclFile, ConfigFile};
use crate::reply::Reply;
use crate::testing::{bulk, bulks, err, int, ok, TestEngine};

const FOO_HASH: &str = "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae";
const P1_HASH: &str = "f64551fcd6f07823cb87971cfb91446425da18286b3ab1ef935e0cbd7a69f68a";
const NO_ACLFILE: &str = "ERR This Redis instance is not configured to use an ACL file. You may want to specify users \
     via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in \
     order to store users in the Redis configuration.";

fn alice(t: &mut TestEngine) {
    assert_eq!(
        t.run(&["ACL", "SETUSER", "alice", "on", ">p1", "~k*", "%R~r*", "&ch*", "+@string", "(~x* +get)"]),
        ok()
    );
}

#[test]
fn getuser_is_a_map_with_a_set_of_flags_in_both_protocols() {
    let mut t = TestEngine::default();
    alice(&mut t);
    let resp2 = format!(
        "*12\r\n$5\r\nflags\r\n*1\r\n$2\r\non\r\n$9\r\npasswords\r\n*1\r\n$64\r\n{P1_HASH}\r\n$8\r\ncommands\r\n$14\r\n\
         -@all +@string\r\n$4\r\nkeys\r\n$9\r\n~k* %R~r*\r\n$8\r\nchannels\r\n$4\r\n&ch*\r\n$9\r\nselectors\r\n*1\r\n\
         *6\r\n$8\r\ncommands\r\n$10\r\n-@all +get\r\n$4\r\nkeys\r\n$3\r\n~x*\r\n$8\r\nchannels\r\n$0\r\n\r\n"
    );
    assert_eq!(t.resp(&["ACL", "GETUSER", "alice"]), resp2);
    assert_eq!(t.resp(&["ACL", "GETUSER", "nosuch"]), "$-1\r\n");
    t.session.resp3 = true;
    assert_eq!(
        t.resp(&["ACL", "GETUSER", "default"]),
        "%6\r\n$5\r\nflags\r\n~2\r\n$2\r\non\r\n$6\r\nnopass\r\n$9\r\npasswords\r\n*0\r\n$8\r\ncommands\r\n$5\r\n+@all\r\n\
         $4\r\nkeys\r\n$2\r\n~*\r\n$8\r\nchannels\r\n$2\r\n&*\r\n$9\r\nselectors\r\n*0\r\n"
    );
    assert_eq!(t.resp(&["ACL", "GETUSER", "nosuch"]), "_\r\n");
}

#[test]
fn list_users_whoami_and_deluser() {
    let mut t = TestEngine::default();
    alice(&mut t);
    assert_eq!(
        t.run(&["ACL", "LIST"]),
        bulks(&[
            &format!(
                "user alice on #{P1_HASH} ~k* %R~r* resetchannels &ch* -@all +@string (~x* resetchannels -@all +get)"
            ),
            "user default on nopass ~* &* +@all",
        ])
    );
    assert_eq!(t.run(&["ACL", "USERS"]), bulks(&["alice", "default"]));
    assert_eq!(t.run(&["ACL", "WHOAMI"]), bulk("default"));
    assert_eq!(t.run(&["ACL", "DELUSER", "default", "alice"]), err("ERR The 'default' user cannot be removed"));
    assert_eq!(t.run(&["ACL", "USERS"]), bulks(&["alice", "default"]), "nothing deleted");
    assert_eq!(t.run(&["ACL", "DELUSER", "nosuch", "alice"]), int(1));
    assert_eq!(t.run(&["ACL", "DELUSER", "alice"]), int(0));
    assert_eq!(t.run(&["ACL", "SETUSER", "a b"]), err("ERR Usernames can't contain spaces or null characters"));
    assert_eq!(t.run(&["ACL", "SETUSER", "a\0"]), err("ERR Usernames can't contain spaces or null characters"));
    assert_eq!(
        t.run(&["ACL", "SETUSER", "bob", "on", "+nosuch"]),
        err("ERR Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in ACL")
    );
    assert_eq!(t.run(&["ACL", "USERS"]), bulks(&["default"]), "a refused SETUSER creates no user");
    assert_eq!(t.run(&["ACL", "FOO"]), err("ERR unknown subcommand 'FOO'. Try ACL HELP."));
    assert_eq!(t.run(&["ACL", "GETUSER"]), err("ERR wrong number of arguments for 'acl|getuser' command"));
}

#[test]
fn cat_lists_categories_and_their_commands() {
    let mut t = TestEngine::default();
    let Reply::Array(cats) = t.run(&["ACL", "CAT"]) else { panic!() };
    assert_eq!(cats.len(), 21);
    assert_eq!((&cats[0], &cats[20]), (&bulk("keyspace"), &bulk("scripting")));
    let Reply::Array(admin) = t.run(&["ACL", "CAT", "ADMIN"]) else { panic!() };
    for name in ["acl|setuser", "config|set", "bgrewriteaof"] {
        assert!(admin.contains(&bulk(name)), "{name}");
    }
    assert!(!admin.contains(&bulk("acl|whoami")) && !admin.contains(&bulk("get")));
    let Reply::Array(read) = t.run(&["ACL", "CAT", "read"]) else { panic!() };
    assert!(read.contains(&bulk("get")) && !read.contains(&bulk("set")));
    assert_eq!(t.run(&["ACL", "CAT", "nosuch"]), err("ERR Unknown category 'nosuch'"));
    assert_eq!(
        t.run(&["ACL", "CAT", "a", "b"]),
        err("ERR unknown subcommand or wrong number of arguments for 'CAT'. Try ACL HELP.")
    );
}

fn counting_entropy(buf: &mut [u8]) -> bool {
    for (i, b) in buf.iter_mut().enumerate() {
        *b = 0xc1 ^ i as u8;
    }
    true
}

#[test]
fn genpass_length_errors_and_the_hosts_random_source() {
    let mut t = TestEngine::default();
    let refused = err("ERR ACL GENPASS needs a random source and this host has none working");
    assert_eq!(t.run(&["ACL", "GENPASS"]), refused, "no entropy, no guessable password");
    t.engine.set_entropy(counting_entropy);
    let len = |t: &mut TestEngine, args: &[&str]| match t.run(args) {
        Reply::Bulk(b) => {
            assert!(b.iter().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
            b.len()
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(len(&mut t, &["ACL", "GENPASS"]), 64);
    assert_eq!(len(&mut t, &["ACL", "GENPASS", "5"]), 2);
    assert_eq!(len(&mut t, &["ACL", "GENPASS", "1"]), 1);
    assert_eq!(len(&mut t, &["ACL", "GENPASS", "4096"]), 1024);
    assert_eq!(t.run(&["ACL", "GENPASS", "5"]), bulk("c1"), "from the host's bytes");
    let bits =
        "ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096";
    for bad in ["0", "-1", "4097"] {
        assert_eq!(t.run(&["ACL", "GENPASS", bad]), err(bits), "{bad}");
    }
    assert_eq!(t.run(&["ACL", "GENPASS", "x"]), err("ERR value is not an integer or out of range"));
    assert_eq!(
        t.run(&["ACL", "GENPASS", "1", "2"]),
        err("ERR unknown subcommand or wrong number of arguments for 'GENPASS'. Try ACL HELP.")
    );
}

fn log_entry(t: &TestEngine, object: &str, updated_ms: u64) {
    t.engine.acl().log.lock().entries.push_front(LogEntry {
        entry_id: 0,
        count: 1,
        reason: LogReason::Auth,
        context: LogContext::TopLevel,
        object: object.as_bytes().to_vec(),
        username: b"nosuch".to_vec(),
        created_ms: updated_ms,
        updated_ms,
        client_info: "id=3 addr=127.0.0.1:44984 user=default resp=2".into(),
    });
}

#[test]
fn log_entries_have_redis_7_0s_seven_fields_and_age_as_a_double() {
    let mut t = TestEngine::default();
    log_entry(&t, "AUTH", t.now - 1408);
    log_entry(&t, "HELLO", t.now - 351);
    let info = "$11\r\nclient-info\r\n$45\r\nid=3 addr=127.0.0.1:44984 user=default resp=2\r\n";
    let head = "$5\r\ncount\r\n:1\r\n$6\r\nreason\r\n$4\r\nauth\r\n$7\r\ncontext\r\n$8\r\ntoplevel\r\n$6\r\nobject\r\n";
    assert_eq!(
        t.resp(&["ACL", "LOG", "1"]),
        format!(
            "*1\r\n*14\r\n{head}$5\r\nHELLO\r\n$8\r\nusername\r\n$6\r\nnosuch\r\n$11\r\nage-seconds\r\n\
             $19\r\n0.35099999999999998\r\n{info}"
        ),
        "newest first; RESP2 sends the double as a %.17g bulk"
    );
    t.session.resp3 = true;
    let Reply::Array(all) = t.run(&["ACL", "LOG"]) else { panic!() };
    assert_eq!(all.len(), 2);
    assert_eq!(
        String::from_utf8_lossy(&all[1].to_resp(true)),
        format!("%7\r\n{head}$4\r\nAUTH\r\n$8\r\nusername\r\n$6\r\nnosuch\r\n$11\r\nage-seconds\r\n,1.4079999999999999\r\n{info}")
    );
    assert_eq!(t.run(&["ACL", "LOG", "-5"]), Reply::Array(vec![]), "a negative count is 0");
    assert_eq!(t.run(&["ACL", "LOG", "x"]), err("ERR value is not an integer or out of range"));
    assert_eq!(
        t.run(&["ACL", "LOG", "1", "2"]),
        err("ERR unknown subcommand or wrong number of arguments for 'LOG'. Try ACL HELP.")
    );
    assert_eq!(t.run(&["ACL", "LOG", "reset"]), ok());
    assert_eq!(t.run(&["ACL", "LOG"]), Reply::Array(vec![]));
}

/// An aclfile in memory; `fail` makes writes fail as a full disk would.
#[derive(Default)]
struct MemoryAclFile {
    text: Mutex<Option<String>>,
    fail: bool,
}

impl AclFile for MemoryAclFile {
    fn path(&self) -> String {
        "/etc/users.acl".into()
    }
    fn read(&self) -> Result<String, String> {
        self.text.lock().clone().ok_or_else(|| "No such file or directory".into())
    }
    fn write(&self, text: &str) -> Result<(), String> {
        if self.fail {
            return Err("No space left on device".into());
        }
        *self.text.lock() = Some(text.to_string());
        Ok(())
    }
}

#[test]
fn save_and_load_go_through_the_hosts_aclfile() {
    let mut t = TestEngine::default();
    assert_eq!(t.run(&["ACL", "SAVE"]), err(NO_ACLFILE));
    assert_eq!(t.run(&["ACL", "LOAD"]), err(NO_ACLFILE));
    let file = Arc::new(MemoryAclFile::default());
    assert_eq!(
        t.engine.load_acl_file(file.clone()).unwrap_err(),
        "Error loading ACLs, opening file '/etc/users.acl': No such file or directory"
    );
    t.run(&["ACL", "SETUSER", "bob", "on", ">foo", "~b*", "+@read"]);
    assert_eq!(t.run(&["ACL", "SAVE"]), ok());
    let saved = format!("user bob on #{FOO_HASH} ~b* resetchannels -@all +@read\nuser default on nopass ~* &* +@all\n");
    assert_eq!(file.text.lock().as_deref(), Some(saved.as_str()));
    t.run(&["ACL", "DELUSER", "bob"]);
    t.run(&["ACL", "SETUSER", "carol"]);
    assert_eq!(t.run(&["ACL", "LOAD"]), ok());
    assert_eq!(t.run(&["ACL", "USERS"]), bulks(&["bob", "default"]), "the file's users replace them all");
    let before = t.run(&["ACL", "LIST"]);
    *file.text.lock() = Some("user bob on +nosuch\nuser eve on nopass ~* &* +@all\n".into());
    let Reply::Error(why) = t.run(&["ACL", "LOAD"]) else { panic!() };
    assert!(why.starts_with("ERR /etc/users.acl:1: Error in applying operation '+nosuch'"), "{why}");
    assert_eq!(t.run(&["ACL", "LIST"]), before, "a refused LOAD changes nothing");
    let mut failing = TestEngine::default();
    failing.engine.config().set_acl_file(Arc::new(MemoryAclFile { fail: true, ..Default::default() }));
    assert_eq!(
        failing.run(&["ACL", "SAVE"]),
        err("ERR There was an error trying to save the ACLs. Please check the server logs for more information")
    );
}

#[test]
fn requirepass_is_the_default_users_password() {
    let mut t = TestEngine::default();
    assert!(!t.engine.auth_required());
    assert_eq!(t.run(&["CONFIG", "SET", "requirepass", "foo"]), ok());
    assert!(t.engine.auth_required());
    assert_eq!(t.run(&["ACL", "LIST"]), bulks(&[&format!("user default on #{FOO_HASH} ~* &* +@all")]));
    assert_eq!(t.run(&["CONFIG", "SET", "requirepass", ""]), ok());
    assert_eq!(t.run(&["ACL", "LIST"]), bulks(&["user default on nopass ~* &* +@all"]));
    // ACL SETUSER default leaves requirepass as it was, as Redis.
    t.run(&["ACL", "SETUSER", "default", ">bar"]);
    assert!(t.engine.auth_required());
    assert_eq!(t.run(&["CONFIG", "GET", "requirepass"]), Reply::Map(vec![(bulk("requirepass"), bulk(""))]));
    // Set before the engine existed (the server's start-up), it applies too.
    let config = crate::config::Config::default();
    config.set("requirepass", "foo").unwrap();
    let mut t = TestEngine::new(config);
    assert_eq!(t.run(&["AUTH", "foo"]), ok());
    assert_eq!(t.run(&["ACL", "LIST"]), bulks(&[&format!("user default on #{FOO_HASH} ~* &* +@all")]));
}

#[test]
fn acl_parameters_are_live() {
    let mut t = TestEngine::default();
    assert_eq!((t.engine.config().acllog_max_len(), t.engine.config().acl_pubsub_all()), (128, false));
    assert_eq!(t.run(&["CONFIG", "SET", "acl-pubsub-default", "allchannels", "acllog-max-len", "5"]), ok());
    assert_eq!((t.engine.config().acllog_max_len(), t.engine.config().acl_pubsub_all()), (5, true));
    t.run(&["ACL", "SETUSER", "pub"]);
    assert_eq!(t.run(&["ACL", "LIST"]), bulks(&["user default on nopass ~* &* +@all", "user pub off &* -@all"]));
    assert_eq!(
        t.run(&["CONFIG", "SET", "aclfile", "/x"]),
        err("ERR CONFIG SET failed (possibly related to argument 'aclfile') - can't set immutable config")
    );
    assert_eq!(t.engine.config().aclfile(), None);
}

struct MemoryConf(Mutex<String>);

impl ConfigFile for MemoryConf {
    fn read(&self) -> Result<String, String> {
        Ok(self.0.lock().clone())
    }
    fn write(&self, text: &str) -> Result<(), String> {
        *self.0.lock() = text.to_string();
        Ok(())
    }
}

#[test]
fn config_rewrite_writes_every_user_in_the_old_user_lines_places() {
    let mut t = TestEngine::default();
    let file = Arc::new(MemoryConf(Mutex::new("port 6380\nuser x on nopass +@all\nmaxmemory 1mb\n".into())));
    t.engine.config().set_config_file(file.clone());
    t.engine.config().set_host_param("port", "6380");
    t.run(&["CONFIG", "SET", "requirepass", "foo", "maxmemory", "2mb"]);
    t.run(&["ACL", "SETUSER", "x", "on", ">foo", "~k*", "+@read"]);
    t.run(&["ACL", "SETUSER", "y"]);
    assert_eq!(t.run(&["CONFIG", "REWRITE"]), ok());
    assert_eq!(
        *file.0.lock(),
        format!(
            "port 6380\nuser default on #{FOO_HASH} ~* &* +@all\nmaxmemory 2mb\n# Generated by CONFIG REWRITE\n\
             requirepass \"foo\"\nuser x on #{FOO_HASH} ~k* resetchannels -@all +@read\nuser y off resetchannels -@all\n"
        )
    );
}

#[test]
fn config_file_user_lines_define_users_at_start_up() {
    let t = TestEngine::default();
    let words = |line: &str| line.split(' ').map(|w| w.as_bytes().to_vec()).collect::<Vec<_>>();
    t.engine.config().set("requirepass", "foo").unwrap();
    assert_eq!(
        t.engine.set_config_users(&[(3, words("x on +nosuch"))]).unwrap_err(),
        "line 3: Error loading ACL rule '+nosuch' for the user named 'x': Unknown command or category name in ACL"
    );
    assert_eq!(
        t.engine.set_config_users(&[(1, words("x on")), (2, words("x off"))]).unwrap_err(),
        "line 2: Error in user declaration 'x': Duplicate user found. A user can only be defined once in config files"
    );
    assert_eq!(t.engine.acl().users().len(), 1, "nothing applied");
    t.engine.set_config_users(&[(1, words("reader on >pw ~* +@read"))]).unwrap();
    let lines: Vec<String> = t.engine.acl().users().iter().map(|u| u.describe()).collect();
    assert_eq!(
        lines,
        [
            "user default on #2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae ~* &* +@all",
            "user reader on #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 ~* resetchannels -@all +@read",
        ],
        "requirepass kept without a `user default` line"
    );
}

/// The section headers of an INFO reply, in order.
fn info_headers(t: &mut TestEngine, args: &[&str]) -> (Vec<String>, String) {
    let text = match t.run(args) {
        Reply::Bulk(text) => String::from_utf8(text).unwrap(),
        Reply::Verbatim(text) => text,
        other => panic!("{other:?}"),
    };
    (text.lines().filter(|l| l.starts_with("# ")).map(|l| l[2..].to_string()).collect(), text)
}

#[test]
fn info_has_redis_7_0s_sections_in_order_and_the_fields_clients_check() {
    let mut t = TestEngine::default();
    t.run(&["SET", "k", "v"]);
    let default =
        ["Server", "Clients", "Memory", "Persistence", "Stats", "Replication", "CPU", "Modules", "Errorstats"];
    let (headers, text) = info_headers(&mut t, &["INFO"]);
    assert_eq!(headers, [&default[..], &["Cluster", "Keyspace"]].concat());
    assert_eq!(info_headers(&mut t, &["INFO", "default"]).0, headers);
    let all = ["Server", "Clients", "Memory", "Persistence", "Stats", "Replication", "CPU", "Modules", "Commandstats"];
    let all = [&all[..], &["Errorstats", "Latencystats", "Cluster", "Keyspace"]].concat();
    assert_eq!(info_headers(&mut t, &["INFO", "all"]).0, all);
    assert_eq!(info_headers(&mut t, &["INFO", "everything"]).0, all);
    for field in ["redis_mode:standalone", "role:master", "connected_slaves:0", "cluster_enabled:0"] {
        assert!(text.contains(&format!("\r\n{field}\r\n")), "{field}");
    }
    // Redis 7.2's counters, in its order at the end of Stats.
    let denied = [
        "acl_access_denied_auth:0",
        "acl_access_denied_cmd:0",
        "acl_access_denied_key:0",
        "acl_access_denied_channel:0",
    ];
    let at: Vec<usize> =
        denied.iter().map(|f| text.find(&format!("\r\n{f}\r\n")).unwrap_or_else(|| panic!("{f}"))).collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{at:?}");
    t.run(&["ACL", "SETUSER", "ro", "on", "nopass", "~k*", "+get"]);
    t.run(&["AUTH", "ro", "x"]);
    t.run(&["GET", "other"]);
    t.run(&["SET", "k", "v"]);
    assert_eq!(t.run(&["AUTH", "default", "any"]), ok(), "back to the nopass default user");
    let (_, text) = info_headers(&mut t, &["INFO", "stats"]);
    for field in ["acl_access_denied_cmd:1", "acl_access_denied_key:1"] {
        assert!(text.contains(&format!("\r\n{field}\r\n")), "{field}: {text}");
    }
}
