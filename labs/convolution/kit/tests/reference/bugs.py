"""Lab 3's deliberately broken kernels: each is one known bug, injected into a copy of a solution
file by tests/inject_bug.py with an exact text replacement (see there why)."""

BUGS = {
    "tiled_halo_off_by_one": {
        "file": "03_shared_tiled.cu",
        "about": """Bug: the tile load stops one float short of the halo at the right and at the bottom: the
  last column and the last row of the shared tile are never written.
Symptom: the outputs in the last column and row of every block read whatever an earlier block
  left in shared memory: wrong values along a grid of lines, on every filter size (with k = 1
  the last column is the block's own). The diff image shows the grid.""",
        "old": "            tile[i] = sx < 0 || sy < 0 ? 0.0f : in(sx, sy);  // -1: the zero border\n",
        "new": """            // BUG (deliberate): the halo's last column and last row are never loaded.
            if (tx < tile_w - 1 && ty < tile_h - 1) tile[i] = sx < 0 || sy < 0 ? 0.0f : in(sx, sy);
""",
    },
    "tiled_no_barrier": {
        "file": "03_shared_tiled.cu",
        "about": """Bug: no barrier between loading the tile and reading it: a warp may read floats of its
  neighbourhood that other warps have not written yet.
Symptom: wrong values now and then, varying from run to run, or none at all when the warps
  happen to load before any of them reads; compute-sanitizer --tool racecheck reports the
  read-after-write hazard every time.""",
        "old": """        // Read-after-write: a thread's neighbourhood holds floats that other threads (other warps)
        // load; without this barrier it could read them before they are written.
        __syncthreads();
""",
        "new": """        // BUG (deliberate): no barrier after the tile load.
""",
    },
}

# A made-up class's broken submissions for tools/bench_grade_all.py: ("corpus", entry of tests/corpus/),
# ("bug", a name above), ("replace", file, old, new) or ("compile-error", file). Its CPU list is cycled
# through for the CPU-broken submissions, its GPU list for the GPU-broken ones.
CLASS_BENCH = {
    "cpu": [("replace", "cpu_openmp.cpp", "for (int dy = -r; dy <= r; ++dy)", "for (int dy = -r; dy < r; ++dy)"),
            ("replace", "cpu_openmp.cpp", "for (int x = 0; x < in.width; ++x) {", "for (int x = 0; x < in.width - 1; ++x) {"),
            ("compile-error", "cpu_openmp.cpp")],
    "gpu": [("bug", "tiled_halo_off_by_one"), ("bug", "tiled_no_barrier"), ("compile-error", "04_separable.cu")],
}
