//! The storage device model: turns page reads and writes into an estimated I/O time. Every
//! figure it gives is an estimate from two device constants, not a measurement; it ignores
//! queueing, parallel I/O, caches in the device and the OS, and sequential-access gains.
//!
//! HDD: seek-dominated, a fixed 8 ms per random page I/O (seek + half a rotation of a 7,200
//! rpm disk) plus the transfer at 150 MB/s. SSD: a fixed 20 µs per I/O plus the transfer at
//! 500 MB/s, so the cost per page grows with the page size.

use serde::{Deserialize, Serialize};

/// A storage device class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Device {
    /// A hard disk.
    Hdd,
    /// A flash SSD.
    Ssd,
}

impl Device {
    /// Both device classes.
    pub const ALL: [Device; 2] = [Device::Hdd, Device::Ssd];

    /// Estimated seconds of one random page I/O of `page_bytes`.
    pub fn est_page_io_s(self, page_bytes: u32) -> f64 {
        let (fixed_s, bytes_per_s) = match self {
            Device::Hdd => (8e-3, 150e6),
            Device::Ssd => (20e-6, 500e6),
        };
        fixed_s + page_bytes as f64 / bytes_per_s
    }

    /// Estimated seconds of `reads + writes` random page I/Os.
    pub fn est_io_s(self, reads: u64, writes: u64, page_bytes: u32) -> f64 {
        (reads + writes) as f64 * self.est_page_io_s(page_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hdd_is_seek_bound_and_ssd_scales_with_page_size() {
        let h4 = Device::Hdd.est_page_io_s(4096);
        let h16 = Device::Hdd.est_page_io_s(16384);
        assert!(h16 / h4 < 1.02);
        let s4 = Device::Ssd.est_page_io_s(4096);
        let s16 = Device::Ssd.est_page_io_s(16384);
        assert!(s16 / s4 > 1.5);
    }
}
