"""The reference solution's reports, timed once per machine and build: `grade` compares your
timings with the reference's, and timing the reference again at every size and thread count
was most of a grade's time (on a 2-core machine, most of half an hour), although neither the
solution nor the machine had changed.

A kept report is reused only while everything that changes its timings is the same; its key
(fingerprint) is a digest of:
  - the GPU (name, SMs, compute capability, memory) and its driver and CUDA runtime, from the
    kit's probe; "none" without one;
  - the CPU (its model), the cores of the machine and those this process may use;
  - the build: the grader, the reference runner and the probe, byte for byte (the compiler, its
    flags and the solution's sources all end up in them), and the Python track's interpreter and
    the solution's Python files (their bytes);
  - the grading options (all but --seed: the images differ, their sizes and kinds do not) and the
    sandbox;
  - the environment variables that the OpenMP runtime and CUDA read (OMP_*, CUDA_*, GOMP_*).
`grade --retime-reference` times it again whatever the key says. Kept under the build folder
(BUILD/reference-timings/): a fresh build folder times afresh. Only a reference run that ended
well is kept (exit 0, no failing variant): a crash or a timeout is never reused.

Class runs (grade-all, grade --submission) do not use it: they time the reference once at the
run's start, in the run whose submissions are scored against it (docs/instructor.md says why)."""

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
FACTS = "facts.json"
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


def without_seed(words):
    out, skip = [], False
    for w in map(str, words):
        if skip:
            skip = False
        elif w == "--seed":
            skip = True
        elif not w.startswith("--seed="):
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
    the grader options of the reference's run (grading.grader_options), --seed left out."""
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
        "options": without_seed(options),
        "environment": sorted((k, v) for k, v in os.environ.items() if k.startswith(ENV_PREFIXES)),
    }
    key = hashlib.sha256(json.dumps(keyed, sort_keys=True).encode()).hexdigest()[:32]
    return key, dict(facts, key=key, keyed_by=keyed)


def entry_dir(build, lab_name, key):
    return Path(build.dir) / CACHE_DIR / f"{lab_name}-{key}"


def timed_where(facts):
    gpu = facts.get("gpu")
    gpu_text = (f"{gpu.get('name')}, driver {gpu.get('driver')}" if isinstance(gpu, dict) else "no GPU")
    return f"{facts.get('host', '?')} ({gpu_text}; {facts.get('cpu') or 'CPU ?'}, {facts.get('usable_cores')} cores)"


def note(facts, reused):
    """The line that says when and where the reference was timed, and whether this run reused it."""
    when = facts.get("timed_at", "?")
    how = ("reused: the build, this machine and the options are those it was timed with "
           "(--retime-reference times it again)" if reused else "timed in this run, kept for the next grades "
           "on this machine and build")
    return f"reference solution timed {when} on {timed_where(facts)}; {how}"


def load(build, lab_name, key, out):
    """The kept report of key, copied into out as <lab>-solution.{json,md,csv,log} (the .md opening
    with when and where it was timed) and returned with "reference_timing" saying so; None when
    there is none or it cannot be read."""
    entry = entry_dir(build, lab_name, key)
    try:
        facts = json.loads((entry / FACTS).read_text())
        report = reports.validate(reports.load_json(entry / f"{lab_name}-{LABEL}.json"))
    except (OSError, ValueError):
        return None
    out.mkdir(parents=True, exist_ok=True)
    for suffix in SUFFIXES:
        kept = entry / f"{lab_name}-{LABEL}{suffix}"
        if kept.is_file():
            shutil.copyfile(kept, out / kept.name)
    md = out / f"{lab_name}-{LABEL}.md"
    if md.is_file():
        write_atomic(md, f"> {note(facts, True)}\n\n" + md.read_text(errors="replace"))
    report["reference_timing"] = dict(facts, reused=True)
    report["_exit"], report["_file"] = 0, str(out / f"{lab_name}-{LABEL}.json")
    reports.write_back(report)
    return report


def store(build, lab_name, key, facts, report):
    """Keeps report (a reference run that ended well), with the .md, .csv and log beside its JSON,
    under key, and marks it with when and where it was timed. A build folder that cannot be
    written keeps nothing, and says so."""
    if report.get("_exit") != 0 or reports.failing(report) or not report.get("environment"):
        return
    facts = dict(facts, timed_at=time.strftime("%Y-%m-%d %H:%M %Z"))
    report["reference_timing"] = dict(facts, reused=False)
    reports.write_back(report)
    entry = entry_dir(build, lab_name, key)
    source = Path(report["_file"])
    try:
        if entry.exists():
            shutil.rmtree(entry)
        entry.mkdir(parents=True)
        for suffix in SUFFIXES:
            if source.with_suffix(suffix).is_file():
                shutil.copyfile(source.with_suffix(suffix), entry / f"{lab_name}-{LABEL}{suffix}")
        write_atomic(entry / FACTS, json.dumps(facts, indent=2))  # last: an entry without it is never read
    except OSError as e:
        say(f"note: the reference's timings are not kept ({rel(entry)}: {e.strerror or e})")
