//! ACL users from the config file and the aclfile against the real binary: `user` lines at
//! start-up (and CONFIG REWRITE writing them back), ACL SAVE and LOAD through `--aclfile`
//! with Redis's error texts, and the start-ups Redis refuses.

mod common;

use std::process::{Command, Stdio};

use common::Server;
use vitrine_server::testing::TempDir;

fn conn(url: &str) -> redis::Connection {
    redis::Client::open(url).unwrap().get_connection().unwrap()
}

fn query(c: &mut redis::Connection, args: &[&str]) -> Result<redis::Value, String> {
    let mut cmd = redis::cmd(args[0]);
    for a in &args[1..] {
        cmd.arg(*a);
    }
    cmd.query(c).map_err(|e| e.to_string())
}

fn users(c: &mut redis::Connection) -> Vec<String> {
    redis::cmd("ACL").arg("USERS").query(c).unwrap()
}

fn as_user(server: &Server, user: &str, pass: &str) -> redis::Connection {
    conn(&server.url().replacen("redis://", &format!("redis://{user}:{pass}@"), 1))
}

#[test]
fn config_file_users_apply_at_start_up_and_config_rewrite_keeps_them() {
    let dir = TempDir::new("acl-config");
    let file = dir.0.join("vitrine.conf");
    std::fs::write(&file, "# users\nuser reader on >pw ~* +@read\nrequirepass foo\n").unwrap();
    let path = file.to_str().unwrap();
    let server = Server::start(&[path]);
    let mut reader = as_user(&server, "reader", "pw");
    assert_eq!(query(&mut reader, &["GET", "k"]), Ok(redis::Value::Nil));
    let refused = query(&mut reader, &["SET", "k", "v"]).unwrap_err();
    assert!(refused.contains("no permissions to run the 'set' command"), "{refused}");
    let mut admin = as_user(&server, "default", "foo");
    assert_eq!(users(&mut admin), ["default", "reader"]);
    let no_file = query(&mut admin, &["ACL", "SAVE"]).unwrap_err();
    assert!(no_file.contains("not configured to use an ACL file"), "{no_file}");
    query(&mut admin, &["ACL", "SETUSER", "writer", "on", ">w", "~w*", "+@write"]).unwrap();
    query(&mut admin, &["CONFIG", "REWRITE"]).unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with("# users\nuser default on #2c26b46b"), "{text}");
    assert!(text.contains("\nuser reader on #"), "{text}");
    assert!(text.contains("\nuser writer on #"), "{text}");
    drop((reader, admin));
    drop(server);

    let again = Server::start(&[path]);
    let mut writer = as_user(&again, "writer", "w");
    assert_eq!(query(&mut writer, &["SET", "w1", "v"]), Ok(redis::Value::Okay), "the rewritten file read back");
}

#[test]
fn acl_save_and_load_round_trip_through_the_aclfile() {
    let dir = TempDir::new("acl-file");
    let acl = dir.0.join("users.acl");
    std::fs::write(&acl, "user default on nopass ~* &* +@all\nuser bob on >b ~b* +@read\n").unwrap();
    let server = Server::start(&["--aclfile", acl.to_str().unwrap()]);
    let mut c = conn(&server.url());
    assert_eq!(users(&mut c), ["bob", "default"], "loaded at start-up");
    let mut bob = as_user(&server, "bob", "b");
    query(&mut c, &["ACL", "SETUSER", "carol", "on", "nopass", "-@all", "+ping"]).unwrap();
    assert_eq!(query(&mut c, &["ACL", "SAVE"]), Ok(redis::Value::Okay));
    let saved = std::fs::read_to_string(&acl).unwrap();
    let list: Vec<String> = redis::cmd("ACL").arg("LIST").query(&mut c).unwrap();
    assert_eq!(saved, list.iter().map(|l| format!("{l}\n")).collect::<String>(), "one ACL LIST line per user");

    std::fs::write(&acl, "user dave on nopass ~* +@all\n").unwrap();
    assert_eq!(query(&mut c, &["ACL", "LOAD"]), Ok(redis::Value::Okay));
    assert_eq!(users(&mut c), ["dave", "default"], "default recreated when the file has none");
    assert!(query(&mut bob, &["PING"]).is_err(), "LOAD disconnects the other users' clients");

    std::fs::write(&acl, "user eve on +nosuch\nfoo\n").unwrap();
    let err = query(&mut c, &["ACL", "LOAD"]).unwrap_err();
    let path = acl.display();
    assert!(err.contains(&format!("{path}:1: Error in applying operation '+nosuch': Unknown command or category name in ACL. {path}:2 should start with user keyword followed by the username.")), "{err}");
    assert!(
        err.contains("WARNING: ACL errors detected, no change to the previously active ACL rules was performed"),
        "{err}"
    );
    assert_eq!(users(&mut c), ["dave", "default"], "nothing changed");
    std::fs::remove_file(&acl).unwrap();
    let err = query(&mut c, &["ACL", "LOAD"]).unwrap_err();
    assert!(err.contains(&format!("Error loading ACLs, opening file '{path}': No such file or directory")), "{err}");
}

/// Starts the binary with `args`, expects it to exit with an error, and returns its stderr.
fn refused(dir: &TempDir, args: &[&str]) -> String {
    let log = dir.0.join("refused.log");
    let mut command = Command::new(env!("CARGO_BIN_EXE_vitrine"));
    command
        .args(["--port", "0", "--bind", "127.0.0.1", "--http-port", "0", "--dir", dir.0.to_str().unwrap()])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap());
    common::proc::refused_start(&mut command, &log)
}

#[test]
fn start_up_refuses_bad_users_and_users_with_an_aclfile() {
    let dir = TempDir::new("acl-refused");
    let conf = dir.0.join("bad.conf");
    std::fs::write(&conf, "user x on +nosuch\n").unwrap();
    let err = refused(&dir, &[conf.to_str().unwrap()]);
    assert!(
        err.contains(
            "Error loading ACL rule '+nosuch' for the user named 'x': Unknown command or category name in ACL"
        ),
        "{err}"
    );
    std::fs::write(&conf, "user x on\nuser x off\n").unwrap();
    let err = refused(&dir, &[conf.to_str().unwrap()]);
    assert!(err.contains("line 2: Error in user declaration 'x': Duplicate user found."), "{err}");
    let acl = dir.0.join("users.acl");
    std::fs::write(&acl, "user default on nopass ~* &* +@all\n").unwrap();
    std::fs::write(&conf, format!("user x on\naclfile {}\n", acl.display())).unwrap();
    let err = refused(&dir, &[conf.to_str().unwrap()]);
    assert!(
        err.contains("please define either an ACL file or declare users directly in your redis.conf, but not both"),
        "{err}"
    );
    let err = refused(&dir, &["--aclfile", "missing.acl"]);
    assert!(err.contains("Aborting Redis startup because of ACL errors: Error loading ACLs, opening file"), "{err}");
    std::fs::write(&acl, "user bob on +nosuch\n").unwrap();
    let err = refused(&dir, &["--aclfile", acl.to_str().unwrap()]);
    assert!(err.contains("Error in applying operation '+nosuch'"), "{err}");
}
