//! Unit tests of the RESP request decoder: multibulk framing and limits, inline commands and
//! their quoting, HTTP detection (integer parsing is `num`'s), read-size hints and the prefetch peek.

use super::*;

#[test]
fn peek_key_finds_the_second_argument_and_the_length() {
    let set = b"*3\r\n$3\r\nSET\r\n$4\r\nuser\r\n$2\r\nhi\r\n*1\r\n$4\r\nPING\r\n";
    let (key, len) = peek_key(set).unwrap();
    assert_eq!(key, Some(&b"user"[..]));
    assert_eq!(len, 31);
    // The decoder agrees on where the command ends.
    assert_eq!(parse_command(set, &Limits::default()).unwrap().unwrap().1, len);
    assert_eq!(peek_key(&set[len..]), Some((None, 14)));
    // Every incomplete prefix, inline commands and odd headers give up.
    for cut in 0..len {
        assert_eq!(peek_key(&set[..cut]), None, "cut at {cut}");
    }
    for odd in [&b"GET user\r\n"[..], b"*2\r\n$3\r\nGET\r\n$-1\r\n", b"*\r\n", b"*99999999999\r\n", b"*100\r\n"] {
        assert_eq!(peek_key(odd), None, "{:?}", String::from_utf8_lossy(odd));
    }
}

type Parsed = Result<Option<(Vec<Vec<u8>>, usize)>, ProtocolError>;

/// Parses with the default limits and turns the arguments into owned byte strings.
fn parse(input: &[u8]) -> Parsed {
    parse_with(input, &Limits::default())
}

fn parse_with(input: &[u8], limits: &Limits) -> Parsed {
    parse_command(input, limits).map(|r| r.map(|(args, used)| (args.into_iter().map(Cow::into_owned).collect(), used)))
}

/// The arguments of a complete command that uses all of `input`.
fn args_of(input: &[u8]) -> Vec<Vec<u8>> {
    match parse(input) {
        Ok(Some((args, used))) => {
            assert_eq!(used, input.len(), "consumed for {input:?}");
            args
        }
        other => panic!("expected a complete command for {input:?}, got {other:?}"),
    }
}

fn err_text(input: &[u8]) -> String {
    match parse(input) {
        Err(e) => e.to_string(),
        other => panic!("expected an error for {input:?}, got {other:?}"),
    }
}

fn v(items: &[&[u8]]) -> Vec<Vec<u8>> {
    items.iter().map(|a| a.to_vec()).collect()
}

fn encode(args: &[Vec<u8>]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", args.len()).into_bytes();
    for a in args {
        out.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
        out.extend_from_slice(a);
        out.extend_from_slice(b"\r\n");
    }
    out
}

fn cows(args: &[&str]) -> Vec<Cow<'static, [u8]>> {
    args.iter().map(|a| Cow::Owned(a.as_bytes().to_vec())).collect()
}

#[test]
fn complete_multibulk() {
    assert_eq!(args_of(b"*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n"), v(&[b"SET", b"key", b"value"]));
}

#[test]
fn multibulk_args_are_borrowed_from_the_input() {
    let input = b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n";
    let (args, _) = parse_command(input, &Limits::default()).unwrap().unwrap();
    assert!(args.iter().all(|a| matches!(a, Cow::Borrowed(_))));
}

#[test]
fn empty_bulk_argument() {
    assert_eq!(args_of(b"*2\r\n$4\r\nECHO\r\n$0\r\n\r\n"), v(&[b"ECHO", b""]));
}

#[test]
fn pipelined_commands_are_decoded_one_at_a_time() {
    let input = b"*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\nPING\r\n*2\r\n$3\r\nGE";
    let (args, used) = parse(input).unwrap().unwrap();
    assert_eq!(args, v(&[b"PING"]));
    assert_eq!(used, 14);
    let rest = &input[used..];
    let (args, used2) = parse(rest).unwrap().unwrap();
    assert_eq!(args, v(&[b"GET", b"k"]));
    assert_eq!(used2, 20);
    let rest = &rest[used2..];
    let (args, used3) = parse(rest).unwrap().unwrap();
    assert_eq!(args, v(&[b"PING"]));
    assert_eq!(used3, 6);
    assert_eq!(parse(&rest[used3..]), Ok(None));
}

#[test]
fn every_split_point_is_incomplete() {
    let commands: [&[u8]; 4] = [
        b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$10\r\n0123456789\r\n",
        b"*2\r\n$4\r\nECHO\r\n$0\r\n\r\n",
        b"SET \"a b\" 'c d'\r\n",
        b"PING\n",
    ];
    for cmd in commands {
        for i in 0..cmd.len() {
            assert_eq!(parse(&cmd[..i]), Ok(None), "prefix {:?}", &cmd[..i]);
        }
        let (_, used) = parse(cmd).unwrap().unwrap();
        assert_eq!(used, cmd.len());
    }
}

#[test]
fn arguments_are_binary_safe() {
    let value: &[u8] = b"a\r\nb\0c\r\n*1\r\n$";
    let input = encode(&[b"SET".to_vec(), b"\0".to_vec(), value.to_vec()]);
    assert_eq!(args_of(&input), v(&[b"SET", b"\0", value]));
}

#[test]
fn random_commands_round_trip() {
    // A small xorshift generator keeps this deterministic without a dependency.
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..500 {
        let argc = (next() % 6) as usize + 1;
        let args: Vec<Vec<u8>> = (0..argc)
            .map(|_| {
                let len = (next() % 20) as usize;
                (0..len).map(|_| (next() % 256) as u8).collect()
            })
            .collect();
        let mut input = encode(&args);
        let whole = input.len();
        input.extend_from_slice(b"*1\r\n$4\r\nPI");
        assert_eq!(parse(&input), Ok(Some((args, whole))));
        let cut = (next() as usize) % whole;
        assert_eq!(parse(&input[..cut]), Ok(None));
    }
}

#[test]
fn garbage_never_panics_and_always_makes_progress() {
    let alphabet = b"*$\r\n-0123456789\"'\\x aZ+";
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..20_000 {
        let len = (next() % 24) as usize;
        let mut input: Vec<u8> = (0..len).map(|_| alphabet[(next() as usize) % alphabet.len()]).collect();
        if next() % 2 == 0 {
            input.insert(0, b'*');
        }
        if let Ok(Some((_, used))) = parse(&input) {
            assert!(used > 0 && used <= input.len(), "{input:?} used {used}");
        }
    }
}

#[test]
fn trailing_crlf_of_a_bulk_is_skipped_unchecked_like_redis() {
    assert_eq!(args_of(b"*1\r\n$4\r\nPINGxy"), v(&[b"PING"]));
    // The byte after a header's \r is not checked either.
    assert_eq!(args_of(b"*1\rx$4\ryPING\r\n"), v(&[b"PING"]));
}

#[test]
fn empty_and_negative_multibulk_counts_are_empty_commands() {
    assert_eq!(parse(b"*0\r\nPING"), Ok(Some((vec![], 4))));
    assert_eq!(parse(b"*-1\r\n"), Ok(Some((vec![], 5))));
    assert_eq!(parse(b"*-9223372036854775808\r\n"), Ok(Some((vec![], 23))));
}

#[test]
fn invalid_multibulk_length() {
    let text = "ERR Protocol error: invalid multibulk length";
    for input in [
        &b"*abc\r\n"[..],
        b"*\r\n",
        b"*-\r\n",
        b"*01\r\n",
        b"*+1\r\n",
        b"* 1\r\n",
        b"*1 \r\n",
        b"*-0\r\n",
        b"*9223372036854775808\r\n",
        b"*99999999999999999999999\r\n",
        b"*1048577\r\n",
    ] {
        assert_eq!(err_text(input), text, "{input:?}");
    }
    // The limit itself is allowed (and reserves no more than the cap).
    assert_eq!(parse(b"*1048576\r\n$1\r\n"), Ok(None));
    let small = Limits { max_multibulk_len: 2, ..Limits::default() };
    assert_eq!(parse_with(b"*3\r\n", &small), Err(ProtocolError::InvalidMultibulkLength));
}

#[test]
fn expected_dollar() {
    assert_eq!(err_text(b"*1\r\n+foo\r\n"), "ERR Protocol error: expected '$', got '+'");
    assert_eq!(err_text(b"*2\r\n$3\r\nGET\r\n:1\r\n"), "ERR Protocol error: expected '$', got ':'");
}

#[test]
fn invalid_bulk_length() {
    let text = "ERR Protocol error: invalid bulk length";
    for input in [
        &b"*1\r\n$-5\r\n"[..],
        b"*1\r\n$-1\r\n",
        b"*1\r\n$abc\r\n",
        b"*1\r\n$\r\n",
        b"*1\r\n$03\r\nfoo\r\n",
        b"*1\r\n$2147483648\r\n",
        b"*1\r\n$536870913\r\n",
        b"*1\r\n$9223372036854775808\r\n",
    ] {
        assert_eq!(err_text(input), text, "{input:?}");
    }
    let small = Limits { max_bulk_len: 3, ..Limits::default() };
    assert_eq!(parse_with(b"*1\r\n$3\r\nGET\r\n", &small).map(|r| r.is_some()), Ok(true));
    assert_eq!(parse_with(b"*1\r\n$4\r\n", &small), Err(ProtocolError::InvalidBulkLength));
}

#[test]
fn errors_are_reported_before_the_command_is_complete() {
    // Like Redis, a bad header is an error as soon as it has arrived.
    assert_eq!(parse(b"*3\r\n$3\r\nSET\r\n$x\r\n"), Err(ProtocolError::InvalidBulkLength));
}

#[test]
fn huge_announced_bulk_waits_without_allocating() {
    let input = b"*2\r\n$3\r\nSET\r\n$536870912\r\nabc";
    assert_eq!(parse(input), Ok(None));
    // A huge announced count reserves only a bounded number of slots.
    let mut args = Vec::new();
    let scan = scan_multibulk(b"*1048576\r\n$1\r\nx\r\n", &Limits::default(), Some(&mut args));
    assert!(matches!(scan, Ok(Scan::Incomplete)));
    assert_eq!(args.len(), 1);
    assert!(args.capacity() <= MAX_PREALLOC_ARGS, "{}", args.capacity());
}

#[test]
fn header_lines_without_cr_are_limited() {
    let mut input = b"*".to_vec();
    input.resize(INLINE_MAX, b'1');
    assert_eq!(parse(&input), Ok(None));
    input.push(b'1');
    assert_eq!(err_text(&input), "ERR Protocol error: too big mbulk count string");

    let mut input = b"*1\r\n$".to_vec();
    input.resize(4 + INLINE_MAX, b'1');
    assert_eq!(parse(&input), Ok(None));
    input.push(b'1');
    assert_eq!(err_text(&input), "ERR Protocol error: too big bulk count string");
}

#[test]
fn inline_commands() {
    assert_eq!(args_of(b"PING\r\n"), v(&[b"PING"]));
    assert_eq!(args_of(b"PING\n"), v(&[b"PING"]));
    assert_eq!(args_of(b"  set\tkey   value \r\n"), v(&[b"set", b"key", b"value"]));
    // \v and \f separate words only between words, as in sdssplitargs.
    assert_eq!(args_of(b"a\x0bb\x0c c\n"), v(&[b"a\x0bb\x0c", b"c"]));
    // A bare \r inside the line ends a word.
    assert_eq!(args_of(b"a\rb\r\n"), v(&[b"a", b"b"]));
    // A NUL ends the line, as it does for sdssplitargs' C string.
    assert_eq!(args_of(b"GET k\0ignored\r\n"), v(&[b"GET", b"k"]));
}

#[test]
fn empty_inline_lines_are_empty_commands() {
    assert_eq!(parse(b"\r\nPING\r\n"), Ok(Some((vec![], 2))));
    assert_eq!(parse(b"\n"), Ok(Some((vec![], 1))));
    assert_eq!(parse(b"   \t \r\n"), Ok(Some((vec![], 7))));
}

#[test]
fn inline_quoting() {
    assert_eq!(args_of(b"SET \"a b\" 'c d'\r\n"), v(&[b"SET", b"a b", b"c d"]));
    assert_eq!(args_of(b"\"\\x41\\n\"\r\n"), v(&[b"A\n"]));
    assert_eq!(args_of(b"\"\\r\\t\\b\\a\\\\\\\"\\q\\x4a\\x4G\"\n"), v(&[b"\r\t\x08\x07\\\"qJx4G"]));
    assert_eq!(args_of(b"'it\\'s' 'a\\nb'\n"), v(&[b"it's", b"a\\nb"]));
    assert_eq!(args_of(b"\"\" ''\n"), v(&[b"", b""]));
    // Quotes may start in the middle of a word.
    assert_eq!(args_of(b"ab\"c d\"\n"), v(&[b"abc d"]));
    assert_eq!(args_of(b"\"\\x00\"\n"), v(&[b"\0"]));
    // A closing quote may be followed by any whitespace.
    assert_eq!(args_of(b"\"a\"\x0b'b'\n"), v(&[b"a", b"b"]));
}

#[test]
fn inline_words_without_escapes_are_borrowed() {
    let (args, _) = parse_command(b"GET \"k y\" 'z' a\"b\"\n", &Limits::default()).unwrap().unwrap();
    assert!(matches!(args[0], Cow::Borrowed(b"GET")));
    assert!(matches!(args[1], Cow::Borrowed(b"k y")));
    assert!(matches!(args[2], Cow::Borrowed(b"z")));
    assert!(matches!(&args[3], Cow::Owned(w) if w == b"ab"));
}

#[test]
fn unbalanced_quotes() {
    let text = "ERR Protocol error: unbalanced quotes in request";
    for input in
        [&b"SET \"a b\r\n"[..], b"SET 'a\r\n", b"SET \"a\"b\r\n", b"SET 'a'b\r\n", b"\"\\\"\n", b"'\\'\n", b"\"a\0\"\n"]
    {
        assert_eq!(err_text(input), text, "{input:?}");
    }
}

#[test]
fn inline_too_big() {
    let mut input = vec![b'a'; 70 * 1024];
    assert_eq!(err_text(&input), "ERR Protocol error: too big inline request");
    input.truncate(INLINE_MAX);
    assert_eq!(parse(&input), Ok(None));
    // With its newline, a long line is accepted (Redis limits only the wait for it).
    input.push(b'\n');
    assert_eq!(args_of(&input).len(), 1);
}

#[test]
fn empty_input_is_incomplete() {
    assert_eq!(parse(b""), Ok(None));
}

#[test]
fn http_detection() {
    for yes in [
        &["GET", "/", "HTTP/1.1"][..],
        &["POST", "/x", "HTTP/1.1"],
        &["post"],
        &["POST", "/api"],
        &["Host:", "x"],
        &["host:example.com"],
        &["HOST:"],
        &["delete", "/k", "http/1.0"],
        &["CONNECT", "example.com:443", "HTTP/1.1"],
    ] {
        assert!(looks_like_http(&cows(yes)), "{yes:?}");
    }
    for no in [
        &[][..],
        &["GET", "key"],
        &["GET", "HTTP/1.1"],
        &["SET", "/", "HTTP/1.1"],
        &["GET", "/", "HTTPS"],
        &["host"],
        &["PING"],
    ] {
        assert!(!looks_like_http(&cows(no)), "{no:?}");
    }
    let (args, _) = parse_command(b"GET / HTTP/1.1\r\n", &Limits::default()).unwrap().unwrap();
    assert!(looks_like_http(&args));
}
