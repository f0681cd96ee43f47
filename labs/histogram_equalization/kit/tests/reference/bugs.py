"""Lab 2's deliberately broken kernels: each is one known bug, injected into a copy of a solution
file by tests/inject_bug.py with an exact text replacement (see there why)."""

BUGS = {
    "priv_missing_merge_barrier": {
        "file": "02_shared_privatized.cu",
        "kind": "race",
        "about": """Bug: the privatized histogram merges its shared bins into the global histogram without the
  barrier after counting: a fast warp reads (and adds) a bin before slower warps have counted
  into it.
Symptom: counts go missing, so the CDF and the LUT are wrong on images with many blocks; it
  varies from run to run. On an H200, compute-sanitizer --tool racecheck on the quick sizes did
  not report it (the counts' shared atomics against the merge's plain reads;
  measurements/class-rehearsal-H200-2026-12-01.md): the output's verdict catches it.""",
        "old": """    // Every thread of the block has counted before its bins are merged.
    __syncthreads();
""",
        "new": """    // BUG (deliberate): no barrier between counting and merging.
""",
    },
    "normalize_32_bit": {
        "file": "05_equalize.cu",
        "about": """Bug: normalize computes (cdf - cdf_min) * 255 in 32-bit arithmetic.
Symptom: exact on images up to about 16.8 Mpixel; wrong values at 8192^2, where the product
  passes 2^32 and wraps.""",
        "old": "        const std::uint64_t scaled = here == 0 ? 0 : ((here - cdf_min) * (kLevels - 1) + span / 2) / span;\n",
        "new": """        const std::uint32_t narrow = static_cast<std::uint32_t>(here - cdf_min) * (kLevels - 1);  // BUG (deliberate): wraps
        const std::uint64_t scaled = here == 0 ? 0 : (narrow + span / 2) / span;
""",
    },
    "lut_truncating": {
        "file": "05_equalize.cu",
        "kind": "formula",
        "about": """Bug: the LUT is cdf * 255 / pixels, truncated, with no cdf_min: the textbook formula read as a
  plain scaling of the CDF.
Symptom: wrong almost everywhere (the darkest value does not map to 0, and values round down),
  the same wrong output on every run; the 8x8 worked example of the handout shows it by hand.""",
        "old": "        const std::uint64_t scaled = here == 0 ? 0 : ((here - cdf_min) * (kLevels - 1) + span / 2) / span;\n",
        "new": "        const std::uint64_t scaled = here * (kLevels - 1) / pixels;  // BUG (deliberate): no cdf_min, truncated\n",
    },
    "ks_one_barrier": {
        "file": "04_scan.cu",
        "kind": "race",
        "about": """Bug: the single-buffer Kogge-Stone scan keeps only the barrier before each step's reads and drops
  the one between the reads and the writes: a thread may overwrite xy[t] before the thread
  stride places to its right has read the old value.
Symptom: in principle a wrong CDF; in practice, on an H100, the output was right in every run
  (the warps read before any of them writes). compute-sanitizer --tool racecheck reports the
  hazard every time. The double-buffered scan and Brent-Kung are unaffected.""",
        "old": """        // Barrier 2: every thread has read xy[t - stride] before anyone overwrites an element.
        __syncthreads();
""",
        "new": """        // BUG (deliberate): barrier 2 is missing.
""",
    },
}

# A made-up class's broken submissions for tools/bench_grade_all.py: ("corpus", entry of tests/corpus/),
# ("bug", a name above), ("replace", file, old, new) or ("compile-error", file). Its CPU list is cycled
# through for the CPU-broken submissions, its GPU list for the GPU-broken ones.
CLASS_BENCH = {
    "cpu": [("corpus", "he_skips_last_row"),
            ("replace", "cpu_openmp.cpp", "const std::uint64_t span = pixels - cdf_min;",
             "const std::uint64_t span = pixels - cdf_min + 1;"),
            ("compile-error", "cpu_openmp.cpp")],
    "gpu": [("bug", "normalize_32_bit"), ("bug", "ks_one_barrier"), ("bug", "priv_missing_merge_barrier"),
            ("compile-error", "03_aggregated.cu")],
}
