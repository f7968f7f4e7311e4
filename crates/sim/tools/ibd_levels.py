#!/usr/bin/env python3
"""Reads an .ibd file and prints, per index id, B-tree pages per level with DATA_SIZE and
records: the exact structure to compare with the simulator (fidelity tooling, not a test)."""
import struct, sys, collections
path, page_size = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 16384
stats = collections.defaultdict(lambda: collections.defaultdict(lambda: [0, 0, 0]))
other = collections.Counter()
with open(path, 'rb') as f:
    while True:
        p = f.read(page_size)
        if len(p) < page_size:
            break
        ptype = struct.unpack('>H', p[24:26])[0]
        if ptype != 17855:  # FIL_PAGE_INDEX
            other[ptype] += 1
            continue
        h = 38
        heap_top, = struct.unpack('>H', p[h+2:h+4])
        garbage, = struct.unpack('>H', p[h+8:h+10])
        n_recs, = struct.unpack('>H', p[h+16:h+18])
        level, = struct.unpack('>H', p[h+26:h+28])
        index_id, = struct.unpack('>Q', p[h+28:h+36])
        s = stats[index_id][level]
        s[0] += 1; s[1] += heap_top - 120 - garbage; s[2] += n_recs
for ix, levels in sorted(stats.items()):
    for level, (pages, data, recs) in sorted(levels.items()):
        print(f"index {ix} level {level} pages {pages} fill {data / pages / page_size * 100:.3f} "
              f"recs/page {recs / pages:.2f} data_size {data}")
print("other page types", dict(other))
