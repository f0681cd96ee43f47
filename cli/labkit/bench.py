"""`labkit bench --peers`: the kit's variants and the libraries a user would otherwise pick, timed
in one run on this machine, as ratios.

For each lab: the lab's grader checks the variants (all, or --variants) on the quick awkward sizes
and times them (kernels only, CUDA events, L2 flushed, the median; CPU variants at their best thread
count), the lab's own peers among them (labs/<lab>/kit/peers.cu: rows `peer-LIBRARY` of the solution's runner,
e.g. CUB called from C++, graded and timed exactly as the kit's variants); then
tools/bench_alternatives.py times the peers present here (NPP, PyTorch, OpenCV: each checked against
the lab's contract before it is timed; a missing one is a note, never a number). The table gives,
per size, the fastest variant of each step of the handout (gpu-04, cpu-openmp, ...) and each peer:
its time, its ratio to the kit's fastest GPU variant and its % of copy bandwidth on the lab's floor
(GPU only). Results in results/bench/."""

import json
import os
import re
import shlex
import subprocess
import sys
import time

from .build import build_dir_of, make, open_build
from .grading import run_grader, validate_options, with_options
from .steps import family
from .draw import floor_bytes_per_pixel, peer_times
from . import reports
from .programs import build_grader
from .sandbox import choose
from .util import RESULTS, ROOT, LabkitError, UsageError, kit_path, markdown_table, print_table, rel, say, write_atomic
from .verdicts import PASS

PEERS_SCRIPT = ROOT / "tools" / "bench_alternatives.py"
RUN_FILE = "run.json"  # in --out: the command, clocks, start and durations that the page gives
PEERS_TIMEOUT_S = 1800
# How to get what a peer runs through (NPP is called on PyTorch's device memory and stream).
MODULE_HINTS = {"torch": "PyTorch with CUDA: pip install torch", "numpy": "apt-get install python3-numpy",
                "cv2": "apt-get install python3-opencv", "scipy": "apt-get install python3-scipy"}
GRADER_TIMEOUT_S = 3600  # the check on the quick sizes, then every timing (8192^2 sequential included)
DEFAULT_SIZES = "2048,8192"
PEER_RUNS = 20  # timed runs per peer measurement unless --runs
# The grader's options a bench sets itself: the kit's variants checked on the quick sizes, then
# timed at bench's own --sizes (its --perf-sizes), with a fresh seed and the grader's own limit.
_CHECKED_AND_TIMED = dict(sizes="quick", quick=False, no_perf=False, seed=None, timeout=None)
BENCH_SETS = frozenset(_CHECKED_AND_TIMED) | {"perf_sizes"}


def peers_of(lab, sizes, runs, out, build_dir, ks=()):
    """tools/bench_alternatives.py for lab, its JSON ({peer: {"ms": {row: ms}, ...}}), or
    {"(peers)": {"error": why}} when it could not run at all. build_dir: whose graders say the
    lab's facts (its filters, its tolerance). ks: the filter sizes the grader timed (Lab 3's
    Gaussians), so that the peers time the same ones."""
    cmd = [sys.executable, str(PEERS_SCRIPT), "--lab", lab, "--sizes", sizes, "--runs", str(runs), "--json", str(out),
           "--build-dir", str(build_dir)] + (["--ks", ",".join(map(str, ks))] if ks else [])
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=PEERS_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"(peers)": {"error": f"tools/bench_alternatives.py ran past {PEERS_TIMEOUT_S} s"}}
    try:
        return json.loads(out.read_text())
    except (OSError, ValueError):
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"(peers)": {"error": f"tools/bench_alternatives.py failed: {last}"}}


def peer_rows(peers):
    """{(tag, size): {peer: (ms, check failed, its own floor in B/px or None)}} of a peers JSON (rows
    "N", "PATTERN N" or "PARAMS N"), and {peer: note} for each one that is missing or whose check
    failed. A peer that computes less than the lab's output (a histogram alone) names its floor."""
    rows, notes = {}, {}
    for name, got in peers.items():
        if "error" in got:
            missing = re.search(r"No module named '([\w.]+)'", got["error"])
            notes[name] = (f"not measured: it runs through the Python module {missing.group(1)}, which this python "
                           f"({sys.executable}) lacks ({MODULE_HINTS.get(missing.group(1), 'pip install it')})"
                           if missing else f"not measured: {got['error']}")
            continue
        failed = sorted(k for k, c in (got.get("check") or {}).items() if isinstance(c, dict) and not c.get("ok"))
        if failed:
            notes[name] = f"output check failed for {', '.join(failed)}: its times are marked ✗"
        if got.get("thread_use"):
            t = got["thread_use"]
            notes[name] = ((notes[name] + "; ") if name in notes else "") + (
                f"threads, measured on {t['row']}²: {t['ms']:.2f} ms with OpenCV's {t['threads']}, "
                f"{t['one_thread_ms']:.2f} ms on one ({t['one_thread_ms'] / t['ms']:.1f}× from its threads)")
        for tag, size, ms in peer_times(got):
            # The kit tags its noise timings "" (plot.kit_rows); a peer may name the pattern.
            key = ("" if tag == "random" else tag, size)
            rows.setdefault(key, {})[name] = (ms, tag in failed, got.get("floor_bytes_per_pixel"))
    return rows, notes


def step_of(variant, peers=frozenset()):
    """The handout step a variant belongs to: its name's first two words (gpu-04, cpu-openmp); each
    expert-tier variant is a row of its own (cpu-openmp-expert, gpu-05-expert-single-pass), and
    so is each of the lab's own peers (peers: their names), its configurations one row
    (peer-npp-separable; peer-cub-blockscan for -s256-b8, -s512-b8, ...)."""
    words = variant.split("-")
    if variant in peers:
        return family(variant)
    return variant if "expert" in words[2:] else "-".join(words[:2])


def kit_rows(report, exercise):
    """{(tag, size): {variant: (ms, kind, % copy or None, passes, e2e ms)}} of the lab's main exercise (the one
    the peers compute), the fastest variant of each step of the handout only; the tag is the
    timing's pattern (when not random) or its parameters, as the peers name their rows. The lab's
    own peers (labs/<lab>/kit/peers.cu, rows the grader marks "peer") have the kind "peer". passes: the times of
    the run's passes (labkit::end_stage) when it has more than one, e.g. a peer's padded copy."""
    peers = {v["name"] for v in report.get("variants", []) if v.get("peer")}
    rows = {}
    for p in report.get("performance", []):
        if p.get("exercise", exercise) != exercise or p.get("width") != p.get("height") \
                or not isinstance(p.get("kernel_ms"), (int, float)):
            continue
        tag = p.get("params") or ("" if p.get("pattern", "random") == "random" else p["pattern"])
        here = rows.setdefault((tag, p["width"]), {})
        same_step = [v for v in here if step_of(v, peers) == step_of(p["variant"], peers)]
        if same_step and here[same_step[0]][0] <= p["kernel_ms"]:
            continue
        for v in same_step:
            del here[v]
        passes = p.get("pass_ms") or []
        here[p["variant"]] = (p["kernel_ms"], "peer" if p["variant"] in peers else p.get("kind", ""),
                              p.get("pct_copy_min_bytes"), passes if len(passes) > 1 else [], p.get("e2e_ms"))
    return rows


def untimed_peers(report):
    """{peer: note} for each of the lab's own peers that did not pass its check, so was not timed."""
    return {v["name"]: f"not timed: its check gave {v.get('status')}" + (f" ({v['detail']})" if v.get("detail") else "")
            for v in report.get("variants", []) if v.get("peer") and v.get("status") != PASS}


def other_exercises(report):
    """The lab's exercises besides its main one (the transposes, the exclusive table, ...): no peer
    computes them."""
    main = report.get("lab", "")
    return sorted({p["exercise"] for p in report.get("performance", []) if p.get("exercise", main) != main})


def table(report, peers, exercise=None):
    """The rows of the peers table, and the notes under it; with exercise, the rows of that other
    exercise of the lab (its name first in the image column), against its own fastest GPU row."""
    copy = (report.get("environment") or {}).get("copy_gbps") or 0
    bpp = floor_bytes_per_pixel(report, exercise or report.get("lab", ""))
    kit, (theirs, notes) = kit_rows(report, exercise or report.get("lab", "")), peer_rows(peers)
    notes.update(untimed_peers(report))
    out = []
    for key in sorted(set(kit) | set(theirs), key=lambda k: (k[0], k[1])):
        tag, n = key
        mine = kit.get(key, {})
        gpu = [(ms, e2e) for ms, kind, _, _, e2e in mine.values() if kind == "gpu"]
        best, best_e2e = min(gpu) if gpu else (None, None)  # the fastest kernels, and their end-to-end time

        def ratio(ms, on_gpu):  # a GPU time against the kernels; a CPU time against the GPU end to end
            against = best if on_gpu else best_e2e
            return f"{ms / against:.2f}" if isinstance(against, (int, float)) and against > 0 else "—"
        where = ", ".join(x for x in (exercise, tag, f"{n}²") if x)
        for v, (ms, kind, pct, passes, e2e) in sorted(mine.items(), key=lambda i: i[1][0]):
            on_gpu = kind != "cpu"
            out.append([where, v, kind, f"{ms:.4f}", f"{e2e:.4f}" if on_gpu and isinstance(e2e, (int, float)) else "—",
                        ratio(ms, on_gpu), f"{pct:.1f}" if isinstance(pct, (int, float)) else "—",
                        " + ".join(f"{x:.4f}" for x in passes) or "—"])
        for name, (ms, failed, own_bpp) in sorted(theirs.get(key, {}).items(), key=lambda i: i[1][0]):
            floor = own_bpp or bpp
            on_gpu = name.endswith("_gpu")
            pct = 100 * floor * n * n / (ms * 1e-3) / 1e9 / copy if on_gpu and floor and copy else None
            out.append([where, name + (" ✗" if failed else ""), "peer", f"{ms:.4f}", "—", ratio(ms, on_gpu),
                        f"{pct:.1f}" if pct is not None else "—", "—"])
    return out, notes


HEADER = ["image", "variant or peer", "kind", "ms", "e2e ms‡", "÷ kit's fastest GPU§", "% of copy bandwidth*",
          "passes (ms)†"]
FOOTNOTES = {
    "*": "GPU only: the lab's floor of bytes per pixel (its contract's minimum, in the table's title) over the "
         "time, against the device-to-device copy bandwidth measured in the lab's run (in the title too)",
    "†": "the run's passes, each timed by CUDA events, where it has more than one (`./labkit list` names a "
         "peer's passes in its summary, e.g. NPP's padded copy before its filter)",
    "‡": "the kit's rows and its own peers (labs/<lab>/kit/peers.cu): the input uploaded from pinned memory, the "
         "kernels, the output downloaded, timed as one",
    "§": "a GPU row's kernel time over the fastest GPU variant's; a CPU row's wall time over that variant's "
         "end-to-end time (what a CPU user would otherwise wait for)",
}


def lab_section(title, rows, notes):
    """A lab's table as Markdown: its title, the rows and the notes (footnotes last)."""
    md = [f"**{title}**", ""] + markdown_table(HEADER, rows) + [""]
    md += [f"- {n}: {t}" for n, t in sorted(notes.items()) if n not in FOOTNOTES]
    return md + [f"- {n} {t}" for n, t in FOOTNOTES.items()]


def gpu_clocks():
    """The GPU's clocks as nvidia-smi states them (SM and memory: now and at most; the power limit),
    or why they are not known."""
    fields = "clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.limit"
    try:
        got = subprocess.run(["nvidia-smi", f"--query-gpu={fields}", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"not known (nvidia-smi: {e})"
    if got.returncode != 0 or not got.stdout.strip():
        return f"not known (nvidia-smi said: {(got.stderr or got.stdout).strip()[:200]})"
    sm, sm_max, mem, mem_max, power = [f.strip() for f in got.stdout.splitlines()[0].split(",")]
    return f"SM {sm} (at most {sm_max}), memory {mem} (at most {mem_max}), power limit {power}, by nvidia-smi before the run"


def page(sections, run, out_dir, target, drawn=None):
    """docs/results.md as `bench --peers --page` writes it: the machine, the command, how to read the
    tables, and each lab's table, all from this run. run: RUN_FILE's facts (a page written before
    the last of run["planned"] labs says so). drawn: (command, date) of a --render."""
    command, clocks, started, seconds = run["command"], run["clocks"], run["started"], run["seconds"]
    labs, calls = len(run["planned"]), run.get("calls", 1)
    env = next((e for _, e, _ in sections if e.get("gpu")), sections[0][1] if sections else {})
    gpu = (f"{env['gpu']} ({env.get('sms', '?')} SMs, compute {env.get('compute_capability', '?')}, "
           f"{env.get('gpu_memory_gib', '?')} GiB), driver {env.get('driver', '?')}, CUDA {env.get('cuda', '?')}"
           if env.get("gpu") else "none (no CUDA device: the GPU variants were compiled, not timed)")
    measured = ", ".join(x for x in (f"copy {env['copy_gbps']:.0f} GB/s" if env.get("copy_gbps") else "",
                                     f"FP32 FMA {env['fma_gflops']:.0f} GFLOP/s" if env.get("fma_gflops") else "") if x)
    md = ["# Measured results", "",
          "<!-- Written by `./labkit bench --peers --page`: run it again rather than edit this file. -->", "",
          f"Every number below comes from one run of `{command}`, started {started} and lasting "
          f"{seconds / 60:.1f} minutes" + (f" in {calls} calls (each `--resume` went on with the labs not done yet)"
                                            if calls > 1 else "") + ("" if len(sections) >= labs else
                                          f" up to the end of lab {len(sections)} of {labs}, where this page was written"
                                          f" (a run stopped before its end leaves the labs it finished)") + f". Its reports are in [`{rel(out_dir)}/`]({os.path.relpath(out_dir, target.parent)}/): each lab's grader "
          "report (`<lab>-bench-solution.json`, with every case and timing) and the Python peers' JSON (`<lab>-peers.json`)." +
          (f" The tables were drawn again from those reports on {drawn[1]} (`{drawn[0]}`), after a change to how "
           "they are drawn: every number is still the run's." if drawn else ""), "",
          f"- **GPU:** {gpu}; clocks: {clocks}" + (f"; measured in the first lab's run: {measured} (each table's "
                                                    "title gives the copy bandwidth of its own)." if measured else "."),
          f"- **CPU:** {env.get('cpu', '?')}, {env.get('threads', '?')} threads.", "",
          "**How it was measured.** Each lab's grader checks every variant and peer on the quick sizes, then times "
          "them on the image sizes shown. GPU times are kernels only: CUDA events around the call, the input already "
          "on the device, the L2 flushed by a read sweep before every run, the median of 5 to 50 runs after a "
          "warm-up. \"e2e\" adds the upload from and the download to pinned host memory. CPU times are wall-clock "
          "medians. Peers named `peer-…` are the lab's own (`labs/<lab>/kit/peers.cu`: CUB and NPP called from "
          "C++), graded and timed exactly as the kit's rows; the others (PyTorch, OpenCV, NPP through ctypes) are "
          "`tools/bench_alternatives.py`'s, each checked against the lab's contract first. Each table keeps the "
          "fastest configuration of each step of the handout, and every peer.", "",
          "Earlier runs, with the Nsight Compute write-ups of the targets they missed, are dated reports in "
          f"[`measurements/`]({os.path.relpath(ROOT / 'measurements', target.parent)}/).", ""]
    for lab, _, section in sections:
        md += [f"## {lab}", ""] + section + [""]
    return "\n".join(md)


def cmd_bench(args):
    if args.render:
        return render(args)
    if not args.peers:
        raise UsageError("bench needs --peers (the kit's own timings alone are `./labkit grade`'s)")
    if not re.fullmatch(r"\d+(,\d+)*", args.sizes):
        raise UsageError(f"--sizes {args.sizes}: square sizes N,N,...")
    build = open_build(build_dir_of(args))
    sandbox = choose(args.no_sandbox)
    out_dir = kit_path(args.out) if args.out else RESULTS / "bench"
    out_dir.mkdir(parents=True, exist_ok=True)
    sections, clock = [], time.monotonic()
    selected = build.select(args.labs)
    page_file = kit_path(args.page) if args.page else None
    # What the page says of the run besides the reports, kept beside them (RUN_FILE) for --render:
    # the command without its labs (they are "planned") and without --resume, so that a resumed
    # run is the same command.
    command = "./labkit " + " ".join(shlex.quote(a) for a in sys.argv[1:] if a != "--resume" and a not in args.labs)
    run = {"command": command, "clocks": gpu_clocks(), "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "planned": selected, "labs": [], "seconds": 0, "calls": 1}
    if args.resume:
        run = resumed_run(out_dir, command, selected)
        sections = [kept_section(out_dir, entry) for entry in run["labs"]]
        for entry in run["labs"]:
            say(f"=== {entry['lab']}: benched by an earlier call of this run, kept ({rel(out_dir)}) ===")
    earlier_seconds, done = run["seconds"], {entry["lab"] for entry in run["labs"]}
    for lab_name in run["planned"]:
        if lab_name in done:
            continue
        lab_clock = time.monotonic()
        lab = build.lab(lab_name)
        target = lab.solution_runner if (lab.solution_runner and not args.student) else lab.runner
        runner, err = make(build.dir, target)
        if runner is None:
            raise LabkitError(f"{lab_name}: {target} does not build:\n{err[-2000:]}")
        label = "student" if target == lab.runner else "solution"
        grader = build_grader(build, lab)
        # Every variant unless --variants: the table keeps each step's fastest.
        # The CPU rows on every core only, unless --threads: the table keeps each step's fastest, and a
        # sweep from one thread would cost minutes at 8192^2.
        grading = with_options(args, **_CHECKED_AND_TIMED, perf_sizes=args.sizes, lab_timeout=GRADER_TIMEOUT_S,
                               threads=args.threads or str(os.cpu_count() or 1))
        validate_options(grader, runner, grading, sandbox)
        say(f"=== {lab_name}: the kit's {label} variants ({grading.variants or 'all'}), checked, then timed at "
            f"{args.sizes} ===")
        report = run_grader(grader, runner, lab_name, f"bench-{label}", out_dir, grading, [], sandbox,
                            log_path=out_dir / f"{lab_name}-{label}.log", echo=False)
        if not report.get("performance"):
            raise LabkitError(f"{lab_name}: the grader timed nothing (see {rel(out_dir / f'{lab_name}-{label}.log')})")
        say(f"=== {lab_name}: the peers present here (tools/bench_alternatives.py) ===")
        ks = sorted({int(m.group(1)) for p in report["performance"] if (m := re.fullmatch(r"k=(\d+)", p.get("params") or ""))})
        peers = peers_of(lab_name, args.sizes, int(args.runs or PEER_RUNS), out_dir / f"{lab_name}-peers.json", build.dir, ks)
        md = lab_tables(lab_name, label, report, peers, out_dir)
        seconds = time.monotonic() - lab_clock
        sections.append((lab_name, report.get("environment") or {}, [f"Benched in {seconds:.0f} s.", ""] + md))
        run["labs"].append({"lab": lab_name, "label": label, "seconds": round(seconds)})
        run["seconds"] = earlier_seconds + round(time.monotonic() - clock)
        write_atomic(out_dir / RUN_FILE, json.dumps(run, indent=1) + "\n")
        say(f"wrote {rel(out_dir / f'{lab_name}-peers.md')} (and the grader's report, {lab_name}-bench-{label}.json), "
            f"{seconds:.0f} s")
        if page_file:  # after every lab: a run cut short still leaves the labs it finished
            write_atomic(page_file, page(sections, run, out_dir, page_file) + "\n")
    if page_file:
        write_atomic(page_file, page(sections, run, out_dir, page_file) + "\n")  # also when --resume found all done
        say(f"wrote {rel(page_file)}: the tables of this run, {(time.monotonic() - clock) / 60:.1f} minutes")
    return 0


def lab_tables(lab_name, label, report, peers, out_dir, echo=True):
    """A lab's tables from its grader's report and its peers' JSON: the peers table (printed with echo,
    and written to <lab>-peers.md), then its other exercises'; the Markdown of both, for the page."""
    rows, notes = table(report, peers)
    env = report.get("environment") or {}
    if not env.get("gpu"):
        notes["(the kit)"] = f"no CUDA device here: its GPU variants were compiled, not timed (where to get GPU time: {reports.GPU_TIME_DOC})"
    copy = f"copy {env['copy_gbps']:.0f} GB/s" if env.get("copy_gbps") else "copy bandwidth not measured"
    if floor := floor_bytes_per_pixel(report, lab_name):
        copy += f", floor {floor:.0f} B/px"
    title = (f"{lab_name}: the kit's {label} variants and the peers, one run on {env.get('gpu') or 'no GPU'} "
             f"({copy}), {env.get('cpu', '')} ({env.get('threads', '?')} threads), {str(env.get('date', ''))[:10]}")
    others = [r for ex in other_exercises(report) for r in table(report, {}, ex)[0]]
    if echo:
        say(title)
        print_table(HEADER, rows)
        for name, note in sorted(notes.items()):
            say(f"  {name}: {note}")
        for mark, note in FOOTNOTES.items():
            say(f"  {mark} {note}")
        if others:
            say(f"{lab_name}: its other exercises (no peer computes them)")
            print_table(HEADER, others)
    md = lab_section(title, rows, notes)
    write_atomic(out_dir / f"{lab_name}-peers.md", "\n".join(md) + "\n")
    if others:
        md += ["", f"**{lab_name}: its other exercises, the same run** (no peer computes them; the ratio is "
                   "to the exercise's own fastest GPU row)", ""] + markdown_table(HEADER, others)
    return md


def resumed_run(out_dir, command, selected):
    """RUN_FILE of the run that `--resume` goes on with: the same command, the labs it planned and
    those named now; one more call."""
    try:
        run = json.loads((out_dir / RUN_FILE).read_text())
        planned = run["planned"]
    except (OSError, ValueError, KeyError) as e:
        raise UsageError(f"--resume: {rel(out_dir)} holds no bench run to go on with ({RUN_FILE}: {e})") from None
    if run.get("command") != command:
        raise UsageError(f"--resume: {rel(out_dir)} holds the run of `{run.get('command')}`, not of `{command}` "
                         "(the labs named may differ; nothing else)")
    run["planned"] = planned + [lab for lab in selected if lab not in planned]
    run["calls"] = run.get("calls", 1) + 1
    return run


def kept_section(out_dir, entry):
    """The page's section of a lab that RUN_FILE lists as benched, drawn from its reports in out_dir."""
    lab_name, label = entry["lab"], entry["label"]
    report = json.loads((out_dir / f"{lab_name}-bench-{label}.json").read_text())
    peers_file = out_dir / f"{lab_name}-peers.json"
    peers = json.loads(peers_file.read_text()) if peers_file.is_file() else {}
    md = lab_tables(lab_name, label, report, peers, out_dir, echo=False)
    return lab_name, report.get("environment") or {}, [f"Benched in {entry['seconds']:.0f} s.", ""] + md


def render(args):
    """`bench --render DIR --page FILE`: the page of the run whose reports are in DIR, drawn again
    from them (after a change to how the tables are drawn), without running anything."""
    if not args.page:
        raise UsageError("--render DIR needs --page FILE: the page to write")
    out_dir, page_file = kit_path(args.render), kit_path(args.page)
    try:
        run = json.loads((out_dir / RUN_FILE).read_text())
        if isinstance(run.get("planned"), int):  # a run of before --resume: the count of its labs
            run["planned"] = [entry["lab"] for entry in run["labs"]] + [""] * (run["planned"] - len(run["labs"]))
        sections = [kept_section(out_dir, entry) for entry in run["labs"]]
    except (OSError, ValueError, KeyError) as e:
        raise LabkitError(f"--render {args.render}: not the folder of a bench run ({RUN_FILE} and the reports): {e}")
    drawn = ("./labkit bench --render " + shlex.quote(rel(out_dir)) + " --page " + shlex.quote(rel(page_file)),
             time.strftime("%Y-%m-%d", time.gmtime()))
    write_atomic(page_file, page(sections, run, out_dir, page_file, drawn) + "\n")
    say(f"wrote {rel(page_file)}, drawn again from the reports in {rel(out_dir)}")
    return 0
