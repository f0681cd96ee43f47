#!/usr/bin/env python3
"""unbarrier.py DIR PHRASE: removes from a copy of a Python-track solution (DIR) every barrier whose
line holds PHRASE (its comment), in the CUDA C (__syncthreads) and in Numba (cuda.syncthreads),
so that a test can check that the race it opens is caught. Fails when nothing was removed."""
import sys
from pathlib import Path


def main():
    folder, phrase = Path(sys.argv[1]), sys.argv[2]
    removed = 0
    for f in sorted(folder.iterdir()):
        if f.suffix not in (".cu", ".py"):
            continue
        lines = f.read_text().splitlines(keepends=True)
        for i, line in enumerate(lines):
            if phrase in line and ("__syncthreads();" in line or "cuda.syncthreads()" in line):
                lines[i] = line.replace("__syncthreads();", ";").replace("cuda.syncthreads()", "pass")
                removed += 1
                print(f"removed the barrier of {f.name}:{i + 1}")
        f.write_text("".join(lines))
    return 0 if removed else 1


if __name__ == "__main__":
    sys.exit(main())
