#!/usr/bin/env python3
"""How labkit stages a submission for its own build (cli/labkit/submissions.py), on the kit's
real labs: a lab's file is taken only from that lab's folder (<lab>/<file> at any depth, the
shallowest) or, when one lab is graded, from the top of the submission or of the one folder it
all sits in; every lab has a cpu_openmp.cpp, and one lab's is never taken for another. A file not
taken (misplaced, a folder or file name that nearly matches) gets a note saying why, and each
lab's note lists the paths used. Every other lab gets its starter (the submission's build
configures every lab), and only the graded labs' missing files are reported.

    staging_selftest.py
"""
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cli"))
from labkit.submissions import NOT_USED, stage  # noqa: E402
from labkit.util import ROOT  # noqa: E402
from checks import expect  # noqa: E402

LABS = sorted(p.parent.parent.name for p in (ROOT / "labs").glob("*/kit/meson.build"))
FILES = {lab: [line.split()[-1] for line in (ROOT / "labs" / lab / "kit/tests/starter.sha256").read_text().splitlines()
               if line.strip()] for lab in LABS}
WORK = "// the student's work\n"


def staged_from(tmp, name, files, graded):
    """Makes the submission tmp/name from files ({path: text}), stages it for graded; returns
    (notes, staged folder)."""
    src, staged = Path(tmp) / name, Path(tmp) / f"{name}-staged"
    for path, text in files.items():
        (src / path).parent.mkdir(parents=True, exist_ok=True)
        (src / path).write_text(text)
    return stage(src, staged, FILES, LABS, graded), staged


def took(staged, lab, f):
    return (staged / lab / f).read_text() == WORK


def not_used(notes, path, why):
    return any(n.startswith(f"{path} {NOT_USED}: ") and why in n for n in notes)


def main():
    one, other = LABS[-1], LABS[0]
    with tempfile.TemporaryDirectory() as tmp:
        # One lab graded: the flat form, inside the one folder the archive holds.
        first = FILES[one][0]
        notes, staged = staged_from(tmp, "flat", {f"hw/{first}": WORK}, [one])
        expect(took(staged, one, first), f"one lab graded: hw/{first} (its one folder) is taken")
        expect(all((staged / lab / f).is_file() for lab in LABS for f in FILES[lab]), "every lab's files are staged")
        expect((staged / other / FILES[other][0]).read_bytes() == (ROOT / "labs" / other / FILES[other][0]).read_bytes(),
               f"{other}, not graded, gets its starter")
        expect(f"{one}: used: hw/{first}" in notes, f"the note lists the path used: {notes}")
        expect(sum(n.startswith(f"{one}: not handed in") for n in notes) == 1 and not any(n.startswith(other) for n in notes),
               f"only {one}'s missing files are reported: {notes}")

        # One lab graded: another lab's cpu_openmp.cpp, misfiled beside a file in the lab's folder.
        second = FILES[one][1]
        notes, staged = staged_from(tmp, "misfiled", {"lab2/cpu_openmp.cpp": WORK, f"{one}/{second}": WORK,
                                                      f"{other}/cpu_openmp.cpp": WORK}, [one])
        expect(not took(staged, one, "cpu_openmp.cpp"), "a cpu_openmp.cpp outside the lab's folder is not taken")
        expect(not_used(notes, "lab2/cpu_openmp.cpp",
                        f"only from its lab's folder ({one}/cpu_openmp.cpp) or the top of the submission (cpu_openmp.cpp)"),
               f"it gets a note saying where it must be: {notes}")
        expect(not any(n.startswith(f"{other}/") for n in notes), f"{other}'s own file, not graded now, gets no note")

        # One lab graded: a file in the lab's folder comes before one at the top.
        notes, staged = staged_from(tmp, "both", {"cpu_openmp.cpp": "// old\n", f"{one}/cpu_openmp.cpp": WORK}, [one])
        expect(took(staged, one, "cpu_openmp.cpp") and not_used(notes, "cpu_openmp.cpp", "the one in its lab's folder is used"),
               f"the lab's folder wins over the top, with a note: {notes}")

        # Every lab graded: a file is taken only from its lab's folder.
        a, b = LABS[0], LABS[1]
        notes, staged = staged_from(tmp, "every", {
            "cpu_openmp.cpp": WORK, f"{a}/{FILES[a][1]}": WORK, f"{a}/cpu_openMP.cpp": WORK,
            f"{b}/cpu_openmp.cc": WORK, f"{one.title()}/cpu_openmp.cpp": WORK}, LABS)
        expect(not any(took(staged, lab, "cpu_openmp.cpp") for lab in LABS), "no lab takes a misplaced cpu_openmp.cpp")
        expect(took(staged, a, FILES[a][1]) and f"{a}: used: {a}/{FILES[a][1]}" in notes, f"{a}'s file in its folder is")
        expect(not_used(notes, "cpu_openmp.cpp", "with several labs graded"), f"flat, with several labs: a note: {notes}")
        expect(not_used(notes, f"{a}/cpu_openMP.cpp", "did you mean cpu_openmp.cpp")
               and not_used(notes, f"{b}/cpu_openmp.cc", "did you mean cpu_openmp.cpp"),
               "a name in another case or with another extension: a note")
        expect(not_used(notes, f"{one.title()}/cpu_openmp.cpp", f"the folder must be named {one}"),
               "a lab folder in another case: a note")

        # The shallowest <lab>/<file> wins; two at the same depth: neither, and a note.
        notes, staged = staged_from(tmp, "twice", {f"{one}/{second}": WORK, f"old/{one}/{second}": "// old\n",
                                                   f"x/{one}/cpu_openmp.cpp": WORK, f"y/{one}/cpu_openmp.cpp": WORK}, [one])
        expect(took(staged, one, second) and not took(staged, one, "cpu_openmp.cpp"), "the shallowest is taken; a tie is not")
        expect(any("cpu_openmp.cpp is there 2 times" in n and "starter used" in n for n in notes), f"a tie is noted: {notes}")
    print("all ok")


if __name__ == "__main__":
    main()
