//! `md5` ids: the MD5 digest of a random UUIDv4's canonical (lowercase, dashed) text, as
//! SQL's `md5(uuid())` makes them. Hashing is the `md-5` crate's.

use crate::uuid::v4;
use md5::{Digest, Md5};
use rand_chacha::ChaCha8Rng;

/// MD5-of-UUID generator state.
#[derive(Debug, Clone)]
pub(crate) struct Md5Gen {
    rng: ChaCha8Rng,
}

impl Md5Gen {
    pub fn new(rng: ChaCha8Rng) -> Md5Gen {
        Md5Gen { rng }
    }

    /// The 16 digest bytes.
    #[inline]
    pub fn next(&mut self) -> [u8; 16] {
        let mut text = [0u8; 36];
        ::uuid::Uuid::from_bytes(v4(&mut self.rng)).hyphenated().encode_lower(&mut text);
        Md5::digest(text).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digest_of_known_text() {
        // md5('6ccd780c-baba-1026-9564-5b8c656024db'), checked with `md5sum`.
        let d: [u8; 16] = Md5::digest(b"6ccd780c-baba-1026-9564-5b8c656024db").into();
        let mut hex = [0u8; 32];
        crate::text::hex_encode(&d, &mut hex);
        assert_eq!(std::str::from_utf8(&hex).unwrap(), KNOWN);
    }

    const KNOWN: &str = "da0d0112fc07bea33991f59875598717";
}
