//! A stream's consumer groups (XGROUP, XREADGROUP, XACK, XPENDING, XCLAIM, ...): filled in by
//! the consumer-groups work. The stream holds one of these, boxed, once a group exists.

/// The consumer groups of one stream.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StreamGroups {}

impl StreamGroups {
    /// Heap bytes the groups hold (the stream adds this to its own accounting).
    pub fn heap_bytes(&self) -> usize {
        0
    }
}
