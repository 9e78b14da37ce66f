//! `Key`: a keyspace key that keeps short names inline (no heap allocation, no pointer to
//! chase on lookup) and spills longer ones to the heap. Most cache keys are short
//! (`user:1234:session`), so this saves a malloc per write and a cache miss per lookup.

use std::borrow::Borrow;
use std::hash::{Hash, Hasher};

/// Longest key stored inline; the enum stays 24 bytes, the size of a boxed slice plus tag.
pub const INLINE_MAX: usize = 22;

#[derive(Clone)]
pub enum Key {
    Inline { len: u8, bytes: [u8; INLINE_MAX] },
    Heap(Box<[u8]>),
}

impl Key {
    pub fn new(bytes: &[u8]) -> Key {
        if bytes.len() <= INLINE_MAX {
            let mut buf = [0u8; INLINE_MAX];
            buf[..bytes.len()].copy_from_slice(bytes);
            Key::Inline { len: bytes.len() as u8, bytes: buf }
        } else {
            Key::Heap(bytes.into())
        }
    }

    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Key::Inline { len, bytes } => &bytes[..*len as usize],
            Key::Heap(b) => b,
        }
    }
}

impl std::ops::Deref for Key {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl Borrow<[u8]> for Key {
    fn borrow(&self) -> &[u8] {
        self.as_bytes()
    }
}

// Hash and Eq must agree with `[u8]`'s, so maps keyed by `Key` can be queried with `&[u8]`.
impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state)
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Key {}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", String::from_utf8_lossy(self.as_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn short_keys_stay_inline_and_hash_like_slices() {
        let s = foldhash::fast::FixedState::with_seed(1);
        for len in [0, 1, 22, 23, 100] {
            let bytes = vec![b'k'; len];
            let key = Key::new(&bytes);
            assert_eq!(key.as_bytes(), &bytes[..]);
            assert_eq!(matches!(key, Key::Inline { .. }), len <= INLINE_MAX);
            assert_eq!(s.hash_one(&key), s.hash_one(&bytes[..]));
        }
        assert_eq!(std::mem::size_of::<Key>(), 24);
    }
}
