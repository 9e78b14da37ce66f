//! A list of elements. (skeleton: filled in with the lists commands).
//!
//! Rule for every collection type: `heap_size` is O(1). The type keeps a running byte count
//! updated by each mutation, because `Shard::update` re-measures the value after every write.

/// A list of elements.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListValue {
    /// Accounted heap bytes of the elements (kept up to date by every mutation).
    bytes: usize,
    len: usize,
}

impl ListValue {
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

    /// The value for the admin API and playground: an array of elements.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::Value::Array(vec![])
    }

    /// What `OBJECT ENCODING` answers (listpack / quicklist in Redis).
    pub fn encoding(&self) -> &'static str {
        "hashtable"
    }
}
