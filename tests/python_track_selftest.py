#!/usr/bin/env python3
"""The Python track (pyrunner, each lab's kit/track.py and python/), graded through each
lab's grader as students and instructors run it.

  python_track_selftest.py cpu --build-dir B   no GPU needed: the kernels compile (nvcc); every starter variant is TODO; the
      solution's Numba variants pass on Numba's CUDA simulator (exit 77 when the interpreter has
      no numba: ./labkit setup --python); the others are "not run" or "skipped"; a hostile
      student file reaches nothing outside its sandbox; the runner's timing images are the kit's.
  python_track_selftest.py gpu --build-dir B   on a GPU (exit 77 without): every solution Python
      variant passes every default case, and a kernel without its barrier is caught; a variant
      whose library the interpreter lacks must say skipped (the others still checked).
The interpreter is the one labkit gives the grader (cli/labkit/programs.py)."""
import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "cli"))
from labkit.programs import python_interpreter  # noqa: E402

SKIP = 77
# The barrier each lab's broken copy loses (its comment in the solution): the tile of Lab 1's
# transpose, read before it is whole; Lab 2's block histogram, merged before every thread counted.
BARRIERS = {"integral_image": "the tile is whole", "histogram_equalization": "before its bins are merged"}
PY_GLOB = "pycuda*,cupy*,numba*"
TINY = ["--sizes", "1x1,7x3", "--max-case-pixels", "64", "--photos", "", "--no-perf", "--seed", "5", "--timeout", "120"]


def labs_with_track(build):
    info = json.loads((build / "labkit-build.json").read_text())
    return [l for l in info["labs"] if (ROOT / "labs" / l["name"] / "kit" / "track.py").is_file()]


def grade(build, lab, code, extra, runner_key="solution_runner"):
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "r.json"
        cmd = [str(build / lab["grader"]), "grade", "--runner", str(build / lab[runner_key]), "--python",
               python_interpreter(), "--python-code", str(code), "--variants", PY_GLOB, "--json", str(out),
               "--diff-dir", str(Path(tmp) / "diff"), *extra]
        print("$", " ".join(cmd), flush=True)
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1500)
        print(proc.stdout[-3000:])
        if not out.exists():
            raise AssertionError(f"no report (exit {proc.returncode})")
        return proc.returncode, {v["name"]: v for v in json.loads(out.read_text())["variants"] if not v["reference"]}


def expect(rows, want, what):
    bad = {n: (v["status"], v["detail"]) for n, v in rows.items() if not want(n, v["status"])}
    if bad or not rows:
        raise AssertionError(f"{what}: {bad or 'no Python variants'}")
    print(f"ok: {what}")


def importable(module):
    return subprocess.run([python_interpreter(), "-c", f"import {module}"], capture_output=True).returncode == 0


def has_numba():
    return importable("numba.cuda")


def check_generator(build):
    """The runner's timing images come from the kit's generator, through ctypes, bit for bit:
    checked against splitmix64 written out here (common/labkit/generators.hpp)."""
    mask = (1 << 64) - 1

    def mix64(x):
        x = (x + 0x9E3779B97F4A7C15) & mask
        x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & mask
        x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & mask
        return x ^ (x >> 31)

    lib = next(build.rglob("liblabkit_inputs.so"))
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from labkit_py.inputs import Generator; "
            "print(','.join(map(str, Generator(sys.argv[2]).gray('random', 5, 3, 99).ravel())))")
    out = subprocess.run([python_interpreter(), "-c", code, str(ROOT / "pyrunner"), str(lib)],
                         capture_output=True, text=True)
    if out.returncode != 0:
        print(f"the generator check needs numpy in {python_interpreter()}: skipped ({out.stderr.strip()[-200:]})")
        return
    got = [int(v) for v in out.stdout.strip().split(",")]
    want = [mix64(99 ^ mix64(i)) % 256 for i in range(15)]
    if got != want:
        raise AssertionError(f"timing images differ from the kit's generator: {got} vs {want}")
    print("ok: the runner's timing images are the kit's")


HOSTILE = '''
import os
def compile(source):
    for target in ({kit!r}, {results!r}):
        try:
            with open(os.path.join(target, "HACKED-by-python-track"), "w") as f:
                f.write("x")
        except OSError:
            pass
    with open({solution!r}) as f:  # the reference's own file: must not be there
        f.read()
    return None
def {entry}(kernels, ctx, image, out):
    return None
'''


def check_hostile(build, lab):
    """A student file that writes into the kit and reads the solution: nothing lands, nothing is read."""
    track = (ROOT / "labs" / lab["name"] / "kit" / "track.py").read_text()
    entry = track.split('ENTRY = "', 1)[1].split('"', 1)[0]
    solution = ROOT / "solutions" / lab["name"] / "python" / "04_numba.py"
    with tempfile.TemporaryDirectory() as tmp:
        code = Path(tmp) / "python"
        code.mkdir()
        (code / "04_numba.py").write_text(HOSTILE.format(kit=str(ROOT), results=str(ROOT / "results"),
                                                         solution=str(solution), entry=entry))
        code.chmod(0o755)
        (code / "04_numba.py").chmod(0o644)
        Path(tmp).chmod(0o755)
        _, rows = grade(build, lab, code, TINY + ["--python-simulate"])  # checked, so that compile() runs
    planted = [p for p in (ROOT / "HACKED-by-python-track", ROOT / "results" / "HACKED-by-python-track") if p.exists()]
    for p in planted:
        p.unlink()
    if planted:
        raise AssertionError(f"a student file wrote {planted}")
    numba = rows.get(next(n for n in rows if n.startswith("numba")))
    if numba["status"] != "error" or "solutions" not in numba["detail"]:
        raise AssertionError(f"the hostile file was not stopped where it read the solution: {numba}")
    print(f"ok: a hostile Python file reached nothing ({numba['status']}: {numba['detail'][:100]})")


def check_kernels_compile(labs):
    """Every .cu file compiles here, the Python track's too: PyCUDA and CuPy compile them only at
    run time, on a GPU. nvcc from PATH or /usr/local/cuda; without it, said and not checked."""
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if Path("/usr/local/cuda/bin/nvcc").exists() else None)
    if nvcc is None:
        print("no nvcc: the Python track's kernels were not compiled")
        return
    for lab in labs:
        for base in (ROOT / "labs", ROOT / "solutions"):
            source = base / lab["name"] / "python" / "01_kernels.cu"
            with tempfile.TemporaryDirectory() as tmp:
                out = subprocess.run([nvcc, "-c", "-std=c++17", "-arch=sm_90", "-x", "cu", str(source), "-o",
                                      str(Path(tmp) / "k.o")], capture_output=True, text=True)
            if out.returncode != 0:
                raise AssertionError(f"{source.relative_to(ROOT)} does not compile: {out.stderr.strip()[-500:]}")
    print(f"ok: every Python-track 01_kernels.cu compiles ({nvcc})")


def cpu(build):
    labs = labs_with_track(build)
    check_kernels_compile(labs)
    check_generator(build)
    for lab in labs:
        _, rows = grade(build, lab, ROOT / "labs" / lab["name"] / "python", TINY + ["--python-simulate"], "runner")
        expect(rows, lambda n, s: s == "todo", f"{lab['name']}: every starter Python variant is TODO")
    if not has_numba():
        print(f"numba is not installed for {python_interpreter()} (./labkit setup --python): the simulator checks "
              "are skipped")
        return SKIP
    for lab in labs:
        check_hostile(build, lab)
        rc, rows = grade(build, lab, ROOT / "solutions" / lab["name"] / "python", TINY + ["--python-simulate"])
        expect(rows, lambda n, s: s == "pass" if n.startswith("numba") else s in ("not-run", "skipped"),
               f"{lab['name']}: the solution's Numba variants pass on the simulator, the others are not run here")
        if rc != 0:
            raise AssertionError(f"grading the solution exited {rc}")
    return 0


def gpu(build):
    labs = labs_with_track(build)
    probe = subprocess.run([str(build / labs[0]["grader"]), "device"], capture_output=True, text=True)
    if probe.returncode != 0:
        print(f"no GPU: {probe.stdout.strip()}")
        return SKIP
    for lab in labs:
        solution = ROOT / "solutions" / lab["name"] / "python"
        _, rows = grade(build, lab, solution, ["--no-perf", "--seed", "11"])
        # A variant whose library this interpreter lacks (the GPU node has no pycuda) is skipped,
        # as it says; every other one passes, and at least one does.
        missing = {n for n in rows if not importable(n.split("-")[0])}
        if missing:
            print(f"not installed for {python_interpreter()}, so skipped, not checked: {', '.join(sorted(missing))}")
        expect(rows, lambda n, s: s == ("skipped" if n in missing else "pass"),
               f"{lab['name']}: every solution Python variant whose library is installed passes every case")
        if len(missing) == len(rows):
            raise AssertionError(f"{lab['name']}: no Python variant's library is installed for {python_interpreter()}")
        with tempfile.TemporaryDirectory() as tmp:
            broken = Path(tmp) / "python"
            subprocess.run(["cp", "-r", str(solution), str(broken)], check=True)
            subprocess.run([sys.executable, str(ROOT / "tests" / "unbarrier.py"), str(broken), BARRIERS[lab["name"]]],
                           check=True)
            subprocess.run(["chmod", "-R", "a+rX", tmp], check=True)
            _, rows = grade(build, lab, broken, ["--quick", "--no-perf", "--photos", "", "--seed", "11"])
        expect(rows, lambda n, s: s == ("skipped" if n in missing else "fail"),
               f"{lab['name']}: a kernel without its barrier fails")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("mode", choices=["cpu", "gpu"])
    p.add_argument("--build-dir", required=True, type=Path)
    args = p.parse_args()
    if not python_interpreter():
        print("no Python interpreter for the Python track")
        return SKIP
    return cpu(args.build_dir.resolve()) if args.mode == "cpu" else gpu(args.build_dir.resolve())


if __name__ == "__main__":
    try:
        sys.exit(main())
    except AssertionError as e:
        print(f"FAILED: {e}")
        sys.exit(1)
