#!/usr/bin/env python3
"""`labkit grade-all --slurm` against a real Slurm: a one-node cluster of the distribution's
packages (slurm-wlm, munge), started as root entirely inside a temporary folder (its own munge
key and socket, its own slurm.conf, state, spool, logs and ports; nothing of /etc is used), and
stopped at the end, always.

  (a) a 3-task job array written by labkit.slurm.job_script (a harmless command in place of
      grade-all) and submitted by labkit.slurm.submit: every task runs, in the kit's folder, logs
      where the script says, and sbatch takes every option job_script writes; submit's errors
      (sbatch missing, an option sbatch refuses) are one-line LabkitErrors;
  (b) end to end: `./labkit grade-all SUBS LAB --slurm --chunk 2 --out OUT1 --no-perf` over three
      CPU-only submissions of integral_image (the starter handed in unchanged, the reference's
      cpu_openmp.cpp, a cpu_openmp.cpp that does not compile); the kit is built once, before
      the job is submitted, and no task builds a kit object (each one's are the prepared
      slot's, modification times and all); waited for, merged with
      `./labkit gradebook --out OUT1`, then the same class graded locally into OUT2: both
      gradebook.csv must hold the same rows and points (time columns aside). The node runs both
      tasks at once: tasks that shared a build slot graded one student's code under another's
      name, which is why each task gets a work folder of its own.
  (c) a student's `./labkit grade LAB --solution --no-perf --sizes 7x5,31x33 --slurm` (one job on
      the CPU partition, --gres none): refused by sbatch with the default --gres gpu:1 (this
      cluster has no GPU), results/ untouched; then graded locally and through Slurm: the same
      files of results/ written, the same variants and statuses, the same exit status, the
      job's state and the grader's progress lines shown; then a job cancelled (scancel) once
      the grader's first progress line has come: exit status 1, "job N CANCELLED", results/
      unchanged. Before those, without Slurm: the reports of a job brought into a results
      folder (slurm_grade.bring_back), a failure's diff image and the paths naming it included.

Exit status: 0 when all is well, 1 on a failed check, 77 (skipped) when Slurm cannot start here
(not root, no packages, a daemon that dies) or the build lacks the graders.

With --serve it only starts the cluster, for trying grade-all --slurm by hand: it prints the
SLURM_CONF to export in another shell, and stops the cluster (and removes its folder) at Ctrl-C.

    slurm_selftest.py [--build-dir DIR] [--keep] [--serve] [--only a,b,c]
"""

import argparse
import csv
import ctypes
import hashlib
import io
import json
import os
import re
import selectors
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cli"))
from labkit import slurm, slurm_grade  # noqa: E402
from labkit.build import BuildInfo, kit_inputs, student_objects  # noqa: E402
from labkit.util import ROOT, LabkitError  # noqa: E402

SKIP = 77
LAB = "integral_image"
# The submissions' names: grade-all keeps each one's grader reports in the kit's
# results/submissions/<name>/, which this test removes at the end.
NAMES = {"starter": "slurmtest-a_starter", "solution": "slurmtest-b_solution", "broken": "slurmtest-c_broken"}
MARKER = "LABKIT_SLURM_SELFTEST"  # in the environment of every daemon and job of this run
# (c): a student's cheap grading, and where this cluster runs it (its one partition has no GPU).
GRADE = ["grade", LAB, "--solution", "--no-perf", "--seed", "1"]
SIZES = "7x5,31x33"
ON_CLUSTER = ["--slurm", "--partition", "debug", "--gres", "none", "--time", "5"]


class Skip(Exception):
    pass


class Failed(Exception):
    pass


def expect(cond, what, detail=""):
    if not cond:
        print(f"FAILED: {what}" + (f"\n{detail}" if detail else ""), flush=True)
        raise Failed(what)
    print(f"ok: {what}", flush=True)


def tail(path, n=15):
    try:
        lines = Path(path).read_text(errors="replace").splitlines()
    except OSError:
        return f"({Path(path).name}: none)"
    return f"--- last lines of {Path(path).name}:\n" + "\n".join(lines[-n:])


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """munged, slurmctld and slurmd, each in a process group of its own, all files in tmp."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.conf = tmp / "slurm.conf"
        self.procs = {}
        self.env = dict(os.environ, SLURM_CONF=str(self.conf), **{MARKER: str(tmp)})

    def client(self, *cmd, timeout=30):
        return subprocess.run(list(cmd), env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=timeout, stdin=subprocess.DEVNULL)

    def _daemon(self, name, cmd):
        log = open(self.tmp / f"{name}.out", "wb")
        self.procs[name] = subprocess.Popen(cmd, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, start_new_session=True, cwd=self.tmp)
        log.close()

    def logs(self, names=("munged", "slurmctld", "slurmd")):
        """The last lines of each daemon's log file (its own output when it wrote none)."""
        shown = []
        for name in names:
            log = self.tmp / f"{name}.log"
            shown.append(tail(log if log.is_file() and log.stat().st_size else self.tmp / f"{name}.out", 10))
        return "\n".join(shown)

    def _died(self, name, names):
        p = self.procs[name]
        raise Skip(f"{name} exited with status {p.returncode}\n" + self.logs(names))

    def start(self):
        if os.geteuid() != 0:
            raise Skip("not root (slurmd and munged need root here)")
        missing = [t for t in ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scontrol")
                   if not shutil.which(t, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")]
        if missing:
            raise Skip(f"{', '.join(missing)} not found (apt-get install slurm-wlm munge)")
        sbin = lambda t: shutil.which(t, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")
        t = self.tmp
        for d in ("munge", "state", "spool"):
            (t / d).mkdir(mode=0o700)
        # munge: a key of our own (1 KiB of random bytes, what mungekey writes), its own socket.
        key = t / "munge" / "munge.key"
        fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o400)
        os.write(fd, os.urandom(1024))
        os.close(fd)
        self.socket = t / "munge" / "munge.socket"
        self._daemon("munged", [sbin("munged"), "--foreground", "--force", f"--socket={self.socket}",
                                f"--key-file={key}", f"--pid-file={t / 'munge' / 'munged.pid'}",
                                f"--log-file={t / 'munged.log'}", f"--seed-file={t / 'munge' / 'munged.seed'}"])
        deadline = time.time() + 15
        while not self.socket.exists():
            if self.procs["munged"].poll() is not None:
                self._died("munged", ["munged"])
            if time.time() > deadline:
                raise Skip("munged made no socket in 15 s\n" + self.logs(["munged"]))
            time.sleep(0.2)

        host = socket.gethostname().split(".")[0]
        node = self._node_line(sbin("slurmd"), host)
        self.conf.write_text("\n".join([
            "ClusterName=labkittest",
            f"SlurmctldHost={host}(127.0.0.1)",
            "SlurmUser=root",
            "SlurmdUser=root",
            f"SlurmctldPort={free_port()}",
            f"SlurmdPort={free_port()}",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={self.socket}",
            f"StateSaveLocation={t / 'state'}",
            f"SlurmdSpoolDir={t / 'spool'}",
            f"SlurmctldPidFile={t / 'slurmctld.pid'}",
            f"SlurmdPidFile={t / 'slurmd.pid'}",
            f"SlurmctldLogFile={t / 'slurmctld.log'}",
            f"SlurmdLogFile={t / 'slurmd.log'}",
            "SlurmctldDebug=info",
            "SlurmdDebug=info",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core_Memory",
            # Without a default, a job that names no --mem gets the whole node's memory, and the
            # tasks of an array run one after another; with it they share the node, as on a cluster.
            "DefMemPerCPU=1024",
            "MpiDefault=none",
            "ReturnToService=2",
            "SwitchType=switch/none",
            "JobCompType=jobcomp/none",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            f"PlugStackConfig={t / 'plugstack.conf'}",  # not /etc/slurm's
            "InactiveLimit=0",
            "KillWait=5",
            "MailProg=/bin/true",
            "MinJobAge=600",
            "SlurmdTimeout=60",
            node,
            f"PartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP",
            ""]))
        (t / "plugstack.conf").write_text("")
        self._daemon("slurmctld", [sbin("slurmctld"), "-D", "-i", "-f", str(self.conf)])
        self._daemon("slurmd", [sbin("slurmd"), "-D", "-f", str(self.conf), "-N", host])
        logs = ["slurmctld", "slurmd"]
        deadline, state = time.time() + 40, ""
        while True:
            for name in ("munged", "slurmctld", "slurmd"):
                if self.procs[name].poll() is not None:
                    self._died(name, logs)
            r = self.client("sinfo", "-h", "-N", "-o", "%N %t", timeout=15)
            state = r.stdout.strip()
            if r.returncode == 0 and re.search(rf"^{re.escape(host)} idle\b", state, re.M):
                break
            if time.time() > deadline:
                raise Skip(f"the node is not idle after 40 s (sinfo: {state!r})\n" + self.logs(logs))
            time.sleep(0.5)
        print(f"slurm: one-node cluster up ({node}); SLURM_CONF={self.conf}", flush=True)

    def _node_line(self, slurmd, host):
        """This machine as slurmd -C sees it (CPUs, sockets, cores, memory), half its memory
        offered to jobs, else nproc CPUs."""
        try:
            r = subprocess.run([slurmd, "-C"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                               timeout=30)
            line = r.stdout.splitlines()[0] if r.returncode == 0 and r.stdout.startswith("NodeName=") else ""
        except (OSError, subprocess.TimeoutExpired):
            line = ""
        if not line:
            return f"NodeName={host} NodeAddr=127.0.0.1 CPUs={os.cpu_count() or 1} State=UNKNOWN"
        fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
        fields["NodeName"] = host
        if fields.get("RealMemory", "").isdigit():
            fields["RealMemory"] = str(max(1, int(fields["RealMemory"]) // 2))
        return " ".join(f"{k}={v}" for k, v in fields.items()) + " NodeAddr=127.0.0.1 State=UNKNOWN"

    def wait_job(self, job_id, limit):
        """Waits until no task of job_id is pending or running; returns the tasks' states and exit
        codes from scontrol, or raises Failed after limit seconds."""
        deadline = time.time() + limit
        while True:
            r = self.client("squeue", "-h", "-j", job_id, "-o", "%i %T")
            states = [l.split()[-1] for l in r.stdout.splitlines() if l.strip()]
            if r.returncode == 0 and all(s in slurm.TERMINAL_STATES for s in states):
                break
            if r.returncode != 0 and "Invalid job id" in r.stdout:
                break
            for name, p in self.procs.items():
                if p.poll() is not None:
                    raise Failed(f"{name} died while job {job_id} ran\n" + tail(self.tmp / f"{name}.log"))
            if time.time() > deadline:
                self.client("scancel", job_id)
                raise Failed(f"job {job_id} not done after {limit} s: {r.stdout.strip()}\n"
                             + tail(self.tmp / "slurmd.log"))
            time.sleep(1)
        r = self.client("scontrol", "-o", "show", "job", job_id)
        tasks = {}
        for line in r.stdout.splitlines():
            f = dict(m.groups() for m in re.finditer(r"(\w+)=(\S*)", line))
            tasks[f.get("ArrayTaskId", f.get("JobId"))] = (f.get("JobState"), f.get("ExitCode"))
        return tasks

    def stop(self):
        """Cancels what is left, stops the daemons (process group by process group) and ends any
        process of this run that outlived them (slurmstepd and the jobs it started carry MARKER)."""
        if "slurmctld" in self.procs and self.procs["slurmctld"].poll() is None:
            try:
                self.client("scancel", "--user=root", "--full", timeout=15)
            except (OSError, subprocess.TimeoutExpired):
                pass
        for name in ("slurmd", "slurmctld", "munged"):
            p = self.procs.get(name)
            if p is None:
                continue
            for sig, grace in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
                try:
                    os.killpg(p.pid, sig)
                except (ProcessLookupError, PermissionError):
                    break
                try:
                    p.wait(timeout=grace)
                    break
                except subprocess.TimeoutExpired:
                    continue
            p.poll()
        self.reap()
        left = self.leftovers()
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
                print(f"slurm: killed left-over process {pid}", flush=True)
            except OSError:
                pass
        if left:
            time.sleep(1)
            self.reap()

    def reap(self):
        """Waits for the orphans this process adopted as a subreaper (slurmstepd forks away from
        slurmd), so that none is left a zombie."""
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return

    def leftovers(self):
        """Processes whose environment holds this run's MARKER."""
        tag = f"{MARKER}={self.tmp}".encode()
        found = []
        for d in Path("/proc").iterdir():
            if not d.name.isdigit() or int(d.name) == os.getpid():
                continue
            try:
                if tag in (d / "environ").read_bytes().split(b"\0"):
                    found.append(int(d.name))
            except OSError:
                continue
        return found


def part_a(cluster, tmp):
    print("\n=== (a) a 3-task array from slurm.job_script, submitted by slurm.submit", flush=True)
    out = tmp / "out a%b"  # a blank and a % in the path: quoted and escaped for sbatch
    (out / "slurm").mkdir(parents=True)
    marks = out / "marks"
    marks.mkdir()
    command = ('sh -c \'pwd > "$0/task-$SLURM_ARRAY_TASK_ID"; echo "$SLURM_CONF" >> "$0/task-$SLURM_ARRAY_TASK_ID"\' '
               + shlex.quote(str(marks)))
    text = slurm.job_script(ROOT, tmp / "subs", out, 3, ["--no-perf"], partition="debug", time_min=5, cpus=1,
                            mem="64M", extra_sbatch=["--comment=labkit selftest"], labs=[LAB], command=command)
    script = out / "slurm" / slurm.SCRIPT_NAME
    script.write_text(text)
    grade_text = slurm.job_script(ROOT, tmp / "subs", out, 3, ["--no-perf"], labs=[LAB])
    expect("--task-index \"$SLURM_ARRAY_TASK_ID\" --task-count 3 --no-perf -- " in grade_text
           and grade_text.rstrip().endswith(f"{LAB}"), "the grade-all line of the job script",
           grade_text)
    per_task = slurm.job_script(ROOT, tmp / "subs", out, 3, [], labs=[LAB], work_dir=tmp / "w")
    expect(f"--work-dir {tmp / 'w'}/slurm-task-\"$SLURM_ARRAY_TASK_ID\" -- " in per_task,
           "work_dir gives each task a work folder of its own", per_task)
    job = slurm.submit(script, out_dir=out)
    expect(bool(job) and job.isdigit(), f"sbatch --parsable gave job id {job}")
    tasks = cluster.wait_job(job, 60)
    expect(sorted(tasks) == ["0", "1", "2"] and all(s == "COMPLETED" and c == "0:0" for s, c in tasks.values()),
           f"3 tasks, each COMPLETED with exit code 0: {tasks}")
    for i in range(3):
        got = (marks / f"task-{i}").read_text().split("\n") if (marks / f"task-{i}").exists() else []
        expect(got[:2] == [str(ROOT), str(cluster.conf)],
               f"task {i} ran in the kit's folder with SLURM_CONF handed on", repr(got))
        log = out / "slurm" / f"{job}_{i}.log"
        expect(log.is_file() and f"labkit: task {i} of 3 (job {job})" in log.read_text(),
               f"task {i} logged to {log.relative_to(tmp)}", tail(log))
    # submit's errors, in one line each.
    bad = out / "slurm" / "bad.sbatch"
    bad.write_text(slurm.job_script(ROOT, tmp / "subs", out, 1, [], gres="gpu:1", command="true"))
    try:
        slurm.submit(bad, out_dir=out)
        expect(False, "sbatch refuses --gres=gpu:1 on a cluster without GPUs")
    except LabkitError as e:
        expect("sbatch refused" in str(e) and "\n" not in str(e), f"a refused script is a LabkitError: {e}")
    path = os.environ.get("PATH", "")
    os.environ["PATH"] = str(tmp / "nowhere")
    try:
        slurm.submit(script, out_dir=out)
        expect(False, "no sbatch on PATH is an error")
    except LabkitError as e:
        expect("sbatch not found" in str(e), f"no sbatch: {e}")
    finally:
        os.environ["PATH"] = path
    expect(slurm.submit(script, dry_run=True, out_dir=out) is None, "--dry-run submits nothing")


def labkit(*args, timeout=300, env=None):
    r = subprocess.run([str(ROOT / "labkit"), *map(str, args)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    return r.returncode, r.stdout


def make_submissions(subs):
    """Three CPU-only submissions of LAB: the starter unchanged, the reference's cpu_openmp.cpp,
    and a cpu_openmp.cpp that does not compile."""
    listed = (ROOT / "labs" / LAB / "kit" / "tests" / "starter.sha256").read_text().split("\n")
    starter = [l.split()[-1] for l in listed if l.strip()]
    (subs / NAMES["starter"]).mkdir(parents=True)
    for f in starter:
        shutil.copy(ROOT / "labs" / LAB / f, subs / NAMES["starter"] / f)
    (subs / NAMES["solution"]).mkdir()
    solution = (ROOT / "solutions" / LAB / "cpu_openmp.cpp").read_text()
    (subs / NAMES["solution"] / "cpu_openmp.cpp").write_text(solution)
    (subs / NAMES["broken"]).mkdir()
    (subs / NAMES["broken"] / "cpu_openmp.cpp").write_text(solution + "\nthis line does not compile;\n")


TIME_COLUMN = re.compile(r"time|second|date|graded_at|_at$|duration|when|machine|log", re.I)


def gradebook_rows(out):
    """gradebook.csv's rows by name, the columns about time (and the machine) left out."""
    text = (out / "gradebook.csv").read_text()
    rows = list(csv.reader(io.StringIO(text)))
    head = rows[0]
    keep = [i for i, h in enumerate(head) if not TIME_COLUMN.search(h)]
    return [head[i] for i in keep], sorted([r[i] if i < len(r) else "" for i in keep] for r in rows[1:])


def part_b(cluster, tmp, build_dir):
    print(f"\n=== (b) ./labkit grade-all --slurm over three {LAB} submissions, then locally", flush=True)
    subs, out1, out2 = tmp / "subs", tmp / "out1", tmp / "out2"
    make_submissions(subs)
    common = ["--build-dir", build_dir, "--no-perf"]
    env = cluster.env
    (tmp / "work1").mkdir()
    (tmp / "work2").mkdir()
    code, text = labkit("grade-all", subs, LAB, "--slurm", "--chunk", "2", "--out", out1,
                        "--work-dir", tmp / "work1", *common, env=env, timeout=900)  # it builds the kit once
    print(text, flush=True)
    expect(code == 0, f"grade-all --slurm submitted (exit {code})")
    m = re.search(r"submitted job array (\d+)", text)
    expect(m is not None, "grade-all --slurm says the job id")
    job = m.group(1)
    script = out1 / "slurm" / slurm.SCRIPT_NAME
    expect(script.is_file() and "#SBATCH --array=0-1" in script.read_text(),
           "3 submissions with --chunk 2: a 2-task array in <out>/slurm/grade.sbatch")
    prepared = tmp / "work1" / "slurm-kit" / "slot"
    expect(f"--work-dir {tmp / 'work1'}/slurm-task-\"$SLURM_ARRAY_TASK_ID\"" in script.read_text()
           and f"--prebuilt-slot {prepared} " in script.read_text(),
           "each task builds in a work folder of its own, from the slot grade-all --slurm prepared", script.read_text())
    tasks = cluster.wait_job(job, 240)
    logs = "\n".join(tail(p, 40) for p in sorted((out1 / "slurm").glob(f"{job}_*.log")))
    expect(sorted(tasks) == ["0", "1"] and all(s in ("COMPLETED", "FAILED") for s, _ in tasks.values()),
           f"both tasks ran to their end: {tasks}", logs)
    expect(sorted(p.name for p in (tmp / "work1").iterdir()) == ["slurm-kit", "slurm-task-0", "slurm-task-1"],
           "the tasks built in work1/slurm-task-0 and -1", logs)
    for task in ("slurm-task-0", "slurm-task-1"):
        bdir = tmp / "work1" / task / "slot-0" / "build"
        kit = kit_inputs(bdir, BuildInfo.read(bdir).lab(LAB).runner, student_objects(bdir, bdir.parent / "src" / LAB))
        rebuilt = [k for k in kit if (bdir / k).stat().st_mtime_ns != (prepared / "build" / k).stat().st_mtime_ns]
        expect(kit and not rebuilt, f"{task} built no kit object: its {len(kit)} are the prepared slot's", str(rebuilt))
    results = sorted(p.stem for p in (out1 / "results").glob("*.json"))
    expect(results == sorted(NAMES.values()), f"a result per submission: {results}", logs)
    code, text = labkit("gradebook", "--out", out1, env=env)
    expect(code == 0 and (out1 / "gradebook.csv").is_file(), f"gradebook --out OUT1 (exit {code})", text)

    code, text = labkit("grade-all", subs, LAB, "--out", out2, "--work-dir", tmp / "work2", *common,
                        env=env, timeout=300)
    expect(code in (0, 1) and (out2 / "gradebook.csv").is_file(),
           f"local grade-all wrote its gradebook (exit {code})", text[-3000:])
    head1, rows1 = gradebook_rows(out1)
    head2, rows2 = gradebook_rows(out2)
    expect(head1 == head2 and len(rows1) == 3, f"the same columns: {head1}")
    expect(rows1 == rows2, "the same rows and points, graded by Slurm and locally",
           "slurm:\n" + "\n".join(map(str, rows1)) + "\nlocal:\n" + "\n".join(map(str, rows2)))
    by_name = {json.loads((out1 / "results" / f"{n}.json").read_text())["name"]:
               json.loads((out1 / "results" / f"{n}.json").read_text()) for n in results}
    cpu = {k: next(g for g in by_name[n]["labs"][LAB]["groups"] if g["kind"] == "cpu") for k, n in NAMES.items()}
    status = {n: sorted({v["status"] for v in g["variants"]}) for n, g in cpu.items()}
    expect(status == {"starter": ["todo"], "solution": ["pass"], "broken": ["build-error"]},
           f"the CPU group: the starter todo, the reference pass, the broken one build-error: {status}")
    expect(cpu["solution"]["points"] == cpu["solution"]["max_points"] > 0
           and cpu["starter"]["points"] == cpu["broken"]["points"] == 0,
           "the reference gets the CPU group's points, the starter and the broken one none")


def results_files():
    """The kit's results/ as {path: (modification time, size, sha256)}, grade-all's submissions/
    left out."""
    found = {}
    for f in (ROOT / "results").rglob("*") if (ROOT / "results").is_dir() else []:
        name = str(f.relative_to(ROOT / "results"))
        if f.is_file() and not name.startswith("submissions/"):
            found[name] = (f.stat().st_mtime_ns, f.stat().st_size, hashlib.sha256(f.read_bytes()).hexdigest())
    return found


def written(before, after):
    """The files of results/ that a run wrote or removed."""
    return sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))


def statuses(name):
    report = json.loads((ROOT / "results" / name).read_text())
    return [(v["name"], v["status"]) for v in report["variants"]]


def run_and_cancel(cmd, env, pattern, cancel, limit):
    """Runs cmd, its output read as it comes; once a line matches pattern, cancel(the output so
    far). Returns (exit status, the output, whether cancel was called)."""
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL)
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    out, called, deadline = b"", False, time.time() + limit
    while time.time() < deadline:
        if not sel.select(timeout=1):
            continue
        chunk = os.read(proc.stdout.fileno(), 65536)
        if not chunk:
            break
        out += chunk
        if not called and re.search(pattern, out.decode(errors="replace"), re.M):
            cancel(out.decode(errors="replace"))
            called = True
    else:
        proc.kill()
    return proc.wait(), out.decode(errors="replace"), called


def check_bring_back(tmp):
    """slurm_grade.bring_back, into a results folder of tmp: a staged student report with a
    failure's diff image replaces an earlier one (its diff images too), the paths inside it
    rewritten; the reference's report, not graded again, stays."""
    stage, results = tmp / "stage", tmp / "results"
    staged = stage / "results"
    png = staged / "diff" / f"{LAB}-student" / "gpu-01_case.png"
    png.parent.mkdir(parents=True)
    png.write_bytes(b"\x89PNG\r\n")
    (staged / f"{LAB}-student.json").write_text(json.dumps({"variants": [{"status": "fail", "diff": str(png)}]}))
    (staged / f"{LAB}-student.md").write_text(f"first mismatch: {png}\n")
    (results / "diff" / f"{LAB}-student").mkdir(parents=True)
    (results / "diff" / f"{LAB}-student" / "earlier.png").write_bytes(b"")
    for name in (f"{LAB}-student.csv", f"{LAB}-solution.json"):
        (results / name).write_text("earlier")
    slurm_grade.bring_back(stage, {"exit_status": 1, "reports": [[LAB, "student"]]}, {}, results=results)
    got = sorted(str(p.relative_to(results)) for p in results.rglob("*") if p.is_file())
    expect(got == [f"diff/{LAB}-student/gpu-01_case.png", f"{LAB}-solution.json", f"{LAB}-student.json",
                   f"{LAB}-student.md"], f"bring_back replaces the student's report and diff images: {got}")
    moved = results / "diff" / f"{LAB}-student" / "gpu-01_case.png"
    expect(json.loads((results / f"{LAB}-student.json").read_text())["variants"][0]["diff"] == str(moved)
           and (results / f"{LAB}-student.md").read_text() == f"first mismatch: {moved}\n",
           "the paths inside the reports name results/, not the job's folder")


def part_c(cluster, tmp, build_dir):
    """(c), the kit's results/ of LAB's reference put back as they were at the end."""
    print(f"\n=== (c) ./labkit grade {LAB} --slurm: a student's own grading as one job", flush=True)
    check_bring_back(tmp / "c")
    mine = lambda p: p.startswith((f"{LAB}-solution", f"diff/{LAB}-solution"))
    saved = {p: (ROOT / "results" / p).read_bytes() for p in results_files() if mine(p)}
    try:
        grade_on_slurm(cluster, build_dir)
    finally:
        for p in results_files():
            if mine(p) and p not in saved:
                (ROOT / "results" / p).unlink()
        for p, data in saved.items():
            (ROOT / "results" / p).parent.mkdir(parents=True, exist_ok=True)
            (ROOT / "results" / p).write_bytes(data)


def job_folder(text):
    """The job's folder that grade --slurm names ("its log: FOLDER/job.log")."""
    m = re.search(r"its log: (\S+)/job\.log", text)
    return ROOT / m.group(1) if m else None


def grade_on_slurm(cluster, build_dir):
    env = cluster.env
    common = [*GRADE, "--build-dir", build_dir]
    text = slurm_grade.job_script("/s", ["--no-perf"], [LAB], {"partition": "gpu", "gres": "gpu:1", "time": 20,
                                                                "account": "cs 101"})
    expect(all(l in text.splitlines() for l in ("#SBATCH --partition=gpu", "#SBATCH --gres=gpu:1",
                                                 "#SBATCH --time=20", '#SBATCH --account="cs 101"',
                                                 "#SBATCH --output=/s/job.log"))
           and text.rstrip().endswith(f"./labkit grade --stage-dir /s --no-perf -- {LAB}"),
           "the job script asks for what --partition, --gres, --time and --account say", text)
    expect("--gres" not in slurm_grade.job_script("/s", [], [], {"gres": slurm.NO_GRES}),
           "--gres none asks for no generic resource")

    before = results_files()
    code, text = labkit(*common, "--sizes", SIZES, "--slurm", "--partition", "debug", env=env)
    expect(code == 1 and "sbatch refused" in text and "gres" in text and written(before, results_files()) == [],
           f"the default --gres gpu:1, on a cluster without GPUs: sbatch refuses it, results/ untouched (exit {code})",
           text + f"\nresults/ written: {written(before, results_files())}")
    code_here, text = labkit(*common, "--sizes", SIZES, env=env)
    after = results_files()
    here = written(before, after)
    expect(code_here in (0, 1) and (ROOT / "results" / f"{LAB}-solution.json").is_file(),
           f"graded here (exit {code_here}), results/ written: {here}", text[-3000:])
    variants = statuses(f"{LAB}-solution.json")

    code, text = labkit(*common, "--sizes", SIZES, *ON_CLUSTER, env=env)
    print(text[-1500:], flush=True)
    there = written(after, results_files())
    expect(code == code_here, f"graded through Slurm with the same exit status ({code})", text[-3000:])
    expect(there == here, f"the same files of results/ written: {there}")
    expect(statuses(f"{LAB}-solution.json") == variants,
           f"the same {len(variants)} variants with the same statuses")
    stray = [p for p in there if "slurm-grade" in (ROOT / "results" / p).read_text(errors="replace")]
    expect(not stray, "no report names the job's folder", str(stray))
    job = re.search(r"submitted job (\d+)", text)
    expect(job is not None and re.search(rf"^slurm: job {job.group(1)} (PENDING|RUNNING)", text, re.M)
           and re.search(r"^checking \[\d+/\d+\] ", text, re.M) and "finished the grading" in text,
           "the job's id and state, and the grader's progress lines, shown")
    expect(job_folder(text) is not None and not job_folder(text).exists(),
           "the job's folder removed once its reports are in results/")

    # A job cancelled while it grades: a large size keeps it busy for seconds after its first line.
    before = results_files()
    jobs = []

    def cancel(out):
        jobs.append(re.search(r"submitted job (\d+)", out).group(1))
        cluster.client("scancel", jobs[-1])

    code, text, cancelled = run_and_cancel([str(ROOT / "labkit"), *map(str, common), "--sizes", SIZES + ",3000x3000",
                                            *ON_CLUSTER], env, r"^checking \[", cancel, 120)
    print(text[-800:], flush=True)
    last = text.strip().splitlines()[-1] if text.strip() else ""
    expect(cancelled and code == 1 and f"job {jobs[0]} CANCELLED" in last,
           f"a job cancelled while it grades: exit status {code}, and its last line: {last}")
    changed = written(before, results_files())
    expect(changed == [], "results/ unchanged by the cancelled job", f"results/ written: {changed}")
    kept = sorted(p.name for p in job_folder(text).iterdir())
    expect(kept == [slurm_grade.SCRIPT, slurm_grade.LOG], f"the cancelled job's folder keeps only its script and log: {kept}")
    shutil.rmtree(job_folder(text))


def serve(cluster):
    """Keeps the cluster up until Ctrl-C (or kill), saying how to use it."""
    print(f"\nA one-node Slurm is up. In another shell, as root:\n\n    export SLURM_CONF={cluster.conf}\n"
          "    sinfo\n    ./labkit grade-all SUBMISSIONS_DIR --slurm --no-perf --dry-run   # or without --dry-run\n\n"
          "Ctrl-C here stops it (jobs still running are cancelled).", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        while all(p.poll() is None for p in cluster.procs.values()):
            time.sleep(1)
        print("a Slurm daemon exited:\n" + cluster.logs(), flush=True)
        return 1
    except (KeyboardInterrupt, SystemExit):
        print("\nstopping the cluster", flush=True)
        return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", default="build", help="the kit's configured build (default: build)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder (its path is printed)")
    ap.add_argument("--serve", action="store_true",
                    help="only start the one-node cluster and keep it until Ctrl-C (try grade-all --slurm by hand)")
    ap.add_argument("--only", default="a,b,c", metavar="PARTS", help="run only these parts (default: %(default)s)")
    opts = ap.parse_args()
    build_dir = Path(opts.build_dir)
    build_dir = build_dir if build_dir.is_absolute() else ROOT / build_dir

    # slurmstepd leaves slurmd by a double fork: as a subreaper this process adopts it (and the
    # jobs' orphans) and reaps it, where an init that reaps nothing would keep it a zombie.
    try:
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass
    tmp = Path(tempfile.mkdtemp(prefix="labkit-slurm-"))
    os.chmod(tmp, 0o755)  # the sandbox's uid 65534 reads the submissions and work folders in it
    cluster = Cluster(tmp)
    status = 0
    try:
        try:
            cluster.start()
        except (Skip, OSError, subprocess.TimeoutExpired) as e:
            print(f"SKIP: Slurm could not start here: {e}", flush=True)
            return SKIP
        os.environ["SLURM_CONF"] = str(cluster.conf)  # for labkit.slurm.submit's sbatch, and the jobs
        os.environ[MARKER] = str(tmp)
        if opts.serve:
            return serve(cluster)
        parts = set(opts.only.split(","))
        if "a" in parts:
            part_a(cluster, tmp)

        info = build_dir / "labkit-build.json"
        graders = {}
        try:
            graders = {l["name"]: l.get("grader") for l in json.loads(info.read_text())["labs"]}
        except (OSError, ValueError, KeyError, TypeError):
            pass
        if not graders.get(LAB) or not (build_dir / graders[LAB]).is_file():
            print(f"SKIP (b, c): {build_dir} has no {LAB} grader (./labkit build first); (a) ran")
            return SKIP
        if not (ROOT / "solutions" / LAB / "cpu_openmp.cpp").is_file():
            print(f"SKIP (b, c): no solutions/{LAB}/cpu_openmp.cpp (the student tarball); (a) ran")
            return SKIP
        code, text = labkit("grade-all", "--help", timeout=60)
        if code != 0 or "--slurm" not in text:
            print(f"SKIP (b, c): ./labkit grade-all --help fails or has no --slurm (exit {code}); (a) ran\n"
                  + text[-600:])
            return SKIP
        if "b" in parts:
            part_b(cluster, tmp, build_dir)
        if "c" in parts:
            part_c(cluster, tmp, build_dir)
        print("\nall ok")
    except Failed:
        status = 1
    except (LabkitError, subprocess.TimeoutExpired, OSError) as e:
        print(f"FAILED: {e.__class__.__name__}: {e}")
        status = 1
    finally:
        cluster.stop()
        for name in NAMES.values():  # the grader reports grade-all kept in the kit's results/
            shutil.rmtree(ROOT / "results" / "submissions" / name, ignore_errors=True)
        if status and not opts.keep:
            for log in ("slurmctld.log", "slurmd.log"):
                print(tail(tmp / log, 25))
        if opts.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
