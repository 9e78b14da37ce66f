//! Conditional writes on strings, in both spellings in use: Valkey 9's DELIFEQ, Redis 8.4's
//! DELEX and DIGEST, and the comparison SET's IFEQ/IFNE/IFDEQ/IFDNE share with DELEX. These
//! are newer than the redis-server 7 the differential test runs, so unit tests check them
//! against the documented replies.

use xxhash_rust::xxh3::xxh3_64;

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::reply::Reply;

use super::str_of;

/// A comparison with a key's current string: by value (IFEQ/IFNE) or by its digest
/// (IFDEQ/IFDNE, as DIGEST prints it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Compare<'a> {
    Eq(&'a [u8]),
    Ne(&'a [u8]),
    DigestEq(&'a [u8]),
    DigestNe(&'a [u8]),
}

impl<'a> Compare<'a> {
    /// The comparison an option word names (`IFEQ` ...), ignoring case, waiting for its
    /// argument.
    pub(super) fn kind(word: &[u8]) -> Option<fn(&'a [u8]) -> Compare<'a>> {
        let is = |name: &str| word.eq_ignore_ascii_case(name.as_bytes());
        if is("IFEQ") {
            Some(Compare::Eq)
        } else if is("IFNE") {
            Some(Compare::Ne)
        } else if is("IFDEQ") {
            Some(Compare::DigestEq)
        } else if is("IFDNE") {
            Some(Compare::DigestNe)
        } else {
            None
        }
    }

    pub(super) fn same_kind(self, other: Compare<'_>) -> bool {
        std::mem::discriminant(&self) == std::mem::discriminant(&other)
    }

    /// Whether the write may go ahead on `current` (`None`: the key is missing, where the
    /// "equal" forms refuse and the "not equal" forms write, as Redis 8.4 documents).
    pub(super) fn holds(self, current: Option<&[u8]>) -> bool {
        match (self, current) {
            (Compare::Eq(v), Some(c)) => v == c,
            (Compare::Ne(v), Some(c)) => v != c,
            (Compare::DigestEq(d), Some(c)) => digest_matches(d, c),
            (Compare::DigestNe(d), Some(c)) => !digest_matches(d, c),
            (Compare::Eq(_) | Compare::DigestEq(_), None) => false,
            (Compare::Ne(_) | Compare::DigestNe(_), None) => true,
        }
    }
}

/// DIGEST's text of a string: its XXH3-64 as 16 lowercase hex digits.
pub(crate) fn digest(value: &[u8]) -> String {
    format!("{:016x}", xxh3_64(value))
}

/// A digest argument names `value`'s hash: read as hexadecimal, so case and leading zeros
/// do not matter; anything that is not a 64-bit hex number matches nothing.
fn digest_matches(given: &[u8], value: &[u8]) -> bool {
    let parsed = std::str::from_utf8(given)
        .ok()
        .filter(|s| !s.is_empty() && s.len() <= 16 && s.bytes().all(|b| b.is_ascii_hexdigit()))
        .and_then(|s| u64::from_str_radix(s, 16).ok());
    parsed == Some(xxh3_64(value))
}

/// Deletes a key when the condition holds on its string: 1 if deleted, 0 if the key is
/// missing or the condition fails; WRONGTYPE when a condition meets another type. Without a
/// condition it deletes a key of any type, as DEL.
fn delete_if(ctx: &mut Ctx<'_>, key: &[u8], compare: Option<Compare<'_>>) -> Result<Reply, CmdError> {
    let now = ctx.now;
    let kept = match ctx.db.lookup(key, now) {
        None => true,
        Some(entry) => match compare {
            Some(compare) => !compare.holds(Some(str_of(entry)?)),
            None => false,
        },
    };
    if kept {
        // Nothing deleted: a WATCH on the key survives.
        ctx.leave_unchanged(0);
        return Ok(Reply::Int(0));
    }
    Ok(Reply::Int(ctx.db.shard(key).remove(key).is_some() as i64))
}

/// Deletes a key only if it holds this string (Valkey 9).
///
/// ```text
/// DELIFEQ key value
/// ```
pub fn delifeq(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let value = args.bytes()?;
    delete_if(ctx, key, Some(Compare::Eq(value)))
}

/// Deletes a key, or only when its string (or the string's digest) equals or differs from
/// the one given (Redis 8.4).
///
/// ```text
/// DELEX key [IFEQ ifeq-value | IFNE ifne-value | IFDEQ ifdeq-digest | IFDNE ifdne-digest]
/// ```
pub fn delex(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let compare = match args.rest() {
        [] => None,
        [word, operand] => Some(Compare::kind(word).ok_or(CmdError::Syntax)?(operand)),
        _ => return Err(CmdError::Syntax),
    };
    delete_if(ctx, key, compare)
}

/// The XXH3-64 digest of a key's string as 16 lowercase hex digits, for IFDEQ/IFDNE; nil
/// for a missing key (Redis 8.4).
///
/// ```text
/// DIGEST key
/// ```
pub fn digest_cmd(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    match ctx.db.read(key, ctx.now) {
        Some(entry) => Ok(Reply::bulk(digest(str_of(entry)?))),
        None => Ok(Reply::Nil),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digest_is_xxh3_in_sixteen_lowercase_hex_digits() {
        // Redis's documented example (DIGEST key1 after SET key1 "Hello world").
        assert_eq!(digest(b"Hello world"), "b6acb9d84a38ff74");
        assert_eq!(digest(b"").len(), 16);
        assert!(digest_matches(b"B6ACB9D84A38FF74", b"Hello world"));
        assert!(!digest_matches(b"b6acb9d84a38ff75", b"Hello world"));
        for bad in [&b""[..], b"xyz", b"0b6acb9d84a38ff74", b"+b6acb9d84a38ff7"] {
            assert!(!digest_matches(bad, b"Hello world"), "{bad:?}");
        }
    }

    #[test]
    fn comparisons_on_a_missing_key() {
        assert!(!Compare::Eq(b"a").holds(None));
        assert!(!Compare::DigestEq(b"a").holds(None));
        assert!(Compare::Ne(b"a").holds(None));
        assert!(Compare::DigestNe(b"a").holds(None));
        assert!(Compare::Eq(b"a").holds(Some(b"a")) && !Compare::Ne(b"a").holds(Some(b"a")));
    }
}
