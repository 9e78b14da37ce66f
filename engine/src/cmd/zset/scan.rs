//! ZSCAN, with scores formatted as the set's encoding stores them.

use crate::args::Args;
use crate::cmd::collection::{scan_cursor, scan_reply, ScanOf, ScanOptions};
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::num::{format_double, format_g17};
use crate::reply::Reply;

use super::read;

/// One step of an iteration over a sorted set's members and scores. A small set (listpack)
/// is answered whole, in order, with cursor 0; a big one about COUNT members at a time.
///
/// ```text
/// ZSCAN key cursor [MATCH pattern] [COUNT count]
/// ```
pub fn zscan(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let cursor = scan_cursor(args.bytes()?)?;
    // As Redis: a missing key answers before the options are looked at.
    let Some(z) = read(ctx, key)? else {
        return Ok(scan_reply(0, Vec::new()));
    };
    let opts = ScanOptions::parse(args, ScanOf::SortedSet)?;
    let mut found = Vec::new();
    let mut visit = |member: &[u8], score: String| {
        if opts.matches(member) {
            found.push(Reply::bulk(member));
            found.push(Reply::Bulk(score.into_bytes()));
        }
    };
    let next = if z.is_big() {
        // Redis formats a skiplist's scores with `%.17Lg`, which for a double is `%.17g`.
        z.scan(cursor, opts.count, |m, s| visit(m, format_double(s)))
    } else {
        // A listpack holds scores as text, and ZSCAN answers that text.
        z.iter().for_each(|(m, s)| visit(m, listpack_score_text(s)));
        0
    };
    Ok(scan_reply(next, found))
}

/// A score as Redis 7.0's `d2string` writes it into a listpack: an integral value within
/// ±2^62 as an integer (so -0 is `0`), anything else as `%.17g`.
pub(super) fn listpack_score_text(score: f64) -> String {
    const LIMIT: f64 = 4_611_686_018_427_387_904.0; // (double)(LLONG_MAX / 2)
    if score.is_finite() && score == score.trunc() && (-LIMIT..=LIMIT).contains(&score) {
        (score as i64).to_string()
    } else if score.is_finite() {
        format_g17(score)
    } else {
        format_double(score)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listpack_score_text_as_d2string() {
        assert_eq!(listpack_score_text(-0.0), "0");
        assert_eq!(listpack_score_text(3.0), "3");
        assert_eq!(listpack_score_text(-4611686018427387904.0), "-4611686018427387904");
        assert_eq!(listpack_score_text(9_223_372_036_854_775_808.0), "9.2233720368547758e+18");
        assert_eq!(listpack_score_text(0.1), "0.10000000000000001");
        assert_eq!(listpack_score_text(f64::NEG_INFINITY), "-inf");
    }
}
