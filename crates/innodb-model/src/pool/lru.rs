//! The buffer pool's LRU list (docs/model-rules.md §9, `buf0lru.cc`): a page joins at the
//! head or, read on a miss, at the midpoint (`buf_LRU_add_block`); a hit may make it young
//! (`buf_page_make_young_if_needed`); pages leave from the tail; the old sublist is kept at
//! `innodb_old_blocks_pct` of the list (`buf_LRU_old_adjust_len`).

use super::{Node, Pool, LRU_MIN_LEN, NIL, OLD_MIN_LEN};

/// `BUF_LRU_OLD_TOLERANCE`.
const OLD_TOLERANCE: usize = 20;

impl Pool {
    /// `buf_page_make_young_if_needed` for a hit.
    pub(super) fn make_young_if_needed(&mut self, p: u32, now: u64) {
        if self.freed_clock == 0 {
            // Nothing is moved before the first eviction.
            return;
        }
        let n = self.nodes[p as usize];
        if n.old {
            let delay = self.settings.old_blocks_ops;
            let first = n.first_access.unwrap_or(now);
            if delay > 0 && now.saturating_sub(first) < delay {
                self.counters.not_made_young += 1;
                return;
            }
        } else {
            // buf_page_peek_if_young: recently made young pages stay where they are.
            let ratio = self.settings.old_blocks_pct as u64;
            let young_enough = self.capacity as u64 * (100 - ratio) / 100 / 4;
            if self.freed_clock.saturating_sub(n.young_clock) < young_enough {
                return;
            }
        }
        if self.head == p {
            return;
        }
        self.counters.made_young += n.old as u64;
        self.remove(p);
        self.insert(p, false);
    }

    /// `buf_LRU_add_block`: `old` pages go right after the first old page once the list has an
    /// old sublist; others to the head. Evicts from the tail when the pool is full, and runs
    /// the page cleaner's LRU batch when free pages run low.
    pub(super) fn insert(&mut self, p: u32, old: bool) {
        let room = self.capacity.saturating_sub(self.ibuf.pool_pages(self.capacity));
        while self.len >= room.max(1) {
            self.evict();
        }
        // The page cleaner keeps free pages: once fewer than half of `innodb_lru_scan_depth`
        // are free and the LRU holds more than `BUF_LRU_MIN_LEN` pages
        // (`buf_pool_t::need_LRU_eviction`, woken from `buf_LRU_get_free_block`), it runs an
        // LRU batch ([`Pool::lru_batch`]). It runs before `p` joins the list, counting `p` in
        // (the server's batch skips the page being read, which is buffer-fixed).
        let depth = self.settings.lru_scan_depth;
        if depth > 0 && self.len + 1 > LRU_MIN_LEN && room.saturating_sub(self.len + 1) < depth / 2
        {
            self.lru_batch(room);
        }
        let (clock, now) = (self.freed_clock, self.counters.ops);
        let (head, old_first) = (self.head, self.old_first);
        let use_old = old && old_first != NIL && self.len >= OLD_MIN_LEN;
        if use_old {
            let after = old_first;
            let next = self.nodes[after as usize].next;
            *self.node(p) = Node {
                prev: after,
                next,
                in_pool: true,
                old: true,
                dirty: false,
                first_access: None,
                young_clock: clock,
                last_op: now,
            };
            self.nodes[after as usize].next = p;
            if next != NIL {
                self.nodes[next as usize].prev = p;
            } else {
                self.tail = p;
            }
            self.old_len += 1;
        } else {
            *self.node(p) = Node {
                prev: NIL,
                next: head,
                in_pool: true,
                old: false,
                dirty: false,
                first_access: None,
                young_clock: clock,
                last_op: now,
            };
            if head != NIL {
                self.nodes[head as usize].prev = p;
            } else {
                self.tail = p;
            }
            self.head = p;
        }
        self.len += 1;
        self.adjust_old();
    }

    pub(super) fn remove(&mut self, p: u32) {
        let n = self.nodes[p as usize];
        debug_assert!(n.in_pool);
        if self.old_first == p {
            // buf_LRU_remove_block: LRU_old moves to the previous block, which becomes old.
            self.old_first = n.prev;
            if n.prev != NIL {
                if !self.nodes[n.prev as usize].old {
                    self.nodes[n.prev as usize].old = true;
                    self.old_len += 1;
                }
            } else {
                self.old_first = n.next;
            }
        }
        if n.old {
            self.old_len -= 1;
        }
        if n.prev != NIL {
            self.nodes[n.prev as usize].next = n.next;
        } else {
            self.head = n.next;
        }
        if n.next != NIL {
            self.nodes[n.next as usize].prev = n.prev;
        } else {
            self.tail = n.prev;
        }
        let m = &mut self.nodes[p as usize];
        m.in_pool = false;
        m.old = false;
        m.prev = NIL;
        m.next = NIL;
        self.len -= 1;
        if self.len < OLD_MIN_LEN {
            // buf_LRU_old_init is redone when the list grows back.
            let mut q = self.head;
            while q != NIL && self.old_len > 0 {
                let node = &mut self.nodes[q as usize];
                if node.old {
                    node.old = false;
                    self.old_len -= 1;
                }
                q = node.next;
            }
            self.old_first = NIL;
            self.old_len = 0;
        } else {
            self.adjust_old();
        }
    }

    fn evict(&mut self) {
        self.evict_page(self.tail);
    }

    pub(super) fn evict_page(&mut self, t: u32) {
        debug_assert!(t != NIL);
        self.write_completes(t);
        self.remove(t);
        self.nodes[t as usize].first_access = None;
        self.freed_clock += 1;
        self.counters.evictions += 1;
    }

    /// `buf_LRU_old_adjust_len` (and `buf_LRU_old_init` when the list first reaches
    /// `BUF_LRU_OLD_MIN_LEN`): keeps the old sublist at `old_blocks_pct` of the list ± 20.
    fn adjust_old(&mut self) {
        if self.len < OLD_MIN_LEN {
            return;
        }
        if self.old_first == NIL {
            // buf_LRU_old_init: every page old, then shrink from the head side.
            let mut q = self.head;
            while q != NIL {
                let node = &mut self.nodes[q as usize];
                node.old = true;
                q = node.next;
            }
            self.old_first = self.head;
            self.old_len = self.len;
        }
        let target = self.len * self.settings.old_blocks_pct as usize / 100;
        while self.old_len + OLD_TOLERANCE < target {
            let prev = self.nodes[self.old_first as usize].prev;
            if prev == NIL {
                break;
            }
            self.nodes[prev as usize].old = true;
            self.old_first = prev;
            self.old_len += 1;
        }
        while self.old_len > target + OLD_TOLERANCE {
            let of = self.old_first;
            let next = self.nodes[of as usize].next;
            if next == NIL {
                break;
            }
            self.nodes[of as usize].old = false;
            self.old_first = next;
            self.old_len -= 1;
        }
    }
}
