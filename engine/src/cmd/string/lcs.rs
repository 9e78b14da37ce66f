//! LCS: the longest common subsequence of two strings, with Redis 7's table walk so the
//! ranges IDX reports (and their order) are the ones Redis reports.

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::reply::Reply;

/// LCS: the longest common subsequence of the strings at two keys (a missing key is empty);
/// LEN answers its length, IDX the matching ranges (last first) and the length.
///
/// ```text
/// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN min-match-len] [WITHMATCHLEN]
/// ```
pub fn lcs(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    // Both keys are looked up before either's type is checked, as Redis does (a miss on the
    // second is published even when the first holds another type).
    let a = string_or_empty(ctx, args.key()?);
    let b = string_or_empty(ctx, args.key()?);
    let (a, b) = (a?, b?);
    let (mut len, mut idx, mut with_len, mut min_len) = (false, false, false, 0u64);
    while let Some(opt) = args.peek() {
        args.bytes()?;
        if opt.eq_ignore_ascii_case(b"IDX") {
            idx = true;
        } else if opt.eq_ignore_ascii_case(b"LEN") {
            len = true;
        } else if opt.eq_ignore_ascii_case(b"WITHMATCHLEN") {
            with_len = true;
        } else if opt.eq_ignore_ascii_case(b"MINMATCHLEN") && !args.is_empty() {
            // Redis reads a negative minimum as no minimum.
            min_len = args.int()?.max(0) as u64;
        } else {
            return Err(CmdError::Syntax);
        }
    }
    if idx && len {
        return Err(CmdError::err("If you want both the length and indexes, please just use IDX."));
    }
    // Redis refuses a table larger than proto-max-bulk-len before allocating it.
    let cells = (a.len() as u64 + 1) * (b.len() as u64 + 1);
    if cells.saturating_mul(4) > ctx.engine.config().proto_max_bulk_len() {
        return Err(CmdError::err("Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len"));
    }
    let table = Table::new(&a, &b);
    let total = table.at(a.len(), b.len());
    if len && !idx {
        return Ok(Reply::Int(total as i64));
    }
    let (common, ranges) = table.walk(&a, &b);
    if !idx {
        return Ok(Reply::Bulk(common));
    }
    let matches = ranges
        .into_iter()
        .filter(|m| min_len == 0 || m.len() >= min_len)
        .map(|m| {
            let mut item = vec![pair(m.a), pair(m.b)];
            if with_len {
                item.push(Reply::Int(m.len() as i64));
            }
            Reply::Array(item)
        })
        .collect();
    Ok(Reply::Map(vec![
        (Reply::bulk("matches"), Reply::Array(matches)),
        (Reply::bulk("len"), Reply::Int(total as i64)),
    ]))
}

/// The string at a key, empty if the key is missing; LCS's own error for another type.
fn string_or_empty(ctx: &mut Ctx<'_>, key: &[u8]) -> Result<Vec<u8>, CmdError> {
    match ctx.db.read(key, ctx.now) {
        Some(entry) => super::str_of(entry)
            .map(<[u8]>::to_vec)
            .map_err(|_| CmdError::err("The specified keys must contain string values")),
        None => Ok(Vec::new()),
    }
}

fn pair((start, end): (usize, usize)) -> Reply {
    Reply::Array(vec![Reply::Int(start as i64), Reply::Int(end as i64)])
}

/// One matching range: inclusive offsets in each string.
struct Match {
    a: (usize, usize),
    b: (usize, usize),
}

impl Match {
    fn len(&self) -> u64 {
        (self.a.1 - self.a.0 + 1) as u64
    }
}

/// The dynamic-programming table: `at(i, j)` is the LCS length of `a[..i]` and `b[..j]`.
struct Table {
    cells: Vec<u32>,
    width: usize,
}

impl Table {
    fn new(a: &[u8], b: &[u8]) -> Table {
        let width = b.len() + 1;
        let mut cells = vec![0u32; (a.len() + 1) * width];
        for i in 1..=a.len() {
            for j in 1..=b.len() {
                cells[i * width + j] = if a[i - 1] == b[j - 1] {
                    cells[(i - 1) * width + j - 1] + 1
                } else {
                    cells[(i - 1) * width + j].max(cells[i * width + j - 1])
                };
            }
        }
        Table { cells, width }
    }

    fn at(&self, i: usize, j: usize) -> u32 {
        self.cells[i * self.width + j]
    }

    /// Walks back from the end as Redis's `lcsCommand` does: the subsequence, and the
    /// contiguous ranges in the order Redis emits them (from the ends of the strings).
    fn walk(&self, a: &[u8], b: &[u8]) -> (Vec<u8>, Vec<Match>) {
        let total = self.at(a.len(), b.len()) as usize;
        let mut common = vec![0u8; total];
        let mut ranges = Vec::new();
        let mut current: Option<Match> = None;
        let (mut i, mut j, mut k) = (a.len(), b.len(), total);
        while i > 0 && j > 0 {
            let mut emit = false;
            if a[i - 1] == b[j - 1] {
                common[k - 1] = a[i - 1];
                match &mut current {
                    None => current = Some(Match { a: (i - 1, i - 1), b: (j - 1, j - 1) }),
                    // After a match the walk steps diagonally, so a match always extends
                    // the current range backwards.
                    Some(m) => {
                        m.a.0 -= 1;
                        m.b.0 -= 1;
                    }
                }
                if current.as_ref().is_some_and(|m| m.a.0 == 0 || m.b.0 == 0) {
                    emit = true;
                }
                k -= 1;
                i -= 1;
                j -= 1;
            } else {
                if self.at(i - 1, j) > self.at(i, j - 1) {
                    i -= 1;
                } else {
                    j -= 1;
                }
                emit = current.is_some();
            }
            if emit {
                ranges.extend(current.take());
            }
        }
        (common, ranges)
    }
}
