#!/usr/bin/env python3
"""The throughput of `labkit grade-all` on a made-up class: N correct submissions, N broken on
the CPU and N broken on the GPU (default N = 10), graded with the default correctness cases.

    tools/bench_grade_all.py LAB [--per-kind N] [--jobs J] [--build-dir build] [--keep DIR]
                             [--markdown FILE] [--json FILE]

Every submission is the reference solution's files with a comment of its own in each file, so
that every file of every submission compiles, as a real class's would; the broken ones also carry
one bug: a line changed in cpu_openmp.cpp (or a corpus entry's file, tests/corpus/), or a GPU bug
of the lab's tests/reference/bugs.py. Hangs are left out on purpose: a hang costs its timeout
(--timeout), whatever the grader does. The build slots are primed first (the kit's objects,
compiled once per slot and kept between runs; --cold leaves that to the measured run); the
measured run is then timed whole, and per
submission from the start of its build to its result file. Prints a Markdown table."""

import argparse
import json
import os
import runpy
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KIT = Path(__file__).resolve().parent.parent


def bugs_of(lab):
    """The lab's bugs.py (its BUGS, and CLASS_BENCH: the made-up class's bugs, per kind)."""
    return runpy.run_path(str(KIT / "labs" / lab / "kit" / "tests" / "reference" / "bugs.py"))


def labs_of(build_dir):
    """The labs of the build, from labkit-build.json."""
    return [l["name"] for l in json.loads((Path(build_dir) / "labkit-build.json").read_text())["labs"]]


def write_submission(folder, lab, index, bug):
    """The solution's files, each with a comment naming the submission, and the bug."""
    solution = KIT / "solutions" / lab
    folder.mkdir(parents=True)
    for f in sorted(solution.iterdir()):
        if f.is_file():
            (folder / f.name).write_text(f"// submission {index}\n" + f.read_text())
    if bug is None:
        return
    kind, *what = bug
    if kind == "corpus":
        for f in (KIT / "tests" / "corpus" / what[0] / lab).iterdir():
            (folder / f.name).write_text(f"// submission {index}\n" + f.read_text())
    elif kind == "bug":
        bugs = bugs_of(lab)["BUGS"]
        b = bugs[what[0]]
        text = (folder / b["file"]).read_text()
        assert text.count(b["old"]) == 1, f"bug {what[0]} no longer applies to {b['file']}"
        (folder / b["file"]).write_text(text.replace(b["old"], b["new"]))
    elif kind == "replace":
        name, old, new = what
        text = (folder / name).read_text()
        assert text.count(old) == 1, f"{old!r} is not once in {lab}/{name}"
        (folder / name).write_text(text.replace(old, new))
    elif kind == "compile-error":
        with open(folder / what[0], "a") as f:
            f.write("\nthis line does not compile;\n")


def make_class(root, lab, per_kind):
    plan = [("correct", None)] * per_kind
    broken = bugs_of(lab)["CLASS_BENCH"]
    plan += [("cpu-broken", broken["cpu"][i % len(broken["cpu"])]) for i in range(per_kind)]
    plan += [("gpu-broken", broken["gpu"][i % len(broken["gpu"])]) for i in range(per_kind)]
    kinds = {}
    for i, (kind, bug) in enumerate(plan):
        name = f"s{i:03d}-{kind}"
        write_submission(root / name, lab, i, bug)
        kinds[name] = (kind, " ".join(bug[:2]) if bug else "")
    return kinds


def grade_all(args, subs, out, work, extra=()):
    cmd = [str(KIT / "labkit"), "grade-all", str(subs), args.lab, "--build-dir", args.build_dir, "--out", str(out),
           "--work-dir", str(work), "--no-perf", "--seed", "2026"] + (["--jobs", str(args.jobs)] if args.jobs else [])
    cmd += list(extra)
    started = time.time()
    lines = []
    with open(args.log or os.devnull, "a") as log:  # streamed, so that a run cut short still says where it was
        proc = subprocess.Popen(cmd, cwd=KIT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in proc.stdout:
            lines.append(line)
            log.write(f"{time.time() - started:7.1f} {line}")
            log.flush()
        proc.wait()
    return time.time() - started, "".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lab", help="a lab of the build (labkit-build.json)")
    parser.add_argument("--per-kind", type=int, default=10)
    parser.add_argument("--jobs", type=int)
    parser.add_argument("--build-dir", default="build")
    parser.add_argument("--keep", metavar="DIR", help="keep the class, its results and logs here")
    parser.add_argument("--markdown", metavar="FILE")
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--log", metavar="FILE", help="grade-all's output, as it comes, with the seconds since its start")
    parser.add_argument("--cold", action="store_true",
                        help="no priming: the measured run also compiles the kit's objects in every build slot, "
                             "as an instructor's first run does")
    args = parser.parse_args()
    if args.lab not in labs_of(args.build_dir):
        sys.exit(f"unknown lab {args.lab} (labs of {args.build_dir}: {', '.join(labs_of(args.build_dir))})")
    if not (KIT / "solutions" / args.lab).is_dir():
        sys.exit("the benchmark needs the reference solution (solutions/)")
    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="labkit-bench-"))
    shutil.rmtree(tmp, ignore_errors=True)
    subs, out, work = tmp / "class", tmp / "out", tmp / "work"
    kinds = make_class(subs, args.lab, args.per_kind)
    # Prime every build slot with a class as large as the slots (their kit objects), not timed.
    prime_s = 0.0
    if not args.cold:
        prime = tmp / "prime"
        for i in range(args.jobs or max(1, min(8, (os.cpu_count() or 1) // 4))):
            write_submission(prime / f"p{i}", args.lab, 1000 + i, None)
        prime_s, proc = grade_all(args, prime, tmp / "prime-out", work)
    wall, proc = grade_all(args, subs, out, work)
    (tmp / "grade-all.log").write_text(proc)
    results = {p.stem: (json.loads(p.read_text()), p.stat().st_mtime) for p in (out / "results").glob("*.json")}
    if len(results) != len(kinds) or "Traceback" in proc:
        print(proc[-3000:])
        sys.exit(f"grade-all wrote {len(results)} results for {len(kinds)} submissions (log: {tmp / 'grade-all.log'})")
    seconds = {n: r["seconds"] for n, (r, _) in results.items()}
    finished = sorted(t for _, t in results.values())
    started = finished[0] - seconds[min(results, key=lambda n: results[n][1])]
    gaps = [b - a for a, b in zip([started] + finished[:-1], finished)]
    by_kind = {}
    for n, (kind, _) in kinds.items():
        by_kind.setdefault(kind, []).append(seconds[n])
    slowest = max(seconds, key=seconds.get)
    summary = {
        "lab": args.lab, "submissions": len(kinds), "jobs": args.jobs, "whole_run_s": round(wall, 1),
        "per_submission_of_run_s": round(wall / len(kinds), 2),
        "median_interval_s": round(statistics.median(gaps), 2),
        "median_latency_s": round(statistics.median(seconds.values()), 2),
        "slowest": {"name": slowest, "bug": kinds[slowest][1], "seconds": seconds[slowest]},
        "median_latency_by_kind_s": {k: round(statistics.median(v), 2) for k, v in by_kind.items()},
        "priming_s": round(prime_s, 1), "cold_slots": args.cold,
        "points": {n: [r["points"], r["max_points"]] for n, (r, _) in sorted(results.items())},
        "gpu": next(iter(results.values()))[0]["machine"]["gpu"],
    }
    md = [f"| {args.lab} | {summary['gpu'] or 'no GPU'} | {len(kinds)} | {summary['whole_run_s']} | "
          f"{summary['per_submission_of_run_s']} | {summary['median_interval_s']} | {summary['median_latency_s']} | "
          f"{slowest} ({kinds[slowest][1] or 'correct'}): {seconds[slowest]:.1f} |"]
    print("| lab | GPU | submissions | whole run s | run s / submission | median interval s | median latency s | slowest s |")
    print("|---|---|---|---|---|---|---|---|")
    print(md[0])
    print(json.dumps(summary, indent=1))
    if args.markdown:
        Path(args.markdown).write_text("\n".join(md) + "\n")
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2))
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
