// splitmix64, the one seeded generator of the simulator's tests, tools and benchmark
// (included with `include!`; hand-written so that the sim crate needs no random-number crate
// and no key generator). Files that include it add their own `impl Rng` blocks.

/// splitmix64.
#[derive(Clone)]
pub struct Rng(pub u64);
impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}
