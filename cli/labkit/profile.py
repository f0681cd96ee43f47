"""`labkit profile LAB VARIANT`: one GPU variant's kernels under Nsight Compute (ncu), beside its
time and % of copy bandwidth as `grade` measures them.

First the lab's grader checks the variant on the quick sizes and times it at one size (its report
in results/profile/ gives the time and the % of copy, computed where grade computes them); then the
runner times it once more at that size under ncu, one timed run, and the launches of that run are
read back (ncu.py: the metrics, the CSV, the rows per kernel). Your build by default, the
reference's with --solution, as grade picks them."""

import difflib
import tempfile
from pathlib import Path

from . import ncu
from .build import build_dir_of, open_build
from .grading import run_grader, with_options
from .programs import lab_programs, list_variants, no_gpu_reason
from .proc import capture, find_cuda_tool
from .reports import GPU_TIME_DOC
from .sandbox import choose
from .util import RESULTS, LabkitError, UsageError, markdown_table, print_table, rel, say, write_atomic
from .verdicts import PASS, SHOWN, TODO

PROFILE_SIZE = 8192  # the size the handouts' measured numbers are at (docs/results.md)
OUT = RESULTS / "profile"
NCU_TIMEOUT_S = 900  # the runner under ncu: every kernel of three runs replayed once per metric pass
NCU_IMPORT_TIMEOUT_S = 120
SEED = 1  # the input's seed under ncu: any image of the pattern; the timing's own are the grader's
CLOSE_NAMES = 5  # variants offered for a name that is not one
# ncu prints numbers in the C locale's format only under it ("1,234.5", not "1.234,5").
NCU_ENV = {"LC_ALL": "C"}

NO_NCU = ("ncu (Nsight Compute's command line) is not installed here. It ships with the CUDA toolkit "
          "(/usr/local/cuda/bin/ncu); where the toolkit was installed without it, its package is "
          "nsight-compute (NVIDIA's repository: cuda-nsight-compute-<major>-<minor>, e.g. "
          "apt-get install cuda-nsight-compute-13-0), or the installer from https://developer.nvidia.com/nsight-compute")
NO_PERMISSION = ("ncu may not read this GPU's performance counters (ERR_NVGPUCTRPERM): the driver lets only "
                 "administrators do so by default. Ask the machine's administrator to allow it for every user "
                 "(the nvidia module's option NVreg_RestrictProfilingToAdminUsers=0, e.g. a line "
                 "'options nvidia NVreg_RestrictProfilingToAdminUsers=0' in /etc/modprobe.d/, then a reboot) or "
                 "to let you run ncu as root; in a container it also needs --cap-add SYS_ADMIN. "
                 "https://developer.nvidia.com/ERR_NVGPUCTRPERM says more")
NO_GPU = ("profile needs a CUDA device, and this machine has none: Nsight Compute reads a GPU's counters while "
          f"the kernels run. Profile on a machine with a GPU (where: {GPU_TIME_DOC})")


def cmd_profile(args):
    build = open_build(build_dir_of(args))
    build.lab(args.lab)  # an unknown lab: its message lists the labs
    if build.cuda is False:
        raise LabkitError(f"{rel(build.dir)} was built without CUDA: it has no GPU variant to profile")
    sandbox = choose(args.no_sandbox)
    grader, runner = lab_programs(build, args.lab, args.solution)
    row = gpu_variant(list_variants(grader, runner, sandbox), args.variant, args.lab)
    tool = ready_to_profile(build)
    label = "solution" if args.solution else "student"
    size = args.size or PROFILE_SIZE
    say(f"{args.lab} {args.variant} ({label}): checked on the quick sizes and timed at {size}² by the grader, "
        f"then profiled by {rel(tool)}, one timed run")
    report = time_variant(grader, runner, args, label, row, size, sandbox)
    timing = timing_of(report, args.variant, size)
    status = next((v for v in report.get("variants", []) if v.get("name") == args.variant), {})
    if status.get("status") not in (PASS, None):
        shown = SHOWN.get(status.get("status"), status.get("status"))
        if status.get("status") == TODO:
            raise LabkitError(f"{args.variant} is not written yet ({shown}): there is nothing to profile")
        say(f"note: {args.variant} is {shown} ({status.get('detail', '')}); profiled anyway, without a time")
    params = timing.get("params") or args.params or ""
    pattern = timing.get("pattern") or ""
    stem = OUT / report_stem(args.lab, args.variant, label, size, params)
    with tempfile.TemporaryDirectory(prefix="labkit-profile-") as tmp:
        keep = stem if args.raw else Path(tmp) / "profile"
        rows = profile_run(tool, runner, row["exercise"], args.variant, size, params, pattern, keep, Path(tmp))
    show(args, label, size, report, timing, rows, stem, args.raw)
    return 0


def gpu_variant(rows, name, lab):
    """The variant's row of `list`; a name that is not one gets the closest names, and a CPU
    variant the GPU ones (ncu sees kernels only)."""
    names = [r["name"] for r in rows]
    row = next((r for r in rows if r["name"] == name), None)
    if row is None:
        close = difflib.get_close_matches(name, names, n=CLOSE_NAMES, cutoff=0.5) or [n for n in names if name in n]
        raise UsageError(f"{lab} has no variant {name!r}" + (f"; close: {', '.join(close[:CLOSE_NAMES])}" if close else "")
                         + f" (./labkit list {lab} lists them)")
    if row["kind"] != "gpu":
        gpu = [r["name"] for r in rows if r["kind"] == "gpu"]
        raise UsageError(f"{name} runs on the CPU: ncu profiles GPU kernels only. The GPU variants of {lab}: "
                         + ", ".join(gpu))
    return row


def ready_to_profile(build):
    """ncu's path, once this machine has both a CUDA device and ncu; else one message saying what is
    missing (both, when both are)."""
    missing = []
    why = no_gpu_reason(build)
    if why:
        missing.append(NO_GPU + (f" (the probe says: {why})" if why != "no CUDA device" else ""))
    tool = find_cuda_tool("ncu")
    if not tool:
        missing.append(NO_NCU)
    if missing:
        raise LabkitError("\n  ".join(["cannot profile here:"] + missing))
    return tool


def time_variant(grader, runner, args, label, row, size, sandbox):
    """The grader's report of the variant checked on the quick sizes and timed once at size (its
    --quick: one pattern, one set of timed parameters, or --params), as grade does it."""
    extra = ["--quick", "--variants", row["name"], "--perf-sizes", str(size)]
    if args.params:
        extra += ["--perf-params", args.params]
    OUT.mkdir(parents=True, exist_ok=True)
    return run_grader(grader, runner, args.lab, label, OUT, with_options(args, lab_timeout=None, timeout=None),
                      [row], sandbox, log_path=OUT / f"{args.lab}-{label}.log", echo=False, extra=extra)


def timing_of(report, variant, size):
    """The report's timing of variant at size² ({} when it was not timed: a failing check)."""
    return next((p for p in report.get("performance", []) if p.get("variant") == variant
                 and p.get("width") == size and p.get("height") == size), {})


def answers(runs):
    """What the runner asks on stdin (grader/protocol/protocol.hpp), answered: the seed of the
    warm-up, then per run its seed and "-" (keep no output); the timed runs and as many end to end."""
    return "\n".join([str(SEED)] + [f"{SEED}\n-"] * (2 * runs)) + "\n"


def profile_run(tool, runner, exercise, variant, size, params, pattern, report, tmp):
    """The runner timing the variant once at size under ncu (report.ncu-rep), its CSV read back
    (report.csv): the aggregated rows of the timed run's kernels (ncu.aggregate)."""
    feed = tmp / "answers"
    feed.write_text(answers(1))
    rep = Path(f"{report}.ncu-rep")
    rep.parent.mkdir(parents=True, exist_ok=True)
    rep.unlink(missing_ok=True)
    cmd = [tool, "--export", rep, "--force-overwrite", "--metrics", ncu.metric_option(), runner, "time", exercise,
           variant, "--sizes", str(size), "--threads", "1", "--runs", "1"]
    cmd += (["--params", params] if params else []) + (["--patterns", pattern] if pattern else [])
    with open(feed) as stdin:
        rc, out, timed_out = capture(cmd, timeout=NCU_TIMEOUT_S, stdin=stdin, env=NCU_ENV)
    check_ncu_run(rc, out, timed_out, rep)
    # The report holds only the metrics asked for; read back without --metrics (ncu 2025 shows
    # no metric that a regex: filter names at import, though it collected them).
    rc, text, timed_out = capture([tool, "--import", rep, "--csv"], timeout=NCU_IMPORT_TIMEOUT_S, env=NCU_ENV)
    write_atomic(Path(f"{report}.csv"), text)
    try:
        return ncu.aggregate(ncu.timed_run(ncu.parse_csv(text)))
    except ValueError as e:
        raise LabkitError(f"ncu's report could not be read ({e}); {rel(rep)} and its CSV are kept with --raw") from None


def check_ncu_run(rc, out, timed_out, rep):
    """ncu's run ended well, else one message: not permitted, the runner's own error, or ncu's."""
    if "ERR_NVGPUCTRPERM" in out:
        raise LabkitError(NO_PERMISSION)
    if timed_out:
        raise LabkitError(f"ncu ran past {NCU_TIMEOUT_S} s and was stopped (a smaller --size profiles faster)")
    lines = out.splitlines()
    said = [l.split("\t", 1)[1] for l in lines if l.split("\t", 1)[0] in ("error", "todo", "skip") and "\t" in l]
    if said:
        raise LabkitError(f"the variant did not run under ncu: {said[0]}")
    errors = [l for l in lines if l.startswith("==ERROR==")]
    if rc != 0 or errors or not rep.is_file():
        shown = "\n  ".join((errors or [l for l in lines if l.strip()])[-6:])
        raise LabkitError(f"ncu failed (exit {rc}):\n  {shown}")


def grader_line(report, timing, label):
    """The variant's time as the grader measured it, its % of copy bandwidth and (where the lab
    counts its flops) of the FMA rate: the report's own numbers."""
    env = report.get("environment") or {}
    if timing.get("kernel_ms") is None:
        return f"not timed (the grader's log: {rel(OUT / (report.get('lab', '') + '-' + label + '.log'))})"
    parts = [f"{timing['kernel_ms']:.3f} ms (kernels, the median of {timing.get('runs', '?')} runs)"]
    if isinstance(timing.get("pct_copy_min_bytes"), (int, float)):
        copy = f" of {env['copy_gbps']:.0f} GB/s" if env.get("copy_gbps") else ""
        parts.append(f"{timing['pct_copy_min_bytes']:.1f}% of copy bandwidth{copy}")
    if isinstance(timing.get("pct_fma_rate"), (int, float)):
        parts.append(f"{timing['pct_fma_rate']:.1f}% of the FMA rate")
    return ", ".join(parts) + (f" on {env['gpu']}" if env.get("gpu") else "") + ", as grade times it"


def report_stem(lab, variant, label, size, params):
    """The name of a profile's files: one per variant, build, size and parameters, so that profiling
    k=9 after k=25 keeps both (`k=25` and `disk:25` become `k25`, `disk25`)."""
    tag = "".join(c for c in params if c.isalnum() or c in "-_.")
    return f"{lab}-{variant}-{label}-{size}" + (f"-{tag}" if tag else "")


def show(args, label, size, report, timing, rows, stem, kept):
    """The variant's time and % of copy (the grader's), then ncu's table and its legend; the same
    as Markdown in results/profile/."""
    what = (f"{args.lab} {args.variant} ({label}) at {size}²" + (f", {timing['params']}" if timing.get("params") else "")
            + (f", on the {timing['pattern']} image" if timing.get("pattern") else ""))
    kernels = len(rows) - (len(rows) > 1)  # without the "(all kernels)" row
    lines = [f"{what}: {grader_line(report, timing, label)}", "",
             f"Nsight Compute, the {kernels} kernel{'s' * (kernels != 1)} of one timed run:", ""]
    header, cells = ncu.table(rows)
    say("")
    say(lines[0])
    say(lines[2])
    print_table(header, cells)
    say("")
    for line in ncu.legend():
        say(f"  {line}")
    path = stem.parent / f"{stem.name}.md"
    write_atomic(path, "\n".join(lines + markdown_table(header, cells) + [""] + [f"- {l}" for l in ncu.legend()]) + "\n")
    say(f"\nas Markdown: {rel(path)}" + (f"; ncu's report: {rel(stem)}.ncu-rep (Nsight Compute's window opens it) "
                                          "and its CSV" if kept else "; --raw keeps ncu's report and its CSV there"))
