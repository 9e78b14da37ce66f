//! Password hashes: SHA-256 (Redis stores and prints them as 64 lowercase hex digits) and a
//! comparison that takes the same time wherever the hashes differ.

/// SHA-256 of `password`.
pub(crate) fn hash(password: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(password).into()
}

/// Whether the hash of `password` is one of `hashes`, in time independent of where they differ.
pub(crate) fn matches_any(hashes: &[[u8; 32]], password: &[u8]) -> bool {
    let h = hash(password);
    hashes
        .iter()
        .fold(false, |found, stored| found | (stored.iter().zip(h.iter()).fold(0u8, |d, (a, b)| d | (a ^ b)) == 0))
}
