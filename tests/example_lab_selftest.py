#!/usr/bin/env python3
"""A new lab costs its own folders and one line (issue 29): the example lab of tests/example_lab/
(image negation: a CPU step and a GPU step) is laid into a copy of the kit with the one line that
registers it, and the copy is built without CUDA and graded, as an author would.

    example_lab_selftest.py [--keep DIR]

1. The kit's files (those git tracks, or would) are copied into a fresh folder and committed
   there; the example's labs/, solutions/ and docs/ are laid over it, and its name is added to
   the `labs` list of the top-level meson.build.
2. The diff stat of what that added is printed; it fails unless everything outside the lab's
   folders (labs/negation/, solutions/negation/, docs/labs/negation.md) is one added line.
3. tools/starters.py --check: the example's starters, manifest and README table are generated
   from its solutions like every lab's.
4. The copy is configured with -Dcuda=disabled and `./labkit grade negation --quick` builds and
   grades it: the starter's variants are TODO; with --solution, the solution's CPU variant
   passes, and its GPU variant passes on the CPU (emulated: no GPU is needed, none is used).
5. The lab's own meson tests (suite `negation`), which every lab gets from labs/meson.build.

--keep DIR keeps the copy and its build in DIR (empty or absent) for a look afterwards.
"""
import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.dont_write_bytecode = True  # nothing written into the kit
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "cli"))
from labkit.dist import tracked_files  # noqa: E402  (the kit's files: one home)

LAB = "negation"
EXAMPLE = ROOT / "tests" / "example_lab"
LAB_PATHS = (f"labs/{LAB}/", f"solutions/{LAB}/", f"docs/labs/{LAB}.md")
REGISTRY = "meson.build"
SKIP = 77


def run(cmd, cwd, timeout=900):
    print("$", " ".join(str(c) for c in cmd), flush=True)
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=timeout)
    return proc.returncode, proc.stdout


def check(ok, what, output=""):
    if not ok:
        print(output)
        print("FAILED:", what)
        sys.exit(1)
    print("ok:", what)


def git(kit, *args):
    proc = subprocess.run(["git", "-c", "user.name=example", "-c", "user.email=example@localhost", *args], cwd=kit,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    if proc.returncode != 0:
        check(False, f"git {' '.join(args)} in the copy", proc.stdout)
    return proc.stdout


def copy_kit(kit):
    for f in tracked_files():
        (kit / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / f, kit / f)


def register(kit):
    """Adds the lab's line to the `labs` list of the top-level meson.build, as an author does."""
    path = kit / REGISTRY
    text = path.read_text()
    m = re.search(r"^labs = \[\n(?:  '\w+',\n)*\]", text, re.M)
    check(m is not None, f"{REGISTRY} has its `labs = [` list, one `  'lab',` line a lab")
    end = m.end() - 1  # the closing bracket
    path.write_text(text[:end] + f"  '{LAB}',\n" + text[end:])


def added_outside(kit):
    """(the diff stat, the paths outside the lab's folders with their added and deleted lines)."""
    git(kit, "add", "-A")
    stat = git(kit, "diff", "--cached", "--stat")
    outside = []
    for line in git(kit, "diff", "--cached", "--numstat").splitlines():
        added, deleted, path = line.split("\t")
        if not path.startswith(LAB_PATHS):
            outside.append((path, added, deleted))
    return stat, outside


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", metavar="DIR", help="keep the copy and its build here")
    args = parser.parse_args()
    if not shutil.which("git"):
        print("git is not installed: the diff stat needs it")
        return SKIP
    with tempfile.TemporaryDirectory(prefix="labkit-example-lab-") as tmp:
        top = Path(args.keep).resolve() if args.keep else Path(tmp)
        if top.exists() and any(top.iterdir()):
            check(False, f"--keep {top} is empty")
        kit, build = top / "kit", top / "build"
        kit.mkdir(parents=True)
        start = time.monotonic()
        copy_kit(kit)
        git(kit, "init", "-q")
        git(kit, "add", "-A")
        git(kit, "commit", "-q", "-m", "the kit")
        for part in ("labs", "solutions", "docs"):
            shutil.copytree(EXAMPLE / part, kit / part, dirs_exist_ok=True)
        register(kit)
        stat, outside = added_outside(kit)
        print(f"What the example lab added to the kit (git diff --stat):\n{stat}")
        print(git(kit, "diff", "--cached", "--", REGISTRY))
        check(outside == [(REGISTRY, "1", "0")],
              f"outside {', '.join(LAB_PATHS)}: one added line of {REGISTRY}, nothing else (found {outside})")

        starters = kit / "tools" / "starters.py"
        rc, out = run([sys.executable, starters, "--check"], kit)
        check(rc == 0, "its starters, starter.sha256 and README table are generated from its solutions", out)

        rc, out = run(["meson", "setup", build, kit, "-Dcuda=disabled"], kit, timeout=300)
        check(rc == 0, "the copy configures with -Dcuda=disabled", out)
        print(f"{time.monotonic() - start:.0f} s so far")
        rc, out = run(["ninja", "-C", build, "-j", "2", *(f"labs/{LAB}_{p}" for p in ("grader", "runner", "solution_runner"))],
                      kit)
        check(rc == 0, "the lab's grader and runners build", out)
        print(f"{time.monotonic() - start:.0f} s so far")
        # Without a GPU, --quick checks the GPU variants of what it grades on the CPU (emulated):
        # the student's files by default, the reference's with --solution.
        for label, extra, want in (("student", [], {"cpu-openmp": "todo", "gpu-01-negate": "todo"}),
                                   ("solution", ["--solution"], {"cpu-openmp": "pass", "gpu-01-negate": "pass-emulated"})):
            rc, out = run([kit / "labkit", "grade", LAB, "--quick", "--build-dir", build, *extra], kit, timeout=1200)
            print(out)
            check(rc == 0, f"./labkit grade {LAB} --quick {' '.join(extra)}: no implemented variant fails")
            report = json.loads((kit / "results" / f"{LAB}-{label}.json").read_text())
            got = {v["name"]: v["status"] for v in report["variants"] if not v["reference"]}
            check(got == want, f"the {label}'s verdicts are {want} (got {got})")
            print(f"{time.monotonic() - start:.0f} s so far")

        rc, out = run(["meson", "test", "-C", build, "--no-rebuild", "--suite", LAB], kit)
        print(out)
        check(rc == 0, f"the meson tests every lab gets (suite {LAB})")
        print(f"{time.monotonic() - start:.0f} s in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
