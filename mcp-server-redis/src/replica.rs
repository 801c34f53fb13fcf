//! Replica ids: what tells the processes sharing one Redis apart (whose heartbeat a key is,
//! whose echo a bus message is).

use std::hash::{BuildHasher, RandomState};
use std::time::{SystemTime, UNIX_EPOCH};

/// A new replica id: 128 bits, hex, from the standard library's randomly keyed hasher over
/// the process id and the time. Unique among replicas, not a secret (nothing is authorized by
/// it).
pub(crate) fn new_replica_id() -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let seed = (std::process::id(), now);
    let high = RandomState::new().hash_one(seed);
    let low = RandomState::new().hash_one(seed);
    format!("{high:016x}{low:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replica_ids_differ_and_are_hex() {
        let a = new_replica_id();
        let b = new_replica_id();
        assert_ne!(a, b);
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
    }
}
