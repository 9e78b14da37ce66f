//! A hash: field -> value. (skeleton: filled in with the hashes commands).
//!
//! Rule for every collection type: `heap_size` is O(1). The type keeps a running byte count
//! updated by each mutation, because `Shard::update` re-measures the value after every write.

/// A hash: field -> value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HashValue {
    /// Accounted heap bytes of the elements (kept up to date by every mutation).
    bytes: usize,
    len: usize,
}

impl HashValue {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Heap bytes held, in O(1).
    pub fn heap_size(&self) -> usize {
        self.bytes
    }

    /// The value for the admin API and playground: an object of field -> value (byte strings as in reply_json).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::Value::Array(vec![])
    }

    /// What `OBJECT ENCODING` answers (listpack / hashtable in Redis).
    pub fn encoding(&self) -> &'static str {
        "hashtable"
    }
}
