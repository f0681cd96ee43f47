#!/usr/bin/env python3
"""Tests of the grader itself, through a lab's grader and a runner, as students and instructors
run them (GRADER is the lab's grader program, RUNNER the runner built from the files under test).

  grader_selftest.py solution GRADER RUNNER      the reference passes every case (GPU rows: skipped without a device)
  grader_selftest.py solution-gpu GRADER RUNNER  the same, and every GPU row must really pass (exit 77 without a GPU)
  grader_selftest.py starter GRADER RUNNER       every student variant is TODO, nothing crashes, exit status 0
  grader_selftest.py broken GRADER RUNNER GLOB EXPECT STATUSES [cpu] [--sizes S] [--sanitize TOOL]
      a deliberately broken student file is caught: EXPECT=all, every variant matching GLOB ends
      in one of STATUSES (comma-separated: fail, timeout, crash, error); any, at least one does.
      GPU cases exit 77 without a device; "cpu" marks a CPU case, which always runs. --sizes:
      the sizes the bug needs (a 32-bit overflow needs 8192^2). --sanitize: the bug leaves the
      output right on real hardware (a race that never fires), so it is caught the way
      `labkit grade --sanitize TOOL` catches it: compute-sanitizer must report it for every
      variant (EXPECT=all) or one (any); STATUSES are then the verdicts the output may have.
      --digest: the sizes are all large cases, which a GPU variant answers with its output's
      digest; each caught variant must still say where its first wrong case went wrong (the
      grader ran that case again for its file) and name that case in the others.
      Every broken case also checks that failing stays cheap: the diff images lie in the folder
      given by --diff-dir, each within the pixel budget, one per size class of a variant.
  grader_selftest.py cache GRADER RUNNER
      --cases-cache: a second grading with the same seed reads the cases the first one kept (one
      slot per exercise, private to its owner) and gives the same verdicts; a slot that cannot
      be read is built again and replaced, never trusted; another seed gets slots of its own.
      --kept-timings: the grader's own rows' timings are read back by a grading with the same
      settings and grader, and timed again for other settings, another grader or a damaged file.
  grader_selftest.py cheat GRADER RUNNER GLOB
      a cheating student file (it looks for the answers in its own memory, writes fake lines
      into every descriptor it inherited, or rewrites the report when it exits) must not pass:
      every variant matching GLOB ends in a non-passing verdict, in the report the grader wrote.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SKIP = 77  # Meson's "skipped"
QUICK = ["--quick", "--no-perf", "--seed", "12345", "--timeout", "30"]
# The grader's caps on diff images: a variant's first wrong output of each size class gets one
# (SIZE_CLASS_BOUNDS: grader/grader/results.hpp, by the input's pixels), of at most DIFF_MAX_PIXELS
# (grader/grader/compare.hpp).
SIZE_CLASS_BOUNDS = (1 << 16, 1 << 20)
DIFF_MAX_PIXELS = 1024 * 1024
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def diff_dir_of(workdir):
    return Path(workdir) / "diff"


def grade(grader, runner, extra, workdir):
    out = f"{workdir}/result.json"
    cmd = [grader, "grade", "--runner", runner, *QUICK, "--json", out, "--diff-dir", str(diff_dir_of(workdir)), *extra]
    print("$", " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1200)
    print(proc.stdout)
    with open(out) as f:
        return proc.returncode, json.load(f)


def fail(msg):
    print("FAILED:", msg)
    sys.exit(1)


def png_size(path):
    """(width, height) from a PNG's header (its first chunk is IHDR)."""
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != PNG_SIGNATURE or head[12:16] != b"IHDR":
        fail(f"{path}: not a PNG")
    return struct.unpack(">II", head[16:24])


def check_diff_images(res, diff_dir):
    """A failing submission must cost about what a passing one does: a variant's first wrong
    output of each size class gets a diff image, small and right in the folder given; each later
    one says that its image was left out."""
    drawn = set()  # (variant, size class) with an image
    for c in res["cases"]:
        if c["status"] == "pass" or "first mismatch" not in c["detail"]:
            continue  # no wrong output (a guard, a malformed answer): nothing to draw
        where = f"{c['variant']} {c['case']}"
        slot = (c["variant"], sum(c["pixels"] >= bound for bound in SIZE_CLASS_BOUNDS))
        if slot in drawn:
            if c["diff"] or "left out" not in c["detail"]:
                fail(f"{where}: a second diff image of its size class, or no word that it was left out: "
                     f"{c['diff']!r}, {c['detail']!r}")
            continue
        if not c["diff"]:
            fail(f"{where}: the first wrong output of its size class has no diff image")
        drawn.add(slot)
        path = Path(c["diff"])
        if path.parent != diff_dir:
            fail(f"{where}: diff image {path} is not directly in the --diff-dir folder {diff_dir}")
        width, height = png_size(path)
        if width * height > DIFF_MAX_PIXELS:
            fail(f"{where}: diff image of {width}x{height} pixels, over the budget of {DIFF_MAX_PIXELS}")
    print("diff images (variant, size class):", sorted(drawn))


def broken_under_sanitizer(grader, runner, glob, expect, statuses, tool, tmp):
    """The grader's own --sanitize, as `labkit grade --sanitize` and `grade-all --sanitize` run
    it: every matching variant checked with compute-sanitizer in front of the runner, inside the
    sandbox, and its findings in the JSON report."""
    if subprocess.run([grader, "device"], capture_output=True, text=True).returncode != 0:
        print("skipped: no CUDA device")
        sys.exit(SKIP)
    out = f"{tmp}/sanitized.json"
    # Sanitizers slow kernels 10-100x: small awkward sizes are enough for a race in a block.
    cmd = [grader, "grade", "--runner", runner, "--variants", glob, "--no-perf", "--sizes", "7x5,31x33",
           "--photos", "", "--seed", "12345", "--timeout", "300", "--json", out, "--diff-dir", f"{tmp}/diff",
           "--sanitize", tool]
    print("$", " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1200)
    print(proc.stdout[-3000:])
    with open(out) as f:
        report = json.load(f)
    if "not sandboxed" in report.get("sandbox", "not sandboxed"):
        print(f"note: the runner was {report.get('sandbox')}")
    variants = [v for v in report["variants"] if not v.get("reference")]
    caught = []
    for v in variants:
        san = v.get("sanitizer")
        print(f"{v['name']}: output {v['status']}; {tool}: {san}")
        if not isinstance(san, dict) or san.get("tool") != tool:
            fail(f"{v['name']}: the report says nothing of {tool}")
        if v["status"] not in statuses:
            fail(f"{v['name']}: output verdict {v['status']}, want one of {statuses}")
        if not san["clean"]:
            if not san.get("findings") or not Path(san.get("report", "")).is_file():
                fail(f"{v['name']}: {tool} found errors, but the report names none or keeps no log: {san}")
            caught.append(v["name"])
    print("caught by", tool + ":", caught)
    if proc.returncode != (1 if caught else 0):
        fail(f"grader exit {proc.returncode} with {len(caught)} variant(s) caught")
    if not caught or (expect == "all" and len(caught) != len(variants)):
        fail(f"{tool} did not catch the broken kernel ({len(caught)} of {len(variants)} variants)")


def check_cases_cache(grader, runner, tmp):
    cache = tmp / "cases"
    run = lambda seed: grade(grader, runner, ["--variants", "cpu-*", "--no-perf", "--seed", str(seed),
                                              "--cases-cache", str(cache)], tmp)
    verdicts = lambda res: [(c["variant"], c["case"], c["status"]) for c in res["cases"]]
    code, first = run(3)
    slots = sorted(p for p in cache.iterdir() if p.is_dir()) if cache.is_dir() else []
    if code != 0 or not slots or any(".tmp-" in p.name for p in slots):
        fail(f"the first grading did not keep its cases (exit {code}, slots {[p.name for p in slots]})")
    if oct(cache.stat().st_mode & 0o777) != oct(0o700):
        fail(f"the cache folder is readable by others: {oct(cache.stat().st_mode & 0o777)}")
    # Each case keeps its shared pattern (which --emulate's extra orders run on), "-" for the others,
    # and the reference's seconds on it (each case's deadline is made from them).
    rows = [line.split("\t") for line in (slots[0] / "cases.tsv").read_text().splitlines()[1:]]
    made = {name.split(" ", 1)[1] for name, _, pattern, _ in rows if pattern != "-"} if all(len(r) == 4 for r in rows) else None
    if made is None or "random" not in made or any(r[2] not in ("-", r[0].split(" ")[-1]) for r in rows):
        fail(f"the cache does not keep each case's pattern: {rows[:3]}")
    if any(float(r[3]) < 0 for r in rows) or not any(float(r[3]) > 0 for r in rows):
        fail(f"the cache does not keep the reference's time on each case: {rows[:3]}")
    stamps = {p: (p / "cases.tsv").stat().st_mtime_ns for p in slots}
    code, second = run(3)
    if code != 0 or verdicts(second) != verdicts(first):
        fail("the grading from the cache gave other verdicts")
    if {p: (p / "cases.tsv").stat().st_mtime_ns for p in slots} != stamps:
        fail("the second grading built the cases again instead of reading them")
    want = sorted(slots[0].glob("want-*.raw"))[-1]
    whole = want.stat().st_size
    want.write_bytes(want.read_bytes()[:-1])  # one byte short: a slot that cannot be read
    code, third = run(3)
    if code != 0 or verdicts(third) != verdicts(first):
        fail("a damaged slot changed the verdicts")
    if (slots[0] / "cases.tsv").stat().st_mtime_ns == stamps[slots[0]] or want.stat().st_size != whole:
        fail("the damaged slot was not built again")
    if any(".tmp-" in p.name or ".old" in p.name for p in cache.iterdir()):
        fail(f"a replaced slot left folders behind: {sorted(p.name for p in cache.iterdir())}")
    # What a killed grading leaves: its staging folder. An old one goes when the next grading
    # stages; a recent one may be another grading's, at work: it stays.
    stale, recent = cache / f"{slots[0].name}.tmp-KILLED", cache / f"{slots[0].name}.tmp-RUNNING"
    for folder in (stale, recent):
        folder.mkdir()
        (folder / "cases.tsv").write_text("partial\n")
    two_hours_ago = time.time() - 2 * 3600
    os.utime(stale, (two_hours_ago, two_hours_ago))
    code, _ = run(4)
    if len([p for p in cache.iterdir() if p.is_dir() and ".tmp-" not in p.name]) != 2 * len(slots):
        fail("another seed did not get slots of its own")
    if stale.exists() or not recent.exists():
        fail(f"staging folders: a two-hour-old one must go, a fresh one stay ({sorted(p.name for p in cache.iterdir())})")
    print("cases cache: kept, read back, rebuilt when damaged, one slot set per seed; old staging folders removed")


def check_kept_timings(grader, runner, tmp):
    """--kept-timings: the grader's own rows (each exercise's reference, timed in the grader) are
    timed once and read back by a later grading with the same grader, machine and timing settings;
    other settings, another grader program or a damaged file time them again."""
    kept = tmp / "kept-timings"

    def run(program=grader, sizes="64"):
        out = tmp / "timed.json"
        cmd = [program, "grade", "--runner", runner, "--variants", "cpu-*", "--no-check", "--perf-sizes", sizes,
               "--threads", "1", "--runs", "3", "--seed", "1", "--kept-timings", str(kept), "--json", str(out)]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
        if proc.returncode != 0:
            fail(f"exit {proc.returncode}: {' '.join(map(str, cmd))}\n{proc.stdout[-3000:]}")
        res = json.loads(out.read_text())
        own = {v["name"] for v in res["variants"] if v["reference"]}
        if not own:
            fail("no row of the grader's own was timed: nothing to keep")
        # The kept file holds a time to the nanosecond (the protocol's perf line, protocol::encode),
        # so a time read back is compared to that: 3.1317945 ms comes back as 3.131794.
        times = sorted((p["variant"], p["width"], f"{p['kernel_ms']:.6f}", p["runs"]) for p in res["performance"]
                       if p["variant"] in own)
        notes = {v["name"]: v.get("notes", []) for v in res["variants"] if v["reference"]}
        return times, notes

    files = lambda: {p.name: p.stat().st_mtime_ns for p in kept.glob("*.timing")} if kept.is_dir() else {}
    first, notes = run()
    if not files() or oct(kept.stat().st_mode & 0o777) != oct(0o700):
        fail(f"the first grading kept no timing in a private folder: {sorted(files())}")
    if any("earlier grading" in n for ns in notes.values() for n in ns):
        fail(f"a first timing says it was kept: {notes}")
    stamps = files()
    second, notes = run()
    if second != first or files() != stamps:
        fail(f"the second grading timed the grader's rows again instead of reading them:\n{first}\n{second}")
    if not all(any("earlier grading" in n for n in ns) for ns in notes.values()):
        fail(f"a reused timing does not say when it was timed: {notes}")
    third, _ = run(sizes="64,96")
    if len(files()) != 2 * len(stamps) or any(kept.glob("*.tmp-*")):
        fail(f"other sizes did not time the rows anew, each kept beside the first: {sorted(files())}")
    damaged = sorted(stamps)[0]
    (kept / damaged).write_text((kept / damaged).read_text().replace("line\t", "line\tbroken\t", 1))
    run()
    if files()[damaged] == stamps[damaged] or "broken" in (kept / damaged).read_text():
        fail("a timing that cannot be read was not timed again and replaced")
    other = tmp / "grader-copy"  # another program: another size or time
    shutil.copy2(grader, other)
    os.utime(other, (time.time() + 10, time.time() + 10))
    before = len(files())
    run(program=other)
    if len(files()) != before + len(stamps):
        fail("another grader program reused the timings of this one")
    print("kept timings: read back with the same settings and grader; timed again for other sizes, "
          "a damaged file, another grader")


def check_digest_explained(res, caught):
    """Wrong digests are explained: the variant's detail has the first mismatch (from the file
    of the case run again), with a diff image, and its other wrong cases point to that case."""
    for v in caught:
        if v["status"] != "fail":
            continue
        cases = [c for c in res["cases"] if c["variant"] == v["name"] and c["status"] == "fail"]
        if "first mismatch at (x=" not in v["detail"]:
            fail(f"{v['name']}: a wrong digest was not explained: {v['detail']!r}")
        if not cases or not cases[0]["diff"]:
            fail(f"{v['name']}: no diff image for the case run again: {cases[:1]}")
        for c in cases[1:]:
            if "shows where" not in c["detail"]:
                fail(f"{v['name']}: {c['case']} does not point to the case that was explained: {c['detail']!r}")
    print("digests explained:", [v["name"] for v in caught])


def check_cpu_cap(grader, runner, tmp):
    """--cpu-max-gflop: the CPU timings left out (runner's variants and grader's reference alike)
    are exactly those whose one call counts more FLOPs than the cap."""
    cap_flops, timed = 1e4, {}
    for cap in (cap_flops, 1e12):
        out = f"{tmp}/cap.json"
        cmd = [grader, "grade", "--runner", runner, "--sandbox", "off", "--no-check", "--perf-sizes", "16", "--runs",
               "1", "--threads", "1", "--photos", "", "--variants", "cpu-*", "--cpu-max-gflop", str(cap / 1e9),
               "--json", out]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
        if proc.returncode != 0:
            fail(f"{' '.join(cmd)}: exit {proc.returncode}\n{proc.stdout[-2000:]}")
        with open(out) as f:
            timed[cap] = {(p["variant"], p["params"], p["width"]): p.get("flops_per_pixel", 0) * p["width"] * p["height"]
                          for p in json.load(f)["performance"]}
    under = {k for k, flops in timed[1e12].items() if flops <= cap_flops}
    if not timed[1e12] or set(timed[cap_flops]) != under:
        fail(f"--cpu-max-gflop {cap_flops / 1e9}: timed {sorted(timed[cap_flops])}, expected {sorted(under)}")


def check_photo_timing(grader, runner, tmp):
    """--perf-patterns photo: the runner draws the grader's photo (the first of --photos), tiled
    and shifted by each run's seed, and the grader checks the kept runs' outputs against the same
    image; a runner that drew anything else would fail its variant."""
    photos = Path(tmp) / "photos"
    photos.mkdir()
    shutil.copy(Path(__file__).resolve().parent.parent / "datasets" / "photos" / "chelsea.png", photos)
    out = f"{tmp}/photo.json"
    # One size past the photo's both sides (mirrored in x and y); --quick: one set of timed parameters.
    cmd = [grader, "grade", "--runner", runner, "--sandbox", "off", "--quick", "--no-check", "--perf-sizes", "480",
           "--runs", "3", "--threads", "1", "--photos", photos, "--variants", "cpu-*", "--perf-patterns", "photo",
           "--json", out]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    if proc.returncode != 0:
        fail(f"{' '.join(map(str, cmd))}: exit {proc.returncode}\n{proc.stdout[-2000:]}")
    with open(out) as f:
        res = json.load(f)
    runner_rows = {v["name"] for v in res["variants"] if not v["reference"]}
    timed = {p["variant"] for p in res["performance"] if p["pattern"] == "photo"}
    if res.get("timing_photo") != "chelsea.png, 451x300" or not runner_rows or not runner_rows <= timed:
        fail(f"--perf-patterns photo: timed {sorted(timed)} of {sorted(runner_rows)} on {res.get('timing_photo')!r}")
    if "chelsea.png, 451x300, mirrored" not in proc.stdout:
        fail("--perf-patterns photo: the table's title does not name the photo")


def main():
    mode, grader, runner = sys.argv[1:4]
    args = sys.argv[4:]
    with tempfile.TemporaryDirectory() as tmp:
        if mode in ("solution", "solution-gpu"):
            code, res = grade(grader, runner, [], tmp)
            has_gpu = res["environment"]["gpu"] is not None
            if mode == "solution-gpu" and not has_gpu:
                print("skipped: no CUDA device")
                sys.exit(SKIP)
            # Without a GPU, a GPU row of the solution is "not run (compiled)": never TODO, never an
            # error, and never skipped: every reference row has a configuration that runs on the
            # kit's oldest GPU (CI builds for sm_75), which the dry run checks its launches against.
            bad = [v for v in res["variants"] if v["status"] not in ("pass", "not-run")]
            if not any(v["reference"] for v in res["variants"]):
                fail("no reference row in the report")
            if bad or code != 0:
                fail(f"exit {code}; not passing: {[(v['name'], v['status'], v['detail']) for v in bad]}")
            unchecked = [v["name"] for v in res["variants"] if v["status"] == "not-run"]
            if has_gpu and unchecked:
                fail(f"a GPU is present but these were not run: {unchecked}")
            if not has_gpu and any(v["kind"] == "gpu" and v["status"] != "not-run" for v in res["variants"]):
                fail("without a GPU, every GPU row of the solution must read 'not run' (compiled)")
            if not any(v["status"] == "pass" and v["kind"] == "cpu" for v in res["variants"]):
                fail("no CPU variant passed")
            if mode == "solution":
                check_cpu_cap(grader, runner, tmp)
                check_photo_timing(grader, runner, tmp)
        elif mode == "starter":
            code, res = grade(grader, runner, [], tmp)
            for v in res["variants"]:
                want = "pass" if v["reference"] else "todo"
                if v["status"] != want:
                    fail(f"{v['name']}: {v['status']} ({v['detail']}), want {want}")
            if code != 0:
                fail(f"exit {code}: TODO rows must not fail the run")
        elif mode == "broken":
            glob, expect, statuses = args[0], args[1], args[2].split(",")
            rest = args[3:]
            cpu = "cpu" in rest
            option = lambda name: rest[rest.index(name) + 1] if name in rest else None
            if option("--sanitize"):
                broken_under_sanitizer(grader, runner, glob, expect, statuses, option("--sanitize"), tmp)
                return
            # GPU bugs may need many blocks to show (races, dispatch order): larger sizes too, but
            # not 8192^2 unless the bug needs it (its cases take seconds each). On the CPU, one
            # size past the diff image budget, so that its window is checked on every machine.
            sizes = option("--sizes") or ("quick,1500x1000" if cpu else "quick,1000x1000,4097x2049")
            # A hang must be noticed quickly; the honest variants of these sizes take milliseconds.
            code, res = grade(grader, runner, ["--variants", glob, "--sizes", sizes, "--photos", "",
                                               "--timeout", "10"], tmp)
            if not cpu and res["environment"]["gpu"] is None:
                print("skipped: no CUDA device")
                sys.exit(SKIP)
            # Only the symptom this bug must produce counts: a crash where a wrong value is
            # expected would be the grader's fault, not a catch.
            caught = [v for v in res["variants"] if v["status"] in statuses]
            print("caught:", [(v["name"], v["status"], v["detail"]) for v in caught])
            if not caught or (expect == "all" and len(caught) != len(res["variants"])):
                fail(f"the broken kernel was not caught ({len(caught)} of {len(res['variants'])} variants)")
            if code != 1:
                fail(f"exit {code}, want 1")
            check_diff_images(res, diff_dir_of(tmp))
            if "--digest" in rest:
                check_digest_explained(res, caught)
        elif mode == "cache":
            check_cases_cache(grader, runner, Path(tmp))
            check_kept_timings(grader, runner, Path(tmp))
        elif mode == "cheat":
            code, res = grade(grader, runner, ["--variants", args[0], "--timeout", "20"], tmp)
            chosen = [v for v in res["variants"] if not v["reference"]]
            if not chosen:
                fail("no variant was graded")
            passed = [v["name"] for v in chosen if v["status"] == "pass"]
            print("verdicts:", [(v["name"], v["status"], v["detail"]) for v in chosen])
            if passed:
                fail(f"the cheat passed: {passed}")
            if "environment" not in res or code != 1:
                fail(f"exit {code}, want 1, with the grader's own report")
        else:
            fail(f"unknown mode {mode}")
    print("ok")


if __name__ == "__main__":
    main()
