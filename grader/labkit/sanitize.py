"""`labkit grade --sanitize TOOL`: every GPU variant under compute-sanitizer, one grader run
each. The runner is a child of the grader, hence --target-processes all."""

import json
import re
import shutil
import subprocess
from fnmatch import fnmatch
from pathlib import Path

from .build import build_dir_of, open_build
from .programs import build_grader, knows_sandbox, lab_programs, list_variants
from .proc import capture, execute, tool_env
from .reports import FAILING
from .util import RESULTS, LabkitError, print_table, rel, say, write_atomic

UNSANDBOXED = "not sandboxed: under compute-sanitizer, which must follow the runner"

# compute-sanitizer's exit status when it found errors (--error-exitcode): anything the grader
# itself returns (0, 1, 2) stays distinguishable.
SANITIZER_ERROR_EXIT = 99
SANITIZER_TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
# Sanitizers slow kernels down 10-100x: the awkward shapes, small enough to stay quick.
SANITIZE_SIZES = "quick"  # the grader's quick awkward sizes (grader/cases.hpp)


def sanitizer_findings(log_text):
    """The first lines of compute-sanitizer's report that describe a problem."""
    keep = [l.strip("= ").strip() for l in log_text.splitlines()
            if l.startswith("=========") and re.search(r"Error|Race reported|Invalid|Uninitialized|Barrier", l)]
    return keep[:2]


def find_sanitizer():
    found = shutil.which("compute-sanitizer", path=tool_env().get("PATH"))
    path = found or "/usr/local/cuda/bin/compute-sanitizer"
    if not Path(path).exists():
        raise LabkitError("compute-sanitizer not found: it ships with the CUDA toolkit (/usr/local/cuda/bin); "
                          "--sanitize needs the toolkit and a machine with a CUDA device")
    return path


def require_gpu(build):
    """compute-sanitizer watches kernels as they run: without a CUDA device there is nothing to
    watch, so say that first (not "not found")."""
    lab = build.labs[0] if build.labs else None
    if lab is None:
        return
    grader = build_grader(build, lab)
    rc, out, _ = capture([grader, "device"], timeout=120)
    if rc != 0:
        why = out.strip().split("\t", 1)[-1] or "no CUDA device"
        raise LabkitError(f"--sanitize needs a machine with a CUDA device, and this one has none ({why}): "
                          "compute-sanitizer checks kernels while they run on the GPU")


def sanitize_variant(sanitizer, tool, grader, runner, label, variant, out_dir, args):
    """One variant under the sanitizer. Returns (verdict, found, findings, log path)."""
    json_path, log_path = out_dir / f"{variant}.json", out_dir / f"{variant}.log"
    cmd = [sanitizer, "--tool", tool, "--target-processes", "all", "--print-limit", "5",
           "--error-exitcode", SANITIZER_ERROR_EXIT, grader, "grade", "--runner", runner,
           "--label", label, "--variants", variant, "--no-perf", "--json", json_path,
           "--photos", "", "--sizes", args.sizes or SANITIZE_SIZES, "--diff-dir", out_dir / "diff",
           "--timeout", args.timeout or 300]
    if knows_sandbox(grader):  # compute-sanitizer must follow the runner: no namespaces between
        cmd += ["--sandbox", "off"]
    if args.seed is not None:
        cmd += ["--seed", args.seed]
    json_path.unlink(missing_ok=True)  # a report left by an earlier run must not count
    with open(log_path, "wb") as log:
        rc, timed_out = execute(cmd, timeout=args.lab_timeout or 1800, stdout=log,
                                stderr=subprocess.STDOUT)
    try:
        verdict = json.loads(json_path.read_text())["variants"][0]["status"]
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        verdict = "timeout" if timed_out else "error"
    findings = sanitizer_findings(log_path.read_text(errors="replace"))
    found = rc == SANITIZER_ERROR_EXIT or bool(findings)
    return verdict, found, findings, log_path


def grade_sanitized(args, labs, sandbox):
    """Every GPU variant of one tree, each in its own grader run under compute-sanitizer, on the
    quick sizes without timing: a race, an out-of-bounds access or a misplaced barrier is reported
    against the variant that has it, even when the output happened to come out right. This
    checkout's own code, so the runs under the sanitizer are not sandboxed (sandbox only lists
    the variants)."""
    tool = args.sanitize
    build = open_build(build_dir_of(args))
    if build.cuda is False:  # absent: an older build description; let the grader decide
        raise LabkitError(f"{rel(build.dir)} was built without CUDA: there is no GPU variant to sanitize")
    require_gpu(build)
    sanitizer = find_sanitizer()
    label = "solution" if args.solution else "student"
    globs = args.variants.split(",") if args.variants else ["*"]
    any_finding = False
    for lab in build.select(labs):
        grader, runner = lab_programs(build, lab, args.solution)
        out_dir = RESULTS / "sanitize" / f"{lab}-{label}-{tool}"
        out_dir.mkdir(parents=True, exist_ok=True)
        rows, report = [], []
        chosen = [v for v in list_variants(grader, runner, sandbox)
                  if v["kind"] != "cpu" and any(fnmatch(v["name"], g) for g in globs)]
        for i, v in enumerate(chosen, 1):
            say(f"[{i}/{len(chosen)}] {tool}: {v['name']}")
            verdict, found, findings, log_path = sanitize_variant(
                sanitizer, tool, grader, runner, label, v["name"], out_dir, args)
            any_finding |= found or verdict in FAILING
            rows.append([v["name"], verdict, "ERRORS" if found else "clean",
                         (findings[0] if findings else "")[:110]])
            report.append({"variant": v["name"], "status": verdict, "sanitizer": tool, "clean": not found,
                           "findings": findings, "log": str(rel(log_path)), "sandbox": UNSANDBOXED})
        say("")
        say(f"--- {lab} ({label}) under compute-sanitizer --tool {tool} ---")
        print_table(["variant", "verdict", tool, "first finding (whole report in the log)"], rows)
        write_atomic(out_dir / "summary.json", json.dumps(report, indent=2))
        say(f"logs: {rel(out_dir)}/<variant>.log ({UNSANDBOXED})")
    return 1 if any_finding else 0
