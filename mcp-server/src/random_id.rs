//! Random ids (HTTP session ids, task ids, the stateless era's connection keys): 16 bytes from
//! the operating system's CSPRNG, hex-encoded.

use std::io::{self, Read};

/// A new random id: 16 bytes from the operating system's CSPRNG, hex-encoded (32 visible
/// ASCII characters).
pub(crate) fn new_random_id() -> io::Result<Box<str>> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    let mut id = String::with_capacity(32);
    for b in bytes {
        id.push(char::from(HEX[usize::from(b >> 4)]));
        id.push(char::from(HEX[usize::from(b & 15)]));
    }
    Ok(id.into())
}

const HEX: &[u8; 16] = b"0123456789abcdef";
