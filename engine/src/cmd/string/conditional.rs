//! Conditional writes on strings, in both spellings in use: Valkey 9's DELIFEQ, Redis 8.4's
//! DELEX and DIGEST, and the comparison SET's IFEQ/IFNE/IFDEQ/IFDNE share with DELEX. These
//! are newer than the redis-server 7 the differential test runs, so unit tests check them
//! against the documented replies.

use xxhash_rust::xxh3::xxh3_64;

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::notify::class;
use crate::reply::Reply;
use crate::store::entry::ValueRef;

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

/// DIGEST's text of a string: its XXH3-64 as 16 lowercase hex digits (leading zeros kept).
pub(crate) fn digest(value: &[u8]) -> String {
    format!("{:016x}", xxh3_64(value))
}

/// Redis 8.4 checks only a digest argument's length; its case does not matter, and one
/// that is not hexadecimal simply matches nothing.
const DIGEST_LEN: &str = "The digest must be exactly 16 hexadecimal characters";

/// A digest argument's length, checked before it is compared.
pub(super) fn check_digest(compare: Compare<'_>) -> Result<(), CmdError> {
    match compare {
        Compare::DigestEq(d) | Compare::DigestNe(d) if d.len() != 16 => Err(CmdError::err(DIGEST_LEN)),
        _ => Ok(()),
    }
}

fn digest_matches(given: &[u8], value: &[u8]) -> bool {
    given.eq_ignore_ascii_case(digest(value).as_bytes())
}

/// Deletes a key when the condition holds on its string: 1 if deleted, 0 if the key is
/// missing or the condition fails. Without a condition it deletes a key of any type.
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
    let removed = ctx.db.shard(key).remove(key).is_some();
    if removed {
        ctx.notify(class::GENERIC, "del", key);
    }
    Ok(Reply::Int(removed as i64))
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
/// the one given (Redis 8.4). As Redis checks them: the argument count, then a missing key
/// (0, whatever the condition), then the type, the condition's name and the digest's length.
///
/// ```text
/// DELEX key [IFEQ ifeq-value | IFNE ifne-value | IFDEQ ifdeq-digest | IFDNE ifdne-digest]
/// ```
pub fn delex(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let (word, operand) = match args.rest() {
        [] => return delete_if(ctx, key, None),
        &[word, operand] => (word, operand),
        _ => return Err(CmdError::WrongArity(ctx.cmd.full_name())),
    };
    match ctx.db.lookup(key, ctx.now) {
        None => return Ok(Reply::Int(0)),
        Some(entry) if !matches!(entry.value, ValueRef::Str(_)) => {
            return Err(CmdError::err("Key should be of string type if conditions are specified"))
        }
        Some(_) => {}
    }
    let kind =
        Compare::kind(word).ok_or_else(|| CmdError::err("Invalid condition. Use IFEQ, IFNE, IFDEQ, or IFDNE"))?;
    let compare = kind(operand);
    check_digest(compare)?;
    delete_if(ctx, key, Some(compare))
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
        // Redis's documented example, and values from tests run against Redis 8.4 (a
        // leading zero is kept).
        assert_eq!(digest(b"Hello world"), "b6acb9d84a38ff74");
        assert_eq!(digest(b"hello"), "9555e8555c62dcfd");
        assert_eq!(digest(b""), "2d06800538d394c2");
        assert_eq!(digest(b"123"), "404a763b3f4c8c9a");
        assert_eq!(digest(b"v8"), "0cc76dbb41381419");
        assert!(digest_matches(b"B6ACB9D84A38FF74", b"Hello world"));
        assert!(!digest_matches(b"b6acb9d84a38ff75", b"Hello world"));
        assert!(!digest_matches(b"zzzzzzzzzzzzzzzz", b"Hello world"));
        for bad in [&b""[..], b"0123", b"6acb9d84a38ff74", b"0b6acb9d84a38ff74"] {
            assert_eq!(check_digest(Compare::DigestEq(bad)), Err(CmdError::err(DIGEST_LEN)), "{bad:?}");
        }
        assert_eq!(check_digest(Compare::DigestNe(b"zzzzzzzzzzzzzzzz")), Ok(()));
        assert_eq!(check_digest(Compare::Eq(b"")), Ok(()));
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
