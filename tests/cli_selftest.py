#!/usr/bin/env python3
"""The grader's command line as students and instructors meet it: wrong options are refused
before any work with one message and exit 2, files it would write are checked first, a GPU
variant on a machine without a GPU says so, and the starter's own tests step aside once a
student edits a file.

    cli_selftest.py GRADER RUNNER STARTER_GUARD MANIFEST STUDENT_DIR
"""
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SKIP = 77


def run(cmd):
    proc = subprocess.run([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=300)
    print("$", " ".join(str(c) for c in cmd), "->", proc.returncode)
    print("  " + proc.stdout.strip().replace("\n", "\n  "))
    return proc.returncode, proc.stdout


def expect(cond, what):
    if not cond:
        print("FAILED:", what)
        sys.exit(1)


def main():
    grader, runner, guard, manifest, student_dir = sys.argv[1:6]
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "old.json"
        report.write_text("an earlier report")
        broken_photos = Path(tmp) / "broken-photos"
        broken_photos.mkdir()
        (broken_photos / "cat.png").write_bytes(b"not a PNG at all")
        for bad, says in ((["--photos", Path(tmp) / "nosuch"], "no such folder"),
                          (["--photos", report], "is a file: give the folder"),
                          (["--photos", broken_photos], "cat.png"),
                          (["--perf-patterns", "photo", "--photos", Path(tmp)], "no image (PNG"),
                          (["--sizes", "0x0"], "bad size"), (["--sizes", "100000x100000"], "too large"),
                          (["--runs", "0"], "above 0"), (["--timeout", "-1"], "above 0"),
                          (["--cpu-max-gflop", "0"], "above 0"), (["--cpu-max-gflop", "inf"], "above 0"),
                          (["--variants", "nosuch*"], "matches no variant"),
                          (["--perf-patterns", "nosuch"], "no pattern 'nosuch'"),
                          (["--json", "/nonexistent-folder/x.json"], "no folder")):
            rc, out = run([grader, "grade", "--runner", runner, "--json", report, *bad])
            expect(rc == 2 and says in out, f"{bad}: exit 2 and '{says}'")
            expect(out.count(says) == 1, f"{bad}: the message once")
        expect(report.read_text() == "an earlier report", "an earlier report is left alone")

        photo = Path(__file__).resolve().parent.parent / "datasets" / "photos" / "chelsea.png"
        rc, out = run([grader, "run", "cpu-sequential", "--runner", runner, "--input", photo,
                       "--output", Path(tmp) / "x.jpg"])
        expect(rc == 2 and ".png" in out, "--output must be a .png")
        rc, out = run([grader, "run", "cpu-sequential", "--runner", runner, "--input", photo,
                       "--output", Path(tmp) / "x.png", "--raw", "/nonexistent-folder/x.bin"])
        expect(rc == 2 and not (Path(tmp) / "x.png").exists(), "--raw checked before the picture is written")
        rc, device = run([grader, "device"])
        if rc != 0:  # no GPU here: a GPU variant says so, never a driver story
            rc, out = run([grader, "list", "--runner", runner])
            gpu = [l.split("\t")[0] for l in out.splitlines() if "\tgpu\t" in l]
            if gpu:
                rc, out = run([grader, "run", gpu[0], "--runner", runner, "--input", photo,
                               "--output", Path(tmp) / "g.png"])
                expect(rc != 0 and "no CUDA device" in out, "a GPU variant without a GPU says 'no CUDA device'")

        # A timed parameter marked on_request is timed only when --perf-params names it.
        rc, out = run([grader, "grade", "--help"])
        on_request = re.findall(r"([\w:=.-]+) \(timed only when named\)", out)
        for label in on_request[:1]:
            timed = {}
            for extra in ([], ["--perf-params", label]):
                js = Path(tmp) / "timed.json"
                rc, out = run([grader, "grade", "--runner", runner, "--sandbox", "off", "--no-check", "--perf-sizes", "16",
                               "--runs", "1", "--threads", "1", "--photos", "", "--variants", "cpu-*",
                               "--json", js, *extra])
                timed[bool(extra)] = {p.get("params") for p in json.loads(js.read_text())["performance"]}
            expect(label not in timed[False] and timed[False], f"{label} is not timed by default, the others are")
            expect(timed[True] == {label}, f"--perf-params {label} times {label} alone")

        # --perf-patterns times on the images named, instead of the lab's own.
        js = Path(tmp) / "patterns.json"
        rc, out = run([grader, "grade", "--runner", runner, "--sandbox", "off", "--no-check", "--perf-sizes", "16",
                       "--runs", "1", "--threads", "1", "--photos", "", "--variants", "cpu-*", "--perf-patterns",
                       "full", "--json", js])
        expect(rc == 0 and {p.get("pattern") for p in json.loads(js.read_text())["performance"]} == {"full"},
               "--perf-patterns full times on the one-valued image only")

        # A --photos folder may hold other files: they are left out, and said so.
        mixed = Path(tmp) / "mixed-photos"
        mixed.mkdir()
        photo = Path(__file__).resolve().parent.parent / "datasets" / "photos" / "chelsea.png"
        shutil.copy(photo, mixed / "Cat.PNG")
        (mixed / "notes.txt").write_text("where the photo came from")
        (mixed / ".DS_Store").write_bytes(b"\0\1")
        js = Path(tmp) / "mixed.json"
        rc, out = run([grader, "grade", "--runner", runner, "--sandbox", "off", "--no-perf", "--sizes", "7x5",
                       "--variants", "cpu-sequential", "--photos", mixed, "--json", js])
        expect(rc == 0 and "left out" in out and "notes.txt" in out and ".DS_Store" not in out,
               "--photos: other files left out with a note (hidden ones silently)")

        # The starter's tests skip, with the reason, once a student file differs.
        edited = Path(tmp) / "student"
        shutil.copytree(student_dir, edited)
        name = next(l.split()[1] for l in Path(manifest).read_text().splitlines() if l.strip())
        with open(edited / name, "a") as f:
            f.write("\n// a student's first edit\n")
        rc, out = run([sys.executable, guard, manifest, edited, "--", "/bin/true"])
        expect(rc == SKIP and name in out, "an edited starter skips its own tests and names the file")
        rc, out = run([sys.executable, guard, manifest, student_dir, "--", "/bin/true"])
        expect(rc in (0, SKIP), "the guard runs the command on the starter as shipped")
    print("ok")


if __name__ == "__main__":
    main()
