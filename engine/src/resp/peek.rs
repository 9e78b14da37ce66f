//! A quick look at the key of the next multibulk command, for prefetching its shard's memory
//! before the real decoder runs.

/// For prefetching only: the second argument (the key, for most commands) of the multibulk
/// command at the start of `input`, and the command's length in bytes. A quick scan that
/// checks only what it needs to stay in bounds and gives up (`None`) on anything unusual:
/// inline commands, an odd header, more than [`PEEK_MAX_ARGS`] arguments, an incomplete
/// command. The real decoder still judges every byte; a wrong peek only wastes a prefetch.
pub fn peek_key(input: &[u8]) -> Option<(Option<&[u8]>, usize)> {
    let (count, mut pos) = peek_header(input, b'*')?;
    if count > PEEK_MAX_ARGS {
        return None;
    }
    let mut key = None;
    for i in 0..count {
        let (len, header) = peek_header(&input[pos..], b'$')?;
        let start = pos + header;
        let end = start.checked_add(len)?;
        if end.checked_add(2)? > input.len() {
            return None;
        }
        if i == 1 {
            key = Some(&input[start..end]);
        }
        pos = end + 2;
    }
    Some((key, pos))
}

/// Most arguments [`peek_key`] walks through; longer commands are not worth a prefetch.
pub const PEEK_MAX_ARGS: usize = 64;

/// `<marker><digits>\r\n` at the start of `input`: the number and the header's length.
fn peek_header(input: &[u8], marker: u8) -> Option<(usize, usize)> {
    if input.first() != Some(&marker) {
        return None;
    }
    let mut n = 0usize;
    // Up to 10 digits: more than any length worth peeking at.
    for (i, &b) in input.iter().enumerate().skip(1).take(11) {
        match b {
            b'0'..=b'9' => n = n * 10 + usize::from(b - b'0'),
            b'\r' if i > 1 && i + 1 < input.len() => return Some((n, i + 2)),
            _ => return None,
        }
    }
    None
}
