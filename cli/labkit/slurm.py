"""Slurm, for both commands that use it: the options they share (add_options, OPTIONS), the
#SBATCH lines (sbatch_lines), the submission (sbatch) and a job's state (job_state); then
`labkit grade-all SUBMISSIONS_DIR [LAB...] --slurm`: a class graded as a Slurm job array, one
task per chunk of submissions, each task a `./labkit grade-all --task-index I --task-count N` of
its own. (`grade --slurm`, a student's own grading as one job: slurm_grade.py.)

What grade-all calls (the whole interface):

    cmd_slurm(args, submissions, grade_args=None, prepare=None) -> exit status (0)

  submissions  the submissions grade-all found in SUBMISSIONS_DIR (any list: its length sets the
               size of the array)
  grade_args   the grade-all options every task gets again, as a list of strings; None (the
               default): every grade-all option the user gave (found through the grade-all
               parser, so a new option is handed on without a change here), except --single,
               --out, --roster, --task-index, --task-count, --work-dir and the Slurm
               options; paths (--build-dir, --rubric-dir) made absolute
  args         the parsed grade-all options; used here: submissions (SUBMISSIONS_DIR, relative to
               the kit's root unless absolute, as grade-all takes it), labs, out (None: results/class),
               single (refused), roster (named in the merge hint), chunk (submissions per task,
               default 1), partition, account, gres (e.g. gpu:1), time (minutes), cpus_per_task,
               mem (e.g. 16G), all None when not given, and dry_run
  prepare      prepare(work) -> a build slot: builds, once and here, what every task needs
               (batch.prepare_tasks: the kit's graders and runners in its build folder, and a
               build slot of the kit's own objects in WORK/slurm-kit/), before the job is written

It writes <out>/slurm/grade.sbatch (atomically) and submits it with `sbatch --parsable`, unless
--dry-run, which only writes it and says how to submit it. Every task logs to
<out>/slurm/<job>_<task>.log and writes <out>/results/<name>.json for each of its submissions;
`./labkit gradebook --out OUT` merges whatever results are there, also while tasks still run.

Each task runs, in the kit's root:

    ./labkit grade-all --out OUT --task-index $SLURM_ARRAY_TASK_ID --task-count N \\
        --work-dir WORK/slurm-task-$SLURM_ARRAY_TASK_ID --prebuilt-slot WORK/slurm-kit/slot \\
        GRADE_ARGS... -- SUBMISSIONS_DIR LAB...

WORK: --work-dir, else the default work folder (as the submitting machine names it). A work
folder per task, because tasks that share a node, or a home folder on a shared file system, would
otherwise build in the same slots at once and grade one student's code under another's name
(grade_args with a --work-dir of their own: used as is, for every task, without a prepared
slot). The kit is built once, by the submitting step: a task only checks the build folder
(never builds in it, beside other tasks), starts each build slot as a copy of the prepared one,
and compiles only its submissions' files.

(the positionals after `--`, where argparse takes them whatever options come before). Task I
grades the submissions whose index % N == I, N = ceil(submissions / chunk). The kit, its build
folder, the submissions, the work folder and OUT must be on a file system every node sees, at
the same paths; the build must suit the nodes (CUDA architecture). sbatch hands the submitting
shell's environment to the tasks (Slurm's default, --export=ALL).

The smaller functions (job_script, submit, plan) are what cmd_slurm is made of, and what
tests/slurm_selftest.py runs against a real single-node Slurm."""

import argparse
import math
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

from .util import ROOT, LabkitError, UsageError, default_work_dir, kit_path, rel, say, write_atomic

SCRIPT_NAME = "grade.sbatch"
# Options that cmd_slurm sets itself, or that would make every task submit a job array of its own.
_OWN_OPTIONS = ("--slurm", "--out", "--task-index", "--task-count", "--chunk", "--dry-run")
# Slurm's default MaxArraySize is 1001 (task ids 0..1000).
_MAX_ARRAY_HINT = 1000

# What grade --slurm and grade-all --slurm ask sbatch for: labkit's option is sbatch's, under the
# same name. (name, metavar, help); the time and CPU counts are whole numbers above 0.
OPTIONS = (
    ("partition", "P", "the partition to run in (default: the cluster's)"),
    ("account", "A", "the account the time is charged to (default: yours)"),
    ("gres", "SPEC", "generic resources per node, e.g. gpu:1 or gpu:a100:1; none: no GPU"),
    ("time", "MIN", "time limit in minutes (default: the partition's)"),
    ("cpus-per-task", "N", "CPU cores (default: the cluster's, often 1)"),
    ("mem", "SIZE", "memory, e.g. 16G (default: the cluster's)"),
)
_COUNTS = ("time", "cpus-per-task")
# --gres none: no generic resource asked for (a CPU node), where a default would ask for a GPU.
NO_GRES = "none"
# The parsed options these make (dest names): never handed on to the command a job runs.
DESTS = frozenset({"slurm"} | {name.replace("-", "_") for name, _, _ in OPTIONS})
# A job's states once it has ended (squeue and scontrol's JobState), as Slurm names them.
TERMINAL_STATES = frozenset({"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY",
                             "BOOT_FAIL", "DEADLINE", "PREEMPTED"})


def add_options(group, count_type, slurm_help, unit, gres=None):
    """--slurm (help: slurm_help) and the sbatch options of OPTIONS, on group (an argparse group of
    grade or grade-all). count_type: the argparse type of --time and --cpus-per-task (cli.positive(int));
    unit: what --time limits ("each task", "the job"); gres: --gres's default."""
    group.add_argument("--slurm", action="store_true", help=slurm_help)
    for name, metavar, text in OPTIONS:
        if name == "time":
            text = f"time limit of {unit} in minutes (default: the partition's)"
        if name == "gres":
            text += f" (default: {gres or NO_GRES})"
        kind = {"type": count_type} if name in _COUNTS else {}
        group.add_argument("--" + name, metavar=metavar, help=text, default=gres if name == "gres" else None, **kind)


def sbatch_lines(job_name, log, values, array=None, extra=()):
    """The #SBATCH lines of a job script: its name, its output file log (an absolute path; Slurm
    expands %A (job id), %a (task id) and %j in it, so a % of the path itself must come as %%),
    the job array 0..array-1 (None: no array), the options of OPTIONS whose values (a dict by
    name) are given, and extra: more sbatch options, each one string (e.g. "--qos=short")."""
    sbatch = [f"--job-name={_sbatch_value(job_name)}"]
    if array is not None:
        sbatch.append(f"--array=0-{array - 1}")
    sbatch.append(f"--output={_sbatch_value(log)}")
    for name, _, _ in OPTIONS:
        value = values.get(name)
        if value is not None and str(value) != "" and not (name == "gres" and str(value) == NO_GRES):
            sbatch.append(f"--{name}={_sbatch_value(value)}")
    for opt in extra:
        opt = str(opt)
        if not opt.startswith("-"):
            raise LabkitError(f"an sbatch option must start with '-': {opt!r}")
        key, eq, value = opt.partition("=")
        sbatch.append(key + (eq + _sbatch_value(value) if eq else ""))
    return [f"#SBATCH {o}" for o in sbatch]


def option_values(args):
    """The values of OPTIONS in the parsed options args, by name (None where not given)."""
    return {name: getattr(args, name.replace("-", "_"), None) for name, _, _ in OPTIONS}


def log_path(folder, name):
    """folder/name as sbatch --output takes it: a % of the folder's path written %%."""
    return str(folder).replace("%", "%%") + "/" + name


def plan(n_submissions, chunk=None):
    """The number of array tasks for n_submissions when each task grades about chunk of them
    (default 1): ceil(n / chunk). Task I grades the submissions whose index % N == I."""
    chunk = 1 if chunk is None else chunk
    if not isinstance(chunk, int) or chunk < 1:
        raise UsageError(f"--chunk must be a whole number above 0, not {chunk}")
    if n_submissions < 0:
        raise LabkitError(f"negative number of submissions: {n_submissions}")
    return math.ceil(n_submissions / chunk)


def _sbatch_value(text):
    """A value for an #SBATCH line. sbatch reads those lines itself, without a shell: a value is
    cut at the first blank unless it is in double quotes, inside which a backslash escapes the
    next character."""
    text = str(text)
    if "\n" in text or "\r" in text:
        raise LabkitError(f"a line break in an sbatch option: {text!r}")
    if text and not any(c.isspace() or c in '"\\\'' for c in text):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _absolute(path, what):
    text = str(path)
    if not os.path.isabs(text):
        raise LabkitError(f"{what} must be an absolute path for a Slurm job, not {text}")
    if "\n" in text or "\r" in text:
        raise LabkitError(f"{what} holds a line break: {text!r}")
    return text


def job_script(kit_root, submissions, out_dir, task_count, grade_args, partition=None, account=None,
               gres=None, time_min=None, cpus=None, mem=None, extra_sbatch=(), labs=(),
               work_dir=None, command=None, prebuilt=None):
    """The text of the sbatch script: a job array of task_count tasks (0..task_count-1), each
    running grade-all on its share of the submissions (see the module's docstring). Every path
    must be absolute. extra_sbatch: more sbatch options, each one string (e.g. "--qos=short"),
    written as #SBATCH lines. command: what each task runs instead of grade-all (a shell
    command line; the tests use it), with $SLURM_ARRAY_TASK_ID set as usual. work_dir: each task
    gets --work-dir WORK_DIR/slurm-task-<task id>, a work folder of its own (see cmd_slurm).
    prebuilt: the build slot the submitting step prepared (batch.prepare_tasks), handed to every
    task as --prebuilt-slot."""
    kit_root = _absolute(kit_root, "the kit's folder")
    submissions = _absolute(submissions, "the submissions folder")
    out_dir = _absolute(out_dir, "the output folder")
    if not isinstance(task_count, int) or task_count < 1:
        raise LabkitError(f"a job array needs at least one task, not {task_count}")
    grade_args = [str(a) for a in grade_args]
    own = _OWN_OPTIONS + (("--work-dir",) if work_dir is not None else ()) + (("--prebuilt-slot",) if prebuilt else ())
    for a in grade_args:
        if a.split("=", 1)[0] in own:
            raise LabkitError(f"{a} cannot be handed to the array tasks (the job script sets it, or "
                              "it would submit another job)")
    name = "labkit-" + (re.sub(r"[^A-Za-z0-9._-]+", "_", Path(out_dir).name) or "grade")
    header = sbatch_lines(name, log_path(Path(out_dir) / "slurm", "%A_%a.log"),
                          {"partition": partition, "account": account, "gres": gres, "time": time_min,
                           "cpus-per-task": cpus, "mem": mem}, array=task_count, extra=extra_sbatch)
    if command is None:
        task = '"$SLURM_ARRAY_TASK_ID"'
        own_work = []
        if work_dir is not None:
            own_work = ["--work-dir", shlex.quote(_absolute(work_dir, "the work folder").rstrip("/") + "/slurm-task-") + task]
        if prebuilt:
            own_work += ["--prebuilt-slot", shlex.quote(_absolute(prebuilt, "the prepared build slot"))]
        command = " ".join(["./labkit", "grade-all", "--out", shlex.quote(out_dir), "--task-index", task,
                            "--task-count", str(task_count)] + own_work
                           + [shlex.quote(a) for a in grade_args + ["--", submissions] + [str(l) for l in labs]])
    lines = ["#!/bin/bash",
             "# Written by ./labkit grade-all --slurm: one array task grades the submissions whose",
             f"# index % {task_count} is its task id. Submit it with: sbatch {shlex.quote(rel(Path(out_dir) / 'slurm' / SCRIPT_NAME))}",
             f"# Merge what is graded (also while tasks run): ./labkit gradebook --out {shlex.quote(out_dir)}"]
    lines += header
    lines += ["set -eu",
              f'echo "labkit: task $SLURM_ARRAY_TASK_ID of {task_count} (job ${{SLURM_ARRAY_JOB_ID:-?}}) '
              'on $(hostname), $(date -u +%Y-%m-%dT%H:%M:%SZ)"',
              f"cd {shlex.quote(kit_root)}",
              "exec " + command, ""]
    return "\n".join(lines)


def _merge_cmd(out_dir, merge_extra=()):
    return " ".join(["./labkit gradebook --out", shlex.quote(rel(out_dir))] + [shlex.quote(a) for a in merge_extra])


def _watch_hints(job_id, out_dir, merge_extra=()):
    say(f"watch it:  squeue -j {job_id}")
    if out_dir is not None:
        logs = Path(out_dir) / "slurm" / f"{job_id}_TASK.log"
        say(f"logs:      {shlex.quote(rel(logs))}")
        say(f"merge:     {_merge_cmd(out_dir, merge_extra)}   (any time: it merges the results so far)")


def sbatch(script_path, hint=""):
    """Submits the script with `sbatch --parsable` and returns the job id (a string); any sbatch
    warnings are shown. A missing sbatch, a refusal or no answer is a one-line LabkitError (hint:
    what else to do when there is no sbatch here, appended to that message)."""
    program = shutil.which("sbatch")
    if program is None:
        raise LabkitError("sbatch not found: --slurm needs Slurm's client commands on PATH (run it on "
                          f"the cluster's login node{hint})")
    cmd = [program, "--parsable", str(Path(script_path).resolve())]
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              timeout=120, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise LabkitError("sbatch did not answer in 120 s (is slurmctld reachable? try: sinfo)") from None
    except OSError as e:
        raise LabkitError(f"cannot run sbatch: {e.strerror or e}") from None
    why = (proc.stderr.strip() or proc.stdout.strip()).splitlines()
    if proc.returncode != 0:
        detail = "; ".join(why[-3:]) or f"exit status {proc.returncode}"
        hint = ""
        if "array" in detail.lower() or "MaxArraySize" in detail:
            hint = " (a cluster limits the tasks of an array: use --chunk K to grade K submissions per task)"
        raise LabkitError(f"sbatch refused {rel(script_path)}: {detail}{hint}")
    # --parsable prints "jobid" or "jobid;cluster" (possibly after warnings on other lines).
    lines = [l.strip() for l in proc.stdout.splitlines() if l.strip()]
    job_id = lines[-1].split(";")[0] if lines else ""
    if not job_id.isdigit():
        raise LabkitError(f"sbatch gave no job id: {proc.stdout.strip() or proc.stderr.strip()!r}")
    for w in why if proc.stderr.strip() else []:
        say(f"sbatch: {w}")
    return job_id


def submit(script_path, dry_run=False, out_dir=None, merge_extra=()):
    """grade-all's job array: submits the script (sbatch) and returns the job id, after printing
    it and how to watch the job and merge its results. dry_run: only says how to submit it and
    returns None. out_dir (for the hints): the grade-all --out folder; by default the script's
    folder's parent (<out>/slurm/grade.sbatch); merge_extra: more words of the merge command
    shown (--roster CSV)."""
    script_path = Path(script_path)
    if out_dir is None:
        out_dir = script_path.resolve().parent.parent
    if dry_run:
        say(f"job script: {rel(script_path)}  (--dry-run: not submitted)")
        say(f"submit it:  sbatch {shlex.quote(str(script_path.resolve()))}")
        say(f"merge:      {_merge_cmd(out_dir, merge_extra)}")
        return None
    job_id = sbatch(script_path, f", or use --dry-run to only write the job script, {rel(script_path)}")
    say(f"submitted job array {job_id} ({rel(script_path)})")
    _watch_hints(job_id, out_dir, merge_extra)
    return job_id


def job_state(job_id):
    """What Slurm says of job job_id now: a dict with its JobState, Reason, NodeList and ExitCode
    ("status:signal"), from `scontrol show job` while slurmctld remembers the job (MinJobAge after
    its end), else from `sacct` (the accounting database, where the cluster has one). None when
    neither knows it; a LabkitError when Slurm cannot be asked (its message says why)."""
    fields = None
    try:
        r = subprocess.run(["scontrol", "-o", "show", "job", str(job_id)], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=60, stdin=subprocess.DEVNULL)
        if r.returncode == 0:
            fields = dict(m.groups() for m in re.finditer(r"(\w+)=(\S*)", r.stdout.splitlines()[0] if r.stdout else ""))
        elif "invalid job id" not in r.stdout.lower():
            raise LabkitError(f"scontrol show job {job_id}: {r.stdout.strip() or f'exit status {r.returncode}'}")
    except (OSError, subprocess.TimeoutExpired) as e:
        raise LabkitError(f"scontrol show job {job_id}: {getattr(e, 'strerror', None) or e}") from None
    if fields and fields.get("JobState"):
        return fields
    try:  # forgotten by slurmctld: the accounting database, where there is one
        r = subprocess.run(["sacct", "-n", "-X", "-P", "-j", str(job_id), "-o", "State,ExitCode,Reason,NodeList"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=60,
                           stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    rows = [l.split("|") for l in r.stdout.splitlines() if l.count("|") == 3]
    if r.returncode != 0 or not rows:
        return None
    state, code, reason, nodes = rows[0]
    return {"JobState": state.split()[0], "ExitCode": code, "Reason": reason, "NodeList": nodes}


# grade-all options that are not handed to the tasks: set by the job script, about Slurm, or
# about the merge (`labkit gradebook --roster`).
_NOT_FORWARDED = DESTS | {"help", "paths", "single", "out", "roster", "task_index", "task_count", "chunk",
                          "dry_run", "work_dir", "prebuilt_slot"}
_PATH_OPTIONS = {"build_dir", "work_dir", "rubric_dir"}


def forwarded_args(args, left_out=_NOT_FORWARDED):
    """The options of the labkit command in args that the user gave (a value other than the
    default), as command-line words, found through that command's own parser
    (args.command_parser, so that a new option, the grader's included, is handed on without a
    change here), but for those whose dest is in left_out; kit-relative paths made absolute.
    Positionals are not options: never among them."""
    words = []
    for action in args.command_parser._actions:
        if not action.option_strings or action.dest in left_out or not hasattr(args, action.dest):
            continue
        value, option = getattr(args, action.dest), action.option_strings[-1]
        if value is None or value == action.default or value is False:
            continue
        if action.nargs == 0:  # store_true and the like
            words.append(option)
            continue
        if action.dest in _PATH_OPTIONS:
            value = str(kit_path(value))
        values = value if isinstance(value, list) else [value]
        if isinstance(action, argparse._AppendAction):
            for v in values:
                words += [option] + ([str(x) for x in v] if isinstance(v, list) else [str(v)])
        else:
            words += [option] + [str(v) for v in values]
    return words


def cmd_slurm(args, submissions, grade_args=None, prepare=None):
    """grade-all --slurm: writes <out>/slurm/grade.sbatch and submits it (or, with --dry-run,
    says how to). Returns the exit status. See the module's docstring for the arguments.
    prepare(work) builds what the tasks share in the work folder work and returns the prepared
    build slot (batch.prepare_tasks); not called when grade_args name a work folder of their own,
    whose slots the tasks then share."""
    if getattr(args, "single", None):
        raise UsageError("--slurm grades a folder of submissions: drop --single, or grade it here")
    folder = Path(str(args.submissions)).expanduser()
    folder = Path(os.path.abspath(folder if folder.is_absolute() else kit_path(folder)))
    out = Path(os.path.abspath(kit_path(args.out) if getattr(args, "out", None) else ROOT / "results" / "class"))
    count = len(submissions)
    if count < 1:
        raise UsageError(f"no submissions in {args.submissions}: nothing to submit to Slurm")
    chunk = getattr(args, "chunk", None) or 1
    tasks = plan(count, chunk)
    if tasks > _MAX_ARRAY_HINT:
        say(f"note: {tasks} array tasks; many clusters allow at most {_MAX_ARRAY_HINT} "
            "(MaxArraySize): --chunk K grades K submissions per task")
    grade_args = forwarded_args(args) if grade_args is None else [str(a) for a in grade_args]
    # A work folder per task: tasks that share a node (or a home folder on a shared file system)
    # would otherwise stage and build their submissions in the same build slot at once, and grade
    # one student's code under another's name.
    work = prebuilt = None
    if not any(a.split("=", 1)[0] == "--work-dir" for a in grade_args):
        work = Path(os.path.abspath(kit_path(args.work_dir) if getattr(args, "work_dir", None) else default_work_dir()))
        prebuilt = prepare(work) if prepare else None
    text = job_script(ROOT, folder, out, tasks, grade_args,
                      partition=getattr(args, "partition", None), account=getattr(args, "account", None),
                      gres=getattr(args, "gres", None), time_min=getattr(args, "time", None),
                      cpus=getattr(args, "cpus_per_task", None), mem=getattr(args, "mem", None),
                      labs=list(getattr(args, "labs", None) or []), work_dir=work, prebuilt=prebuilt)
    script = out / "slurm" / SCRIPT_NAME
    write_atomic(script, text)  # makes <out>/slurm/ too, where the tasks' logs go (Slurm makes no folder)
    say(f"{count} submission{'s' if count != 1 else ''} in {tasks} array task{'s' if tasks != 1 else ''} "
        f"({chunk} per task): {rel(script)}")
    say("each task: grade-all " + " ".join(shlex.quote(a) for a in grade_args)
        + (f" --work-dir {shlex.quote(str(work))}/slurm-task-<task id>" if work else "")
        + (f" --prebuilt-slot {shlex.quote(str(prebuilt))}" if prebuilt else ""))
    roster = getattr(args, "roster", None)
    submit(script, dry_run=bool(getattr(args, "dry_run", False)), out_dir=out,
           merge_extra=["--roster", str(kit_path(roster))] if roster else [])
    return 0
