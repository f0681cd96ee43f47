#!/usr/bin/env python3
"""Writes a deliberately broken copy of a solution file: one known bug, injected by an exact
text replacement, for the grader's own tests. Generating it (instead of keeping a copy) keeps the
broken file identical to the solution in everything but the bug; if the solution changes so that
the bug's text is no longer there exactly once, the build stops here and says so.

    inject_bug.py BUG SOURCE OUTPUT
"""
import sys

BUGS = {
    "ks_missing_barrier": {
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
        "about": """Bug: add_block_sums starts each section one element too early, so element x receives the
  offset of section (x + 1) / S instead of x / S: the last element of every section gets the
  next section's offset.
Symptom: images no wider/taller than one section are correct; wider ones are wrong from
  x = S - 1 or y = S - 1 on. Deterministic; no write leaves the image. gpu-03-brent-kung fails
  the same way, since it reuses add_block_sums.""",
        "old": "    const int begin = section * section_size;\n",
        "new": "    const int begin = section * section_size - 1;  // BUG (deliberate): one element too early\n",
    },
}


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in BUGS:
        sys.exit(f"usage: inject_bug.py {{{','.join(BUGS)}}} SOURCE OUTPUT")
    name, source, output = sys.argv[1:]
    bug = BUGS[name]
    text = open(source, encoding="utf-8").read()
    found = text.count(bug["old"])
    if found != 1:
        sys.exit(f"inject_bug.py: the text of bug '{name}' occurs {found} times in {source}, "
                 "not once: update tests/broken/inject_bug.py to the solution's new code")
    header = "".join(f"// {line}\n" for line in
                     [f"BROKEN ON PURPOSE: generated from {source} by tests/broken/inject_bug.py"]
                     + bug["about"].splitlines())
    with open(output, "w", encoding="utf-8") as out:
        out.write(header + text.replace(bug["old"], bug["new"]))


if __name__ == "__main__":
    main()
