"""compute-sanitizer on the GPU variants, through the grader's `--sanitize TOOL`: each variant's
check runs with the sanitizer in front of the runner, inside the same sandbox and limits, on the
quick sizes without timing. `labkit grade --sanitize` (this checkout) and `labkit grade-all
--sanitize` (a class, where findings cost the rubric's [sanitizer] penalty) both use it."""

import json
from fnmatch import fnmatch

from .build import build_dir_of, open_build
from .grading import run_grader, with_options
from .programs import lab_programs, list_variants, no_gpu_reason
from .proc import find_cuda_tool
from .reports import GPU_TIME_DOC, stand_in_reason
from .verdicts import FAIL, FAILING, NOT_CHECKED, PASS, SHOWN
from .util import RESULTS, LabkitError, UsageError, print_table, rel, say, write_atomic

SANITIZER_TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
# Sanitizers slow kernels down 10-100x: the awkward shapes, small enough to stay quick.
SANITIZE_SIZES = "quick"  # the grader's quick awkward sizes (grader/grader/cases.hpp)
SANITIZE_TIMEOUT_S = 300  # of silence per variant, unless --timeout says otherwise
NO_GPU_TO_SANITIZE = ("--sanitize needs a CUDA device, and this machine has none: compute-sanitizer watches kernels "
                      "while they run. Grade here without --sanitize, and with it on a machine with a GPU (where: "
                      f"{GPU_TIME_DOC}); grade --slurm does not take it")


def find_sanitizer():
    found = find_cuda_tool("compute-sanitizer")
    if not found:
        raise LabkitError("compute-sanitizer not found: it ships with the CUDA toolkit (/usr/local/cuda/bin); "
                          "--sanitize needs the toolkit and a machine with a CUDA device")
    return found


def require_gpu(build):
    """compute-sanitizer watches kernels as they run: without a CUDA device there is nothing to
    watch, so say that first (not "not found")."""
    why = no_gpu_reason(build)
    if why:
        raise UsageError(NO_GPU_TO_SANITIZE + (f" (the probe says: {why})" if why != "no CUDA device" else ""))


def student_gpu(v):
    """Whether a variant row (programs.list_variants, or a grader report's) is a GPU variant of
    the student's code: not the reference, not a peer (NPP, CUB: the kit's, which only its
    reference runner has)."""
    return v.get("kind") == "gpu" and not v.get("reference") and not v.get("peer")


def gpu_variants(variants, chosen):
    """The student GPU variants of a variant list (programs.list_variants rows, or a grader
    report's) that chosen, a --variants value (GLOB,...; None: all), picks."""
    globs = chosen.split(",") if chosen else ["*"]
    return [v for v in variants if student_gpu(v) and any(fnmatch(v["name"], g) for g in globs)]


def ran_to_the_end(report, chosen):
    """The GPU variants of a submission's own grade report that its runner ran to the end of
    every case (pass or fail), of those chosen picks: what a class run sanitizes. A variant
    that is TODO has no kernel to watch; one that hung or crashed would hang or crash again,
    and is scored by its verdict already."""
    return [v for v in gpu_variants(report.get("variants", []), chosen) if v.get("status") in (PASS, FAIL)]


def run_sanitized(grader, runner, lab, out_dir, args, variants, sandbox, sanitizer, sizes=SANITIZE_SIZES, log_path=None,
                  echo=True):
    """variants (GPU rows) checked by one grader run under compute-sanitizer --tool args.sanitize,
    on sizes (a class run's sanitizer always on SANITIZE_SIZES, whatever sizes its check had: at
    3000x3000 racecheck takes minutes a variant, and a block's hazards show on the awkward shapes).
    Writes <lab>-<tool>.json/.md/.csv into out_dir (the sanitizer's whole report of each variant
    it found errors in beside the diff images, out_dir/diff/). Returns (report, {variant:
    {"clean", "findings", "report"}} for the variants the sanitizer watched, why it watched none
    or "")."""
    tool = args.sanitize
    run = with_options(args, no_perf=True, quick=False, perf_sizes=None, perf_params=None, runs=None,
                       sizes=sizes, timeout=args.timeout or SANITIZE_TIMEOUT_S,
                       variants=",".join(v["name"] for v in variants))
    report = run_grader(grader, runner, lab, tool, out_dir, run, variants, sandbox, log_path=log_path, echo=echo,
                        extra=["--sanitize", tool, "--sanitizer", sanitizer, "--photos", ""])
    watched = {v["name"]: v["sanitizer"] for v in report.get("variants", [])
               if isinstance(v.get("sanitizer"), dict) and isinstance(v["sanitizer"].get("clean"), bool)}
    why = ""
    if not watched:
        # The grader's run failed (its stand-in report says how), or ran without watching any.
        failed = stand_in_reason(report)
        why = (f"the sanitizer's grader run failed: {failed}" if failed
               else f"the sanitizer watched none of the {len(variants)} variant(s) asked for"
               + (f" (see {rel(log_path)})" if log_path else ""))
    return report, watched, why


def unchecked(s):
    """Whether a variant's check ended early under the sanitizer without a finding (a timeout, a
    crash): it was not watched all through, so it is neither clean nor penalized."""
    return s["clean"] and s.get("checked") is False


def rubric_view(tool, watched, why=""):
    """What rubric.score_lab takes as sanitized=: per variant clean or not, the first finding,
    the variants the sanitizer could not watch all through, and why it checked nothing at all
    (not_checked; "" when it watched some)."""
    if not watched and not why:
        why = "the sanitizer watched no variant"
    return {"tool": tool, "variants": {n: s["clean"] for n, s in watched.items() if not unchecked(s)},
            "findings": {n: [str(f) for f in s.get("findings") or []][:1] for n, s in watched.items()},
            "unchecked": sorted(n for n, s in watched.items() if unchecked(s)),
            "not_checked": why}


def grade_sanitized(args, labs, sandbox):
    """Every GPU variant of one tree under compute-sanitizer, on the quick sizes without timing:
    a race, an out-of-bounds access or a misplaced barrier is reported against the variant that
    has it, even when the output happened to come out right."""
    tool = args.sanitize
    build = open_build(build_dir_of(args))
    if build.cuda is False:  # absent: an older build description; let the grader decide
        raise LabkitError(f"{rel(build.dir)} was built without CUDA: there is no GPU variant to sanitize")
    require_gpu(build)
    sanitizer = find_sanitizer()
    label = "solution" if args.solution else "student"
    any_finding = False
    for lab in build.select(labs):
        grader, runner = lab_programs(build, lab, args.solution)
        chosen = gpu_variants(list_variants(grader, runner, sandbox), args.variants)
        if not chosen:
            say(f"{lab}: no GPU variant matches --variants")
            continue
        out_dir, sizes = RESULTS / "sanitize" / f"{lab}-{label}", args.sizes or SANITIZE_SIZES
        say(f"{lab} ({label}): {len(chosen)} GPU variant(s) under compute-sanitizer --tool {tool}, "
            f"each checked on the {sizes} sizes in the sandbox")
        report, watched, why = run_sanitized(grader, runner, lab, out_dir, args, chosen, sandbox, sanitizer,
                                             sizes=sizes, log_path=out_dir / f"{lab}-{tool}.log")
        if why:
            say(f"{lab} ({label}): {NOT_CHECKED}: {why}")
            any_finding = True
        rows, summary = [], []
        for v in report.get("variants", []):
            if v.get("reference"):
                continue
            s = watched.get(v["name"])
            findings = (s or {}).get("findings") or []
            verdict = ("not watched" if s is None else NOT_CHECKED if unchecked(s)
                       else "clean" if s["clean"] else "ERRORS")
            any_finding |= verdict != "clean" or v.get("status") in FAILING
            rows.append([v["name"], SHOWN.get(v.get("status"), v.get("status")), verdict,
                         (findings[0] if findings else "" if verdict == "clean" else v.get("detail", ""))[:110]])
            summary.append({"variant": v["name"], "status": v.get("status"), "sanitizer": tool,
                            "clean": bool(s and s["clean"]), "findings": findings,
                            "report": (s or {}).get("report", "")})
        say("")
        say(f"--- {lab} ({label}) under compute-sanitizer --tool {tool} ({report.get('sandbox', '')}) ---")
        print_table(["variant", "verdict", tool, "first finding (whole report: see below)"], rows)
        write_atomic(out_dir / f"summary-{tool}.json", json.dumps(summary, indent=2))
        say(f"reports: {rel(out_dir)}/ ({lab}-{tool}.json; each finding's whole report in diff/{lab}-{tool}/)")
    return 1 if any_finding else 0
