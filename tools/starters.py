#!/usr/bin/env python3
"""The starters are generated from the solutions. Each solution file also carries, in comment
lines, what its starter says in place of the answer: the steps, the reasoning, the pitfalls.

    python3 tools/starters.py --write   regenerate the starters, starter.sha256 and README tables
    python3 tools/starters.py --check   exit 1, naming each stale file and its first differing
                                        line, when a generated file is not what the solutions make
                                        (the meson test `starters`, suite cpu)

For every lab of meson.build's `labs` and every file of its kit/meson.build's `student_files` and
`python_files`, solutions/<lab>/<file> makes labs/<lab>/<file>. Also made: the manifest
labs/<lab>/kit/tests/starter.sha256 (tests/starter_guard.py writes it) and the "your files" table
of labs/<lab>/README.md, between its two `<!-- starters.py ... -->` lines. Checked: that
.gitattributes marks each starter and manifest as generated, and nothing else of labs/. Never edit a starter:
edit its solution and run --write. Checked, not made: the files of the handout's table of steps
(docs/labs/<lab>.md), whose prose is the handout's, are the student files in order.

Markers. C is the file's comment leader (// in .cu and .cpp, # in .py). A marker is a whole
comment line, indented as you like, so the solution compiles and runs exactly as without them.
Not inside a string or a /* */ comment (a Python docstring is a string: mark all of it).

    C starter: generates labs/LAB/FILE   the first line of every solution file: the starter it
                             makes; the starter's first line says where it comes from (NOTICE)
    C starter: step TEXT     the file's row in the README table (more such lines continue TEXT)
    C starter: prompt        starts the starter's text in place of the answer: its comment lines
                             are copied as they are, and `C> CODE` lines become CODE
    C starter: solution      starts the answer (after a prompt, or alone): the starter leaves it out
    C starter: end           ends the block
    C starter: instead CODE  the starter has CODE (at the marker's indentation) instead of the
                             next line, e.g. `// starter: instead [[maybe_unused]] constexpr int kN = 8;`
    C> CODE                  outside a block too: a line that only the starter has, as CODE;
                             `C>` alone is a blank line

Every other line is in both files. A block, shortened from solutions/integral_image/01_naive.cu:

    // starter: prompt
    //> void scan_rows([[maybe_unused]] View<const In> in, [[maybe_unused]] Output out) {
        // TODO(step 1b): launch the kernel ... Pitfall: ... Then delete the throw.
        //> throw labkit::NotImplemented("scan_rows (01_naive.cu)");
    // starter: solution
    void scan_rows(View<const In> in, Output out) {
        ... the answer ...
    // starter: end
    }

A starter must compile, show TODO for each step not yet written (labkit::NotImplemented, or
Python's NotImplementedError) and teach: steps, reasoning, pitfalls, never the answer. The
`starter` and `grader - starter shows TODO` tests check the first two.
"""
import argparse
import ast
import fnmatch
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
import starter_guard  # noqa: E402  (the manifest's one home: its --write)

LEADERS = {".cu": "//", ".cpp": "//", ".hpp": "//", ".py": "#"}
README_BEGIN = "<!-- starters.py: the table below is generated from the solutions' `starter: step` lines -->"
README_END = "<!-- starters.py: end of the generated table -->"
# A starter's first line: the student's file to fill in, and that the kit makes it (a student's
# copy of the kit has no solutions/: the line names no path of the kit's own).
NOTICE = "{leader} Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)\n"
# .gitattributes marks every file this makes as generated, by patterns that fit every lab (a new
# lab adds no line there); check_attributes holds them to exactly the files made here.
GENERATED_ATTRIBUTE = "linguist-generated=true"


class Error(Exception):
    """A problem in the tree, said as `path:line: what`."""


def rel(path):
    return Path(path).relative_to(ROOT).as_posix()


def meson_list(path, name, required=True):
    """The string list `name = [...]` of a meson.build file."""
    text = path.read_text()
    m = re.search(rf"^{name}\s*=\s*\[(.*?)\]", text, re.M | re.S)
    if not m:
        if required:
            raise Error(f"{rel(path)}: no `{name} = [...]`")
        return []
    return re.findall(r"'([^']*)'", m.group(1))


def split(path, starter):
    """(starter text, step text) of the solution file at path, from its markers; starter: the path
    in the kit of the starter it makes, which its first line must name."""
    leader = LEADERS.get(path.suffix)
    if leader is None:
        raise Error(f"{rel(path)}: no comment leader known for {path.suffix} files ({', '.join(LEADERS)})")
    lead = re.escape(leader)
    marker = re.compile(rf"(\s*){lead} starter:(?: (\S+))?(?: (.*))?")
    starter_only = re.compile(rf"(\s*){lead}>(?: (.*))?(\n?)")
    comment = re.compile(rf"\s*{lead}")
    out, own, step = [], [], []  # the starter's lines, the solution's own lines, the step text
    state, opened, instead = "common", 0, False  # common, prompt or solution; where the block opened
    first = f"{leader} starter: generates {starter}"
    if path.read_text().split("\n", 1)[0] != first:
        raise Error(f"{rel(path)}:1: a solution file's first line names the starter it makes: `{first}`")
    for n, line in enumerate(path.read_text().splitlines(keepends=True), 1):
        where = f"{rel(path)}:{n}"
        m = marker.fullmatch(line.rstrip("\n"))
        s = starter_only.fullmatch(line)
        if instead and (m or s):
            raise Error(f"{where}: `starter: instead` must be followed by a line of the solution's code")
        if m:
            word, text = m.group(2), m.group(3)
            if word == "generates" and n == 1:
                continue
            if word == "step" and state == "common" and text:
                step.append(text.strip())
            elif word == "instead" and state == "common" and text:
                out.append(m.group(1) + text + "\n")
                instead = True
            elif word == "prompt" and state == "common" and not text:
                state, opened = "prompt", n
            elif word == "solution" and state != "solution" and not text:
                state, opened = "solution", (n if state == "common" else opened)
            elif word == "end" and state != "common" and not text:
                state = "common"
            else:
                raise Error(f"{where}: `{line.strip()}` is not a marker here (in {state} text); the "
                            f"markers: generates STARTER (line 1), step TEXT, instead CODE, prompt, solution, end "
                            f"(tools/starters.py --help)")
            continue
        if state == "solution":
            if s:
                raise Error(f"{where}: a `{leader}>` line inside a solution part: it belongs in the prompt")
            own.append(line)
        elif s:
            out.append(s.group(1) + (s.group(2) or "") + s.group(3))
        elif state == "prompt" and not comment.match(line):
            raise Error(f"{where}: a prompt line must be a comment (`{leader}> CODE` for the starter's "
                        f"code, `{leader}>` for a blank line), or the solution would change")
        elif state == "prompt":
            out.append(line)
        else:
            own.append(line)
            if not instead:
                out.append(line)
            instead = False
    if state != "common" or instead:
        raise Error(f"{rel(path)}:{opened}: this block is not closed (`{leader} starter: end`)" if state != "common"
                    else f"{rel(path)}: `starter: instead` on the last line: it replaces the line after it")
    if path.suffix == ".py":
        only_comments(path, "".join(own))
    return "".join(out), " ".join(step)


def only_comments(path, own):
    """Fails when the marker and prompt lines of a Python solution are more than comments: a line
    inside a string (a docstring) changes the program. (In C++ they are // lines by construction.)"""
    try:
        same = ast.dump(ast.parse(path.read_text())) == ast.dump(ast.parse(own))
    except SyntaxError as e:
        raise Error(f"{rel(path)}:{e.lineno}: {e.msg} (in the solution, or in it without its marker lines)")
    if not same:
        raise Error(f"{rel(path)}: a marker or prompt line lies inside a string (a docstring?): mark the "
                    f"whole string instead, so that the solution's code stays as it is")


def readme_table(readme, rows):
    """readme's text with its generated table rewritten from rows [(file, step)]."""
    text = readme.read_text()
    begin, end = text.find(README_BEGIN), text.find(README_END)
    if begin < 0 or end < begin:
        raise Error(f"{rel(readme)}: the lines `{README_BEGIN}` and `{README_END}` must surround its table")
    table = "| file | step |\n|---|---|\n" + "".join(f"| `{f}` | {s} |\n" for f, s in rows)
    return text[:begin] + README_BEGIN + "\n" + table + text[end:]


def generate(out):
    """Writes every generated file into the folder out, by its path in the kit; returns the paths."""
    made = []
    for lab in meson_list(ROOT / "meson.build", "labs"):
        kit = ROOT / "labs" / lab / "kit" / "meson.build"
        student = meson_list(kit, "student_files")
        files = student + meson_list(kit, "python_files", required=False)
        rows = []
        for name in files:
            source = ROOT / "solutions" / lab / name
            if not source.is_file():
                raise Error(f"{rel(kit)} lists {name}, but {rel(source)} is missing: the starter is made from it")
            text, step = split(source, f"labs/{lab}/{name}")
            text = NOTICE.format(leader=LEADERS[source.suffix]) + text
            if not step:
                raise Error(f"{rel(source)}: no `starter: step TEXT` line (its row in labs/{lab}/README.md)")
            rows.append((name, step))
            made.append(f"labs/{lab}/{name}")
            (out / made[-1]).parent.mkdir(parents=True, exist_ok=True)
            (out / made[-1]).write_text(text)
        manifest = f"labs/{lab}/kit/tests/starter.sha256"
        (out / manifest).parent.mkdir(parents=True, exist_ok=True)
        starter_guard.main(["--write", str(out / manifest), str(out / "labs" / lab)] + student)
        check_handout(lab, student)
        readme = f"labs/{lab}/README.md"
        (out / readme).write_text(readme_table(ROOT / readme, rows))
        made += [manifest, readme]
    check_attributes(made)
    return made


def matches(path, pattern):
    """Whether a .gitattributes pattern with a slash matches path, as git does: `*` within one folder."""
    parts, wanted = path.split("/"), pattern.split("/")
    return len(parts) == len(wanted) and all(fnmatch.fnmatchcase(a, b) for a, b in zip(parts, wanted))


def check_attributes(made):
    """Every starter and manifest made here is marked generated in .gitattributes, and under labs/
    nothing else is (the labs' headers, READMEs and kits are written by hand)."""
    path = ROOT / ".gitattributes"
    patterns = [line.split()[0].lstrip("/") for line in (path.read_text() if path.is_file() else "").splitlines()
                if GENERATED_ATTRIBUTE in line.split()[1:]]
    marked = {rel(f) for f in (ROOT / "labs").rglob("*") if f.is_file() and any(matches(rel(f), p) for p in patterns)}
    made = {m for m in made if not m.endswith("README.md")}
    if made - marked:
        raise Error(f"{rel(path)}: not marked `{GENERATED_ATTRIBUTE}`: {', '.join(sorted(made - marked))}")
    if marked - made:
        raise Error(f"{rel(path)}: marks files that are not generated: {', '.join(sorted(marked - made))}")


HANDOUT_TABLE = "| Step | File"  # how the handout's table of steps begins, in any case (docs/labs/<lab>.md)


def check_handout(lab, student):
    """The handout's table of steps is prose written by hand (what each step asks, what it
    unlocks), but its files are the lab's: they must be kit/meson.build's student_files, in order."""
    handout = ROOT / "docs" / "labs" / f"{lab}.md"
    lines = handout.read_text().splitlines()
    start = next((i for i, line in enumerate(lines) if line.lower().startswith(HANDOUT_TABLE.lower())), None)
    if start is None:
        raise Error(f"{rel(handout)}: no table of steps (a line starting `{HANDOUT_TABLE}`)")
    listed = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        listed += re.findall(r"`([^`]+)`", line.split("|")[2])
    if listed != student:
        raise Error(f"{rel(handout)}:{start + 1}: its table of steps lists {', '.join(listed)}; the lab's student files "
                    f"(labs/{lab}/kit/meson.build) are {', '.join(student)}: give each file its row, in that order")


def first_difference(old, new):
    """(line number, committed line, generated line) where the texts first differ."""
    a, b = old.splitlines(), new.splitlines()
    for n, (x, y) in enumerate(zip(a, b), 1):
        if x != y:
            return n, x, y
    n = min(len(a), len(b)) + 1
    return n, a[n - 1] if n <= len(a) else "(end of file)", b[n - 1] if n <= len(b) else "(end of file)"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="regenerate the starters, manifests and tables")
    mode.add_argument("--check", action="store_true", help="fail when a generated file is not up to date")
    args = parser.parse_args()
    if not (ROOT / "solutions").is_dir():
        print("starters.py: no solutions/ folder: the starters are generated from it (kit only)", file=sys.stderr)
        return 1
    try:
        with tempfile.TemporaryDirectory() as tmp:
            stale = []
            for path in generate(Path(tmp)):
                new, target = (Path(tmp) / path).read_text(), ROOT / path
                old = target.read_text() if target.is_file() else None
                if old == new:
                    continue
                stale.append(path)
                if args.write:
                    target.write_text(new)
                    print(f"wrote {path}")
                elif old is None:
                    print(f"{path}: missing")
                else:
                    n, x, y = first_difference(old, new)
                    print(f"{path}:{n}: differs from what the solutions generate\n"
                          f"  in the tree: {x}\n  generated:   {y}")
    except (Error, OSError) as e:
        print(f"starters.py: {e}", file=sys.stderr)
        return 1
    if args.check and stale:
        print(f"{len(stale)} generated file(s) out of date. The starters are generated from solutions/: "
              f"edit the solution's markers (tools/starters.py --help), then run python3 tools/starters.py --write")
        return 1
    if not stale:
        print("the starters, manifests and README tables are up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
