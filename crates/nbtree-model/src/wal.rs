//! The WAL figures the model predicts: full-page images under a checkpoint clock, and the
//! nbtree split records. After each checkpoint's redo point, the first change to a page
//! that existed before it logs the whole page minus its free hole (`XLogRecordAssemble`
//! with `full_page_writes` on); a page the change itself creates (a new right half, a new
//! root, a new heap page) is logged as initialised and needs no image. It does not count
//! WAL bytes or ordinary records: those depend on statement shapes the model does not see.

use crate::geometry::PAGE_BYTES;

/// The checkpoint clock and what it has counted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Wal {
    /// Checkpoints so far; a page last logged in an earlier epoch needs an image.
    pub epoch: u64,
    /// Full-page images.
    pub full_page_images: u64,
    /// Their bytes (each page minus its hole).
    pub full_page_image_bytes: u64,
    /// `XLOG_BTREE_SPLIT_L` records (the new item went to the left half).
    pub split_left: u64,
    /// `XLOG_BTREE_SPLIT_R` records.
    pub split_right: u64,
    /// `XLOG_BTREE_NEWROOT` records (the first root of an empty index, and root splits).
    pub new_roots: u64,
}

impl Wal {
    /// A checkpoint: every page's next change logs an image.
    pub fn checkpoint(&mut self) {
        self.epoch += 1;
    }

    /// A change to an existing page whose item space has `hole_bytes` free afterwards;
    /// `page_epoch` is the epoch of the page's last logged change.
    pub fn touch(&mut self, page_epoch: &mut u64, hole_bytes: u32) {
        if *page_epoch < self.epoch {
            self.full_page_images += 1;
            self.full_page_image_bytes += u64::from(PAGE_BYTES - hole_bytes);
        }
        *page_epoch = self.epoch;
    }

    /// A page written whole into the WAL (a sorted build's `log_newpage`).
    pub fn image(&mut self, hole_bytes: u32) {
        self.full_page_images += 1;
        self.full_page_image_bytes += u64::from(PAGE_BYTES - hole_bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_image_per_page_per_checkpoint() {
        let mut w = Wal::default();
        let mut page = 0;
        w.touch(&mut page, 100);
        assert_eq!(w.full_page_images, 0, "created in this epoch");
        w.checkpoint();
        w.touch(&mut page, 100);
        w.touch(&mut page, 90);
        assert_eq!((w.full_page_images, w.full_page_image_bytes), (1, 8092));
    }
}
