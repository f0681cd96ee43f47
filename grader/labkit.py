#!/usr/bin/env python3
"""GPU Labkit command line: every subcommand but `setup` and `bundle` (those live in ../labkit,
in bash, so that they work before python3 is installed).

Python standard library only. The per-lab grader binaries do the grading; this script builds
them, runs them under a wall-clock timeout, collects their JSON, and prints summaries.

Contract of a lab binary (build/labs/<lab>/<lab>, build/solutions/<lab>/<lab>):
  <bin> list          name<TAB>kind<TAB>summary per variant
  <bin> list-files    the student-editable file names of the lab
  <bin> grade [...] --json FILE --label NAME    exit 0 pass, 1 some failed, 2 usage error
  <bin> run VARIANT --input IMG --output OUT.png [--raw FILE]
"""

import argparse
import csv
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import zipfile
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(os.path.abspath(__file__)).parent.parent
RESULTS = ROOT / "results"
SUBMISSION_BUILDS = ROOT / "build-submissions"

# Statuses that make `grade` exit 1. todo and skipped do not: an unimplemented step or a machine
# without a GPU is not a failure of what was implemented.
FAILING = {"fail", "timeout", "crash", "error", "build-error"}
SHOWN = {
    "pass": "pass", "fail": "FAIL", "todo": "TODO", "skipped": "skipped", "timeout": "TIMEOUT",
    "crash": "CRASH", "error": "ERROR", "build-error": "build-error",
}
# Per-variant timeout assumed when --timeout is not given, only to size the safety-net timeout
# of a whole grader process (the binary enforces its own per-variant limit).
ASSUMED_VARIANT_TIMEOUT_S = 120
BUILD_TIMEOUT_S = 1800
QUERY_TIMEOUT_S = 60

TEST_RESULT_RE = re.compile(
    r"^\s*(\d+)/(\d+)\s+(.*?)\s+(OK|FAIL|SKIP|TIMEOUT|EXPECTEDFAIL|UNEXPECTEDPASS|ERROR)\b\s*(.*)$")
MESON_SUMMARY_RE = re.compile(r"^(Ok|Expected Fail|Fail|Unexpected Pass|Skipped|Timeout):\s+\d+\s*$")
ANSI_RE = re.compile(r"\x1b\[[0-9;]*m")


class LabkitError(Exception):
    """A problem to report in one line, without a traceback."""


# ---- small helpers -----------------------------------------------------------------------------

def say(*parts):
    print(*parts, flush=True)


def rel(path):
    """A path relative to the repository root when it is inside it, for shorter messages."""
    path = Path(os.path.abspath(path))
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def show_cmd(cmd):
    say("+ " + " ".join(shlex.quote(rel(c)) if os.path.isabs(str(c)) else shlex.quote(str(c))
                        for c in cmd))


def tool_env():
    """PATH with /usr/local/cuda/bin appended when nvcc is installed there but not on PATH."""
    env = dict(os.environ)
    if not shutil.which("nvcc") and os.access("/usr/local/cuda/bin/nvcc", os.X_OK):
        env["PATH"] = env.get("PATH", "") + os.pathsep + "/usr/local/cuda/bin"
    return env


def _kill_group(proc):
    """SIGTERM the process group, then SIGKILL whatever is left after 3 s."""
    for sig, grace in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        try:
            proc.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


def execute(cmd, timeout=None, stdout=None, stderr=None, cwd=ROOT):
    """Runs cmd in a process group of its own, its output going to stdout/stderr (inherited when
    None). Returns (returncode, timed_out). A timeout or Ctrl-C kills the whole group, so that
    nothing a grader forked outlives it."""
    proc = subprocess.Popen([str(c) for c in cmd], cwd=cwd, env=tool_env(), stdout=stdout,
                            stderr=stderr, start_new_session=True)
    try:
        return proc.wait(timeout=timeout), False
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        return proc.wait(), True
    except KeyboardInterrupt:
        _kill_group(proc)
        raise


def capture(cmd, timeout=None, echo=False, cwd=ROOT):
    """Runs cmd (stdout and stderr merged) in its own process group and returns
    (returncode, text, timed_out); with echo, every line is also printed as it comes."""
    proc = subprocess.Popen([str(c) for c in cmd], cwd=cwd, env=tool_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    timed_out = threading.Event()

    def on_timeout():
        timed_out.set()
        _kill_group(proc)

    timer = threading.Timer(timeout, on_timeout) if timeout else None
    if timer:
        timer.daemon = True
        timer.start()
    lines = []
    try:
        for raw in proc.stdout:
            line = raw.decode("utf-8", "replace")
            lines.append(line)
            if echo:
                sys.stdout.write(line)
                sys.stdout.flush()
        rc = proc.wait()
    except KeyboardInterrupt:
        _kill_group(proc)
        raise
    finally:
        if timer:
            timer.cancel()
        proc.stdout.close()
    return rc, "".join(lines), timed_out.is_set()


def first_errors(text, limit=15):
    """The first compiler error of a build log and the lines after it, without ninja's progress
    lines and the long command lines it echoes."""
    lines = [ANSI_RE.sub("", l).rstrip() for l in text.splitlines()]
    lines = [l for l in lines if l and len(l) < 400 and not l.startswith(("[", "FAILED:", "ninja:"))
             and not re.search(r"\s-[co]\s", l)]
    at = next((i for i, l in enumerate(lines) if re.search(r"\berror\b", l, re.I)), None)
    if at is None:
        return "\n".join(lines[-limit:])
    if at > 0 and lines[at - 1].endswith(":"):  # "In function ...:" context
        at -= 1
    return "\n".join(lines[at:at + limit])


def parse_sizes(text):
    """'1024,2048x512' -> [(1024, 1024), (2048, 512)]"""
    sizes = []
    for item in filter(None, (s.strip() for s in text.split(","))):
        m = re.fullmatch(r"(\d+)(?:x(\d+))?", item)
        if not m:
            raise LabkitError(f"bad size {item!r}: expected N or WxH")
        w = int(m.group(1))
        sizes.append((w, int(m.group(2)) if m.group(2) else w))
    return sizes


# ---- labs, builds and binaries -----------------------------------------------------------------

def all_labs():
    """Subfolders of labs/ with a meson.build, in the teaching order of the top-level
    meson.build (`labs = [...]`), then any others alphabetically."""
    present = sorted(p.name for p in (ROOT / "labs").iterdir() if (p / "meson.build").is_file())
    order = []
    top = ROOT / "meson.build"
    if top.is_file():
        m = re.search(r"^\s*labs\s*=\s*\[([^\]]*)\]", top.read_text(), re.M)
        if m:
            order = re.findall(r"'([^']+)'", m.group(1))
    return [l for l in order if l in present] + [l for l in present if l not in order]


def select_labs(names):
    labs = all_labs()
    if not names:
        return labs
    unknown = [n for n in names if n not in labs]
    if unknown:
        raise LabkitError(f"unknown lab {', '.join(unknown)} (labs: {', '.join(labs)})")
    return names


def build_dir_of(args):
    """--build-dir, relative to the kit's root (like every kit folder: results/, dist/, ...)."""
    p = Path(args.build_dir).expanduser()
    return p if p.is_absolute() else ROOT / p


def is_configured(build_dir):
    return (Path(build_dir) / "meson-private" / "coredata.dat").is_file() and \
        (Path(build_dir) / "build.ninja").is_file()


def configure(build_dir, meson_args=(), echo=True):
    """meson setup (or --reconfigure). Returns (ok, output)."""
    if not shutil.which("meson"):
        raise LabkitError("meson is not installed: run ./labkit setup")
    cmd = ["meson", "setup"]
    if is_configured(build_dir):
        cmd.append("--reconfigure")
    cmd += [str(build_dir), *meson_args]
    show_cmd(cmd)
    rc, out, _ = capture(cmd, timeout=BUILD_TIMEOUT_S, echo=echo)
    return rc == 0, out


def ensure_configured(build_dir):
    if not is_configured(build_dir):
        ok, out = configure(build_dir)
        if not ok:
            raise LabkitError(f"meson setup {rel(build_dir)} failed (see above); ./labkit setup "
                              "installs what is missing")


def ninja(build_dir, targets=(), echo=True, jobs=None):
    """Builds targets (everything when empty). Returns (ok, output)."""
    if not shutil.which("ninja"):
        raise LabkitError("ninja is not installed: run ./labkit setup")
    cmd = ["ninja", "-C", str(build_dir)] + (["-j", str(jobs)] if jobs else []) + list(targets)
    if echo:
        show_cmd(cmd)
    rc, out, timed_out = capture(cmd, timeout=BUILD_TIMEOUT_S, echo=echo)
    if timed_out:
        out += f"\nerror: build exceeded {BUILD_TIMEOUT_S} s\n"
    return rc == 0, out


def build_targets(build_dir):
    """Output paths (relative to build_dir) of every target meson knows."""
    info = Path(build_dir) / "meson-info" / "intro-targets.json"
    try:
        targets = json.loads(info.read_text())
    except (OSError, ValueError):
        return set()
    out = set()
    base = Path(build_dir).resolve()
    for t in targets:
        for f in t.get("filename", []):
            try:
                out.add(str(Path(f).resolve().relative_to(base)))
            except ValueError:
                pass
    return out


def build_option(build_dir, name):
    info = Path(build_dir) / "meson-info" / "intro-buildoptions.json"
    try:
        for opt in json.loads(info.read_text()):
            if opt.get("name") == name:
                return opt.get("value")
    except (OSError, ValueError):
        pass
    return None


def lab_target(lab, tree):
    """tree: 'labs' (starter or submission) or 'solutions' (reference)."""
    return f"{tree}/{lab}/{lab}"


def build_lab(build_dir, lab, tree, echo=False):
    """Builds one lab binary. Returns (binary path or None, error text)."""
    target = lab_target(lab, tree)
    if target not in build_targets(build_dir):
        return None, f"{target}: no such target in {rel(build_dir)}"
    ok, out = ninja(build_dir, [target], echo=echo)
    if not ok:
        return None, out
    return Path(build_dir) / target, ""


def query(binary, *args):
    """Output lines of `<binary> list` or `<binary> list-files`."""
    rc, out, timed_out = capture([binary, *args], timeout=QUERY_TIMEOUT_S)
    if rc != 0 or timed_out:
        raise LabkitError(f"{rel(binary)} {' '.join(args)} failed (exit {rc}):\n{out.strip()}")
    return [l for l in out.splitlines() if l.strip()]


def list_variants(binary):
    rows = []
    for line in query(binary, "list"):
        parts = line.split("\t")
        rows.append({"name": parts[0].strip(), "kind": parts[1].strip() if len(parts) > 1 else "",
                     "summary": parts[2].strip() if len(parts) > 2 else ""})
    return rows


def starter_files_from_meson(lab):
    """Fallback for list-files: the quoted names in `<lab>_student_files` of labs/<lab>/meson.build."""
    text = (ROOT / "labs" / lab / "meson.build").read_text()
    names = []
    for m in re.finditer(rf"{re.escape(lab)}_student_files\s*\+?=\s*\[([^\]]*)\]", text):
        names += re.findall(r"'([^']+)'", m.group(1))
    return names


# ---- grading -----------------------------------------------------------------------------------

def grader_options(args):
    """Options of `labkit grade` handed on to every `<bin> grade`."""
    out = []
    for flag, value in (("--variants", args.variants), ("--sizes", args.sizes),
                        ("--perf-sizes", args.perf_sizes), ("--runs", args.runs),
                        ("--seed", args.seed), ("--timeout", args.timeout)):
        if value is not None:
            out += [flag, str(value)]
    if args.no_perf:
        out.append("--no-perf")
    if args.quick:
        out.append("--quick")
    return out


def process_timeout(args, n_variants):
    """Wall-clock limit of one grader process: a safety net above the binary's own per-variant
    limit, so that no submission can hang labkit."""
    if args.lab_timeout:
        return args.lab_timeout
    per_variant = args.timeout or ASSUMED_VARIANT_TIMEOUT_S
    return per_variant * (max(n_variants, 1) + 1) + 60


def placeholder(lab, label, variants, status, detail):
    return {"lab": lab, "label": label, "environment": {}, "cases": [], "performance": [],
            "variants": [{"name": v["name"], "kind": v.get("kind", ""), "status": status,
                          "detail": detail, "cases_passed": 0, "cases_failed": 0}
                         for v in (variants or [{"name": "*", "kind": ""}])]}


def run_grader(binary, lab, label, out_dir, args, variants, log_path=None):
    """Runs `<binary> grade` and returns its JSON report (or a stand-in that says why there is
    none). Writes <lab>-<label>.json/.md/.csv into out_dir and diff images under out_dir/diff/."""
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = out_dir / f"{lab}-{label}"
    json_path = stem.with_suffix(".json")
    for suffix in (".json", ".md", ".csv"):
        stem.with_suffix(suffix).unlink(missing_ok=True)
    diff_dir = out_dir / "diff" / f"{lab}-{label}"
    cmd = [binary, "grade", "--label", label, "--json", json_path, "--markdown",
           stem.with_suffix(".md"), "--csv", stem.with_suffix(".csv"), "--diff-dir", diff_dir]
    cmd += grader_options(args)
    limit = process_timeout(args, len(variants))
    show_cmd(cmd)
    started = time.monotonic()
    if log_path:
        with open(log_path, "wb") as log:
            rc, timed_out = execute(cmd, timeout=limit, stdout=log, stderr=subprocess.STDOUT)
    else:
        rc, timed_out = execute(cmd, timeout=limit)
    elapsed = time.monotonic() - started
    if timed_out:
        return placeholder(lab, label, variants, "timeout",
                           f"the grader process ran past {limit:.0f} s and was killed")
    if rc == 2:
        return placeholder(lab, label, variants, "error", "usage error (exit 2): see the output above")
    try:
        report = json.loads(json_path.read_text())
    except (OSError, ValueError) as e:
        why = f"killed by signal {-rc}" if rc < 0 else f"exit status {rc}"
        return placeholder(lab, label, variants, "crash",
                           f"the grader process ended ({why}) after {elapsed:.1f} s without a "
                           f"JSON report ({e.__class__.__name__})")
    report.setdefault("variants", [])
    report.setdefault("performance", [])
    report["_exit"] = rc
    return report


def failing(report):
    return [v for v in report.get("variants", []) if v.get("status") in FAILING]


def counts(report):
    """(passed, total): total leaves out skipped variants (e.g. GPU variants without a GPU)."""
    vs = report.get("variants", [])
    passed = sum(v.get("status") == "pass" for v in vs)
    total = sum(v.get("status") != "skipped" for v in vs)
    return passed, total


def perf_by_variant(report):
    """variant -> {(w, h): kernel_ms}, the best entry per size (e.g. the best thread count)."""
    out = {}
    for p in report.get("performance", []) or []:
        try:
            size = (int(p["width"]), int(p["height"]))
            ms = float(p["kernel_ms"])
        except (KeyError, TypeError, ValueError):
            continue
        sizes = out.setdefault(p.get("variant", ""), {})
        sizes[size] = min(ms, sizes.get(size, ms))
    return out


def fmt_ms(ms):
    if ms is None:
        return "-"
    return f"{ms:.3f}" if ms < 100 else f"{ms:.1f}"


def print_table(header, rows):
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]
    line = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()
    say(line(header))
    say(line(["-" * w for w in widths]))
    for r in rows:
        say(line(r))


def comparison_rows(student, solution):
    """Rows of the side-by-side table: variant, statuses, largest common perf size, times, ratio."""
    names = [v["name"] for v in student.get("variants", [])] if student else []
    if solution:
        names += [v["name"] for v in solution.get("variants", []) if v["name"] not in names]
    st = {v["name"]: v for v in (student or {}).get("variants", [])}
    so = {v["name"]: v for v in (solution or {}).get("variants", [])}
    sp, op = perf_by_variant(student or {}), perf_by_variant(solution or {})
    rows = []
    for name in names:
        a, b = sp.get(name, {}), op.get(name, {})
        common = set(a) & set(b)
        pool = common or set(a) or set(b)
        size = max(pool, key=lambda s: (s[0] * s[1], s)) if pool else None
        ams, bms = a.get(size), b.get(size)
        ratio = f"{ams / bms:.2f}x" if ams and bms else "-"
        rows.append([name,
                     SHOWN.get(st.get(name, {}).get("status"), st.get(name, {}).get("status", "-")),
                     SHOWN.get(so.get(name, {}).get("status"), so.get(name, {}).get("status", "-")),
                     f"{size[0]}x{size[1]}" if size else "-", fmt_ms(ams), fmt_ms(bms), ratio])
    return rows


def print_environment(report):
    env = report.get("environment") or {}
    if not env:
        return
    parts = []
    if env.get("gpu"):
        parts.append(f"GPU {env['gpu']}" + (f" ({env['sms']} SMs)" if env.get("sms") else ""))
    elif "gpu" in env:
        reason = env.get("gpu_unavailable_reason")
        parts.append("GPU none" + (f" ({reason})" if reason else ""))
    if env.get("driver") or env.get("cuda"):
        parts.append(f"driver {env.get('driver', '?')}, CUDA {env.get('cuda', '?')}")
    if env.get("cpu"):
        parts.append(f"CPU {env['cpu']}" + (f", {env['threads']} threads" if env.get("threads") else ""))
    if parts:
        say("machine: " + "; ".join(parts))


def print_details(report, title):
    """One line per variant that did not pass, with the grader's detail (first mismatch, ...);
    one line in all when every variant failed the same way (a crash or timeout of the process)."""
    bad = [v for v in report.get("variants", [])
           if v.get("status") not in ("pass", "todo", "skipped", "build-error")]
    why = lambda v: f"{SHOWN.get(v.get('status'), v.get('status'))}" + (
        f": {' '.join(str(v.get('detail', '')).split())}" if v.get("detail") else "")
    if len(bad) > 1 and len(bad) == len(report.get("variants", [])) and len({why(v) for v in bad}) == 1:
        say(f"  {title} all {len(bad)} variants: {why(bad[0])}")
        return
    for v in bad:
        say(f"  {title} {v['name']}: {why(v)}")


def grade_default(args, labs):
    """Student tree (and reference when built) for each lab, then the side-by-side summary."""
    if args.seed is None:  # one fresh seed for both sides, so they are checked on the same images
        args.seed = int.from_bytes(os.urandom(4), "little")
    build_dir = build_dir_of(args)
    ensure_configured(build_dir)
    runs, exit_status = [], 0
    for lab in labs:
        say(f"\n=== {lab} " + "=" * max(3, 60 - len(lab)))
        student = solution = None
        sol_bin, sol_err = None, ""
        if lab_target(lab, "solutions") in build_targets(build_dir):
            sol_bin, sol_err = build_lab(build_dir, lab, "solutions")
        elif args.solution:
            raise LabkitError(f"no reference build of {lab} (solutions/ absent, or -Dsolutions=disabled)")
        sol_variants = list_variants(sol_bin) if sol_bin else []
        if not args.solution:
            binary, err = build_lab(build_dir, lab, "labs")
            if binary is None:
                say(f"build-error: the {lab} student files do not compile:\n")
                say(first_errors(err))
                say("")
                student = placeholder(lab, "student", sol_variants, "build-error", first_errors(err, 6))
            else:
                student = run_grader(binary, lab, "student", RESULTS, args, list_variants(binary))
            runs.append(student)
        if sol_bin is not None:
            log = None
            if student is not None:  # keep the reference's tables out of the student's way
                RESULTS.mkdir(parents=True, exist_ok=True)
                log = RESULTS / f"{lab}-solution.log"
            solution = run_grader(sol_bin, lab, "solution", RESULTS, args, sol_variants, log)
            runs.append(solution)
            if log is not None and log.exists():  # the reference's full tables, without its progress lines
                say(f"\n=== {lab}: the reference solution (also in {rel(log)}) " + "=" * 10)
                for line in log.read_text(errors="replace").splitlines():
                    if not re.match(r"(checking|timing) \[|preparing |\+ ", line):
                        say(line)
        elif sol_err:
            say(f"build-error: the {lab} reference does not compile:\n{first_errors(sol_err)}")
            solution = placeholder(lab, "solution", [], "build-error", first_errors(sol_err, 6))
            runs.append(solution)

        say(f"\n--- {lab}: summary " + "-" * 40)
        print_environment(student or solution)
        rows = comparison_rows(student, solution)
        if student and solution:
            print_table(["variant", "student", "solution", "size", "student ms", "solution ms",
                         "student/solution"], rows)
        else:  # one side only (no reference in the student tarball, or --solution)
            side = 1 if student else 2
            print_table(["variant", "status", "size", "kernel ms"],
                        [[r[0], r[side], r[3], r[3 + side]] for r in rows])
        if student:
            print_details(student, "student")
        if solution:
            print_details(solution, "solution")
        for r in (student, solution):
            if r and failing(r):
                exit_status = 1
        if student:
            p, t = counts(student)
            say(f"student: {p}/{t} variants pass; results/{lab}-student.md has the tables for the report")
    write_run_outputs(args, runs, exit_status)
    return exit_status


def write_run_outputs(args, runs, exit_status):
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"exit_status": exit_status, "runs": runs}, indent=2))
        say(f"wrote {args.json}")
    if args.csv:
        Path(args.csv).parent.mkdir(parents=True, exist_ok=True)
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["lab", "label", "variant", "kind", "status", "detail", "width", "height",
                        "kernel_ms", "e2e_ms"])
            for r in runs:
                perf = {}
                for p in r.get("performance", []) or []:
                    perf.setdefault(p.get("variant"), []).append(p)
                for v in r.get("variants", []):
                    for p in perf.get(v["name"]) or [{}]:
                        w.writerow([r.get("lab"), r.get("label"), v["name"], v.get("kind", ""),
                                    v.get("status"), v.get("detail", ""), p.get("width", ""),
                                    p.get("height", ""), p.get("kernel_ms", ""), p.get("e2e_ms", "")])
        say(f"wrote {args.csv}")


# ---- submissions -------------------------------------------------------------------------------

def safe_extract(archive, dest):
    """Unpacks a .zip/.tar(.gz) submission, refusing members that would land outside dest."""
    dest = Path(dest).resolve()
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)

    def check(name):
        target = (dest / name).resolve()
        if target != dest and dest not in target.parents:
            raise LabkitError(f"{archive}: member {name!r} points outside the archive")

    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as z:
            for n in z.namelist():
                check(n)
            z.extractall(dest)
    else:
        with tarfile.open(archive) as t:
            members = []
            for m in t.getmembers():
                check(m.name)
                if m.isfile() or m.isdir():  # no links or devices
                    members.append(m)
            t.extractall(dest, members=members)
    return dest


def find_student_file(sub_dir, lab, name):
    """DIR/labs/<lab>/F, DIR/<lab>/F, DIR/F, else a single F found deeper (preferring one inside
    a <lab> folder), so that an archive with an extra top-level folder still works."""
    for cand in (sub_dir / "labs" / lab / name, sub_dir / lab / name, sub_dir / name):
        if cand.is_file():
            return cand
    other_labs = set(all_labs()) - {lab}
    found = [p for p in sub_dir.rglob(name) if p.is_file() and p.parent.name not in other_labs]
    in_lab = [p for p in found if p.parent.name == lab]
    for group in (in_lab, found):
        if len(group) == 1:
            return group[0]
    return None


def submission_name(path, taken):
    name = path.name
    for ext in (".tar.gz", ".tgz", ".tar", ".zip"):
        if name.endswith(ext):
            name = name[:-len(ext)]
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "submission"
    base, i = name, 2
    while name in taken:
        name, i = f"{base}-{i}", i + 1
    taken.add(name)
    return name


def grade_submissions(args, labs):
    build_dir = build_dir_of(args)
    ensure_configured(build_dir)
    # The starter build tells which files each lab lets students edit, and its variants stand in
    # when a submission does not compile.
    lab_files, lab_variants = {}, {}
    for lab in labs:
        binary, err = build_lab(build_dir, lab, "labs")
        files, variants = [], []
        if binary is not None:
            try:
                files = query(binary, "list-files")
                variants = list_variants(binary)
            except LabkitError as e:
                say(f"warning: {e}")
        if not files:
            files = starter_files_from_meson(lab)
            say(f"warning: could not ask the {lab} starter for its files; using {', '.join(files)}")
        lab_files[lab], lab_variants[lab] = files, variants

    forwarded = [f"-D{n}={v}" for n, v in (("cuda", build_option(build_dir, "cuda")),
                                             ("gpu_arch", build_option(build_dir, "gpu_arch")))
                 if v is not None]
    pcp = build_option(build_dir, "pkg_config_path")
    if pcp:
        forwarded.append("-Dpkg_config_path=" + ",".join(pcp))

    taken, table, exit_status = set(), [], 0
    for raw in args.submission:
        src = Path(raw).expanduser()
        if not src.exists():
            raise LabkitError(f"submission {raw}: no such file or folder")
        name = submission_name(src.resolve(), taken)
        say(f"\n=== submission {name} ({raw}) " + "=" * 20)
        work = SUBMISSION_BUILDS / name
        if src.is_file():
            src = safe_extract(src, work / "unpacked")
        staged = work / "src"
        if staged.exists():
            shutil.rmtree(staged)
        notes = []
        # Fresh copies (new mtimes), so that ninja rebuilds whatever changed since the last run.
        for lab in labs:
            (staged / lab).mkdir(parents=True)
            missing = []
            for f in lab_files[lab]:
                found = find_student_file(src, lab, f)
                if found is None:
                    shutil.copyfile(ROOT / "labs" / lab / f, staged / lab / f)
                    missing.append(f)
                else:
                    shutil.copyfile(found, staged / lab / f)
            if missing:
                notes.append(f"{lab}: not handed in, starter used: {', '.join(missing)}")
        for n in notes:
            say("  " + n)

        out_dir = RESULTS / "submissions" / name
        out_dir.mkdir(parents=True, exist_ok=True)
        bdir = work / "build"
        ok, out = configure(bdir, [f"-Dsubmission={staged.resolve()}", "-Dsolutions=disabled"]
                            + forwarded, echo=False)
        reports = {}
        for lab in labs:
            if not ok:
                say(f"  {lab}: meson setup failed:\n{first_errors(out)}")
                reports[lab] = placeholder(lab, name, lab_variants[lab], "build-error",
                                           "meson setup failed: " + first_errors(out, 4))
                continue
            binary, err = build_lab(bdir, lab, "labs")
            if binary is None:
                say(f"  {lab}: build-error\n" + "\n".join("    " + l for l in first_errors(err).splitlines()))
                (out_dir / f"{lab}-build.log").write_text(err)
                reports[lab] = placeholder(lab, name, lab_variants[lab], "build-error",
                                           first_errors(err, 6))
                continue
            try:
                variants = list_variants(binary)
            except LabkitError:
                variants = lab_variants[lab]
            log = out_dir / f"{lab}.log"
            reports[lab] = run_grader(binary, lab, name, out_dir, args, variants, log_path=log)
            p, t = counts(reports[lab])
            tally = {}
            for v in reports[lab]["variants"]:
                tally[v.get("status")] = tally.get(v.get("status"), 0) + 1
            say(f"  {lab}: {p}/{t} pass  (" + ", ".join(f"{SHOWN.get(s, s)} {n}" for s, n in tally.items())
                + f"); log {rel(log)}")
            print_details(reports[lab], "   ")
        if any(failing(r) for r in reports.values()):
            exit_status = 1
        table.append({"name": name, "path": str(Path(raw)), "missing_files": notes, "labs": reports})

    write_class(args, labs, lab_variants, table)
    return exit_status


def write_class(args, labs, lab_variants, table):
    """results/class.csv (one row per submission) and results/class.json."""
    columns = {lab: [v["name"] for v in lab_variants[lab]] for lab in labs}
    for row in table:
        for lab in labs:
            for v in row["labs"][lab]["variants"]:
                if v["name"] not in columns[lab] and v["name"] != "*":
                    columns[lab].append(v["name"])
    csv_path = Path(args.csv) if args.csv else RESULTS / "class.csv"
    json_path = Path(args.json) if args.json else RESULTS / "class.json"
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    summary = []
    with open(csv_path, "w", newline="") as f:
        w = csv.writer(f)
        head = ["name"]
        for lab in labs:
            head += [f"{lab} score", f"{lab} passed/total"] + [f"{lab}:{v}" for v in columns[lab]]
        w.writerow(head)
        for row in table:
            cells, entry = [row["name"]], {"name": row["name"], "path": row["path"],
                                           "missing_files": row["missing_files"], "labs": {}}
            for lab in labs:
                rep = row["labs"][lab]
                p, t = counts(rep)
                score = round(100.0 * p / t, 1) if t else 0.0
                status = {v["name"]: v.get("status") for v in rep["variants"]}
                if "*" in status:  # a stand-in without the variant list: applies to all
                    status = {v: status["*"] for v in columns[lab]} or status
                cells += [score, f"{p}/{t}"] + [status.get(v, "") for v in columns[lab]]
                entry["labs"][lab] = {"score": score, "passed": p, "total": t, "statuses": status,
                                      "variants": rep["variants"],
                                      "performance": rep.get("performance", []),
                                      "environment": rep.get("environment", {})}
            w.writerow(cells)
            summary.append(entry)
    json_path.write_text(json.dumps({"labs": labs, "submissions": summary}, indent=2))
    say(f"\nclass results: {rel(csv_path)}, {rel(json_path)}")
    head = ["submission"] + [f"{lab}" for lab in labs]
    print_table(head, [[e["name"]] + [f"{e['labs'][l]['passed']}/{e['labs'][l]['total']} "
                                      f"({e['labs'][l]['score']}%)" for l in labs] for e in summary])


# ---- subcommands -------------------------------------------------------------------------------

def cmd_build(args):
    build_dir = build_dir_of(args)
    ensure_configured(build_dir)
    ok, _ = ninja(build_dir, jobs=args.jobs)
    return 0 if ok else 1


# compute-sanitizer's exit status when it found errors (--error-exitcode): anything the grader
# itself returns (0, 1, 2) stays distinguishable.
SANITIZER_ERROR_EXIT = 99
SANITIZER_TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
# Sanitizers slow kernels down 10-100x: the awkward shapes, small enough to stay quick.
SANITIZE_SIZES = "1x1,1x4099,4099x1,7x5,31x33,255x257,1000x700"


def sanitizer_findings(log_text):
    """The first lines of compute-sanitizer's report that describe a problem."""
    keep = [l.strip("= ").strip() for l in log_text.splitlines()
            if l.startswith("=========") and re.search(r"Error|Race reported|Invalid|Uninitialized|Barrier", l)]
    return keep[:2]


def grade_sanitized(args, labs):
    """Every GPU variant of one tree, each in its own grader run under compute-sanitizer, on the
    quick sizes without timing: a race, an out-of-bounds access or a misplaced barrier is reported
    against the variant that has it, even when the output happened to come out right."""
    tool = args.sanitize
    sanitizer = shutil.which("compute-sanitizer", path=tool_env().get("PATH")) or "/usr/local/cuda/bin/compute-sanitizer"
    if not Path(sanitizer).exists():
        raise LabkitError("compute-sanitizer not found: it ships with the CUDA toolkit (/usr/local/cuda/bin)")
    label = "solution" if args.solution else "student"
    globs = args.variants.split(",") if args.variants else ["*"]
    any_finding = False
    for lab in labs:
        binary = lab_binary(args, lab)
        out_dir = RESULTS / "sanitize" / f"{lab}-{label}-{tool}"
        out_dir.mkdir(parents=True, exist_ok=True)
        rows, report = [], []
        chosen = [v for v in list_variants(binary)
                  if v["kind"] != "cpu" and any(fnmatch(v["name"], g) for g in globs)]
        for i, v in enumerate(chosen, 1):
            say(f"[{i}/{len(chosen)}] {tool}: {v['name']}")
            json_path, log_path = out_dir / f"{v['name']}.json", out_dir / f"{v['name']}.log"
            cmd = [sanitizer, "--tool", tool, "--target-processes", "all", "--print-limit", "5",
                   "--error-exitcode", SANITIZER_ERROR_EXIT, binary, "grade", "--label", label,
                   "--variants", v["name"], "--no-perf", "--json", json_path, "--photos", "",
                   "--sizes", args.sizes or SANITIZE_SIZES, "--diff-dir", out_dir / "diff",
                   "--timeout", args.timeout or 300]
            if args.seed is not None:
                cmd += ["--seed", args.seed]
            with open(log_path, "wb") as log:
                rc, timed_out = execute(cmd, timeout=args.lab_timeout or 1800, stdout=log,
                                        stderr=subprocess.STDOUT)
            try:
                verdict = json.loads(json_path.read_text())["variants"][0]["status"]
            except (OSError, ValueError, KeyError, IndexError):
                verdict = "timeout" if timed_out else "error"
            findings = sanitizer_findings(log_path.read_text(errors="replace"))
            found = rc == SANITIZER_ERROR_EXIT or bool(findings)
            any_finding |= found or verdict in FAILING
            rows.append([v["name"], verdict, "ERRORS" if found else "clean",
                         (findings[0] if findings else "")[:110]])
            report.append({"variant": v["name"], "status": verdict, "sanitizer": tool, "clean": not found,
                           "findings": findings, "log": str(rel(log_path))})
        say("")
        say(f"--- {lab} ({label}) under compute-sanitizer --tool {tool} ---")
        print_table(["variant", "verdict", tool, "first finding (whole report in the log)"], rows)
        (out_dir / "summary.json").write_text(json.dumps(report, indent=2))
        say(f"logs: {rel(out_dir)}/<variant>.log")
    return 1 if any_finding else 0


def cmd_grade(args):
    if args.solution and args.submission:
        raise LabkitError("--solution and --submission exclude each other")
    labs = select_labs(args.labs)
    if args.sanitize:
        if args.submission:
            raise LabkitError("--sanitize grades this checkout's tree (or --solution), not --submission")
        return grade_sanitized(args, labs)
    if args.submission:
        return grade_submissions(args, labs)
    return grade_default(args, labs)


def lab_binary(args, lab):
    build_dir = build_dir_of(args)
    ensure_configured(build_dir)
    tree = "solutions" if getattr(args, "solution", False) else "labs"
    binary, err = build_lab(build_dir, lab, tree)
    if binary is None:
        say(first_errors(err))
        raise LabkitError(f"could not build {lab_target(lab, tree)}")
    return binary


def cmd_run(args):
    select_labs([args.lab])
    binary = lab_binary(args, args.lab)
    cmd = [binary, "run", args.variant, "--input", args.input, "--output", args.output]
    if args.raw:
        cmd += ["--raw", args.raw]
    show_cmd(cmd)
    rc, timed_out = execute(cmd, timeout=args.timeout, cwd=Path.cwd())
    if timed_out:
        raise LabkitError(f"killed after {args.timeout} s")
    return rc


def cmd_list(args):
    for lab in select_labs([args.lab] if args.lab else []):
        binary = lab_binary(args, lab)
        say(f"{lab}  ({rel(binary)})")
        print_table(["variant", "kind", "summary"],
                    [[v["name"], v["kind"], v["summary"]] for v in list_variants(binary)])
        if args.files:
            say("student files, in order: " + ", ".join(query(binary, "list-files")))
        say("")
    return 0


def cmd_datasets(args):
    build_dir = build_dir_of(args)
    ensure_configured(build_dir)
    target = "datasets/generate_dataset"
    if target in build_targets(build_dir):
        ok, out = ninja(build_dir, [target], echo=False)
        if not ok:
            say(first_errors(out))
            raise LabkitError(f"could not build {target}")
    elif not (build_dir / target).is_file():
        raise LabkitError(f"{target} is not part of this build")
    sizes = parse_sizes(args.sizes)
    patterns = [p for p in args.patterns.split(",") if p]
    out_dir = Path(args.out).expanduser()
    if not out_dir.is_absolute():
        out_dir = ROOT / out_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    jobs = [(p, w, h) for p in patterns for (w, h) in sizes]
    width = len(str(len(jobs)))
    failed = 0
    for i, (pattern, w, h) in enumerate(jobs, 1):
        dest = out_dir / f"{pattern}-{w}x{h}.png"
        started = time.monotonic()
        rc, text, timed_out = capture([build_dir / target, "--pattern", pattern, "--width", w,
                                       "--height", h, "--seed", args.seed, "--output", dest],
                                      timeout=600)
        took = time.monotonic() - started
        status = "ok" if rc == 0 and not timed_out else ("TIMEOUT" if timed_out else f"FAILED (exit {rc})")
        say(f"[{i:{width}}/{len(jobs)}] {pattern:<13} {w}x{h:<6} -> {rel(dest)}  {status} ({took:.1f} s)")
        if status != "ok":
            failed += 1
            say("    " + text.strip().replace("\n", "\n    "))
    say(f"{len(jobs) - failed} of {len(jobs)} images written to {rel(out_dir)} (seed {args.seed})")
    return 1 if failed else 0


def cmd_test(args):
    build_dir = build_dir_of(args)
    try:
        ensure_configured(build_dir)
        ok, _ = ninja(build_dir, jobs=args.jobs)
    except LabkitError as e:
        say(f"labkit: {e}")
        ok = False
    if not ok:
        say("the build failed: no test ran")
        say("0 passed, 1 failed, 0 skipped")
        return 1
    cmd = ["meson", "test", "-C", str(build_dir), "--print-errorlogs"]
    if args.cpu_only:
        cmd += ["--suite", "cpu"]
    if args.suite:
        for s in args.suite:
            cmd += ["--suite", s]
    show_cmd(cmd)
    results = {}
    held = []
    # Stream meson's output, but hold back its own summary so that our line comes last.
    proc = subprocess.Popen(cmd, cwd=ROOT, env=tool_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        for raw in proc.stdout:
            line = raw.decode("utf-8", "replace")
            plain = ANSI_RE.sub("", line).rstrip("\n")
            m = TEST_RESULT_RE.match(plain)
            if m:
                results.setdefault(int(m.group(1)), (m.group(3).strip(), m.group(4)))
            if MESON_SUMMARY_RE.match(plain):
                continue
            if plain.startswith("Full log written to"):
                held.append(plain)
                continue
            sys.stdout.write(line)
            sys.stdout.flush()
        rc = proc.wait()
    except KeyboardInterrupt:
        _kill_group(proc)
        raise
    for line in held:
        say(line)
    statuses = [s for _, s in results.values()]
    passed = sum(s in ("OK", "EXPECTEDFAIL") for s in statuses)
    skipped = sum(s == "SKIP" for s in statuses)
    failed = len(statuses) - passed - skipped
    if rc != 0 and failed == 0:
        failed = 1  # meson itself failed (no tests matched the suite, a build error, ...)
        say(f"meson test exited with status {rc}")
    say(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed or passed == 0 else 0


# ---- dist --------------------------------------------------------------------------------------

# Left out of the student tarball, with the test sources that only `if build_solutions` blocks
# of tests/meson.build use (solution_only_tests): tests/meson.build skips those blocks when
# solutions/ is absent.
DIST_EXCLUDE = ["solutions/", "tests/broken/", ".ci/"]


def solution_only_tests():
    """Source files named only inside `if build_solutions` blocks of tests/meson.build."""
    path = ROOT / "tests" / "meson.build"
    if not path.is_file():
        return []
    inside, outside, stack = set(), set(), []
    for line in path.read_text().splitlines():
        code = line.split("#", 1)[0].strip()
        if re.match(r"if\b", code):
            stack.append("build_solutions" in code)
        elif re.match(r"(elif|else)\b", code) and stack:
            stack[-1] = False
        elif re.match(r"endif\b", code) and stack:
            stack.pop()
        names = re.findall(r"'([^'/]+\.(?:cpp|cu|hpp|cuh|py))'", code)
        (inside if any(stack) else outside).update(names)
    return sorted(f"tests/{n}" for n in inside - outside if (ROOT / "tests" / n).is_file())
WALK_SKIP = {".git", "results", "dist", "third_party", "build-submissions", "__pycache__"}


def dist_excluded(path):
    for pat in DIST_EXCLUDE:
        if pat.endswith("/"):
            if path.startswith(pat):
                return True
        elif fnmatch(path, pat):
            return True
    return False


def tracked_files():
    """Files git tracks (or would: untracked but not ignored), else a walk of the tree."""
    if (ROOT / ".git").exists() and shutil.which("git"):
        out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], capture_output=True, check=True).stdout
        files = sorted({f for f in out.decode().split("\0") if f})
        return [f for f in files if (ROOT / f).is_file()]
    files = []
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames if d not in WALK_SKIP and not d.startswith("build")
                       and not (Path(dirpath) / d == ROOT / "datasets" / "generated")]
        for f in filenames:
            if f.endswith(".pyc"):
                continue
            files.append(str((Path(dirpath) / f).relative_to(ROOT)))
    return sorted(files)


def cmd_dist(args):
    out = Path(args.out)
    if not out.is_absolute():
        out = ROOT / out
    solution_tests = solution_only_tests()
    files = [f for f in tracked_files() if not dist_excluded(f) and f not in solution_tests]
    if not files:
        raise LabkitError("no files to pack")
    top = "gpu-labkit"
    out.parent.mkdir(parents=True, exist_ok=True)

    def clean(info):
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        return info

    with tarfile.open(out, "w:gz") as tar:
        for f in files:
            tar.add(ROOT / f, arcname=f"{top}/{f}", recursive=False, filter=clean)
    say(f"wrote {rel(out)}: {len(files)} files ({out.stat().st_size / 1024:.0f} KiB); left out: "
        + ", ".join(DIST_EXCLUDE + solution_tests))
    if args.no_verify:
        return 0
    return verify_dist(out, top, args)


def verify_dist(tarball, top, args):
    """Unpacks the tarball in a temporary folder and runs the student's first commands there."""
    tmp = Path(tempfile.mkdtemp(prefix="labkit-dist-"))
    say(f"\nverifying in {tmp}")
    with tarfile.open(tarball) as tar:
        names = tar.getnames()
        leaked = [n for n in names if n.startswith(f"{top}/solutions/") or "/tests/broken/" in n]
        if leaked:
            say(f"FAILED: the tarball holds reference files: {', '.join(leaked[:5])}")
            return 1
        tar.extractall(tmp)
    tree = tmp / top
    setup = ["./labkit", "setup", "--no-install"]
    if args.cpu_only:
        setup += ["--cuda", "disabled"]
    pcp = build_option(build_dir_of(args), "pkg_config_path")
    if pcp:
        setup += ["--", "-Dpkg_config_path=" + ",".join(pcp)]
    steps = [
        ("setup", setup),
        ("build", ["./labkit", "build"] + (["-j", str(args.jobs)] if args.jobs else [])),
        ("test", ["./labkit", "test"] + (["--cpu-only"] if args.cpu_only else [])),
        ("grade", ["./labkit", "grade", "--quick", "--no-perf"]),
    ]
    for name, cmd in steps:
        say(f"\n[dist verify] {name}: {' '.join(cmd)}")
        rc, _, timed_out = capture(cmd, timeout=BUILD_TIMEOUT_S, echo=True, cwd=tree)
        if rc != 0 or timed_out:
            say(f"\ndist verification FAILED at '{name}' (exit {rc}{', timed out' if timed_out else ''}); "
                f"the unpacked tree is kept in {tree}")
            return 1
    if (tree / "build" / "solutions").exists():
        say(f"\ndist verification FAILED: the student tree built a reference; kept in {tree}")
        return 1
    shutil.rmtree(tmp)
    say(f"\ndist verification passed: {rel(tarball)} configures, builds, passes its tests and grades")
    return 0


# ---- command line ------------------------------------------------------------------------------

def make_parser():
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--build-dir", default="build", metavar="DIR",
                        help="the configured build folder (default: build)")
    parser = argparse.ArgumentParser(
        prog="./labkit", description="GPU Labkit: build, grade and test the labs.",
        epilog="setup and bundle are handled by the bash front (./labkit setup --help).")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("build", parents=[common], help="compile everything (ninja -C build)",
                       description="Configures the build folder when needed, then runs ninja.")
    p.add_argument("-j", "--jobs", type=int, help="parallel jobs (ninja's default otherwise)")
    p.set_defaults(func=cmd_build)

    p = sub.add_parser(
        "grade", parents=[common], help="grade labs (yours and the reference, or submissions)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Builds what is needed, then runs each lab's grader. Default: your files "
        "(labs/<lab>/, label 'student') and, when present, the reference (label 'solution'); "
        "reports go to results/<lab>-<label>.{json,md,csv}, diff images of failures to "
        "results/diff/, and a side-by-side summary is printed.",
        epilog="Statuses: pass; FAIL (first mismatch, diff PNG); TODO (not implemented yet); "
        "TIMEOUT; CRASH; ERROR (a CUDA or other error); build-error; skipped (e.g. no CUDA "
        "device).\nExit status: 0 when every implemented variant passed, 1 otherwise.")
    p.add_argument("labs", nargs="*", metavar="LAB", help="labs to grade (default: all)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--solution", action="store_true", help="grade only the reference solution")
    who.add_argument("--submission", nargs="+", metavar="DIR",
                     help="instructor: grade these submitted folders (or .zip/.tar.gz archives); "
                     "each is built apart in build-submissions/<name>/, and the class is "
                     "summarised in results/class.csv and results/class.json")
    p.add_argument("--variants", metavar="GLOB,...", help="only variants matching these patterns")
    p.add_argument("--sizes", metavar="WxH,...", help="correctness sizes")
    p.add_argument("--perf-sizes", metavar="N,...", help="performance sizes")
    p.add_argument("--runs", type=int, metavar="N", help="timed runs per performance size")
    p.add_argument("--seed", type=int, metavar="S", help="seed of the random test images")
    p.add_argument("--no-perf", action="store_true", help="check correctness only")
    p.add_argument("--quick", action="store_true", help="fewer sizes and runs")
    p.add_argument("--timeout", type=int, metavar="SEC",
                   help="per-variant limit (seconds without progress), enforced by the grader "
                   "binary (its default: 60)")
    p.add_argument("--lab-timeout", type=float, metavar="SEC",
                   help="wall-clock limit of one grader process, after which its whole process "
                   "group is killed (default: (per-variant limit, else 120) x (variants + 1) + 60)")
    p.add_argument("--sanitize", choices=SANITIZER_TOOLS, metavar="TOOL",
                   help="run every GPU variant under compute-sanitizer --tool TOOL (memcheck, "
                   "racecheck, synccheck or initcheck; quick sizes, no timing), each in its own run, "
                   "and report what it finds per variant (results/sanitize/); needs a GPU")
    p.add_argument("--json", metavar="FILE", help="also write every report in one JSON file "
                   "(with --submission: the class JSON, default results/class.json)")
    p.add_argument("--csv", metavar="FILE", help="also write one CSV row per variant and size "
                   "(with --submission: the class CSV, default results/class.csv)")
    p.set_defaults(func=cmd_grade)

    p = sub.add_parser("run", parents=[common], help="run one variant on an image",
                       description="Runs VARIANT of LAB on IMG and writes the result as a PNG "
                       "(and the raw values with --raw).")
    p.add_argument("lab", metavar="LAB")
    p.add_argument("variant", metavar="VARIANT")
    p.add_argument("--input", required=True, metavar="IMG", help="input image (PNG, JPEG, ...)")
    p.add_argument("--output", required=True, metavar="OUT.png", help="output image")
    p.add_argument("--raw", metavar="FILE", help="also write the raw output values")
    p.add_argument("--solution", action="store_true", help="use the reference build")
    p.add_argument("--timeout", type=float, metavar="SEC", help="kill it after SEC seconds")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("list", parents=[common], help="list the variants of each lab",
                       description="Prints the variants of each lab (or of LAB) in teaching order.")
    p.add_argument("lab", nargs="?", metavar="LAB")
    p.add_argument("--files", action="store_true", help="also list the files students edit")
    p.add_argument("--solution", action="store_true", help="ask the reference build")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("datasets", parents=[common], help="generate test images",
                       description="Runs build/datasets/generate_dataset for every pattern and "
                       "size; files are named <pattern>-<W>x<H>.png.")
    p.add_argument("--sizes", default="1024,2048,4096,8192", metavar="N|WxH,...")
    p.add_argument("--patterns", default="random,zeros,full,gradient,checkerboard,low-contrast",
                   metavar="P,...")
    p.add_argument("--seed", type=int, default=1, metavar="S")
    p.add_argument("--out", default="datasets/generated", metavar="DIR")
    p.set_defaults(func=cmd_datasets)

    p = sub.add_parser("test", parents=[common], help="run the kit's own tests",
                       description="Builds, runs `meson test --print-errorlogs`, and ends with "
                       "one line 'N passed, M failed, K skipped'. Exit 1 when a test failed or "
                       "none passed. GPU tests skip (exit 77) without a CUDA device.")
    p.add_argument("--cpu-only", action="store_true", help="only the 'cpu' suite")
    p.add_argument("--suite", action="append", metavar="NAME",
                   help="only this meson suite (a lab name, cpu, gpu); repeatable")
    p.add_argument("-j", "--jobs", type=int, help="parallel build jobs")
    p.set_defaults(func=cmd_test)

    p = sub.add_parser("dist", parents=[common], help="write and verify the student tarball",
                       description="Packs the tracked files without solutions/, tests/broken/, "
                       "tests that need the reference and .ci/, then unpacks the tarball in a "
                       "temporary folder and runs setup, build, test and grade there.")
    p.add_argument("--out", default="dist/gpu-labkit-student.tar.gz", metavar="FILE")
    p.add_argument("--no-verify", action="store_true", help="only write the tarball")
    p.add_argument("--cpu-only", action="store_true",
                   help="verify with -Dcuda=disabled and the cpu suite (faster)")
    p.add_argument("-j", "--jobs", type=int, help="parallel build jobs while verifying")
    p.set_defaults(func=cmd_dist)
    return parser


def main(argv=None):
    args = make_parser().parse_args(argv)
    try:
        return args.func(args)
    except LabkitError as e:
        say(f"labkit: {e}")
        return 1
    except KeyboardInterrupt:
        say("\nlabkit: interrupted")
        return 130
    except BrokenPipeError:  # ./labkit list | head
        sys.stderr.close()
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
