#!/usr/bin/env python3
"""The broken-submission corpus (tests/corpus/): every entry is a submission folder with the
verdict it must get (expect.json). This grades them as an instructor does, through
`./labkit grade-all --single PATH ... LAB` (what `grade LAB --submission PATH ...` runs), each class
run into a folder of its own (--out), checks every verdict, and checks that the class run survived
them:

  (a) no process of the run outlives it (a ps before and after; anything whose arguments or
      environment mark it as this run's, or any process of uid 65534 started during the run);
  (b) the class files (grade-all's --out: results/<name>.json, gradebook.csv, summary.md,
      junit.xml, feedback/, gradescope/) and the honest entries' reports are intact: hashed right
      after grading and again a few seconds later, never holding the marker the hostile entries
      write ("CORPUS-ATTACK"), and the honest report agrees with its result file; no marker file
      and no left-over file of an entry anywhere in the kit, /tmp or /var/tmp;
  (c) with --seeds N, instead: the reference solution gets full marks on N different seeds, for
      every lab (`./labkit grade LAB --solution --seed S --no-perf --quick`; CPU variants only
      without a GPU).

Entries that share a lab and grade_args are graded in one class run (one labkit process, each
submission still builds its own runner); honest entries go first, so that the hostile ones find
their results to spoil. Each entry's line reads `ok|FAIL <entry>: ...`; the checks of the whole
run read `ok|FAIL [check]: ...`. Exit status: 0 when all is well, 1 otherwise, 77 (skipped) for
--gpu yes on a machine without a CUDA device.

expect.json (see tests/corpus/README.md):
  about, comment      one line on the entry; anything longer
  lab, gpu            the lab; whether it needs a CUDA device (GPU entries run with --gpu yes/auto)
  grade_args          extra options of `labkit grade-all` (variants, sizes, perf sizes, runs, timeout)
  honest              an honest submission: its results must stay intact (check b)
  expect              [{variants: "glob,...", match: all|any, status: [...], flagged: bool, noted: bool,
                        detail_has, detail_lacks, perf_lacks_ms, timing_vs_honest_min,
                        any_of: [conditions...], or_sanitizer: TOOL}]
  notes_have          a text the submission's result (results/<name>.json) must contain ("refused")
  log_max_bytes       no file of the submission's results may be larger
  build_log_lacks, results_lack   a text that must appear in none of its reports and logs, its
                      class files or labkit's output ("root:")
  class_lacks         a text that must not appear in its class files (ESC)
  leaves_nothing      a file-name part that no file may have after the run ("corpus-fill-")
  network_silent      the test's listener on 127.0.0.1:47321 hears nothing during its run
  variants_only_from_kit   its report, its result and summary.md name only variants of the kit
  symlinks, pad, archive   made by this driver when it stages the entry (links to the kit,
                      oversized files, archives with hostile members)
  edits               {file: [[old, new], ...]}: from_solution files with these texts replaced (each
                      old must occur once): a deliberate mistake, kept as a small edit
  from_solution       student files handed in unchanged: copied from solutions/<lab>/ when the
                      entry is staged, rather than kept twice in the kit
"""

import argparse
import fnmatch
import hashlib
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CORPUS = HERE / "corpus"
LABKIT = ROOT / "labkit"
sys.path.insert(0, str(ROOT / "cli"))
from labkit.programs import python_options  # noqa: E402  (the kit's own package, standard library only)
from labkit.sandbox import NOBODY as NOBODY_UID  # noqa: E402  (the sandbox's uid, from grader/grader/sandbox.hpp)
from labkit.batch import TIMING_LABEL  # noqa: E402  (a class run's timing run's files: <lab>-<name>-timing.json)
from labkit.verdicts import PASS, SHOWN  # noqa: E402  (every verdict's name, from grader/grader/verdict.hpp)
RESULTS = ROOT / "results"

SKIP = 77  # Meson's "skipped"
PREFIX = "corpus-"  # submission names: corpus-<entry>
MARKER = "CORPUS-ATTACK"  # what hostile entries write wherever they can
LISTEN_PORT = 47321  # phones_home calls here
SETTLE_S = 5  # after a class run: time for a daemon to strike, before the files are checked again
STOP_GRACE_S = 3  # a kit process stopped this long is resumed, and the run fails
ENTRY_BUDGET_S = 240  # hard limit of a class run: this per entry, plus GROUP_BUDGET_S
GROUP_BUDGET_S = 600
SANITIZER_BUDGET_S = 300  # compute-sanitizer on one variant, small sizes

ENTRY_KEYS = {"about", "comment", "lab", "gpu", "grade_args", "expect", "honest", "notes_have", "log_max_bytes",
              "build_log_lacks", "results_lack", "class_lacks", "leaves_nothing", "network_silent",
              "variants_only_from_kit", "symlinks", "pad", "archive", "from_solution", "edits"}
CONDITION_KEYS = {"status", "flagged", "noted", "detail_has", "detail_lacks", "perf_lacks_ms", "timing_vs_honest_min", "any_of"}
ITEM_KEYS = CONDITION_KEYS | {"variants", "match", "or_sanitizer"}
STATUSES = set(SHOWN)  # the verdicts an expect.json may name


def say(*parts):
    print(*parts, flush=True)


# ---- entries ------------------------------------------------------------------------------------

class Entry:
    def __init__(self, folder):
        self.name = folder.name
        self.folder = folder
        self.spec = json.loads((folder / "expect.json").read_text())
        self.sub_name = PREFIX + self.name
        self.problems = []  # FAIL reasons
        self.notes = []     # informative
        self.group = None
        self.path = None    # the staged submission (folder or archive)

    def __getattr__(self, key):
        if key in ENTRY_KEYS:
            return self.spec.get(key)
        raise AttributeError(key)


def validate(entry):
    """Typos in an expect.json must fail loudly, not check nothing."""
    s = entry.spec
    bad = set(s) - ENTRY_KEYS
    if bad:
        return f"unknown keys {sorted(bad)}"
    for key in ("about", "lab", "expect"):
        if key not in s:
            return f"no '{key}'"
    if not isinstance(s.get("gpu", False), bool):
        return "'gpu' must be true or false"
    if not isinstance(s.get("grade_args", []), list):
        return "'grade_args' must be a list"
    edits = s.get("edits", {})
    if not isinstance(edits, dict) or set(edits) - set(s.get("from_solution", [])) or not all(
            isinstance(e, list) and all(isinstance(p, list) and len(p) == 2 for p in e) for e in edits.values()):
        return "'edits' must map files of from_solution to lists of [old, new] texts"

    def check_condition(c, where):
        unknown = set(c) - (ITEM_KEYS if where == "expect" else CONDITION_KEYS)
        if unknown:
            return f"{where}: unknown keys {sorted(unknown)}"
        if "status" in c and (not isinstance(c["status"], list) or set(c["status"]) - STATUSES):
            return f"{where}: 'status' must be a list of {sorted(STATUSES)}"
        for alt in c.get("any_of", []):
            why = check_condition(alt, "any_of")
            if why:
                return why
        return None

    for item in s["expect"]:
        why = check_condition(item, "expect")
        if why:
            return why
        if item.get("match", "all") not in ("all", "any"):
            return "'match' must be all or any"
    return None


def load_entries(only):
    entries = []
    for folder in sorted(p for p in CORPUS.iterdir() if (p / "expect.json").is_file()):
        entries.append(Entry(folder))
    if only:
        wanted = [n.strip() for n in only.split(",") if n.strip()]
        unknown = [n for n in wanted if n not in {e.name for e in entries}]
        if unknown:
            raise SystemExit(f"--only: no entry {', '.join(unknown)} (see tests/corpus/)")
        entries = [e for e in entries if e.name in wanted]
    return entries


# ---- the machine ---------------------------------------------------------------------------------

def has_gpu(build_dir):
    try:
        if subprocess.run(["nvidia-smi", "-L"], capture_output=True, timeout=60).returncode != 0:
            return False
    except (OSError, subprocess.TimeoutExpired):
        return False
    grader = build_dir / "labs" / "integral_image_grader"
    if not grader.exists():
        return True  # nvidia-smi saw one; the grader is built on demand
    try:
        return subprocess.run([str(grader), "device"], capture_output=True, timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def ps_snapshot():
    """pid -> (key, uid, args), key = (pid, start time) so that a reused pid is a new process."""
    out = subprocess.run(["ps", "-eo", "pid=,ppid=,uid=,lstart=,args="], capture_output=True, text=True).stdout
    procs = {}
    for line in out.splitlines():
        parts = line.split(None, 8)
        if len(parts) < 8:
            continue
        pid, ppid, uid = int(parts[0]), int(parts[1]), int(parts[2])
        lstart = " ".join(parts[3:8])
        procs[pid] = {"key": (pid, lstart), "ppid": ppid, "uid": uid, "args": parts[8] if len(parts) > 8 else ""}
    return procs


def environ_of(pid):
    try:
        return Path(f"/proc/{pid}/environ").read_bytes().decode("utf-8", "replace")
    except OSError:
        return ""


def state_of(pid):
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat[stat.rindex(")") + 2]
    except (OSError, ValueError, IndexError):
        return ""


def children_map():
    kids = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        kids.setdefault(ppid, []).append(int(d.name))
    return kids


def descendants(pid):
    kids, out, todo = children_map(), [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += kids.get(p, [])
    return out


def cmdline(pid):
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


class Watchdog(threading.Thread):
    """Resumes a kit process (labkit, a grader) that a submission stopped, and remembers it: a
    stopped labkit once stopped the class run for good."""

    def __init__(self, root_pid):
        super().__init__(daemon=True)
        self.root_pid = root_pid
        self.stopped = {}  # pid -> (first seen stopped, args)
        self.events = []
        self.done = threading.Event()

    def run(self):
        while not self.done.wait(0.5):
            now = time.monotonic()
            for pid in descendants(self.root_pid):
                args = cmdline(pid)
                kit = pid == self.root_pid or "_grader" in args or "labkit" in args
                if not kit or "_runner" in args:
                    continue
                if state_of(pid) in ("T", "t"):
                    first = self.stopped.setdefault(pid, (now, args))[0]
                    if now - first >= STOP_GRACE_S:
                        self.events.append(f"pid {pid} ({args.strip()[:120]}) was stopped for {now - first:.0f} s")
                        try:
                            os.kill(pid, signal.SIGCONT)
                        except OSError:
                            pass
                        self.stopped.pop(pid, None)
                else:
                    self.stopped.pop(pid, None)


class Listener(threading.Thread):
    """127.0.0.1:LISTEN_PORT during grading: a submission must not reach any network."""

    def __init__(self):
        super().__init__(daemon=True)
        self.heard = []
        self.sock = None
        try:
            self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.sock.bind(("127.0.0.1", LISTEN_PORT))
            self.sock.listen(16)
            self.sock.settimeout(0.5)
        except OSError as e:
            self.error = str(e)
            self.sock = None
        else:
            self.error = ""

    def run(self):
        while self.sock is not None:
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            conn.settimeout(2)
            try:
                data = conn.recv(4096).decode("utf-8", "replace")
            except OSError:
                data = ""
            conn.close()
            self.heard.append((time.monotonic(), data.strip() or "(connected, sent nothing)"))

    def close(self):
        sock, self.sock = self.sock, None
        if sock:
            sock.close()


# ---- staging ------------------------------------------------------------------------------------

def stage_entry(entry, subs):
    """Copies the entry's submission into subs/corpus-<entry>[.tar.gz], making the links, padded
    files and archives its expect.json asks for."""
    dest = subs / entry.sub_name
    shutil.copytree(entry.folder, dest, symlinks=True, ignore=shutil.ignore_patterns("expect.json"))
    for name in entry.from_solution or []:
        (dest / entry.lab).mkdir(parents=True, exist_ok=True)
        text = (ROOT / "solutions" / entry.lab / name).read_text()
        for old, new in (entry.edits or {}).get(name, []):
            if text.count(old) != 1:  # the solution changed under the entry: say so, never stage a no-op
                raise ValueError(f"{entry.name}: edit of {name} expects {old!r} exactly once in the solution, "
                                 f"found it {text.count(old)} times")
            text = text.replace(old, new)
        (dest / entry.lab / name).write_text(text)
    for rel, target in (entry.symlinks or {}).items():
        link = dest / rel
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.exists() or link.is_symlink():
            link.unlink()
        link.symlink_to(ROOT / target)
    if entry.pad:
        path = dest / entry.pad["file"]
        path.parent.mkdir(parents=True, exist_ok=True)
        text = (ROOT / entry.pad["from"]).read_text() if entry.pad.get("from") else ""
        line = "// " + "padding " * 12 + "\n"
        with open(path, "w") as f:
            f.write(text)
            f.write(line * (max(0, entry.pad["bytes"] - len(text)) // len(line) + 1))
    if entry.archive:
        spec = entry.archive
        archive = subs / f"{entry.sub_name}.tar.gz"
        with tarfile.open(archive, "w:gz") as tar:
            def add_bytes(name, data):
                info = tarfile.TarInfo(name)
                info.size, info.mode, info.mtime = len(data), 0o644, int(time.time())
                tar.addfile(info, io.BytesIO(data))
            for name, source in spec.get("members", {}).items():
                add_bytes(name, (ROOT / source).read_bytes())
            for name in spec.get("escaping_members", []):
                add_bytes(name, b"written outside the unpack folder by an archive member\n")
            for name, target in spec.get("symlink_members", {}).items():
                info = tarfile.TarInfo(name)
                info.type, info.linkname, info.mtime = tarfile.SYMTYPE, target, int(time.time())
                tar.addfile(info)
        shutil.rmtree(dest)
        return archive
    return dest


# ---- one class run ------------------------------------------------------------------------------

def file_hashes(paths):
    out = {}
    for p in paths:
        p = Path(p)
        files = [p] if p.is_file() else sorted(f for f in p.rglob("*") if f.is_file()) if p.is_dir() else []
        for f in files:
            try:
                out[str(f)] = hashlib.sha256(f.read_bytes()).hexdigest()
            except OSError:
                out[str(f)] = "unreadable"
    return out


class Group:
    def __init__(self, index, lab, grade_args, entries, tmp):
        self.index, self.lab, self.grade_args = index, lab, grade_args
        self.entries = sorted(entries, key=lambda e: (not e.honest, e.name))
        self.dir = tmp / f"group{index}"
        self.out = self.dir / "class"  # grade-all --out
        self.log = self.dir / "labkit.log"
        self.problems = []  # FAIL lines of the run as a whole
        self.rc = None
        self.seconds = 0.0
        self.per_submission = {}  # sub name -> seconds
        self.classes = None  # sub name -> its parsed result (<out>/results/<name>.json)
        self.heard = []

    @property
    def title(self):
        return f"{self.lab} [{' '.join(self.grade_args)}]"

    def class_files(self):
        """What grade-all wrote into --out, but the class's cases (kit data, large)."""
        return sorted(p for p in self.out.iterdir() if p.name != "cases") if self.out.is_dir() else []

    def load_results(self):
        self.classes = {}
        for f in sorted((self.out / "results").glob("*.json")):
            try:
                self.classes[f.stem] = json.loads(f.read_text())
            except (OSError, ValueError) as e:
                self.problems.append(f"result {f.name} cannot be read ({e.__class__.__name__})")
        if not self.classes:
            self.problems.append(f"no result file in {self.out / 'results'}")
        self.per_submission = {n: r.get("seconds") for n, r in self.classes.items()}


def redactions(entries):
    return [s for e in entries for s in (e.build_log_lacks, e.results_lack) if s]


def redact(line, secrets):
    return "[a line withheld: it holds a text the corpus forbids]\n" if any(s in line for s in secrets) else line


def run_group(group, build_dir, work_dir, token, verbose):
    group.dir.mkdir(parents=True)
    cmd = [str(LABKIT), "grade-all", "--build-dir", str(build_dir), "--out", str(group.out), "--work-dir", str(work_dir),
           *[w for e in group.entries for w in ("--single", str(e.path))], *group.grade_args, "--", group.lab]
    say(f"\n=== class run {group.index}: {group.title}: {len(group.entries)} submissions")
    say("$ " + " ".join(cmd[:3]) + " ... (log: " + str(group.log) + ")")
    env = dict(os.environ, LABKIT_CORPUS_TOKEN=token)
    secrets = redactions(group.entries)
    limit = GROUP_BUDGET_S + ENTRY_BUDGET_S * len(group.entries)
    started = time.monotonic()
    # stdin a pipe that stays open: a grader that followed an answer's link to /dev/stdin would
    # wait on it (answer_symlink_to_stdin), as it did in a class run started from a pipeline.
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    dog = Watchdog(proc.pid)
    dog.start()
    killer = threading.Timer(limit, lambda: os.killpg(proc.pid, signal.SIGKILL))
    killer.daemon = True
    killer.start()
    with open(group.log, "w") as log:
        for raw in proc.stdout:
            line = raw.decode("utf-8", "replace")
            log.write(line)
            if verbose:
                sys.stdout.write(redact(line, secrets))
    group.rc = proc.wait()
    killer.cancel()
    dog.done.set()
    group.seconds = time.monotonic() - started
    if group.seconds >= limit:
        group.problems.append(f"labkit ran past {limit} s and was killed")
    group.problems += [f"a kit process was stopped by a submission: {e}" for e in dog.events]
    if group.rc not in (0, 1):
        group.problems.append(f"labkit exited with status {group.rc}")
    say(f"    labkit: exit {group.rc} after {group.seconds:.0f} s")


def show_log_tail(group, lines=25):
    secrets = redactions(group.entries)
    try:
        tail = group.log.read_text(errors="replace").splitlines()[-lines:]
    except OSError:
        return
    for line in tail:
        say("    | " + redact(line, secrets).rstrip("\n"))


# ---- where a submission's files went ------------------------------------------------------------

def result_dirs(group, sub_name):
    """The folders that hold a submission's reports and logs (<out>/submissions/<name>/)."""
    candidate = group.out / "submissions" / sub_name
    return [candidate] if candidate.is_dir() else []


def runner_of(sub_name, lab, work_dir):
    roots = [ROOT / "build-submissions" / sub_name] + ([Path(work_dir) / sub_name] if work_dir else [])
    for r in roots:
        for cand in r.rglob(f"{lab}_runner") if r.is_dir() else []:
            if cand.is_file() and os.access(cand, os.X_OK):
                return cand
    return None


def text_files(paths, max_bytes=20 << 20):
    for p in paths:
        p = Path(p)
        files = [p] if p.is_file() else (f for f in p.rglob("*") if f.is_file()) if p.is_dir() else []
        for f in files:
            try:
                if f.stat().st_size <= max_bytes:
                    yield f, f.read_bytes().decode("utf-8", "replace")
            except OSError:
                continue


# ---- expectations -------------------------------------------------------------------------------

def row_of(group, entry):
    """The entry's result (<out>/results/<name>.json), or None."""
    return (group.classes or {}).get(entry.sub_name)


def report_file(row, lab):
    """The grader's report of lab that the result names (as labkit wrote it back), or {}."""
    path = (((row or {}).get("labs") or {}).get(lab) or {}).get("report")
    try:
        return json.loads(Path(path).read_text()) if path else {}
    except (OSError, ValueError):
        return {}


def lab_report(row, lab):
    """What the class files say of a lab: its variants as the result scores them (status, detail,
    flags, notes), with the timings of the report the result names."""
    scored = ((row or {}).get("labs") or {}).get(lab) or {}
    variants = {v.get("name"): v for g in scored.get("groups") or [] for v in g.get("variants") or []}
    return {"variants": list(variants.values()), "performance": report_file(row, lab).get("performance", [])}


def summary_variants(group):
    """The variant column of every table in summary.md."""
    try:
        lines = (group.out / "summary.md").read_text(errors="replace").splitlines()
    except OSError:
        return set()
    cells = [l.split("|")[3].strip() for l in lines if l.startswith("|") and l.count("|") > 4]
    return {c for c in cells if c not in ("variant", "-", "?") and not c.startswith("---")}


def flagged(variant, perf):
    if variant.get("flags") or variant.get("flagged"):
        return True
    return any(p.get("flags") for p in perf)


def perf_points(report, name):
    return [p for p in report.get("performance", []) or [] if isinstance(p, dict) and p.get("variant") == name]


def perf_key(p):
    return (p.get("pattern"), p.get("params", ""), p.get("width"), p.get("height"), p.get("threads"))


def check_condition(cond, v, perf, honest_perf):
    """None when the variant meets the condition, else why not."""
    status = v.get("status")
    if "status" in cond and status not in cond["status"]:
        return f"status {status} ({short(v.get('detail'))}), want {'|'.join(cond['status'])}"
    if "flagged" in cond and flagged(v, perf) != cond["flagged"]:
        return f"{'not ' if cond['flagged'] else ''}flagged (flags {v.get('flags')}), want{' not' if not cond['flagged'] else ''} flagged"
    if "noted" in cond and bool(v.get("notes")) != cond["noted"]:
        return f"timing notes {v.get('notes')}, want {'some' if cond['noted'] else 'none'}"
    if "detail_has" in cond and cond["detail_has"] not in str(v.get("detail", "")):
        return f"detail {short(v.get('detail'))!r} lacks {cond['detail_has']!r}"
    if "detail_lacks" in cond and cond["detail_lacks"] in str(v.get("detail", "")):
        return f"detail {short(v.get('detail'))!r} has {cond['detail_lacks']!r}"
    if "perf_lacks_ms" in cond:
        forged = cond["perf_lacks_ms"]
        taken = [p for p in perf if any(isinstance(p.get(k), (int, float)) and abs(p[k] - forged) < 1e-9
                                         for k in ("kernel_ms", "min_ms", "max_ms", "e2e_ms"))]
        if taken:
            return f"{len(taken)} timings of {forged} ms were taken (e.g. {perf_key(taken[0])})"
    if "timing_vs_honest_min" in cond:
        # Per size, the best time over the thread counts, and the most favourable size: one noisy
        # point (a 2-core machine, another process waking up) must not decide.
        def best(points):
            out = {}
            for p in points:
                ms, key = p.get("kernel_ms"), (p.get("pattern"), p.get("params", ""), p.get("width"), p.get("height"))
                if isinstance(ms, (int, float)) and ms > 0:
                    out[key] = min(ms, out.get(key, ms))
            return out
        mine, theirs = best(perf), best(honest_perf)
        common = [k for k in mine if k in theirs]
        if not common:
            return "no timing to compare with the honest entry's"
        closest = max(common, key=lambda k: mine[k] / theirs[k])
        ratio = mine[closest] / theirs[closest]
        if ratio < cond["timing_vs_honest_min"]:
            return (f"{mine[closest]:.4g} ms vs the honest {theirs[closest]:.4g} ms at {closest[2]}x{closest[3]} "
                    f"({1 / ratio:.0f}x faster), unflagged")
    if "any_of" in cond:
        whys = [check_condition(alt, v, perf, honest_perf) for alt in cond["any_of"]]
        if all(whys):
            return " / ".join(whys)
    return None


def short(text, n=140):
    text = " ".join(str(text or "").split())
    return text if len(text) <= n else text[:n] + "..."


def honest_report(group, lab):
    for e in group.entries:
        if e.honest and e.lab == lab:
            return lab_report(row_of(group, e), lab)
    return {}


def sanitizer_catches(entry, tool, glob, build_dir, work_dir, tmp):
    """The fallback for a race that never fires on real hardware: the submission's own runner
    checked again with the grader's --sanitize (compute-sanitizer in front of the runner, inside
    the sandbox), as `labkit grade-all --sanitize` does."""
    runner = runner_of(entry.sub_name, entry.lab, work_dir)
    if runner is None:
        return False, "the submission's runner was not found"
    grader = build_dir / "labs" / f"{entry.lab}_grader"
    listed = subprocess.run([str(grader), "list", "--runner", str(runner)], capture_output=True, text=True).stdout
    names = [l.split("\t")[0] for l in listed.splitlines() if fnmatch.fnmatch(l.split("\t")[0], glob)]
    for name in names[:1]:
        out = tmp / f"sanitize-{entry.name}-{name}.json"
        cmd = [str(grader), "grade", "--runner", str(runner), "--variants", name, "--no-perf", "--sizes", "7x5,31x33",
               "--photos", "", "--seed", "12345", "--timeout", "120", "--json", str(out),
               "--diff-dir", str(tmp / f"sanitize-{entry.name}"), "--sanitize", tool]
        try:
            subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=SANITIZER_BUDGET_S)
            san = json.loads(out.read_text())["variants"][-1].get("sanitizer") or {}
        except (OSError, ValueError, KeyError, IndexError, subprocess.TimeoutExpired) as e:
            return False, f"the grader under --sanitize {tool} gave no report ({e})"
        if san.get("clean") is False:
            return True, f"{tool} on {name}: {short('; '.join(san.get('findings') or []), 100)}"
    return False, f"{tool} found nothing on {', '.join(names[:1]) or 'no variant'}"


def evaluate(entry, group, build_dir, work_dir, tmp, kit_variants):
    row = row_of(group, entry)
    if row is None:
        entry.problems.append("no row in the class file" + ("" if group.classes else " (no class file)"))
        return
    report = lab_report(row, entry.lab)
    variants = [v for v in report.get("variants", []) if isinstance(v, dict) and not v.get("reference")]
    honest_perf_report = honest_report(group, entry.lab)
    got = []
    for item in entry.expect:
        globs = [g.strip() for g in item.get("variants", "*").split(",") if g.strip()]
        chosen = [v for v in variants if v.get("name") == "*" or any(fnmatch.fnmatch(v.get("name", ""), g) for g in globs)]
        if not chosen:
            entry.problems.append(f"no variant matches {item.get('variants')} (got {[v.get('name') for v in variants]})")
            continue
        whys = {}
        for v in chosen:
            perf = perf_points(report, v.get("name"))
            honest_perf = perf_points(honest_perf_report, v.get("name"))
            whys[v.get("name")] = check_condition(item, v, perf, honest_perf)
        bad = {n: w for n, w in whys.items() if w}
        failed = bool(bad) if item.get("match", "all") == "all" else len(bad) == len(whys)
        if failed and item.get("or_sanitizer"):
            caught, how = sanitizer_catches(entry, item["or_sanitizer"], item.get("variants", "*"), build_dir,
                                            work_dir, tmp)
            entry.notes.append(how)
            failed = not caught
        statuses = sorted({f"{v.get('status')}" for v in chosen})
        got.append(f"{item.get('variants')}: {'/'.join(statuses)}" + (" flagged" if any(
            flagged(v, perf_points(report, v.get("name"))) for v in chosen) else ""))
        if failed:
            shown = list(bad.items())[:3]
            entry.problems.append("; ".join(f"{n}: {w}" for n, w in shown) +
                                  (f" (and {len(bad) - 3} more)" if len(bad) > 3 else ""))
    entry.got = "; ".join(got)

    dirs = result_dirs(group, entry.sub_name)
    if entry.notes_have:
        if entry.notes_have.lower() not in json.dumps(row).lower():
            entry.problems.append(f"no note with {entry.notes_have!r} (notes: "
                                  f"{short(row.get('notes') or row.get('missing_files'), 200)})")
    if entry.log_max_bytes:
        if not dirs:
            entry.problems.append("no result folder to measure the logs in")
        files = [f for d in dirs for f in d.rglob("*") if f.is_file()]
        for f in files:
            if f.stat().st_size > entry.log_max_bytes:
                entry.problems.append(f"{f} is {f.stat().st_size:,} bytes (at most {entry.log_max_bytes:,})")
    for key in ("build_log_lacks", "results_lack"):
        secret = entry.spec.get(key)
        if not secret:
            continue
        places = [name for name, text in texts_of(entry, row, group, dirs) if secret in text]
        if places:
            entry.problems.append(f"{secret!r} appears in {', '.join(places[:4])}")
    if entry.class_lacks:
        places = [name for name, text in texts_of(entry, row, group, []) if entry.class_lacks in text]
        if places:
            entry.problems.append(f"{entry.class_lacks!r} appears in {', '.join(places)}")
    if entry.network_silent:
        if group.heard:
            entry.problems.append(f"the listener on 127.0.0.1:{LISTEN_PORT} was called: {short(group.heard[0][1], 100)}")
    if entry.variants_only_from_kit and kit_variants.get(entry.lab):
        known = kit_variants[entry.lab] | {"*"}
        names = {v.get("name") for v in report["variants"] + report_file(row, entry.lab).get("variants", [])}
        strangers = sorted(n for n in names if n not in known)
        rows = sorted(n for n in summary_variants(group) if n not in known)
        if strangers or rows:
            entry.problems.append(f"variants the kit does not have: {len(strangers)} in its result and report, "
                                  f"{len(rows)} rows in summary.md (e.g. {(strangers or rows)[0]})")


def texts_of(entry, row, group, dirs):
    """(where, text) of everything that reports on this submission: its result, its gradebook row,
    its section of summary.md and its testsuites of junit.xml, its feedback and Gradescope files,
    labkit's lines on it and its table there, and the files of dirs."""
    yield "its result", json.dumps(row, ensure_ascii=False)
    out, name = group.out, entry.sub_name
    for f in (out / "gradebook.csv", out / "summary.md", out / "junit.xml", out / "feedback" / f"{name}.md",
              out / "feedback" / f"{name}.json", out / "gradescope" / name / "results.json"):
        try:
            text = f.read_text(errors="replace")
        except OSError:
            continue
        yield str(f.relative_to(out)), own_part(text, f.name, name)
    try:
        log = group.log.read_text(errors="replace")
        start = log.find(f"=== submission {name} ")
        end = log.find("\n=== ", start + 1)
        table = log[start:end if end >= 0 else len(log)] if start >= 0 else ""
        yield "labkit's output", "\n".join(l for l in log.splitlines() if name in l) + "\n" + table
    except OSError:
        pass
    for d in dirs:
        for f, text in text_files([d]):
            yield str(f.relative_to(d.parent)), text


def own_part(text, file_name, name):
    """A submission's part of a class file: its gradebook.csv row, its summary.md section (its
    name heading, Markdown-escaped), its junit.xml testsuites; another file whole."""
    if file_name == "gradebook.csv":
        return "\n".join(l for l in text.splitlines() if l.startswith(name + ","))
    if file_name == "summary.md":
        sections, mine = [], False
        for line in text.splitlines():
            if line.startswith("## "):
                mine = line[3:].replace("\\", "").startswith(name + ":")
            if mine:
                sections.append(line)
        return "\n".join(sections)
    if file_name == "junit.xml":
        parts, start = [], text.find(f'<testsuite name="{name}.')
        while start >= 0:
            end = text.find("</testsuite>", start)
            parts.append(text[start:end if end >= 0 else len(text)])
            start = text.find(f'<testsuite name="{name}.', start + 1)
        return "\n".join(parts)
    return text


# ---- what the run left behind -------------------------------------------------------------------

def kit_results_snapshot():
    """Files directly in the kit's results/ (class files, <lab>-solution.json...): a hostile entry
    run without a sandbox may overwrite them; they are put back, and the run fails."""
    snap = {}
    if RESULTS.is_dir():
        for f in RESULTS.iterdir():
            if f.is_file() and f.stat().st_size < (50 << 20):
                snap[f] = f.read_bytes()
    return snap


def scan_names(roots, parts):
    """Files and folders whose name holds one of parts, under each (root, depth)."""
    found = []
    for root, depth in roots:
        root = Path(root)
        if not root.is_dir():
            continue
        base = len(root.parts)
        for dirpath, dirnames, filenames in os.walk(root):
            d = Path(dirpath)
            dirnames[:] = [] if len(d.parts) - base >= depth else [n for n in dirnames if n != ".git"]
            found += [d / n for n in filenames + dirnames if any(p in n for p in parts)]
    return found


def settle_checks(group, hashes_before, tmp, work_dir, kit_snapshot):
    """After SETTLE_S: the class files (the honest results among them) unchanged, no marker anywhere."""
    after = file_hashes(group.class_files())
    changed = sorted(p for p in set(hashes_before) | set(after) if hashes_before.get(p) != after.get(p))
    if changed:
        group.problems.append(f"changed after grading ended: {', '.join(short(c, 90) for c in changed[:4])}")
    places = group.class_files() + [tmp / "subs"] + sorted(Path(work_dir).glob("*/src"))
    marked = [str(f) for f, text in text_files(places) if MARKER in text]
    for f, old in kit_snapshot.items():
        try:
            now = f.read_bytes()
        except OSError:
            continue
        if MARKER.encode() in now:
            marked.append(str(f) + " (put back)")
            f.write_bytes(old)
    if marked:
        group.problems.append(f"{MARKER} written into {len(marked)} files: {', '.join(short(m, 90) for m in marked[:5])}")


def leftover_files(parts, tmp):
    return scan_names([(ROOT, 6), ("/tmp", 3), ("/var/tmp", 2), ("/dev/shm", 2), (tmp, 8)], parts)


def survivors(before, token, tmp):
    """New processes since `before` that belong to this run: their environment holds this run's
    token, or their arguments its scratch folder (where the sandboxed runners live). Returns
    (pid, uid, args) of those, and of new uid-65534 processes not tied to any run (another
    sandboxed run on this machine, or one of ours whose ties were cut)."""
    mine = {os.getpid(), os.getppid()}
    ours, unknown = [], []
    for pid, p in ps_snapshot().items():
        if pid in mine or (pid in before and before[pid]["key"] == p["key"]) or p["args"].startswith("ps -eo"):
            continue
        if token in environ_of(pid) or str(tmp) in p["args"]:
            ours.append((pid, p["uid"], p["args"]))
        elif p["uid"] == NOBODY_UID:
            unknown.append((pid, p["uid"], p["args"]))
    return ours, unknown


# ---- the corpus run -----------------------------------------------------------------------------

def kit_variant_names(build_dir, labs):
    names = {}
    for lab in labs:
        grader = build_dir / "labs" / f"{lab}_grader"
        for runner in (build_dir / "labs" / f"{lab}_solution_runner", build_dir / "labs" / f"{lab}_runner"):
            if grader.exists() and runner.exists():
                # As labkit lists them: the Python track's rows too (cli/labkit/programs.py).
                out = subprocess.run([str(grader), "list", "--runner", str(runner), *python_options(runner)],
                                     capture_output=True, text=True, timeout=120).stdout
                names[lab] = {l.split("\t")[0] for l in out.splitlines() if l.strip()}
                break
    return names


def run_corpus(args, build_dir):
    entries = load_entries(args.only)
    broken = [(e.name, validate(e)) for e in entries if validate(e)]
    if broken:
        for name, why in broken:
            say(f"FAIL {name}: expect.json: {why}")
        return 1
    gpu = has_gpu(build_dir) if args.gpu != "no" else False
    if args.gpu == "yes":
        if not gpu:
            say("skipped: no CUDA device (nvidia-smi -L, or the grader's device probe, says so)")
            return SKIP
        chosen = [e for e in entries if e.gpu]
    elif args.gpu == "no":
        chosen = [e for e in entries if not e.gpu]
    else:
        chosen = [e for e in entries if gpu or not e.gpu]
        for e in entries:
            if e.gpu and not gpu:
                say(f"skip {e.name}: needs a CUDA device")
    if not chosen:
        say("no entry to run")
        return SKIP if args.gpu == "yes" else 0

    tmp = Path(tempfile.mkdtemp(prefix="labkit-corpus-"))
    token = os.urandom(8).hex()
    say(f"corpus: {len(chosen)} entries; scratch {tmp}; GPU {'yes' if gpu else 'no'}")
    subs = tmp / "subs"
    subs.mkdir()
    for e in chosen:
        e.path = stage_entry(e, subs)
    work_dir = tmp / "work"
    work_dir.mkdir()

    groups = {}
    for e in chosen:
        groups.setdefault((e.lab, tuple(e.grade_args or [])), []).append(e)
    groups = [Group(i + 1, lab, list(ga), es, tmp) for i, ((lab, ga), es) in enumerate(groups.items())]
    for g in groups:
        for e in g.entries:
            e.group = g
    kit_variants = kit_variant_names(build_dir, {e.lab for e in chosen if e.variants_only_from_kit})

    kit_snapshot = kit_results_snapshot()
    listener = Listener()
    if listener.error:
        say(f"note: cannot listen on 127.0.0.1:{LISTEN_PORT} ({listener.error}): network_silent is not checked")
    listener.start()
    global_problems = []
    started = time.monotonic()
    try:
        for g in groups:
            before = ps_snapshot()
            heard_from = len(listener.heard)
            run_group(g, build_dir, work_dir, token, args.verbose)
            g.load_results()
            hashes = file_hashes(g.class_files())
            time.sleep(args.settle)
            g.heard = listener.heard[heard_from:]
            settle_checks(g, hashes, tmp, work_dir, kit_snapshot)
            check_honest_reports(g)
            left, strangers = survivors(before, token, tmp)
            if left:
                g.problems.append(f"{len(left)} processes outlived the run: " +
                                  "; ".join(f"pid {pid} uid {uid}: {short(a, 80)}" for pid, uid, a in left[:4]))
                for pid, _, _ in left:  # this run's own: they go
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
            if strangers:  # never killed here: they may belong to another run on this machine
                g.problems.append(f"{len(strangers)} new uid-{NOBODY_UID} processes are alive after the run (not "
                                  "tied to it by argument or environment: another sandboxed run here?): " +
                                  "; ".join(f"pid {pid}: {short(a, 80)}" for pid, _, a in strangers[:3]))
            if g.problems:
                show_log_tail(g)
            for e in g.entries:
                evaluate(e, g, build_dir, work_dir, tmp, kit_variants)
    finally:
        listener.close()
    parts = ["corpus-attack"] + [e.leaves_nothing for e in chosen if e.leaves_nothing]
    for f in leftover_files(parts, tmp):
        owners = [e for e in chosen if e.leaves_nothing and e.leaves_nothing in f.name]
        message = f"left behind: {f}"
        (owners[0].problems if owners else global_problems).append(message)
        try:
            shutil.rmtree(f) if f.is_dir() and not f.is_symlink() else f.unlink()
        except OSError:
            pass
    total = time.monotonic() - started

    # ---- the report ----
    say("\n=== corpus verdicts")
    failed = 0
    for e in sorted(chosen, key=lambda e: e.name):
        secs = e.group.per_submission.get(e.sub_name)
        took = f" [{secs:.0f} s]" if secs else ""
        if e.problems:
            failed += 1
            say(f"FAIL {e.name}: expected {describe_expect(e)}; got {getattr(e, 'got', '?')}{took}")
            for p in e.problems:
                say(f"       - {p}")
        else:
            say(f"ok   {e.name}: {getattr(e, 'got', '')}{took}" + (f" ({'; '.join(e.notes)})" if e.notes else ""))
    for g in groups:
        line = f"[class run {g.index}: {g.title}]"
        if g.problems:
            failed += 1
            say(f"FAIL {line}")
            for p in g.problems:
                say(f"       - {p}")
        else:
            say(f"ok   {line}: {len(g.entries)} submissions in {g.seconds:.0f} s; no survivor, class files and "
                "honest results intact")
    if global_problems:
        failed += 1
        say("FAIL [left-over files]")
        for p in global_problems:
            say(f"       - {p}")
    n_ok = len(chosen) - sum(bool(e.problems) for e in chosen)
    say(f"\n{n_ok} of {len(chosen)} entries get their verdict; {sum(bool(g.problems) for g in groups)} of "
        f"{len(groups)} class runs had problems; {total:.0f} s in all")

    if args.keep:
        say(f"kept: {tmp} (each class run's --out, the work folder)")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


def check_honest_reports(group):
    """The honest entries' report files agree with their result files (a hostile entry graded
    after them must not have replaced them)."""
    for e in group.entries:
        if not e.honest:
            continue
        row = row_of(group, e)
        if row is None:
            continue
        want = {v.get("name"): v.get("status") for v in lab_report(row, e.lab).get("variants", [])}
        # The verdicts' reports: a timing run's (grade-all with timing: --no-check, every variant
        # "skipped") gives its timings to the check's report, which the result names.
        reports = [f for d in result_dirs(group, e.sub_name) for f in d.glob(f"{e.lab}*.json")
                   if not f.stem.endswith(TIMING_LABEL)]
        if not reports:
            group.problems.append(f"{e.name}: no report file found")
        for f in reports:
            try:
                got = {v.get("name"): v.get("status") for v in json.loads(f.read_text()).get("variants", [])}
            except (OSError, ValueError, AttributeError) as err:
                group.problems.append(f"{e.name}: {f.name} is no longer a report ({err.__class__.__name__})")
                continue
            # The variants the report graded (--variants leaves the others "missing" in the result).
            common = [name for name in want if name in got]
            if not common or any(got[name] != want[name] for name in common):
                group.problems.append(f"{e.name}: {f.name} says {got}, its result "
                                      f"{ {n: s for n, s in want.items() if n in got} or 'nothing of it'}")


def describe_expect(e):
    parts = []
    for item in e.expect:
        conds = []
        if "status" in item:
            conds.append("|".join(item["status"]))
        if "flagged" in item:
            conds.append("flagged" if item["flagged"] else "not flagged")
        if "noted" in item:
            conds.append("noted" if item["noted"] else "not noted")
        if "any_of" in item:
            conds.append("(" + " or ".join(
                " ".join(filter(None, ["|".join(a.get("status", [])),
                                       {True: "flagged", False: "not flagged"}.get(a.get("flagged"), ""),
                                       f"timing >= {a['timing_vs_honest_min']}x honest" if "timing_vs_honest_min" in a else "",
                                       f"no {a['perf_lacks_ms']} ms timing" if "perf_lacks_ms" in a else ""]))
                for a in item["any_of"]) + ")")
        parts.append(f"{item.get('variants', '*')} {' '.join(conds)}" + (" (any)" if item.get("match") == "any" else ""))
    for key in ("notes_have", "log_max_bytes", "build_log_lacks", "results_lack", "leaves_nothing"):
        if e.spec.get(key):
            parts.append(f"{key} {e.spec[key]!r}")
    return "; ".join(parts)


# ---- the reference on many seeds ----------------------------------------------------------------

def run_seeds(args, build_dir):
    info = json.loads((build_dir / "labkit-build.json").read_text())
    labs = [l["name"] if isinstance(l, dict) else l for l in info.get("labs", [])]
    gpu = has_gpu(build_dir) if args.gpu != "no" else False
    if args.gpu == "yes" and not gpu:
        say("skipped: no CUDA device")
        return SKIP
    base = args.seed_base if args.seed_base is not None else int.from_bytes(os.urandom(3), "little")
    seeds = [base + i for i in range(args.seeds)]
    say(f"the reference on {len(seeds)} seeds ({seeds[0]}..{seeds[-1]}; --seed-base {base} reruns them) for "
        f"{', '.join(labs)}; {'all variants' if gpu else 'CPU variants only (no GPU)'}")
    tmp = Path(tempfile.mkdtemp(prefix="labkit-seeds-"))
    kept = {f: f.read_bytes() for f in RESULTS.glob("*-solution.*") if f.is_file()} if RESULTS.is_dir() else {}
    bad = {lab: [] for lab in labs}
    started = time.monotonic()
    try:
        # One grade of every lab per seed: one labkit process and one build check, not one per lab.
        for seed in seeds:
            out = tmp / f"{seed}.json"
            cmd = [str(LABKIT), "grade", "--build-dir", str(build_dir), "--solution", "--seed", str(seed),
                   "--no-perf", "--quick", "--json", str(out)]
            if not gpu:
                cmd += ["--variants", "cpu-*"]
            proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  timeout=1800)
            try:
                runs = {r["lab"]: r for r in json.loads(out.read_text())["runs"]}
            except (OSError, ValueError, KeyError, TypeError) as e:
                for lab in labs:
                    bad[lab].append(f"seed {seed}: exit {proc.returncode}, no report ({e.__class__.__name__}): "
                                    f"{short(proc.stdout[-300:], 300)}")
                continue
            for lab in labs:
                variants = [v for v in runs.get(lab, {}).get("variants", []) if not v.get("reference")]
                losers = [f"{v['name']} {v.get('status')} ({short(v.get('detail'), 80)})" for v in variants
                          if v.get("status") != PASS]
                if not variants:
                    bad[lab].append(f"seed {seed}: no variant graded")
                elif losers or proc.returncode != 0:
                    bad[lab].append(f"seed {seed}: exit {proc.returncode}; " + "; ".join(losers[:3]))
        took = time.monotonic() - started
        for lab in labs:
            if bad[lab]:
                say(f"FAIL reference {lab}: {len(bad[lab])} of {len(seeds)} seeds without full marks "
                    f"[{took:.0f} s, all labs]")
                for b in bad[lab][:5]:
                    say(f"       - {b}")
            else:
                say(f"ok   reference {lab}: full marks on {len(seeds)} seeds [{took:.0f} s, all labs]")
    finally:
        for f, data in kept.items():
            f.write_bytes(data)
        shutil.rmtree(tmp, ignore_errors=True)
    failed = sum(1 for lab in labs if bad[lab])
    say(f"{len(labs) - failed} of {len(labs)} labs: the reference gets full marks on every seed; "
        f"{time.monotonic() - started:.0f} s")
    return 1 if failed else 0


def main():
    p = argparse.ArgumentParser(
        description="Grades the broken-submission corpus (tests/corpus/) through ./labkit grade-all --single and "
                    "checks every entry's verdict, that no process outlives the run, and that the class files and "
                    "the honest entries' results are intact. With --seeds N: the reference solution gets full "
                    "marks on N seeds, for every lab.",
        epilog="Exit status: 0 all good, 1 something failed, 77 skipped (--gpu yes without a CUDA device).")
    p.add_argument("--build-dir", default="build", metavar="DIR",
                   help="the kit's configured build folder (default: build, relative to the kit)")
    p.add_argument("--gpu", choices=("auto", "yes", "no"), default="auto",
                   help="no: the CPU entries only; yes: the GPU entries only (exit 77 without a CUDA device); "
                        "auto (default): the CPU entries, and the GPU entries when there is a device")
    p.add_argument("--only", metavar="NAME,...", help="only these entries (folder names under tests/corpus/)")
    p.add_argument("--keep", action="store_true",
                   help="keep the scratch folder: each class run's --out (results, reports, logs, class files) "
                        "and the work folder")
    p.add_argument("--seeds", type=int, metavar="N",
                   help="instead of the corpus: grade the reference on N seeds per lab (full marks wanted)")
    p.add_argument("--seed-base", type=int, metavar="S", help="with --seeds: use seeds S..S+N-1 (default: random)")
    p.add_argument("--settle", type=float, default=SETTLE_S, metavar="SEC",
                   help=f"seconds to wait after a class run before checking what it left (default {SETTLE_S})")
    p.add_argument("--verbose", action="store_true", help="show labkit's output as it comes")
    args = p.parse_args()
    build_dir = Path(args.build_dir)
    if not build_dir.is_absolute():
        build_dir = ROOT / build_dir
    if not (build_dir / "labkit-build.json").exists():
        say(f"FAIL: {build_dir} is not a configured kit build (no labkit-build.json): ./labkit setup")
        return 1
    if args.seeds is not None:
        if args.seeds < 1:
            p.error("--seeds must be at least 1")
        return run_seeds(args, build_dir)
    return run_corpus(args, build_dir)


if __name__ == "__main__":
    sys.exit(main())
