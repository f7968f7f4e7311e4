//! splitmix64, the one seeded generator of the simulator's tests, tools and benchmark
//! (hand-written so that the sim crate needs no random-number crate and no key generator),
//! with the keys the workloads draw from it.
//!
//! Not for: anything the model itself computes; the model keeps no entropy.

/// splitmix64.
#[derive(Clone)]
pub struct Rng(pub u64);
impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

impl Rng {
    /// A random 16-byte key (uuid4:bin-like).
    pub fn random16(&mut self) -> [u8; 16] {
        let mut k = [0u8; 16];
        k[..8].copy_from_slice(&self.next_u64().to_be_bytes());
        k[8..].copy_from_slice(&self.next_u64().to_be_bytes());
        k
    }

    /// 32 lowercase hex characters, distributed like `md5(uuid())`.
    pub fn md5_hex(&mut self) -> Vec<u8> {
        format!("{:016x}{:016x}", self.next_u64(), self.next_u64()).into_bytes()
    }
}
