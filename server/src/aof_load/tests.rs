//! The loader's unit tests: the scanners on every cut and every flipped bit of a checksum
//! record, plain RESP, manifests, and whole loads from a scratch directory.

use super::redis::parse_manifest;
use super::*;
use crate::aof::TRAILER_LEN;
use vitrine_engine::testing::encode_command;
use vitrine_engine::Config;

fn commands(cmds: &[&[&str]]) -> Vec<u8> {
    let mut raw = Vec::new();
    for c in cmds {
        encode_command(&mut raw, c);
    }
    raw
}

fn block(cmds: &[&[&str]]) -> Vec<u8> {
    let mut out = Vec::new();
    encode_block(&mut out, &commands(cmds));
    out
}

/// What BGREWRITEAOF leaves: one block of many commands.
fn rewritten_file() -> Vec<u8> {
    let keys: Vec<String> = (0..40).map(|i| format!("key:{i}")).collect();
    let cmds: Vec<Vec<&str>> = keys.iter().map(|k| vec!["SET", k.as_str(), "value"]).collect();
    let refs: Vec<&[&str]> = cmds.iter().map(|c| c.as_slice()).collect();
    block(&refs)
}

/// Every offset an error text names ("offset N").
fn offsets(text: &str) -> Vec<usize> {
    text.split("offset ").skip(1).filter_map(|t| t.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()).collect()
}

/// Scans `data` as a file at Vitrine's path is scanned, for an error text naming `path`.
fn refusal_text(data: &[u8]) -> Option<String> {
    match scan_file(data).1 {
        Ok(_) => None,
        Err(r) => {
            assert_ne!(r.kind, RefusalKind::Truncated);
            Some(r.into_error(Path::new("appendonly.aof")).to_string())
        }
    }
}

#[test]
fn a_flip_of_any_bit_of_the_checksum_record_is_refused_naming_an_offset_in_it() {
    for file in [rewritten_file(), [block(&[&["INCR", "n"]]), rewritten_file()].concat()] {
        let record = file.len() - TRAILER_LEN;
        for i in record..file.len() {
            for bit in 0..8 {
                let mut bad = file.clone();
                bad[i] ^= 1 << bit;
                let text = refusal_text(&bad).unwrap_or_else(|| {
                    panic!("a flip of bit {bit} at {i} (record at {record}) was taken for a torn tail")
                });
                assert!(
                    offsets(&text).iter().any(|&o| (record..file.len()).contains(&o)),
                    "bit {bit} at {i}: the error names no offset in the record at {record}: {text}"
                );
            }
        }
    }
}

#[test]
fn a_flipped_length_in_the_record_or_the_last_command_is_refused_not_truncated() {
    let file = rewritten_file();
    let record = file.len() - TRAILER_LEN;
    for (from, to) in [("$8\r\n", "$9\r\n"), ("*2\r\n", "*3\r\n"), ("$6\r\nVCHECK", "$7\r\nVCHECK")] {
        let mut bad = file[..record].to_vec();
        bad.extend_from_slice(&String::from_utf8(file[record..].to_vec()).unwrap().replacen(from, to, 1).into_bytes());
        assert!(refusal_text(&bad).is_some(), "{from:?} -> {to:?}");
    }
    // A value's length grown so that it swallows the checksum record up to the end.
    let mut file = block(&[&["SET", "a", "1"]]);
    file.extend(block(&[&["SET", "b", "0123456789"]]));
    let at = file.windows(5).rposition(|w| w == b"$10\r\n").unwrap();
    file[at + 1] = b'9';
    let text = refusal_text(&file).expect("a length that swallows the record is corruption");
    assert!(text.contains("does not verify"), "{text}");
}

#[test]
fn every_cut_of_a_vitrine_file_recovers_the_complete_blocks_before_it() {
    let mut file = block(&[&["SET", "a", "1"], &["SET", "b", "2"]]);
    let first = file.len();
    file.extend(block(&[&["MULTI"], &["INCR", "n"], &["EXEC"]]));
    let second = file.len();
    file.extend(block(&[&["SET", "c", "3"]]));
    for cut in 0..=file.len() {
        let s = scan_vitrine(&file[..cut]).unwrap_or_else(|e| panic!("cut at {cut} refused: {e:?}"));
        let want = [0, first, second, file.len()].into_iter().filter(|&b| b <= cut).max().unwrap();
        assert_eq!(s.valid_end, want, "cut at {cut}");
        assert_eq!(s.torn.is_some(), want != cut, "cut at {cut}");
        assert_eq!(
            s.commands.len(),
            [0, 2, 5, 6][[0, first, second, file.len()].iter().position(|&b| b == want).unwrap()]
        );
        // Once a block is complete, the file is read as Vitrine's, whatever the cut.
        if cut >= first {
            let (vitrine, scan) = scan_file(&file[..cut]);
            assert!(vitrine, "cut at {cut}");
            assert_eq!(scan.unwrap().valid_end, want, "cut at {cut}");
        }
    }
    // Zeros after the last block (a crash that extended the file but wrote nothing).
    let mut zeros = file[..second].to_vec();
    zeros.extend([0u8; 100]);
    assert_eq!(scan_file(&zeros).1.unwrap().valid_end, second);
}

#[test]
fn a_flip_before_the_last_block_is_refused_even_when_the_rest_looks_torn() {
    let mut file = block(&[&["SET", "a", "1"]]);
    let first = file.len();
    file.extend(block(&[&["SET", "b", "0123456789"]]));
    file.extend(block(&[&["SET", "c", "3"]]));
    for i in 0..file.len() - TRAILER_LEN - 30 {
        for bit in [0x01u8, 0x08, 0x20, 0x80] {
            let mut bad = file.clone();
            bad[i] ^= bit;
            assert!(refusal_text(&bad).is_some(), "flip {bit:#x} at {i} (second block at {first})");
        }
    }
}

#[test]
fn plain_resp_loads_and_only_a_cut_last_command_is_torn() {
    let mut file = b"#TS:1700000000\r\n".to_vec();
    file.extend(commands(&[&["SELECT", "0"], &["SET", "a", "1"]]));
    let a = file.len();
    file.extend(commands(&[&["MULTI"], &["INCR", "n"], &["EXEC"]]));
    let tx = file.len();
    file.extend(commands(&[&["RPUSH", "l", "x", "y"]]));
    let (vitrine, s) = scan_file(&file);
    assert!(!vitrine);
    let s = s.unwrap();
    assert_eq!((s.commands.len(), s.valid_end, s.torn.is_none()), (6, file.len(), true));
    // Where each command ends; a cut between MULTI and EXEC falls back to the MULTI.
    let ends = [16, a - commands(&[&["SET", "a", "1"]]).len(), a, tx, file.len()];
    for cut in 0..file.len() {
        let s = scan_resp(&file[..cut]).unwrap_or_else(|e| panic!("cut at {cut}: {e:?}"));
        let want = if (a..tx).contains(&cut) { a } else { ends.into_iter().filter(|&e| e <= cut).max().unwrap_or(0) };
        assert_eq!(s.valid_end, want, "cut at {cut}");
        assert_eq!(s.torn.is_some(), want != cut, "cut at {cut}");
    }
}

#[test]
fn plain_resp_refuses_garbage_other_databases_and_unknown_commands_at_their_offset() {
    let good = commands(&[&["SET", "a", "1"], &["SET", "b", "2"]]);
    let second = good.len() / 2;
    let mut garbage = good.clone();
    garbage[second + 1] = b'x';
    let r = scan_resp(&garbage).unwrap_err();
    assert_eq!((r.kind, r.offset), (RefusalKind::Corrupt, second + 1));
    let mut text = good.clone();
    text.extend(b"hello\r\n");
    text.extend(&good);
    assert_eq!(scan_resp(&text).unwrap_err().offset, good.len());
    // Other databases are Vitrine's too: a SELECT scans as any command.
    let db = [good.clone(), commands(&[&["SELECT", "1"], &["SET", "c", "3"]])].concat();
    assert_eq!(scan_resp(&db).unwrap().commands.len(), scan_resp(&good).unwrap().commands.len() + 2);
    let unknown = [good.clone(), commands(&[&["NOSUCHCOMMAND", "s", "f", "v"]])].concat();
    let r = scan_resp(&unknown).unwrap_err();
    assert_eq!((r.kind, r.offset), (RefusalKind::Unsupported, good.len()));
    assert!(r.why.contains("'NOSUCHCOMMAND'"), "{}", r.why);
}

#[test]
fn a_value_that_holds_a_checksum_record_does_not_make_a_plain_file_vitrine() {
    let inner = [block(&[&["SET", "x", "1"]]), block(&[&["SET", "y", "2"]])].concat();
    let inner = String::from_utf8(inner).unwrap();
    let plain = commands(&[&["SET", "VCHECK", "VCHECK"], &["SET", "dump", &inner]]);
    // Its records verify (the value is a Vitrine file): refused, never taken for a torn tail.
    assert!(scan_file(&plain).1.is_err());
    let one = commands(&[&["SET", "VCHECK", "*2\r\n$6\r\nVCHECK\r\n$8\r\n00000000\r\n"]]);
    assert!(!is_vitrine(&one));
    assert_eq!(scan_file(&one).1.unwrap().commands.len(), 1);
}

#[test]
fn manifests_are_read_as_redis_7_writes_them() {
    let text = "file appendonly.aof.2.base.aof seq 2 type b\nfile appendonly.aof.1.incr.aof seq 1 type h\nfile appendonly.aof.3.incr.aof seq 3 type i\nfile appendonly.aof.4.incr.aof seq 4 type i\n";
    let parts = parse_manifest(text).unwrap();
    let names: Vec<&str> = parts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["appendonly.aof.2.base.aof", "appendonly.aof.3.incr.aof", "appendonly.aof.4.incr.aof"]);
    assert!(parse_manifest("file a seq 1 type b\nfile b seq 1 type b\n").is_err());
    assert!(parse_manifest("file a seq 2 type i\nfile b seq 1 type i\n").is_err());
    assert!(parse_manifest("file ../x seq 1 type i\n").is_err());
    assert!(parse_manifest("file a seq 1\n").is_err());
}

struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let d = std::env::temp_dir().join(format!("vitrine-aof-load-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        TempDir(d)
    }
    fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const NOW: u64 = 1_700_000_000_000;

fn engine() -> Engine {
    Engine::new(Config::default(), NOW, 7)
}

fn get(e: &Engine, key: &str) -> Reply {
    let mut s = e.new_session("t", "", NOW);
    let r = e.call(&mut s, &["GET", key], NOW);
    e.end_session(&s);
    r
}

#[test]
fn a_torn_tail_is_kept_in_a_copy_before_the_cut() {
    let d = TempDir::new("torn");
    let file = [block(&[&["SET", "a", "1"]]), block(&[&["SET", "b", "2"]])].concat();
    let cut = file.len() - 7;
    std::fs::write(d.0.join("appendonly.aof"), &file[..cut]).unwrap();
    let e = engine();
    let rec = load(&d.0, "appendonly.aof", &e, NOW, true).unwrap();
    let first = block(&[&["SET", "a", "1"]]).len();
    assert_eq!(
        (rec.truncated_at, rec.dropped_bytes, rec.torn_copy_bytes),
        (Some(first as u64), (cut - first) as u64, (cut - first) as u64)
    );
    let copy = rec.torn_copy.unwrap();
    assert_eq!(std::fs::read(&copy).unwrap(), &file[first..cut], "the copy holds exactly the cut bytes");
    assert_eq!(std::fs::read(d.0.join("appendonly.aof")).unwrap(), &file[..first]);
    assert_eq!(get(&e, "a"), Reply::Bulk(b"1".to_vec()));
    // With aof-load-truncated no the same file is refused and left as it is.
    std::fs::write(d.0.join("appendonly.aof"), &file[..cut]).unwrap();
    let err = load(&d.0, "appendonly.aof", &engine(), NOW, false).unwrap_err().to_string();
    assert!(err.contains(&format!("truncated at offset {first}")), "{err}");
    assert_eq!(std::fs::read(d.0.join("appendonly.aof")).unwrap(), &file[..cut]);
}

#[test]
fn a_plain_file_is_loaded_kept_and_replaced_by_vitrines_format() {
    let d = TempDir::new("plain");
    let path = d.0.join("appendonly.aof");
    let plain =
        commands(&[&["SELECT", "0"], &["SET", "a", "1"], &["SET", "t", "v", "PXAT", &(NOW + 60_000).to_string()]]);
    let cut = [plain.clone(), b"*3\r\n$3\r\nSET\r\n$1\r\nb".to_vec()].concat();
    std::fs::write(&path, &cut).unwrap();
    let e = engine();
    let rec = load(&d.0, "appendonly.aof", &e, NOW, true).unwrap();
    assert_eq!((rec.format.as_str(), rec.commands, rec.truncated_at), ("resp", 3, Some(plain.len() as u64)));
    assert_eq!(std::fs::read(rec.torn_copy.unwrap()).unwrap(), &cut[plain.len()..]);
    assert_eq!(std::fs::read(rec.kept_copy.unwrap()).unwrap(), plain, "the plain file, as loaded, is kept");
    let own = std::fs::read(&path).unwrap();
    assert!(is_vitrine(&own));
    let again = engine();
    let rec = load(&d.0, "appendonly.aof", &again, NOW, true).unwrap();
    assert_eq!((rec.format.as_str(), rec.truncated_at, rec.kept_copy), ("vitrine", None, None));
    assert_eq!(get(&again, "a"), Reply::Bulk(b"1".to_vec()));
    assert_eq!(get(&again, "t"), Reply::Bulk(b"v".to_vec()));
    assert_eq!(d.names().len(), 3, "{:?}", d.names());
}

#[test]
fn a_command_the_engine_refuses_stops_the_load_at_its_offset() {
    let d = TempDir::new("cmderr");
    let first = commands(&[&["SET", "a", "x"]]);
    let file = [first.clone(), commands(&[&["INCR", "a"]])].concat();
    std::fs::write(d.0.join("appendonly.aof"), &file).unwrap();
    let err = load(&d.0, "appendonly.aof", &engine(), NOW, true).unwrap_err().to_string();
    assert!(err.contains(&format!("at offset {}", first.len())) && err.contains("not an integer"), "{err}");
    assert_eq!(std::fs::read(d.0.join("appendonly.aof")).unwrap(), file);
}

#[test]
fn redis_multi_part_files_are_read_not_written() {
    let d = TempDir::new("multi");
    let rd = d.0.join(REDIS_DIR);
    std::fs::create_dir_all(&rd).unwrap();
    let manifest = "file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n";
    std::fs::write(rd.join("appendonly.aof.manifest"), manifest).unwrap();
    std::fs::write(rd.join("appendonly.aof.1.base.aof"), commands(&[&["SET", "a", "1"]])).unwrap();
    let incr = [commands(&[&["SELECT", "0"], &["SET", "b", "2"]]), b"*2\r\n$3\r\nDEL".to_vec()].concat();
    std::fs::write(rd.join("appendonly.aof.1.incr.aof"), &incr).unwrap();
    let e = engine();
    let rec = load(&d.0, "appendonly.aof", &e, NOW, true).unwrap();
    assert_eq!((rec.format.as_str(), rec.commands, rec.torn_copy), ("redis-multi-part", 3, None));
    assert_eq!(get(&e, "b"), Reply::Bulk(b"2".to_vec()));
    assert_eq!(std::fs::read(rd.join("appendonly.aof.1.incr.aof")).unwrap(), incr, "Redis's file is not cut");
    assert!(is_vitrine(&std::fs::read(d.0.join("appendonly.aof")).unwrap()));
    // A truncated file that is not the last is refused; so is an RDB base.
    std::fs::remove_file(d.0.join("appendonly.aof")).unwrap();
    std::fs::write(rd.join("appendonly.aof.1.base.aof"), b"*3\r\n$3\r\nSET\r\n$1\r\na").unwrap();
    let err = load(&d.0, "appendonly.aof", &engine(), NOW, true).unwrap_err().to_string();
    assert!(err.contains("not the last file"), "{err}");
    std::fs::write(rd.join("appendonly.aof.1.base.aof"), b"REDIS0010\xfa").unwrap();
    let err = load(&d.0, "appendonly.aof", &engine(), NOW, true).unwrap_err().to_string();
    assert!(err.contains("corrupt at offset") && err.contains("RDB part"), "{err}");
    assert!(!d.0.join("appendonly.aof").exists());
}

#[test]
fn a_single_file_with_an_rdb_preamble_loads_both_parts() {
    let d = TempDir::new("preamble");
    let mut rdb = b"REDIS0009\xfe\x00\x00\x01a\x011".to_vec();
    rdb.push(0xff);
    rdb.extend(crate::rdb::crc64(&rdb).to_le_bytes());
    let file = [rdb.clone(), commands(&[&["SET", "b", "2"]])].concat();
    std::fs::write(d.0.join("appendonly.aof"), &file).unwrap();
    let e = engine();
    let rec = load(&d.0, "appendonly.aof", &e, NOW, true).unwrap();
    assert_eq!((rec.format.as_str(), rec.rdb_keys, rec.commands), ("rdb-preamble", 1, 1));
    assert_eq!(get(&e, "a"), Reply::Bulk(b"1".to_vec()));
    assert_eq!(get(&e, "b"), Reply::Bulk(b"2".to_vec()));
    assert_eq!(std::fs::read(rec.kept_copy.unwrap()).unwrap(), file);
    // A flip in the RDB part is refused before anything is loaded or written.
    // A flip in the RDB part is refused before anything is written: in a value only the
    // CRC-64 sees it, in a length the walk does.
    for (at, says) in [(15, "RDB checksum"), (14, "unknown string encoding")] {
        let mut bad = file.clone();
        bad[at] ^= 0x01;
        std::fs::write(d.0.join("appendonly.aof"), &bad).unwrap();
        let err = load(&d.0, "appendonly.aof", &engine(), NOW, true).unwrap_err().to_string();
        assert!(err.contains("corrupt at offset") && err.contains(says), "{err}");
        assert_eq!(std::fs::read(d.0.join("appendonly.aof")).unwrap(), bad);
    }
}

#[test]
fn a_flip_of_any_bit_anywhere_in_a_file_is_refused_never_taken_for_a_torn_tail() {
    let mut file = block(&[&["SET", "a", "1"], &["RPUSH", "l", "x", "y"]]);
    file.extend(block(&[&["MULTI"], &["INCR", "n"], &["EXEC"]]));
    file.extend(block(&[&["SET", "c", "value"]]));
    for i in 0..file.len() {
        for bit in 0..8 {
            let mut bad = file.clone();
            bad[i] ^= 1 << bit;
            let (_, scan) = scan_file(&bad);
            assert!(scan.is_err(), "bit {bit} at {i} of {}: {scan:?}", file.len());
        }
    }
}

/// The script cache's records: `SCRIPT LOAD`, after the annotation line when EVAL cached the
/// script, in Vitrine's blocks and in a plain file.
#[test]
fn the_eval_script_annotation_marks_the_script_load_after_it() {
    let annotated = [EVAL_SCRIPT_ANNOTATION, b"\r\n", &commands(&[&["SCRIPT", "LOAD", "return 1"]])].concat();
    let raw = [annotated.clone(), commands(&[&["SCRIPT", "LOAD", "return 2"], &["SET", "k", "v"]])].concat();
    let mut file = Vec::new();
    encode_block(&mut file, &raw);
    let scan = scan_vitrine(&file).unwrap();
    let marks: Vec<bool> = scan.commands.iter().map(|c| c.eval_script).collect();
    assert_eq!((marks, scan.valid_end, scan.torn), (vec![true, false, false], file.len(), None));
    let plain = scan_resp(&[b"#TS:1\r\n", &raw[..]].concat()).unwrap();
    assert_eq!(plain.commands.iter().map(|c| c.eval_script).collect::<Vec<_>>(), [true, false, false]);
    // Cut inside the annotation: a torn tail; any other annotation, or one before something
    // else than SCRIPT LOAD, is damage.
    let cut = [file.clone(), EVAL_SCRIPT_ANNOTATION[..6].to_vec()].concat();
    assert_eq!(scan_vitrine(&cut).unwrap().valid_end, file.len());
    let mut other = Vec::new();
    encode_block(&mut other, &[b"#other\r\n", &commands(&[&["SET", "k", "v"]])[..]].concat());
    assert_eq!(scan_vitrine(&other).unwrap_err().kind, RefusalKind::Corrupt);
    let mut misplaced = Vec::new();
    encode_block(&mut misplaced, &[EVAL_SCRIPT_ANNOTATION, b"\r\n", &commands(&[&["SET", "k", "v"]])].concat());
    assert_eq!(scan_vitrine(&misplaced).unwrap_err().kind, RefusalKind::Corrupt);
    // Loaded: both scripts cached (that the annotated one stays evictable: tests/aof_scripts.rs).
    let engine = Engine::new(Config::default(), NOW, 7);
    replay(&engine, NOW, argvs(&file, &scan.commands)).unwrap();
    let mut s = engine.new_session("t", "", NOW);
    let sha1 = |b: &str| sha1_smol::Sha1::from(b).digest().to_string();
    for (body, want) in [("return 1", 1), ("return 2", 2)] {
        assert_eq!(engine.call(&mut s, &[b"EVALSHA", sha1(body).as_bytes(), b"0"], NOW), Reply::Int(want));
    }
}
