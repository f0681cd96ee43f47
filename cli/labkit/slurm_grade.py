"""`labkit grade [LAB...] --slurm`: a student's own grading as one Slurm job on a cluster's node
(a GPU node by default), from its login node. The kit's folder must be on a file system that both
see, at the same path (a cluster's home or project file system): the job runs in it.

  1. In a folder of its own, STAGE = <build>/slurm-grade/<date>-<random>/ (the build folder: the
     job builds there anyway, so it is shared too, and results/ gets only finished files), it
     writes the job script grade.sbatch: in the kit's folder,
         ./labkit grade --stage-dir STAGE OPTIONS -- LAB...
     where OPTIONS are the grade options given (slurm.forwarded_args: a new grade option is handed
     on without a change here) but the Slurm ones, --plots (drawn here, afterwards) and
     --json/--csv (written into STAGE, moved to their place afterwards). The job's output goes to
     STAGE/job.log.
  2. It submits it (slurm.sbatch) and follows it: the job's state when it changes (pending and
     why, running and where) and the log's lines as they come, the grader's progress among them.
  3. When the job has ended by itself (COMPLETED, or FAILED with the grading's exit status 1: a
     variant failed) after the grading finished (STAGE/finished.json, grading.FINISHED), the
     reports come into results/ as a local grade leaves them: the earlier files of each report it
     replaced removed, the paths inside them rewritten from STAGE/results/ to results/. STAGE is
     removed and the grading's exit status returned.
     Any other end (failed, cancelled, timed out, out of memory, a failed node) is a one-line
     error naming the job and its Slurm state; results/ is left as it was, STAGE keeps only the
     job script and its log.
Ctrl-C (or a kill) while it waits cancels the job (scancel), with the same guarantee."""

import json
import os
import shlex
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from . import slurm
from .build import build_dir_of, is_configured
from .grading import FINISHED, STAGED_RESULTS
from .util import RESULTS, ROOT, LabkitError, UsageError, rel, say, write_atomic

SCRIPT = "grade.sbatch"
LOG = "job.log"
# --json FILE and --csv FILE of the job, in STAGE, moved to FILE when it has finished.
RUN_OUTPUTS = {"json": "run.json", "csv": "run.csv"}
# grade options never handed to the job: about Slurm, what happens here after the job
# (--plots, --json, --csv), what this module gives the job (--stage-dir) and the labs
# (positionals, after --). (commands.cmd_grade refuses --sanitize with --slurm; --submission is
# grade-all's, cli.as_grade_all.)
_LEFT_OUT = slurm.DESTS | {"help", "labs", "plots", "json", "csv", "stage_dir"}
POLL_S = 2.0  # how often Slurm is asked about the job (one scontrol call)
READ_S = 0.5  # how often the job's log is read (a file on the shared file system)
# How long a job's files may take to show here after its end: a network file system's
# attribute cache (NFS: acdirmax, 60 s at most by default).
FILES_WAIT_S = 60
# Text files of results/ that name their own folder (a diff image's path, the grader's command).
TEXT_SUFFIXES = (".json", ".md", ".csv", ".log", ".txt")
# What each end of a job that did not finish its grading means for the student.
_WHY = {
    "CANCELLED": "someone cancelled it (scancel), or the cluster did",
    "TIMEOUT": "it ran past its time limit: give it a longer --time MIN",
    "OUT_OF_MEMORY": "it ran out of memory: ask for more with --mem SIZE",
    "NODE_FAIL": "its node failed: submit it again",
    "BOOT_FAIL": "its node did not start: submit it again",
    "PREEMPTED": "the cluster stopped it for another job: submit it again",
    "DEADLINE": "it could not finish before its deadline",
}


def job_script(stage, grade_args, labs, values):
    """The text of the sbatch script of grade --slurm (see the module's docstring). stage: the
    job's folder (absolute); grade_args: the grade options handed on, as words; labs: the labs
    to grade (none: all); values: the sbatch options of slurm.OPTIONS, by name."""
    stage = slurm._absolute(stage, "the job's folder")
    command = ["./labkit", "grade", "--stage-dir", stage, *map(str, grade_args), "--", *map(str, labs)]
    return "\n".join(
        ["#!/bin/bash",
         "# Written by ./labkit grade --slurm, which follows the job and brings its reports from",
         f"# {STAGED_RESULTS}/ here into the kit's results/ once the grading has finished.",
         *slurm.sbatch_lines("labkit-grade", slurm.log_path(stage, LOG), values),
         "set -eu",
         'echo "labkit: job $SLURM_JOB_ID on $(hostname), $(date -u +%Y-%m-%dT%H:%M:%SZ)"',
         f"cd {shlex.quote(str(ROOT))}",
         "exec " + shlex.join(command), ""])


class _Log:
    """The job's log, shown line by line as it grows (a requeued job starts it again)."""

    def __init__(self, path):
        self.path, self.at, self.rest = path, 0, b""

    def show(self, final=False):
        """Prints the lines written since the last call (final: the last one too, unended);
        returns whether these are the log's first (the job has started)."""
        try:
            with open(self.path, "rb") as f:
                if os.fstat(f.fileno()).st_size < self.at:
                    say("slurm: (the job's log starts again: the job was started again)")
                    self.at, self.rest = 0, b""
                f.seek(self.at)
                data = f.read()
        except OSError:  # not there yet: the job has not started
            return False
        started, self.at = self.at == 0 and bool(data), self.at + len(data)
        lines = (self.rest + data).split(b"\n")
        self.rest = lines.pop()  # a line still being written
        if final and self.rest:
            lines.append(self.rest)
            self.rest = b""
        for line in lines:
            say(line.decode(errors="replace").rstrip("\r"))
        return started


def _describe(job_id, info):
    state = info.get("JobState", "?")
    where = info.get("NodeList", "")
    reason = info.get("Reason", "")
    if state == "RUNNING" and where and where != "(null)":
        return f"slurm: job {job_id} RUNNING on {where}"
    if reason and reason != "None":
        return f"slurm: job {job_id} {state} ({reason})"
    return f"slurm: job {job_id} {state}"


def follow(job_id, log):
    """Shows job job_id's state changes and its log's lines until it ends; returns what
    slurm.job_state last said of it (None: Slurm no longer knows it)."""
    shown, info, failing_since, asked = None, None, None, 0.0
    while True:
        if time.monotonic() - asked >= POLL_S:
            asked = time.monotonic()
            try:
                info = slurm.job_state(job_id)
                failing_since = None
            except LabkitError as e:  # slurmctld busy or restarting: ask again, for a while
                failing_since = failing_since or asked
                if asked - failing_since > 300:
                    raise LabkitError(f"{e} (for 5 minutes; the job may still run: squeue -j {job_id}; "
                                      f"its log: {rel(log.path)})") from None
            if info is None:
                break
            line = _describe(job_id, info)
            if line != shown and info.get("JobState") not in slurm.TERMINAL_STATES:
                say(line)
                shown = line
            if info.get("JobState") in slurm.TERMINAL_STATES:
                break
        if log.show():
            asked = 0.0  # the job has started: say so before its lines run on
        time.sleep(READ_S)
    log.show(final=True)
    return info


def _finished(stage, wait):
    """STAGE/finished.json, read; None when it is not there (after waiting up to wait seconds for
    a shared file system to show it)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            return json.loads((stage / FINISHED).read_text())
        except (OSError, ValueError):
            if time.monotonic() >= deadline:
                return None
        time.sleep(1)


def _relocate(text, staged, results):
    """Text of a staged report with its folder's name, staged, replaced by results's (absolute,
    as JSON escapes it, and relative to the kit)."""
    for old, new in ((str(staged), str(results)), (json.dumps(str(staged))[1:-1], json.dumps(str(results))[1:-1]),
                     (rel(staged), rel(results))):
        text = text.replace(old, new)
    return text


def _put(src, dest, staged, results):
    if src.suffix in TEXT_SUFFIXES:
        write_atomic(dest, _relocate(src.read_text(errors="surrogateescape"), staged, results)
                     .encode(errors="surrogateescape"))
    else:
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(src), str(dest))


def bring_back(stage, finished, outputs, results=RESULTS):
    """The job's reports into results as a local grade leaves them (see the module's docstring);
    outputs: {RUN_OUTPUTS name: the file the user asked for}."""
    staged = stage / STAGED_RESULTS
    for lab, label in finished.get("reports", []):
        stem = f"{lab}-{label}"
        for suffix in (".json", ".md", ".csv"):
            (results / (stem + suffix)).unlink(missing_ok=True)
        shutil.rmtree(results / "diff" / stem, ignore_errors=True)
    files = [p for p in staged.rglob("*") if p.is_file()] if staged.is_dir() else []
    for src in sorted(files, key=lambda p: (p.suffix == ".json", str(p))):  # the JSON reports last
        _put(src, results / src.relative_to(staged), staged, results)
    for name, target in outputs.items():
        if (stage / RUN_OUTPUTS[name]).is_file():
            _put(stage / RUN_OUTPUTS[name], Path(target), staged, results)
            say(f"wrote {target}")


def _failure(job_id, info, stage):
    state = (info or {}).get("JobState", "ENDED")
    code = (info or {}).get("ExitCode", "")
    why = _WHY.get(state)
    if why is None:
        why = (f"the grading ended with exit code {code.split(':')[0]}" if code and code != "0:0"
               else "the grading did not finish") + " (its log above says why)"
    return f"job {job_id} {state}: {why}; results/ is unchanged (the job's log: {rel(stage / LOG)})"


def _scancel(job_id):
    try:
        subprocess.run(["scancel", str(job_id)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=60, stdin=subprocess.DEVNULL)
        return True
    except (OSError, subprocess.TimeoutExpired):
        return False


def grade_on_slurm(args):
    """grade --slurm (see the module's docstring): returns the grading's exit status, or raises a
    LabkitError when the job did not finish it."""
    build = build_dir_of(args)
    if not is_configured(build):  # the job's folder goes there; a job would configure it on its node
        raise UsageError(f"{rel(build)} is not a configured build: run ./labkit setup here first "
                         "(once), then grade --slurm")
    folder = build / "slurm-grade"
    folder.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=time.strftime("%Y%m%d-%H%M%S-"), dir=folder))
    grade_args = slurm.forwarded_args(args, _LEFT_OUT)
    outputs = {name: getattr(args, name) for name in RUN_OUTPUTS if getattr(args, name, None)}
    for name in outputs:
        grade_args += [f"--{name}", str(stage / RUN_OUTPUTS[name])]
    script = stage / SCRIPT
    write_atomic(script, job_script(stage, grade_args, args.labs or [], slurm.option_values(args)))
    try:
        job_id = slurm.sbatch(script)
    except LabkitError:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    asked = ", ".join(f"--{n} {v}" for n, v in slurm.option_values(args).items() if v is not None)
    say(f"submitted job {job_id} ({asked or 'the cluster defaults'}): ./labkit grade "
        + " ".join(shlex.quote(a) for a in grade_args + list(args.labs or [])))
    say(f"slurm: its log: {rel(stage / LOG)}; Ctrl-C here cancels it")
    try:
        info = follow(job_id, _Log(stage / LOG))
    except KeyboardInterrupt:
        cancelled = _scancel(job_id)
        shutil.rmtree(stage / STAGED_RESULTS, ignore_errors=True)
        say(f"slurm: {'cancelled' if cancelled else 'could not cancel (scancel ' + job_id + ')'} job {job_id}; "
            "results/ is unchanged")
        raise
    state = (info or {}).get("JobState")
    # The grading finished when the job ended by itself, with the grading's exit status (0, or 1:
    # a variant failed) and its finished.json, which a network file system may show late (not
    # waited for where the job wrote no report: it failed before it graded).
    finished = None
    if state in ("COMPLETED", "FAILED") or info is None:
        late = state == "COMPLETED" or info is None or (info.get("ExitCode") == "1:0"
                                                         and (stage / STAGED_RESULTS).is_dir())
        finished = _finished(stage, FILES_WAIT_S if late else 0)
    if finished is None:
        shutil.rmtree(stage / STAGED_RESULTS, ignore_errors=True)
        if state == "COMPLETED":
            raise LabkitError(f"job {job_id} COMPLETED, but its reports are not in {rel(stage)}: is the kit's "
                              "folder on a file system the node shares, at the same path?")
        raise LabkitError(_failure(job_id, info, stage))
    bring_back(stage, finished, outputs)
    shutil.rmtree(stage, ignore_errors=True)
    status = finished.get("exit_status", 1)
    say(f"slurm: job {job_id} finished the grading (Slurm: {state or 'ended'}, exit status {status}"
        + ("" if status == 0 else ": a variant did not pass") + "); its reports are in results/")
    return status
