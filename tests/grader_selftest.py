#!/usr/bin/env python3
"""Tests of the grader itself, through the lab binaries a student or instructor runs.

  grader_selftest.py solution BIN   the reference passes every case (GPU rows: skipped without a device)
  grader_selftest.py solution-gpu BIN   the same, and every GPU row must really pass (exit 77 without a GPU)
  grader_selftest.py starter BIN    every student variant is TODO, nothing crashes, exit status 0
  grader_selftest.py broken BIN GLOB EXPECT STATUSES [cpu]
      a deliberately broken student file is caught: EXPECT=all, every variant matching GLOB ends
      in one of STATUSES (comma-separated: fail, timeout, crash, error); any, at least one does.
      GPU cases exit 77 without a device; a trailing "cpu" marks a CPU case, which always runs.
"""
import json
import subprocess
import sys
import tempfile

SKIP = 77  # Meson's "skipped"
QUICK = ["--quick", "--no-perf", "--seed", "12345", "--timeout", "30"]


def grade(binary, extra, workdir):
    out = f"{workdir}/result.json"
    cmd = [binary, "grade", *QUICK, "--json", out, "--diff-dir", f"{workdir}/diff", *extra]
    print("$", " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1200)
    print(proc.stdout)
    with open(out) as f:
        return proc.returncode, json.load(f)


def fail(msg):
    print("FAILED:", msg)
    sys.exit(1)


def main():
    mode, binary = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        if mode in ("solution", "solution-gpu"):
            code, res = grade(binary, [], tmp)
            has_gpu = res["environment"]["gpu"] is not None
            if mode == "solution-gpu" and not has_gpu:
                print("skipped: no CUDA device")
                sys.exit(SKIP)
            bad = [v for v in res["variants"] if v["status"] not in ("pass", "skipped")]
            if bad or code != 0:
                fail(f"exit {code}; not passing: {[(v['name'], v['status'], v['detail']) for v in bad]}")
            skipped = [v["name"] for v in res["variants"] if v["status"] == "skipped"]
            if has_gpu and skipped:
                fail(f"a GPU is present but these were skipped: {skipped}")
            if not any(v["status"] == "pass" and v["kind"] == "cpu" for v in res["variants"]):
                fail("no CPU variant passed")
        elif mode == "starter":
            code, res = grade(binary, [], tmp)
            for v in res["variants"]:
                want = "pass" if v["name"] == "cpu-sequential" else "todo"
                if v["status"] not in (want, "skipped"):
                    fail(f"{v['name']}: {v['status']} ({v['detail']}), want {want}")
            if code != 0:
                fail(f"exit {code}: TODO rows must not fail the run")
        elif mode == "broken":
            glob, expect, statuses = sys.argv[3], sys.argv[4], sys.argv[5].split(",")
            cpu = sys.argv[6:] == ["cpu"]
            sizes = "255x257,1000x1000" if cpu else "1000x1000,1024x768,4097x2049,255x257"
            # A hang must be noticed quickly; the honest variants of these sizes take milliseconds.
            code, res = grade(binary, ["--variants", glob, "--sizes", sizes, "--timeout", "5"], tmp)
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
        else:
            fail(f"unknown mode {mode}")
    print("ok")


if __name__ == "__main__":
    main()
