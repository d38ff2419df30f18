#!/usr/bin/env python3
"""make-bytes.py OUT SEED SIZE [ALPHABET]: SIZE pseudo-random bytes made from
SEED (the same bytes on every machine), or, with ALPHABET, bytes drawn from
its letters only (compressible, about 8 / log2(len(ALPHABET)) : 1)."""
import random
import sys

out, seed, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = random.Random(seed).randbytes(size)
if len(sys.argv) > 4:
    letters = sys.argv[4].encode()
    data = data.translate(bytes(letters[i % len(letters)] for i in range(256)))
with open(out, "wb") as f:
    f.write(data)
