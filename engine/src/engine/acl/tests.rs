//! Enforcement through dispatch: NOPERM texts per path (top level, MULTI, EXEC re-check,
//! scripts), ACL LOG entries and counters, AUTH/HELLO as users, CLIENT LIST/KILL USER,
//! disconnecting users, and the host API. Users are built by hand (the rule parser is
//! another part's), with the same helper as `acl::check`'s tests.

use crate::acl::check::tests::selector;
use crate::acl::password;
use crate::acl::{Channels, LogContext, LogReason, User};
use crate::reply::Reply;
use crate::testing::*;

/// `on >pw` with one root selector.
fn user(name: &str, commands: &[&str], keys: &[(&str, bool, bool)], channels: &[&str]) -> User {
    let mut u = User::new(name.as_bytes(), false);
    u.on = true;
    u.passwords.push(password::hash(b"pw"));
    u.selectors = vec![selector(commands, keys, channels)];
    u
}

/// `t` with `default` unrestricted and `users`, and a session signed in as the first one.
fn signed_in(t: &mut TestEngine, users: Vec<User>) -> crate::session::Session {
    let name = String::from_utf8_lossy(&users[0].name).into_owned();
    let mut all = users;
    all.push(User::unrestricted(b"default"));
    t.engine.acl().replace_all(all);
    let mut s = connect(t, 9);
    assert_eq!(t.engine.call(&mut s, &["AUTH", &name, "pw"], t.now), ok());
    s
}

fn log(t: &TestEngine) -> Vec<(LogReason, LogContext, String, String, u64)> {
    t.engine
        .acl()
        .log
        .lock()
        .entries(100)
        .into_iter()
        .map(|e| {
            let s = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            (e.reason, e.context, s(&e.object), s(&e.username), e.count)
        })
        .collect()
}

const NOPERM_KEYS: &str = "NOPERM this user has no permissions to access one of the keys used as arguments";

#[test]
fn top_level_denials_have_redis_texts_counters_and_log_entries() {
    let mut t = TestEngine::default();
    let reader =
        user("reader", &["get", "set", "client|info", "publish", "multi", "exec"], &[("k*", true, false)], &["news.*"]);
    let mut s = signed_in(&mut t, vec![reader]);
    let mut run = |argv: &[&str]| t.engine.call(&mut s, argv, t.now);
    assert_eq!(run(&["GET", "k1"]), nil());
    assert_eq!(run(&["DEL", "k1"]), err("NOPERM this user has no permissions to run the 'del' command"));
    assert_eq!(run(&["CLIENT", "LIST"]), err("NOPERM this user has no permissions to run the 'client|list' command"));
    assert_eq!(run(&["SET", "k1", "v"]), err(NOPERM_KEYS));
    assert_eq!(run(&["GET", "other"]), err(NOPERM_KEYS));
    assert_eq!(run(&["PUBLISH", "news.a", "m"]), int(0));
    assert_eq!(
        run(&["PUBLISH", "sports", "m"]),
        err("NOPERM this user has no permissions to access one of the channels used as arguments")
    );
    // Arity and unknown commands come first, as in Redis.
    assert_eq!(run(&["DEL"]), arity("del"));
    let Reply::Verbatim(info) = run(&["CLIENT", "INFO"]) else { panic!("CLIENT INFO") };
    assert!(info.contains(" user=reader "), "{info}");
    let snap = t.engine.snapshot(t.now);
    assert_eq!((snap.acl_access_denied_cmd, snap.acl_access_denied_key, snap.acl_access_denied_channel), (2, 2, 1));
    use LogContext::TopLevel;
    assert_eq!(
        log(&t),
        vec![
            (LogReason::Channel, TopLevel, "sports".into(), "reader".into(), 1),
            (LogReason::Key, TopLevel, "other".into(), "reader".into(), 1),
            (LogReason::Key, TopLevel, "k1".into(), "reader".into(), 1),
            (LogReason::Command, TopLevel, "client|list".into(), "reader".into(), 1),
            (LogReason::Command, TopLevel, "del".into(), "reader".into(), 1),
        ]
    );
    let info = t.engine.acl().log.lock().entries(1)[0].client_info.clone();
    assert!(info.contains("addr=127.0.0.1:9 ") && info.contains(" user=reader "), "{info}");
    let text = t.resp(&["INFO", "stats"]);
    assert!(
        text.contains("acl_access_denied_cmd:2\r\nacl_access_denied_key:2\r\nacl_access_denied_channel:1\r\n"),
        "{text}"
    );
}

#[test]
fn multi_refuses_at_queue_time_and_exec_rechecks() {
    let mut t = TestEngine::default();
    let u = user("u", &["multi", "exec", "get", "set", "incr"], &[("*", true, true)], &[]);
    let mut s = signed_in(&mut t, vec![u.clone()]);
    let mut run = |t: &TestEngine, argv: &[&str]| t.engine.call(&mut s, argv, t.now);
    assert_eq!(run(&t, &["MULTI"]), ok());
    assert_eq!(run(&t, &["DEL", "k"]), err("NOPERM this user has no permissions to run the 'del' command"));
    assert_eq!(run(&t, &["EXEC"]), err("EXECABORT Transaction discarded because of previous errors."));
    assert_eq!(log(&t)[0].1, LogContext::Multi);
    // Queued while allowed; the rules change before EXEC: that slot is the re-check's error.
    assert_eq!(run(&t, &["MULTI"]), ok());
    assert_eq!(run(&t, &["SET", "k", "1"]), Reply::status("QUEUED"));
    assert_eq!(run(&t, &["INCR", "k"]), Reply::status("QUEUED"));
    let narrower = user("u", &["multi", "exec", "get", "set"], &[("*", true, true)], &[]);
    t.engine.acl().replace_all(vec![narrower, User::unrestricted(b"default")]);
    let recheck = "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: no permission to execute the command or subcommand";
    assert_eq!(run(&t, &["EXEC"]), arr(vec![ok(), err(recheck)]));
    assert_eq!(run(&t, &["GET", "k"]), bulk("1"));
    assert_eq!(log(&t)[0], (LogReason::Command, LogContext::Multi, "incr".into(), "u".into(), 1));
}

#[cfg(feature = "scripting")]
#[test]
fn scripts_run_as_their_caller() {
    let mut t = TestEngine::default();
    let u = user("u", &["eval", "get"], &[("k*", true, true)], &[]);
    let mut s = signed_in(&mut t, vec![u]);
    let mut run = |argv: &[&str]| t.engine.call(&mut s, argv, t.now);
    let Reply::Error(e) = run(&["EVAL", "return redis.call('set', 'k1', 'v')", "0"]) else { panic!("an error") };
    assert!(e.starts_with("ERR The user executing the script can't run this command or subcommand script: "), "{e}");
    let Reply::Error(e) = run(&["EVAL", "return redis.call('get', 'x')", "0"]) else { panic!("an error") };
    assert!(
        e.starts_with("ERR The user executing the script can't access at least one of the keys mentioned in the command arguments script: "),
        "{e}"
    );
    assert_eq!(
        run(&["EVAL", "return redis.pcall('get', 'x')['err']", "0"]),
        bulk("ERR The user executing the script can't access at least one of the keys mentioned in the command arguments")
    );
    assert_eq!(run(&["EVAL", "return redis.call('get', 'k1')", "0"]), nil());
    // EVAL's declared keys are checked at the top level.
    assert_eq!(run(&["EVAL", "return 1", "1", "x"]), err(NOPERM_KEYS));
    let entries = log(&t);
    assert_eq!(
        entries[1],
        (LogReason::Key, LogContext::Lua, "x".into(), "u".into(), 2),
        "pcall folds into call's entry"
    );
    assert_eq!(entries[2], (LogReason::Command, LogContext::Lua, "set".into(), "u".into(), 1));
}

#[test]
fn auth_and_hello_switch_users_and_log_failures() {
    let mut t = TestEngine::default();
    let mut off = user("off", &["get"], &[], &[]);
    off.on = false;
    let mut anypass = user("any", &["get"], &[], &[]);
    anypass.nopass = true;
    t.engine.acl().replace_all(vec![user("u", &["get"], &[], &[]), off, anypass, User::unrestricted(b"default")]);
    let wrongpass = err("WRONGPASS invalid username-password pair or user is disabled.");
    assert_eq!(
        t.run(&["AUTH", "pw"]),
        err("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
    );
    assert_eq!(t.run(&["auth", "u", "nope"]), wrongpass);
    assert_eq!(t.run(&["AUTH", "off", "pw"]), wrongpass);
    assert_eq!(t.run(&["HELLO", "3", "AUTH", "nosuch", "pw"]), wrongpass);
    assert_eq!(t.run(&["AUTH", "any", "whatever"]), ok());
    assert_eq!(t.run(&["GET", "k"]), err(NOPERM_KEYS), "signed in as `any`, which has no keys");
    let Reply::Map(pairs) = t.run(&["HELLO", "2", "AUTH", "u", "pw"]) else { panic!("HELLO's map") };
    assert_eq!(pairs[0], (bulk("server"), bulk("redis")));
    assert_eq!(pairs.last(), Some(&(bulk("vitrine"), bulk(env!("CARGO_PKG_VERSION")))));
    assert_eq!(pairs.len(), 8);
    assert_eq!(&**t.session.client.user.lock(), "u");
    assert!(t.engine.acl().last_auth(b"u").is_some());
    use LogContext::TopLevel;
    assert_eq!(
        log(&t),
        vec![
            (LogReason::Key, TopLevel, "k".into(), "any".into(), 1),
            (LogReason::Auth, TopLevel, "HELLO".into(), "nosuch".into(), 1),
            (LogReason::Auth, TopLevel, "AUTH".into(), "off".into(), 1),
            (LogReason::Auth, TopLevel, "auth".into(), "u".into(), 1),
        ]
    );
    assert_eq!(t.engine.snapshot(t.now).acl_access_denied_auth, 3);
    // RESET goes back to `default`.
    assert_eq!(t.run(&["RESET"]), Reply::status("RESET"));
    assert_eq!(&**t.session.client.user.lock(), "default");
    assert_eq!(t.run(&["SET", "k", "v"]), ok());
}

#[test]
fn a_changed_default_user_applies_to_open_sessions() {
    let mut t = TestEngine::default();
    assert!(t.session.user.free, "the unrestricted default user is not checked");
    let mut d = user("default", &["get"], &[("*", true, true)], &[]);
    d.nopass = true;
    t.engine.acl().replace_all(vec![d]);
    assert_eq!(t.run(&["SET", "k", "v"]), err("NOPERM this user has no permissions to run the 'set' command"));
    assert!(!t.session.user.free);
    t.engine.acl().replace_all(vec![]);
    assert_eq!(t.run(&["SET", "k", "v"]), ok());
    assert!(t.session.user.free);
    // The same through ACL SETUSER: the flag is recomputed on the next command.
    assert_eq!(t.run(&["ACL", "SETUSER", "default", "-set"]), ok());
    assert_eq!(t.run(&["SET", "k", "v"]), err("NOPERM this user has no permissions to run the 'set' command"));
    assert_eq!(t.run(&["ACL", "SETUSER", "default", "+@all"]), ok());
    assert_eq!(t.run(&["SET", "k", "v"]), ok());
    assert!(t.session.user.free);
    // A default user with a password closes the door to new connections only.
    t.engine.acl().set_default_password(Some(b"secret"));
    let mut s = connect(&t, 5);
    assert_eq!(t.engine.call(&mut s, &["PING"], t.now), err("NOAUTH Authentication required."));
    assert_eq!(t.run(&["PING"]), Reply::status("PONG"));
}

#[test]
fn client_kill_user_and_disconnect_users() {
    let mut t = TestEngine::default();
    let s = signed_in(&mut t, vec![user("u", &["get"], &[], &[])]);
    let other = connect(&t, 6);
    assert_eq!(t.run(&["CLIENT", "KILL", "USER", "nosuch"]), err("ERR No such user 'nosuch'"));
    let Reply::Verbatim(list) = t.run(&["CLIENT", "LIST"]) else { panic!("CLIENT LIST") };
    assert_eq!(list.matches(" user=u ").count(), 1, "{list}");
    assert_eq!(t.run(&["CLIENT", "KILL", "USER", "u"]), int(1));
    assert!(s.client.is_killed() && !other.client.is_killed());
    let s2 = signed_in(&mut t, vec![user("v", &["get"], &[], &[])]);
    t.engine.disconnect_users(&[b"v"]);
    assert!(s2.client.is_killed() && !other.client.is_killed() && !t.session.client.is_killed());
}

#[test]
fn narrowing_channels_kills_subscribers_that_lost_theirs() {
    let mut t = TestEngine::default();
    let cmds = ["subscribe", "psubscribe"];
    let old = user("u", &cmds, &[], &["news.*", "sports"]);
    let mut a = signed_in(&mut t, vec![old.clone()]);
    let mut b = connect(&t, 7);
    assert_eq!(t.engine.call(&mut b, &["AUTH", "u", "pw"], t.now), ok());
    t.engine.call(&mut a, &["SUBSCRIBE", "news.a"], t.now);
    t.engine.call(&mut b, &["PSUBSCRIBE", "news.*"], t.now);
    // Still allowed: `news.a` matches `news.*`, and the pattern is kept as written.
    let kept = user("u", &cmds, &[], &["news.*"]);
    t.engine.kill_pubsub_if_needed(&old, &kept);
    assert!(!a.client.is_killed() && !b.client.is_killed());
    let narrower = user("u", &cmds, &[], &["news.a", "news.b*"]);
    t.engine.kill_pubsub_if_needed(&kept, &narrower);
    assert!(!a.client.is_killed() && b.client.is_killed());
    let mut all = narrower.clone();
    all.selectors[0].channels = Channels::All;
    t.engine.kill_pubsub_if_needed(&all, &user("u", &cmds, &[], &[]));
    assert!(a.client.is_killed());
}

#[test]
fn acl_setuser_that_narrows_channels_closes_the_subscriber_that_lost_its_channel() {
    let mut t = TestEngine::default();
    assert_eq!(
        t.engine.call(&mut t.session, &["ACL", "SETUSER", "u", "on", ">pw", "+subscribe", "&news.*"], t.now),
        ok()
    );
    let mut sub = connect(&t, 7);
    assert_eq!(t.engine.call(&mut sub, &["AUTH", "u", "pw"], t.now), ok());
    t.engine.call(&mut sub, &["SUBSCRIBE", "news.a"], t.now);
    assert_eq!(t.engine.call(&mut t.session, &["ACL", "SETUSER", "u", "&sports"], t.now), ok());
    assert!(!sub.client.is_killed(), "news.* is still there: news.a is allowed");
    assert_eq!(t.engine.call(&mut t.session, &["ACL", "SETUSER", "u", "resetchannels", "&sports"], t.now), ok());
    assert!(sub.client.is_killed(), "news.a is no longer allowed");
}

#[test]
fn dryrun_and_the_host_api() {
    let t = TestEngine::default();
    let u = user("u", &["get", "config|get", "publish", "psubscribe"], &[("k*", true, true)], &["a*"]);
    t.engine.acl().replace_all(vec![u, User::unrestricted(b"default")]);
    let dry = |argv: &[&str]| {
        let argv: Vec<&[u8]> = argv.iter().map(|a| a.as_bytes()).collect();
        t.engine.acl_dryrun(b"u", &argv).map_err(|e| e.to_string())
    };
    assert_eq!(dry(&["GET", "k1"]), Ok(None));
    assert_eq!(dry(&["GET", "x"]), Ok(Some("This user has no permissions to access the 'x' key".into())));
    assert_eq!(dry(&["SET", "k", "v"]), Ok(Some("This user has no permissions to run the 'set' command".into())));
    assert_eq!(
        dry(&["config", "set", "a", "b"]),
        Ok(Some("This user has no permissions to run the 'config|set' command".into()))
    );
    assert_eq!(dry(&["PUBLISH", "b", "m"]), Ok(Some("This user has no permissions to access the 'b' channel".into())));
    assert_eq!(dry(&["PSUBSCRIBE", "a*"]), Ok(None));
    assert_eq!(dry(&["PSUBSCRIBE", "a?"]), Ok(Some("This user has no permissions to access the 'a?' channel".into())));
    assert_eq!(dry(&["nosuch"]), Err("ERR Command 'nosuch' not found".into()));
    assert_eq!(dry(&["config", "nosub"]), Err("ERR Command 'config' not found".into()));
    assert_eq!(dry(&["GET"]), Err("ERR wrong number of arguments for 'get' command".into()));
    assert_eq!(
        t.engine.acl_dryrun(b"nobody", &[b"GET", b"k"]).map_err(|e| e.to_string()),
        Err("ERR User 'nobody' not found".into())
    );
    assert!(log(&t).is_empty(), "DRYRUN logs nothing");
    assert!(t.engine.acl_allows(b"u", &[b"GET", b"k1"]));
    assert!(!t.engine.acl_allows(b"u", &[b"GET", b"x"]));
    assert_eq!(t.engine.acl_permit(b"u", &[b"GET", b"k1"], "id=0 name=admin-http", t.now), Ok(()));
    assert_eq!(
        t.engine.acl_permit(b"u", &[b"CONFIG", b"SET", b"a", b"b"], "id=0 name=admin-http", t.now),
        Err("NOPERM this user has no permissions to run the 'config|set' command".into())
    );
    assert_eq!(log(&t), vec![(LogReason::Command, LogContext::TopLevel, "config|set".into(), "u".into(), 1)]);
    assert!(t.engine.acl_login(b"u", b"pw", "c", t.now));
    assert!(!t.engine.acl_login(b"u", b"bad", "c", t.now));
    assert_eq!(log(&t)[0], (LogReason::Auth, LogContext::TopLevel, "AUTH".into(), "u".into(), 1));
    assert_eq!(t.engine.snapshot(t.now).acl_access_denied_auth, 1);
    let mut s = connect(&t, 8);
    assert!(!t.engine.session_as(&mut s, b"nobody"));
    assert!(t.engine.session_as(&mut s, b"u"));
    assert_eq!(
        t.engine.call(&mut s, &["SET", "k", "v"], t.now),
        err("NOPERM this user has no permissions to run the 'set' command")
    );
    assert_eq!(t.engine.session_user(&s).name, b"u");
}
