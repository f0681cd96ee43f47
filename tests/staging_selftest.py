#!/usr/bin/env python3
"""How labkit stages a submission for its own build (grader/labkit/submissions.py), on the kit's
real labs: the graded lab's files come from the submission wherever they sit in it, every other
lab gets its starter (the submission's build configures every lab), and only the graded lab's
missing files are reported.

    staging_selftest.py
"""
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "grader"))
from labkit.submissions import stage  # noqa: E402
from labkit.util import ROOT  # noqa: E402
from checks import expect  # noqa: E402


def main():
    labs = sorted(p.parent.parent.name for p in (ROOT / "labs").glob("*/kit/meson.build"))
    files = {lab: [line.split()[-1] for line in (ROOT / "labs" / lab / "kit/tests/starter.sha256").read_text().splitlines()
                   if line.strip()] for lab in labs}
    graded, other = labs[-1], labs[0]
    with tempfile.TemporaryDirectory() as tmp:
        src, staged = Path(tmp) / "alice", Path(tmp) / "staged"
        (src / "deep" / "folder").mkdir(parents=True)
        handed_in = files[graded][0]
        (src / "deep" / "folder" / handed_in).write_text("// alice's work\n")
        notes = stage(src, staged, files, labs, [graded])
        expect((staged / graded / handed_in).read_text() == "// alice's work\n", f"{graded}/{handed_in} comes from the submission")
        for lab in labs:
            for f in files[lab]:
                expect((staged / lab / f).is_file(), f"{lab}/{f} is staged")
        expect((staged / other / files[other][0]).read_bytes() == (ROOT / "labs" / other / files[other][0]).read_bytes(),
               f"{other}, not graded, gets its starter")
        expect(len(notes) == 1 and notes[0].startswith(graded + ":") and handed_in not in notes[0],
               f"only {graded}'s missing files are reported: {notes}")
    print("all ok")


if __name__ == "__main__":
    main()
