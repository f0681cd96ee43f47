#!/usr/bin/env python3
"""The code in docs/adding_a_lab.md is taken from the kit's real files, so that it cannot go stale.

    python3 tools/doc_snippets.py --write   fill every marked block of the docs from the files it names
    python3 tools/doc_snippets.py --check   exit 1, naming the block and its file, when a block
                                            differs from its file (CI: the `doc snippets` test)

A block in a doc is a fenced code block between two marker lines; what is inside is generated:

    <!-- snippet: labs/integral_image/kit/lab.hpp#declaration -->
    ```cpp
    ...
    ```
    <!-- snippet end -->

PATH (from the kit's root) alone takes the whole file; PATH#NAME the lines between two marker
lines of that file, `// snippet: NAME` and `// snippet: end` (`#` in Meson, Python and TOML
files), dedented. Marker lines of any snippet are left out of what a block shows.
"""
import argparse
import re
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ["docs/adding_a_lab.md"]
LEADERS = {".cpp": "//", ".hpp": "//", ".cu": "//", ".in": "//", ".build": "#", ".py": "#", ".toml": "#"}
FENCES = {".cpp": "cpp", ".hpp": "cpp", ".cu": "cpp", ".in": "cpp", ".build": "meson", ".py": "python", ".toml": "toml"}
BLOCK = re.compile(r"^<!-- snippet: (\S+) -->\n(.*?)^<!-- snippet end -->\n", re.M | re.S)


class Error(Exception):
    """A problem in a doc or a source, said as `path:line: what`."""


def snippet(source, where):
    """The fenced block for source (PATH or PATH#NAME), which the doc names at where."""
    path, _, name = source.partition("#")
    file = ROOT / path
    if not file.is_file():
        raise Error(f"{where}: no file {path}")
    leader = LEADERS.get(file.suffix)
    if leader is None:
        raise Error(f"{where}: {path}: no comment leader known for {file.suffix} files ({', '.join(LEADERS)})")
    marker = re.compile(rf"\s*{re.escape(leader)} snippet: (\S+)\s*")
    lines, inside, found = [], not name, False
    for n, line in enumerate(file.read_text().splitlines(keepends=True), 1):
        m = marker.fullmatch(line)
        if m:
            if m.group(1) == name:
                inside, found = True, True
            elif m.group(1) == "end" and name and inside:
                inside = False
                break
            continue
        if inside:
            lines.append(line)
    if name and not found:
        raise Error(f"{where}: {path} has no `{leader} snippet: {name}` line")
    if name and inside:
        raise Error(f"{where}: {path}: the snippet {name} has no `{leader} snippet: end` line")
    body = textwrap.dedent("".join(lines))
    return f"```{FENCES[file.suffix]}\n{body}```\n"


def generate(doc):
    """(the doc's text with every block filled, the number of blocks) of the doc at kit path doc."""
    text = (ROOT / doc).read_text()
    count = 0

    def fill(m):
        nonlocal count
        count += 1
        line = text.count("\n", 0, m.start()) + 1
        return f"<!-- snippet: {m.group(1)} -->\n{snippet(m.group(1), f'{doc}:{line}')}<!-- snippet end -->\n"

    return BLOCK.sub(fill, text), count


def first_difference(a, b):
    for n, (x, y) in enumerate(zip(a.splitlines(), b.splitlines()), 1):
        if x != y:
            return n, x, y
    return min(len(a.splitlines()), len(b.splitlines())) + 1, "", ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="fill the blocks from their files")
    mode.add_argument("--check", action="store_true", help="exit 1 when a block differs from its file")
    args = parser.parse_args()
    stale = 0
    try:
        for doc in DOCS:
            new, count = generate(doc)
            if count == 0:  # the markers lost or misspelt: a check that compares nothing must not pass
                raise Error(f"{doc}: no `<!-- snippet: PATH -->` block")
            old = (ROOT / doc).read_text()
            if new == old:
                continue
            if args.write:
                (ROOT / doc).write_text(new)
                print(f"wrote {doc}")
            else:
                n, have, want = first_difference(old, new)
                print(f"{doc}:{n}: differs from the file its snippet is taken from\n  in the doc: {have}\n"
                      f"  the file:   {want}")
                stale += 1
    except Error as e:
        print(f"doc_snippets: {e}", file=sys.stderr)
        return 2
    if stale:
        print(f"{stale} doc(s) out of date: run python3 tools/doc_snippets.py --write")
        return 1
    if args.check:
        print("every snippet matches its file")
    return 0


if __name__ == "__main__":
    sys.exit(main())
