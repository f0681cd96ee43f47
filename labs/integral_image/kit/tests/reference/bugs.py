"""Lab 1's deliberately broken kernels: each is one known bug, injected into a copy of a solution
file by tests/inject_bug.py with an exact text replacement (see there why)."""

BUGS = {
    "ks_missing_barrier": {
        "file": "02_kogge_stone.cu",
        "kind": "race",
        "about": """Bug: the Kogge-Stone loop lacks its second __syncthreads(), the one between reading
  xy[t - stride] and writing xy[t]. A warp that runs ahead overwrites its elements while a slower
  warp still has to read their old values: a read/write race across warps.
Symptom: gpu-02-kogge-stone gives wrong sums from the first warp boundary of a section on
  (x % S >= 32), differently from run to run; small images may pass by luck.
  compute-sanitizer --tool racecheck reports the hazard on xy.""",
        "old": """            // Barrier 2: every thread has read xy[t - stride] of this step before anyone
            // overwrites its own element; without it a fast warp updates xy[t] while a slow warp
            // still needs the old value (read/write race).
            __syncthreads();
""",
        "new": """            // BUG (deliberate): barrier 2 is missing here.
""",
    },
    "ks_section_off_by_one": {
        "file": "02_kogge_stone.cu",
        "kind": "formula",
        "about": """Bug: add_block_sums starts each section one element too early, so element x receives the
  offset of section (x + 1) / S instead of x / S: the last element of every section gets the
  next section's offset.
Symptom: images no wider/taller than one section are correct; wider ones are wrong from
  x = S - 1 or y = S - 1 on. Deterministic; no write leaves the image. gpu-03-brent-kung fails
  the same way, since it reuses add_block_sums.""",
        "old": "    const int begin = section * section_size;\n",
        "new": "    const int begin = section * section_size - 1;  // BUG (deliberate): one element too early\n",
    },
    "sp_data_by_block_index": {
        "file": "04_single_pass.cu",
        "about": """Bug: each block still takes a logical id from the atomic counter and uses it for its place in
  the chain (which word it waits for and which it publishes, so it never hangs), but it loads
  the columns of the section given by blockIdx.x. Whenever the counter hands ids out in an order
  other than blockIdx order, a block adds the running sum of one section to the data of another,
  and passes the wrong total on along the chain.
Symptom: images no wider/taller than one section are correct (there is no chain). Wider ones
  are wrong in scattered rows from some section on, differently from run to run; the more
  blocks, the more certain (a few thousand blocks, e.g. 4097 x 2049, almost always show it).
  The fully static version (blockIdx for the chain too) cannot be caught by testing on current
  GPUs, which start blocks in blockIdx order: the handout says why it is still wrong.""",
        "old": "    const int x0 = section * kSection + t * kN;\n",
        "new": "    const int x0 = static_cast<int>(blockIdx.x) / groups * kSection + t * kN;  // BUG (deliberate): data by blockIdx\n",
    },
    "sp_first_section_never_publishes": {
        "file": "04_single_pass.cu",
        "about": """Bug: the publish is skipped for the first section of every row as well as for the last: the
  first section waits for nobody, and the student took that to mean it has nothing to pass on.
  The block of section 1 spins on a chain word that the memset cleared and nobody writes, and
  every later section of the row waits on the one before it: a deadlock.
Symptom: images no wider (first pass) and no taller (second pass, over the transpose) than one
  section are right; the first larger case hangs the GPU, in every configuration, until the
  grader kills the runner: TIMEOUT naming that case, within a deadline made from the
  reference's time on it, and a few seconds for each sibling configuration after the first.
  Killing the runner ends its context: the next runner has the GPU to itself.""",
        "old": "    if (t == 0 && row_inside && section + 1 < sections)\n",
        "new": "    if (t == 0 && row_inside && section > 0 && section + 1 < sections)  // BUG (deliberate): section 0 never publishes\n",
    },
}

# A made-up class's broken submissions for tools/bench_grade_all.py: ("corpus", entry of tests/corpus/),
# ("bug", a name above), ("replace", file, old, new) or ("compile-error", file). Its CPU list is cycled
# through for the CPU-broken submissions, its GPU list for the GPU-broken ones.
CLASS_BENCH = {
    "cpu": [("corpus", "overflow_32bit"), ("corpus", "cpu_write_past_end"), ("corpus", "unwritten_output"),
            ("corpus", "exit_before_answering"), ("compile-error", "cpu_openmp.cpp")],
    "gpu": [("bug", "ks_section_off_by_one"), ("bug", "sp_data_by_block_index"), ("corpus", "gpu_illegal_address"),
            ("corpus", "wrong_on_non_block_multiples"), ("compile-error", "03_brent_kung.cu")],
}
