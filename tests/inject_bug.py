#!/usr/bin/env python3
"""Writes a deliberately broken copy of a solution file: one known bug, injected by an exact
text replacement, for the grader's own tests. Generating it (instead of keeping a copy) keeps the
broken file identical to the solution in everything but the bug; if the solution changes so that
the bug's text is no longer there exactly once, the build stops here and says so.

    inject_bug.py BUGS_FILE BUG SOURCE OUTPUT

BUGS_FILE is a lab's table of bugs (labs/<lab>/kit/tests/reference/bugs.py): a dict BUGS of
name -> {"file": solution file, "about": what and why, "old": text, "new": replacement}, and
optionally "kind": what an emulated grading of it must call it (tests/emulate_selftest.py),
"race" (wrong under some orders of a block's threads, or differently under each) or "formula"
(an error of the arithmetic or an index: the same wrong output under every order, or memory
read that nobody wrote); none where neither is sure (an order of blocks).
"""
import runpy
import sys


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: inject_bug.py BUGS_FILE BUG SOURCE OUTPUT")
    bugs_file, name, source, output = sys.argv[1:]
    bugs = runpy.run_path(bugs_file)["BUGS"]
    if name not in bugs:
        sys.exit(f"inject_bug.py: no bug '{name}' in {bugs_file} (bugs: {', '.join(bugs)})")
    bug = bugs[name]
    text = open(source, encoding="utf-8").read()
    found = text.count(bug["old"])
    if found != 1:
        sys.exit(f"inject_bug.py: the text of bug '{name}' occurs {found} times in {source}, "
                 f"not once: update {bugs_file} to the solution's new code")
    header = "".join(f"// {line}\n" for line in
                     [f"BROKEN ON PURPOSE: generated from {source} by tests/inject_bug.py"]
                     + bug["about"].splitlines())
    with open(output, "w", encoding="utf-8") as out:
        out.write(header + text.replace(bug["old"], bug["new"]))


if __name__ == "__main__":
    main()
