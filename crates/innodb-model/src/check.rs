//! The invariant checker: a full walk of every index that verifies ordering within and
//! across pages, equal leaf depth, sibling chains, page space, parent/child keys, and that
//! counts and height match the walk. Used by property tests after every insert and behind
//! `SimSettings::check_every`.

use crate::page::{dir_res, PageNo};
use crate::space::Space;
use crate::tree::Tree;
use std::fmt;

/// A broken tree invariant, with the index and page where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvariantViolation {
    /// Index name.
    pub index: String,
    /// Page number, when the violation is on one page.
    pub page: Option<u32>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for InvariantViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.page {
            Some(p) => write!(f, "index {} page {}: {}", self.index, p, self.message),
            None => write!(f, "index {}: {}", self.index, self.message),
        }
    }
}

impl std::error::Error for InvariantViolation {}

struct Walk<'a> {
    sp: &'a Space,
    t: &'a Tree,
    /// Pages of each level in key order, as reached from the root.
    levels: Vec<Vec<PageNo>>,
    leaf_records: u64,
}

pub(crate) fn check_tree(sp: &Space, t: &Tree) -> Result<(), InvariantViolation> {
    let err = |page: Option<PageNo>, message: String| InvariantViolation {
        index: t.layout.name.clone(),
        page: page.map(|p| p.0),
        message,
    };
    let root = sp.pages.get(t.root.0 as usize).and_then(|p| p.as_ref());
    let Some(root) = root else { return Err(err(Some(t.root), "root page missing".into())) };
    let height = root.level as usize + 1;
    let mut w = Walk { sp, t, levels: vec![Vec::new(); height], leaf_records: 0 };
    w.visit(t.root, root.level, None, None, &err)?;
    if w.leaf_records != t.records {
        return Err(err(None, format!("{} leaf records, {} inserted", w.leaf_records, t.records)));
    }
    // Sibling chains must list each level's pages in the order the walk met them.
    for (level, pages) in w.levels.iter().enumerate() {
        let chained: Vec<PageNo> = Tree::level_pages(sp, pages[0]).collect();
        if &chained != pages {
            return Err(err(None, format!("level {level}: sibling chain differs from the tree")));
        }
        if sp.page(pages[0]).prev.is_some() {
            return Err(err(Some(pages[0]), "leftmost page has a left sibling".into()));
        }
    }
    if t.leftmost_pages(sp).len() != height {
        return Err(err(None, "height differs from the leftmost descent".into()));
    }
    Ok(())
}

impl Walk<'_> {
    fn visit(
        &mut self,
        p: PageNo,
        level: u16,
        lo: Option<&[u8]>,
        hi: Option<&[u8]>,
        err: &dyn Fn(Option<PageNo>, String) -> InvariantViolation,
    ) -> Result<(), InvariantViolation> {
        let kw = self.t.kw();
        let g = self.sp.geo;
        let Some(page) = self.sp.pages.get(p.0 as usize).and_then(|x| x.as_ref()) else {
            return Err(err(Some(p), "missing page".into()));
        };
        let e = |m: String| Err(err(Some(p), m));
        if page.level != level {
            return e(format!("level {} where {level} was expected", page.level));
        }
        let n = page.len();
        if n == 0 && p != self.t.root {
            return e("empty non-root page".into());
        }
        if page.key_width() != kw || (level > 0 && page.children.len() != n) {
            return e("record arrays differ in length".into());
        }
        if !page.prefixes_consistent(kw) {
            return e("key prefixes differ from the keys".into());
        }
        let data: u32 = page.sizes().map(|s| s as u32).sum();
        if data != page.data_bytes {
            return e(format!("data size {} but records sum to {data}", page.data_bytes));
        }
        if page.heap_bytes != page.data_bytes + page.garbage_bytes {
            return e("heap != data + garbage".into());
        }
        if page.heap_bytes + dir_res(page.n_heap) > g.free_empty {
            return e(format!("page over its size: heap {} bytes", page.heap_bytes));
        }
        if page.n_heap < n as u32 {
            return e("fewer heap records than live records".into());
        }
        if !page.heap_consistent() {
            return e("heap slots, PAGE_FREE and the heap counters disagree".into());
        }
        let free: u32 = page.free_list.iter().map(|r| r.0 as u32).sum();
        // Left-overs of reused free slots stay garbage outside the list.
        if free > page.garbage_bytes {
            return e("PAGE_FREE list holds more bytes than PAGE_GARBAGE".into());
        }
        let min_rec = level > 0 && page.prev.is_none();
        for i in 1..n {
            if min_rec && i == 1 {
                if page.key(0, kw).iter().any(|&b| b != 0) {
                    return e("min-rec record keeps a key".into());
                }
                continue;
            }
            if page.key(i - 1, kw) >= page.key(i, kw) {
                return e(format!("records {} and {i} out of order", i - 1));
            }
        }
        // Keys within the bounds the parent gives; the leftmost record of a non-leaf level
        // is the min-rec and is not compared with the lower bound.
        if n > 0 {
            if let Some(lo) = lo {
                if !min_rec && page.key(0, kw) < lo {
                    return e("first key below its node pointer".into());
                }
            }
            if let Some(hi) = hi {
                if page.key(n - 1, kw) >= hi {
                    return e("last key not below the next node pointer".into());
                }
            }
        }
        self.levels[level as usize].push(p);
        if level == 0 {
            self.leaf_records += n as u64;
            return Ok(());
        }
        for i in 0..n {
            let child = PageNo(page.children[i]);
            let clo = if i == 0 && page.prev.is_none() { lo } else { Some(page.key(i, kw)) };
            let chi = if i + 1 < n { Some(page.key(i + 1, kw)) } else { hi };
            self.visit(child, level - 1, clo, chi, err)?;
        }
        Ok(())
    }
}
