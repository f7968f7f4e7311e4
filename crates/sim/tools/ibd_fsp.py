#!/usr/bin/env python3
"""Prints the FSP header of an .ibd file (page 0): FSP_SIZE, FSP_FREE_LIMIT, FSP_FRAG_N_USED and
the lengths of the FREE / FREE_FRAG / FULL_FRAG extent lists, with the file size in pages: the
figures behind DATA_FREE, to compare with the simulator (fidelity tooling, not a test)."""
import os, struct, sys
path, page_size = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 16384
with open(path, 'rb') as f:
    p = f.read(page_size)
h = 38  # FSP_HEADER_OFFSET = FIL_PAGE_DATA
size, free_limit, _flags, frag_n_used = struct.unpack('>IIII', p[h + 8:h + 24])
free_len, = struct.unpack('>I', p[h + 24:h + 28])
free_frag_len, = struct.unpack('>I', p[h + 40:h + 44])
full_frag_len, = struct.unpack('>I', p[h + 56:h + 60])
print(f"file_pages {os.path.getsize(path) // page_size} fsp_size {size} free_limit {free_limit} "
      f"free {free_len} free_frag {free_frag_len} full_frag {full_frag_len} "
      f"frag_n_used {frag_n_used}")
