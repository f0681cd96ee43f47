"""The reference solution's reports, timed once per machine and build, and only where they are
compared: `grade` compares your timings with the reference's, and timing the reference again at
every size and thread count was most of a grade's time (on a 2-core machine, most of half an
hour; on an H200 node, over 4 minutes for each of Labs 1 and 3), although neither the solution
nor the machine had changed, and although a starter has hardly a timing to compare with.

So a student's grade times the reference's rows that the student's report timed (those it can
be compared with; not the kit's own baseline rows, the same code in both builds), each once: a row already kept is reused, the rows missing are timed in one
run of the reference (a piece) and kept beside the others. The report is the pieces composed:
their rows, and their tables one after the other, each saying when it was timed.

A kept piece is reused only while everything that changes its timings is the same; the key
(fingerprint) of its entry is a digest of:
  - the GPU (name, SMs, compute capability, memory) and its driver and CUDA runtime, from the
    kit's probe; "none" without one;
  - the CPU (its model), the cores of the machine and those this process may use;
  - the build: the grader, the reference runner and the probe, byte for byte (the compiler, its
    flags and the solution's sources all end up in them), and the Python track's interpreter and
    the solution's Python files (their bytes);
  - the grading options (all but --seed: the images differ, their sizes and kinds do not; and
    --variants, which only picks rows) and the sandbox;
  - the environment variables that the OpenMP runtime and CUDA read (OMP_*, CUDA_*, GOMP_*).
`grade --retime-reference` times them again whatever the key says. Kept under the build folder
(BUILD/reference-timings/): a fresh build folder times afresh. Only a reference run that ended
well is kept (exit 0, no failing variant): a crash or a timeout is never reused.

The kit's own rows (cpu-sequential and the like) are timed in the grader process, out of any
runner's reach, so they depend only on the grader, the machine and the timing settings: the grader
keeps them itself (grade --kept-timings, grader/grader/kept_timings.hpp), keyed by those, in
BUILD/reference-timings/<lab>-kit-rows/ (kit_timings_dir), for the student's grade and the
reference's alike; --retime-reference and --solution empty that folder first.

`grade --solution` times the reference in full (its peers too) and keeps that. Class runs
(grade-all, grade --submission) do not use the cache: they time the reference once at the run's
start, in the run whose submissions are scored against it (docs/instructor.md says why)."""

import hashlib
import json
import os
import platform
import shutil
import socket
import time
from pathlib import Path

from . import reports
from .programs import machine_device, runner_options
from .util import rel, say, write_atomic

CACHE_DIR = "reference-timings"
# What a reference run leaves in results/: its reports and the log of its tables.
SUFFIXES = (".json", ".md", ".csv", ".log")
LABEL = "solution"
FACTS = "facts.json"  # an entry's key and machine, readable
PIECES = "pieces"     # an entry's runs of the reference: pieces/<n>/, n counting up
PIECE = "piece.json"  # when a piece was timed and its rows; last written: a piece without it is never read
# The grader's folder of the kit's own rows' timings (grader/grader/kept_timings.hpp): the grader
# keys each by itself, the machine and the timing settings; labkit gives each lab one under CACHE_DIR.
KEPT_TIMINGS_OPTION = "--kept-timings"
KIT_TIMINGS = "kit-rows"
# Options that change no timing of a row: the images' seed, which rows are asked for, and where
# the kit's own rows' timings are kept.
UNKEYED_OPTIONS = ("--seed", "--variants", KEPT_TIMINGS_OPTION)
# The environment variables whose values change a timing: the OpenMP runtime's and CUDA's.
ENV_PREFIXES = ("OMP_", "GOMP_", "CUDA_")
DEVICE_FIELDS = ("name", "sms", "cc_major", "cc_minor", "memory_gib", "driver", "runtime")
READ_CHUNK = 1 << 20


def cpu_model():
    """The CPU's model name, as /proc/cpuinfo says ("" where there is none: platform's word)."""
    try:
        for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
            if line.lower().startswith(("model name", "hardware", "cpu model")):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def usable_cores():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def digest_files(paths):
    """One sha256 of the files' names (relative to their common root, each path as given) and bytes;
    a missing file counts as such, so that it differs from any present one."""
    h = hashlib.sha256()
    for path in paths:
        path = Path(path)
        h.update(str(path).encode() + b"\0")
        try:
            with open(path, "rb") as f:
                while chunk := f.read(READ_CHUNK):
                    h.update(chunk)
        except OSError:
            h.update(b"<missing>")
        h.update(b"\0")
    return h.hexdigest()


def python_files(folder):
    return sorted(p for p in Path(folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts) if folder else []


def keyed_options(words):
    """The grader options that change a row's timing: words without UNKEYED_OPTIONS and their values."""
    out, skip = [], False
    for w in map(str, words):
        if skip:
            skip = False
        elif w in UNKEYED_OPTIONS:
            skip = True
        elif not w.startswith(tuple(f"{o}=" for o in UNKEYED_OPTIONS)):
            out.append(w)
    return out


def machine_facts(build):
    """The machine's part of the key, readable: a report says where it was timed from these."""
    device = machine_device(build)
    gpu = {k: device.get(k, "") for k in DEVICE_FIELDS} if device.get("available") == "1" else "none"
    return {"gpu": gpu, "cpu": cpu_model(), "cores": os.cpu_count() or 1, "usable_cores": usable_cores(),
            "host": socket.gethostname()}


def fingerprint(build, lab, grader, runner, sandbox, options):
    """(key, facts): the digest every timing-relevant fact goes into, and those facts. options:
    the grader options of the reference's run (grading.grader_options), UNKEYED_OPTIONS left out."""
    facts = machine_facts(build)
    words = [str(w) for w in runner_options(grader, runner, sandbox)]
    code = lab.python_code_for(runner) if lab.solution_python_code else ""
    files = [grader, runner, *([Path(build.dir) / build.probe] if build.probe else [])]
    keyed = {
        "lab": lab.name,
        "machine": {k: v for k, v in facts.items() if k != "host"},  # another host of the same kind times alike
        "build": digest_files(files),
        "python": digest_files(python_files(code)) if code else "",
        "runner_options": words,
        "options": keyed_options(options),
        "environment": sorted((k, v) for k, v in os.environ.items() if k.startswith(ENV_PREFIXES)),
    }
    key = hashlib.sha256(json.dumps(keyed, sort_keys=True).encode()).hexdigest()[:32]
    return key, dict(facts, key=key, keyed_by=keyed)


def kit_timings_dir(build, lab_name):
    """Where the grader keeps lab_name's own rows' timings (grade --kept-timings)."""
    return Path(build.dir) / CACHE_DIR / f"{lab_name}-{KIT_TIMINGS}"


def entry_dir(build, lab_name, key):
    return Path(build.dir) / CACHE_DIR / f"{lab_name}-{key}"


def timed_where(facts):
    gpu = facts.get("gpu")
    gpu_text = (f"{gpu.get('name')}, driver {gpu.get('driver')}" if isinstance(gpu, dict) else "no GPU")
    return f"{facts.get('host', '?')} ({gpu_text}; {facts.get('cpu') or 'CPU ?'}, {facts.get('usable_cores')} cores)"


def note(facts, reused):
    """The line that says when and where the reference was timed, and whether this run reused it."""
    pieces = facts.get("pieces") or [{"timed_at": facts.get("timed_at", "?")}]
    when = facts.get("timed_at", "?") if len(pieces) == 1 else \
        f"in {len(pieces)} runs, {pieces[0].get('timed_at', '?')} to {pieces[-1].get('timed_at', '?')},"
    how = {"all": "reused: the build, this machine and the options are those it was timed with "
                  "(--retime-reference times it again)",
           "some": "the rows not kept timed in this run, the others reused; all kept for the next grades",
           "none": "timed in this run, kept for the next grades on this machine and build"}[reused]
    return f"reference solution timed {when} on {timed_where(facts)}; {how}"


def compared(student, reference_rows):
    """The reference's rows a student's report is compared with: the steps it timed, in the order
    of reference_rows (the reference runner's list), those the reference has. The kit's own rows
    (the baseline each exercise is checked against, "reference" in the list) are left out: they
    are the same code in both builds, and the student's report times them."""
    timed = {p.get("variant") for p in (student or {}).get("performance", [])}
    return [r["name"] for r in reference_rows if r["name"] in timed and not r.get("reference")]


class Kept:
    """The kept pieces of one entry (lab and key), oldest first: (folder, piece facts, report)."""

    def __init__(self, build, lab_name, key):
        self.lab, self.dir = lab_name, entry_dir(build, lab_name, key)
        self.pieces = []
        folders = sorted((p for p in (self.dir / PIECES).glob("*") if p.name.isdigit()), key=lambda p: int(p.name)) \
            if (self.dir / PIECES).is_dir() else []
        for folder in folders:
            try:
                piece = json.loads((folder / PIECE).read_text())
                report = reports.validate(reports.load_json(folder / f"{lab_name}-{LABEL}.json"))
            except (OSError, ValueError):
                continue
            self.pieces.append((folder, piece, report))

    def rows(self):
        return {v["name"] for _, _, report in self.pieces for v in report["variants"]}

    def missing(self, names):
        have = self.rows()
        return [n for n in names if n not in have]

    def add(self, facts, report, replace=False):
        """Keeps report (a reference run that ended well), with the .md, .csv and log beside its
        JSON, as the newest piece (replace: the only one). False when it is not kept: a run that
        did not end well (what was kept stays), or a build folder that cannot be written (which
        says so)."""
        if report.get("_exit") != 0 or reports.failing(report) or not report.get("environment"):
            return False
        source = Path(report["_file"])
        number = int(self.pieces[-1][0].name) + 1 if self.pieces else 1
        folder = self.dir / PIECES / str(number)
        piece = {"timed_at": time.strftime("%Y-%m-%d %H:%M %Z"), "rows": [v["name"] for v in report["variants"]]}
        try:
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            write_atomic(self.dir / FACTS, json.dumps(facts, indent=2))
            for suffix in SUFFIXES:
                if source.with_suffix(suffix).is_file():
                    shutil.copyfile(source.with_suffix(suffix), folder / f"{self.lab}-{LABEL}{suffix}")
            write_atomic(folder / PIECE, json.dumps(piece, indent=2))  # last: a piece without it is never read
        except OSError as e:
            say(f"note: the reference's timings are not kept ({rel(folder)}: {e.strerror or e})")
            return False
        self.pieces.append((folder, piece, {k: v for k, v in report.items() if not k.startswith("_")}))
        if replace:
            for older, _, _ in self.pieces[:-1]:
                shutil.rmtree(older, ignore_errors=True)
            self.pieces = self.pieces[-1:]
        return True

    def compose(self, facts, out, timed_now):
        """The pieces as one report, written into out as <lab>-solution.{json,md,csv,log} and
        returned with "reference_timing" saying when and where each piece was timed; None when
        nothing is kept. A row kept twice is the newer piece's. timed_now: how many pieces this
        run added (0: all reused)."""
        if not self.pieces:
            return None
        owner = {}  # row -> the newest piece that has it
        for i, (_, _, report) in enumerate(self.pieces):
            for v in report["variants"]:
                owner[v["name"]] = i
        newest = self.pieces[-1][2]
        report = {k: v for k, v in newest.items() if not k.startswith("_")}
        for field in ("variants", "cases", "performance"):
            name = "name" if field == "variants" else "variant"
            report[field] = [item for i, (_, _, r) in enumerate(self.pieces) for item in r.get(field, [])
                             if owner.get(item.get(name)) == i]
        report["performance_problems"] = list(dict.fromkeys(
            p for _, _, r in self.pieces for p in r.get("performance_problems", [])))
        pieces = [dict(piece) for _, piece, _ in self.pieces]
        reused = "all" if not timed_now else "none" if timed_now == len(pieces) else "some"
        timing = dict(facts, timed_at=pieces[-1].get("timed_at", "?"), pieces=pieces, reused=reused)
        report["reference_timing"] = timing
        out.mkdir(parents=True, exist_ok=True)
        stem = out / f"{self.lab}-{LABEL}"
        first_new = len(pieces) - timed_now
        self._join(stem.with_suffix(".md"), ".md",
                   lambda i, piece: f"> {note(dict(facts, **piece), 'none' if i >= first_new else 'all')}\n\n")
        self._join(stem.with_suffix(".log"), ".log")
        self._join(stem.with_suffix(".csv"), ".csv", header_once=True)
        report["_exit"], report["_file"] = 0, str(stem.with_suffix(".json"))
        reports.write_back(report)
        return report

    def _join(self, target, suffix, opening=None, header_once=False):
        """The pieces' files of suffix, one after the other, into target (each opened by
        opening(piece), a CSV's header once)."""
        parts, header = [], None
        for i, (folder, piece, _) in enumerate(self.pieces):
            path = folder / f"{self.lab}-{LABEL}{suffix}"
            if not path.is_file():
                continue
            text = path.read_text(errors="replace")
            if header_once:
                first, _, rest = text.partition("\n")
                if header == first:
                    text = rest
                header = header or first
            parts.append((opening(i, piece) if opening else "") + text)
        target.unlink(missing_ok=True)
        if parts:
            write_atomic(target, ("" if header_once else "\n").join(parts))
