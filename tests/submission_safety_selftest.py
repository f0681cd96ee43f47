#!/usr/bin/env python3
"""What labkit does against a hostile or broken submission, on its Python side (cli/labkit/),
without building anything: submissions are data, not paths (links, devices, fifos, archive
members outside the archive and oversized files are refused with a note and the starter is
used); they are staged outside the kit; result files are written atomically; a malformed grader
report is an ERROR, never a traceback; the wall-clock limit of a grader process comes from the
kit's variant list, never the submission's; a timing 10x faster than the reference is flagged;
the class files are never stale (grade-all drops those made from results it is about to change);
and the compile sandbox hides what it must (when bubblewrap starts here).

No submission can stop a class run or take a classmate's row: a zip member whose deflate stream is
corrupt, a .tar.gz whose stream breaks after a good member, a file named with bytes that are not
UTF-8 and 1,100 nested folders are staged with a note each; an exception while staging, building
or grading one submission becomes its ERROR and its result (a rerun resumes past it); names come
from each submission's own folder (_alice/ never takes alice's name, nor bob/ Bob's row), and the
roster matches the folder as handed in; a gigabyte of compiler output costs labkit a few MiB.

    submission_safety_selftest.py
"""
import csv
import io
import json
import math
import os
import shutil
import socket
import stat
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from argparse import Namespace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cli"))
from labkit import batch, gradebook, grading, reports, rubric  # noqa: E402
from labkit.proc import capture  # noqa: E402
from labkit.sandbox import CompileSandbox, Sandbox, choose  # noqa: E402
from labkit.build import NINJA_SECTIONS  # noqa: E402
from labkit.proc import KEEP_BYTES  # noqa: E402
from labkit.submissions import MAX_DEPTH, MAX_FILE_BYTES, source_key, stage, submission_names  # noqa: E402
from labkit.util import ROOT, UsageError, default_work_dir, inside, write_atomic  # noqa: E402
import attacks  # noqa: E402
from checks import expect  # noqa: E402

LAB = "integral_image"
FILES = ["cpu_openmp.cpp", "01_naive.cu", "02_kogge_stone.cu", "03_brent_kung.cu"]
WORK = "// the student's own work\n"


def staged_from(src, tmp, name):
    """Stages src for LAB; returns (notes, {file: its staged text})."""
    out = Path(tmp) / "staged" / name
    notes = stage(src, out, {LAB: FILES}, [LAB], [LAB])
    return notes, {f: (out / LAB / f).read_text() for f in FILES}


def starter(f):
    return (ROOT / "labs" / LAB / f).read_text()


def refused(notes, f, why):
    return any(f in n and "refused" in n and why in n and "starter used" in n for n in notes)


def test_folder(tmp):
    sub = Path(tmp) / "alice" / "labs" / LAB
    sub.mkdir(parents=True)
    (sub / "cpu_openmp.cpp").write_text(WORK)
    (sub / "01_naive.cu").symlink_to(ROOT / "labs" / LAB / "01_naive.cu")
    os.mkfifo(sub / "02_kogge_stone.cu")
    (sub / "03_brent_kung.cu").write_bytes(b"/" * (MAX_FILE_BYTES + 1))
    notes, got = staged_from(Path(tmp) / "alice", tmp, "alice")
    expect(got["cpu_openmp.cpp"] == WORK, "a regular file is taken")
    expect(refused(notes, "01_naive.cu", "symbolic link") and got["01_naive.cu"] == starter("01_naive.cu"),
           f"a symbolic link is refused with a note, starter used: {notes}")
    expect(refused(notes, "02_kogge_stone.cu", "fifo") and got["02_kogge_stone.cu"] == starter("02_kogge_stone.cu"),
           "a fifo is refused with a note (and labkit does not hang on it)")
    expect(refused(notes, "03_brent_kung.cu", "over the limit"), "a file over 1 MiB is refused with a note")

    sock_dir = Path(tmp) / "sock" / LAB
    sock_dir.mkdir(parents=True)
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(sock_dir / "cpu_openmp.cpp"))
        notes, _ = staged_from(Path(tmp) / "sock", tmp, "sock")
    expect(refused(notes, "cpu_openmp.cpp", "socket"), "a socket is refused with a note")
    if os.geteuid() == 0:
        dev_dir = Path(tmp) / "dev" / LAB
        dev_dir.mkdir(parents=True)
        os.mknod(dev_dir / "cpu_openmp.cpp", 0o600 | stat.S_IFCHR, os.makedev(1, 5))  # /dev/zero
        notes, got = staged_from(Path(tmp) / "dev", tmp, "dev")
        expect(refused(notes, "cpu_openmp.cpp", "device") and got["cpu_openmp.cpp"] == starter("cpu_openmp.cpp"),
               "a device file is refused with a note")

    # A folder on the way that is a link (to the kit's labs/ here, as if to solutions/).
    bob = Path(tmp) / "bob"
    bob.mkdir()
    (bob / "labs").symlink_to(ROOT / "labs")
    notes, got = staged_from(bob, tmp, "bob")
    expect(any("labs" in n and "not followed" in n for n in notes) and got["cpu_openmp.cpp"] == starter("cpu_openmp.cpp"),
           f"a linked folder is not followed, with a note: {notes}")


def tar_with(path, members):
    """members: (name, kind, data) with kind 'file', 'symlink', 'hardlink' or 'device'."""
    with tarfile.open(path, "w:gz") as t:
        for name, kind, data in members:
            info = tarfile.TarInfo(name)
            if kind == "file":
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))
                continue
            info.type = {"symlink": tarfile.SYMTYPE, "hardlink": tarfile.LNKTYPE, "device": tarfile.CHRTYPE}[kind]
            info.linkname = "/etc/shadow" if kind != "device" else ""
            t.addfile(info)


def test_archives(tmp):
    carol = Path(tmp) / "carol.tar.gz"
    tar_with(carol, [("../cpu_openmp.cpp", "file", b"// outside\n"),
                     ("/abs/01_naive.cu", "file", b"// absolute\n"),
                     (f"carol/{LAB}/02_kogge_stone.cu", "symlink", b""),
                     (f"carol/{LAB}/03_brent_kung.cu", "device", b""),
                     (f"carol/{LAB}/cpu_openmp.cpp", "file", WORK.encode())])
    notes, got = staged_from(carol, tmp, "carol")
    expect(any("'../cpu_openmp.cpp' refused" in n and ".." in n for n in notes), f"a '..' member is refused: {notes}")
    expect(any("'/abs/01_naive.cu' refused" in n and "absolute" in n for n in notes), "an absolute member is refused")
    expect(refused(notes, "02_kogge_stone.cu", "link"), "a link inside an archive is refused")
    expect(refused(notes, "03_brent_kung.cu", "device"), "a device inside an archive is refused")
    expect(got["cpu_openmp.cpp"] == WORK and got["01_naive.cu"] == starter("01_naive.cu"),
           "the good member is taken, the refused ones are the starter's")
    expect(not (Path(tmp) / "cpu_openmp.cpp").exists(), "nothing landed outside")

    dave = Path(tmp) / "dave.zip"
    with zipfile.ZipFile(dave, "w") as z:
        z.writestr("..\\cpu_openmp.cpp", "// windows-style climb\n")
        z.writestr(f"{LAB}/01_naive.cu", b"/" * (MAX_FILE_BYTES + 1))
        link = zipfile.ZipInfo(f"{LAB}/02_kogge_stone.cu")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        z.writestr(link, "/etc/shadow")
    notes, got = staged_from(dave, tmp, "dave")
    expect(any("refused" in n and ".." in n for n in notes), "a zip member climbing out with '..\\' is refused")
    expect(refused(notes, "01_naive.cu", "over the limit"), "an oversized archive member is refused")
    expect(refused(notes, "02_kogge_stone.cu", "link"), "a link stored in a zip is refused")

    junk = Path(tmp) / "erin.zip"
    junk.write_bytes(b"not an archive at all")
    notes, got = staged_from(junk, tmp, "erin")
    expect(any("not a readable" in n for n in notes) and got["cpu_openmp.cpp"] == starter("cpu_openmp.cpp"),
           "an unreadable archive is a note and the starter, not the end of the class run")


def test_work_dir(tmp):
    os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")
    expect(not inside(default_work_dir(), ROOT) and str(default_work_dir()).startswith(str(Path(tmp) / "cache" / "labkit")),
           f"the default work folder is outside the kit: {default_work_dir()}")
    work = batch.work_dir_of(Namespace(work_dir=None))
    expect(work.is_dir() and not inside(work, ROOT), "work_dir_of makes it")
    for inside_kit in ("results/submissions-work", str(ROOT / "labs"), "."):
        try:
            batch.work_dir_of(Namespace(work_dir=inside_kit))
            expect(False, f"--work-dir {inside_kit} is refused")
        except UsageError as e:
            expect("inside the kit" in str(e), f"--work-dir {inside_kit} (inside the kit) is a usage error")
    try:
        batch.work_dir_of(Namespace(work_dir=str(ROOT.parent)))
        expect(False, "a --work-dir holding the kit is refused")
    except UsageError:
        expect(True, "a --work-dir holding the kit is a usage error")


def test_atomic_write(tmp):
    path = Path(tmp) / "out" / "gradebook.csv"
    write_atomic(path, "old\n")
    os.chmod(path, 0o640)
    write_atomic(path, b"new\n")
    expect(path.read_text() == "new\n" and stat.S_IMODE(path.stat().st_mode) == 0o640,
           "write_atomic replaces the file and keeps its mode")
    try:
        write_atomic(path, 12345)  # fails half-way: cannot write a number
    except TypeError:
        pass
    expect(path.read_text() == "new\n" and sorted(p.name for p in path.parent.iterdir()) == ["gradebook.csv"],
           "a write that fails leaves the old file and no temporary file")


GOOD = {"lab": LAB, "label": "x", "sandbox": "bubblewrap, uid 65534", "environment": {},
        "variants": [{"name": "cpu-openmp", "status": "pass", "detail": "", "cases_passed": 3,
                      "cases_failed": 0, "flags": []}],
        "performance": [{"variant": "cpu-openmp", "width": 8, "height": 8, "kernel_ms": 1.5, "e2e_ms": None}]}


def variant(**change):
    return dict(GOOD, variants=[dict(GOOD["variants"][0], **change)])


def test_read_report(tmp):
    path = Path(tmp) / "report.json"
    path.write_text(json.dumps(GOOD))
    expect(grading.read_report(path)["variants"][0]["name"] == "cpu-openmp", "a good report reads")
    bad = {"not JSON": "{'variants': [", "a list": "[]", "no variants": "{}",
           "status a number": json.dumps(variant(status=1)),
           "cases_passed a string": json.dumps(variant(cases_passed="3")),
           "cases_passed a bool": json.dumps(variant(cases_passed=True)),
           "no name": json.dumps(dict(GOOD, variants=[{"status": "pass"}])),
           "flags not text": json.dumps(variant(flags=[1])),
           "a variant that is a string": json.dumps(dict(GOOD, variants=["x"])),
           "width a string": json.dumps(dict(GOOD, performance=[dict(GOOD["performance"][0], width="8")])),
           "kernel_ms NaN": json.dumps(dict(GOOD, performance=[dict(GOOD["performance"][0], kernel_ms=math.nan)])),
           "environment a list": json.dumps(dict(GOOD, environment=[]))}
    for what, text in bad.items():
        path.write_text(text)
        try:
            grading.read_report(path)
            expect(False, f"read_report refuses a report with {what}")
        except ValueError as e:
            expect(True, f"read_report refuses a report with {what}: {e}")

    # The whole way: a grader that writes a malformed report gives an ERROR stand-in.
    grader = Path(tmp) / "fake_grader"
    grader.write_text('#!/bin/sh\n[ "$2" = --help ] && exit 0\nwhile [ "$1" != --json ]; do shift; done\n'
                      'printf \'{"variants": [{"name": "cpu-openmp", "status": 3}]}\' > "$2"\n')
    grader.chmod(0o755)
    got = grading.run_grader(grader, "/bin/true", LAB, "alice", Path(tmp) / "results", args(),
                             [{"name": "cpu-openmp"}], Sandbox(None, "test"), log_path=Path(tmp) / "log")
    v = got["variants"][0]
    expect(v["status"] == "error" and "malformed" in v["detail"] and "status" in v["detail"],
           f"a malformed report is an ERROR that says why: {v['detail']}")
    expect(got["sandbox"].startswith("not sandboxed"), "and the stand-in says it was not sandboxed")


def args(**given):
    base = dict(variants=None, sizes=None, perf_sizes=None, perf_params=None, runs=None, seed=None,
                timeout=None, no_perf=True, quick=True, lab_timeout=None, compile_timeout=None)
    return Namespace(**dict(base, **given))


def fake_pipeline(tmp, grader, kit):
    """grade-all's Pipeline for LAB without a build: grader as the lab's grader, kit as its
    variant list, results under tmp/class, no GPU, no timing, no sanitizer."""
    pipe = object.__new__(batch.Pipeline)
    pipe.args, pipe.labs, pipe.graders, pipe.kit_variants = args(), [LAB], {LAB: grader}, {LAB: kit}
    pipe.sandbox, pipe.rubrics, pipe.references = Sandbox(None, "test"), {LAB: rubric.load(LAB, kit)}, {}
    pipe.out, pipe.work = Path(tmp) / "class", Path(tmp) / "work"
    pipe.results = pipe.out / "results"
    pipe.results.mkdir(parents=True)
    pipe.sanitizer, pipe.gpu, pipe.timing, pipe.key, pipe.stopping = None, None, False, "key", False
    pipe.turns, pipe.cores, pipe.prepared = batch.Turns(), None, None
    return pipe


def test_process_timeout(tmp):
    expect(grading.process_timeout(args(), 100_000) <= grading.MAX_LAB_TIMEOUT_S,
           "the derived wall-clock limit is capped")
    expect(grading.process_timeout(args(lab_timeout=5.0), 100_000) == 5.0, "--lab-timeout sets it")

    # A submission's runner that lists 100,000 variants: its list is never asked for; the limit
    # and the stand-in's rows come from the kit's list.
    grader = Path(tmp) / "listing_grader"
    grader.write_text('#!/bin/sh\ncase "$1" in list) i=0; while [ $i -lt 100000 ]; do echo "v$i\tcpu"; '
                      'i=$((i+1)); done;; esac\nexit 0\n')
    grader.chmod(0o755)
    seen = []
    kit = [{"name": "cpu-openmp"}, {"name": "gpu-01-naive"}]

    def fake_execute(cmd, timeout=None, **_):
        seen.append(timeout)
        return 1, False

    # grade-all's grading of one built submission (what Pipeline.grade reads, without a build).
    pipe = fake_pipeline(tmp, grader, kit)
    graded = []
    real_execute, real_run_grader = grading.execute, batch.run_grader
    grading.execute = fake_execute
    batch.run_grader = lambda *a, **k: graded.append(real_run_grader(*a, **k)) or graded[-1]
    try:
        pipe.grade(batch.Built("alice", Path(tmp), [], "key", time.monotonic(), Path(tmp), runners={LAB: grader}))
    finally:
        grading.execute, batch.run_grader = real_execute, real_run_grader
    expect(seen == [grading.process_timeout(args(), len(kit))],
           f"the limit comes from the kit's {len(kit)} variants: {seen}")
    expect(len(graded) == 1 and [v["name"] for v in graded[0]["variants"]] == ["cpu-openmp", "gpu-01-naive"],
           "the stand-in's rows are the kit's variants")
    expect((pipe.results / "alice.json").is_file(), "and the submission's result is written")


def perf(variant, ms, w=1024, **more):
    return dict({"variant": variant, "exercise": LAB, "pattern": "random", "params": "", "width": w,
                 "height": w, "threads": 0, "kernel_ms": ms}, **more)


def test_flags(tmp):
    solution = {"variants": [], "performance": [perf("gpu-01-naive", 2.0), perf("gpu-02-ks", 1.0),
                                                perf("gpu-02-ks", 1.0, w=2048), perf("gpu-03-bk", 1.0),
                                                perf("cpu-sequential", 50.0), perf("gpu-04-sp", 1.0)]}
    student = {"variants": [{"name": n, "status": "pass"} for n in
                            ("gpu-01-naive", "gpu-02-ks", "gpu-03-bk", "gpu-04-sp")]
               + [{"name": "cpu-sequential", "status": "pass", "reference": True}],
               "performance": [perf("gpu-01-naive", 0.5), perf("gpu-02-ks", 0.9), perf("gpu-02-ks", 0.01, w=2048),
                               perf("gpu-03-bk", 0.001, w=512), perf("cpu-sequential", 1.0), perf("gpu-04-sp", 0.0)]}
    flagged = reports.flag_fast_timings(student, solution)
    flags = {v["name"]: v.get("flags", []) for v in student["variants"]}
    expect(flagged == ["gpu-02-ks", "gpu-04-sp"], f"only the variants >10x faster on the same case are flagged: {flagged}")
    expect(flags["gpu-02-ks"] == ["timing flagged for review: 100× faster than the reference solution at 2048x2048 (random)"],
           f"the flag names the factor and the case: {flags['gpu-02-ks']}")
    expect("infinitely" in flags["gpu-04-sp"][0], "a time of 0 ms is flagged")
    expect(not flags["gpu-01-naive"] and not flags["gpu-03-bk"] and not flags["cpu-sequential"],
           "4x faster, a size the reference did not time, and the grader's own reference are not flagged")
    reports.flag_fast_timings(student, solution)
    expect(len([v for v in student["variants"] if v["name"] == "gpu-02-ks"][0]["flags"]) == 1, "flagging twice adds nothing")
    rows = {r[0]: r for r in reports.comparison_rows(student, solution)}
    expect(rows["gpu-02-ks"][-1] == "flagged" and rows["gpu-01-naive"][-1] == "0.25x",
           "the side-by-side table shows no speedup for a flagged variant")
    expect(reports.review(student).startswith("gpu-02-ks: timing flagged for review"), "review() lists the flags")
    # One noisy reference measurement (2 threads on a loaded machine: median 19 ms) flags nobody:
    # each side's best over its thread sweep is compared, the reference's by its fastest run.
    noisy = {"variants": [], "performance": [perf("cpu-openmp", 0.08, threads=1, min_ms=0.07),
                                             perf("cpu-openmp", 19.0, threads=2, min_ms=0.05)]}
    honest = {"variants": [{"name": "cpu-openmp", "status": "pass"}],
              "performance": [perf("cpu-openmp", 0.08, threads=1), perf("cpu-openmp", 0.06, threads=2)]}
    expect(not reports.flag_fast_timings(honest, noisy), "a noisy reference measurement flags no honest student")


def test_class_files(tmp):
    """grade-all drops the class outputs made from the results it is about to change (the class's,
    and each regraded submission's), so that a run cut short leaves none that looks current."""
    out = Path(tmp) / "class"
    results = [{"schema": batch.SCHEMA, "name": name, "source": f"{name}/", "notes": [], "labs": {}, "points": 0,
                "max_points": 0, "bonus_points": 0, "max_bonus": 0} for name in ("alice", "bob")]
    written = gradebook.write_class_outputs(out, results)
    expect(all(p.is_file() for p in written), f"the class outputs are written: {len(written)} files")
    gradebook.drop_class_outputs(out, ["alice"])
    left = sorted(str(p.relative_to(out)) for p in written if p.exists())
    expect(left == ["feedback/bob.json", "feedback/bob.md", "gradescope/bob/results.json"],
           f"before a run grades alice: only bob's own outputs are left, no gradebook, summary or junit: {left}")


def test_compile_sandbox(tmp):
    sandbox = choose()
    if not sandbox.bwrap:
        print(f"skipped: the compile sandbox ({sandbox.label})")
        return
    work = Path(tmp) / "work"
    staged, build, other = work / "alice" / "src", work / "alice" / "build", work / "bob" / "src"
    for d in (staged, build, other):
        d.mkdir(parents=True)
    (other / "secret.cpp").write_text("// bob's work\n")
    box = CompileSandbox(sandbox, build, staged, work)
    script = (f"cat /etc/shadow; ls {ROOT}/solutions; cat {other}/secret.cpp; touch {ROOT}/x; touch {staged}/x; "
              f"touch {build}/built && echo BUILD-WRITABLE; test -f {ROOT}/meson.build && echo KIT-VISIBLE")
    rc, out, _ = capture(box.wrap(["/bin/sh", "-c", script]), limits=box.limits)
    expect("root:" not in out and "bob's work" not in out, f"the compile sees neither /etc/shadow nor another submission: {out!r}")
    expect("BUILD-WRITABLE" in out and "KIT-VISIBLE" in out and not (ROOT / "x").exists() and not (staged / "x").exists(),
           "the kit is visible read-only, the staged sources read-only, the build folder writable")
    for kit_only in ("solutions", "tests/corpus"):
        folder = ROOT / kit_only
        if folder.is_dir() and any(folder.iterdir()):
            rc, out, _ = capture(box.wrap(["/bin/ls", "-A", str(folder)]))
            expect(rc == 0 and not out.strip(), f"{kit_only}/ is empty in the compile sandbox")

    # The class files of a run, inside the kit (grade-all --out grading/ --roster roster.csv):
    # hidden from the compile, which sees them without `private`.
    class_dir = Path(tempfile.mkdtemp(prefix=".selftest-class-", dir=ROOT))
    roster = class_dir.with_name(class_dir.name + "-roster.csv")
    try:
        (class_dir / "gradebook.csv").write_text("alice,ada@example.edu\n")
        roster.write_text("bob,bob@example.edu\n")
        os.chmod(class_dir, 0o755)
        show = ["/bin/sh", "-c", f"cat {class_dir}/gradebook.csv {roster}"]
        _, out, _ = capture(box.wrap(show))
        expect("alice" in out and "bob" in out, f"without private, the compile sees class files in the kit: {out!r}")
        hiding = CompileSandbox(sandbox, build, staged, work, private=[class_dir, roster])
        _, out, _ = capture(hiding.wrap(show))
        expect("example.edu" not in out, f"the output folder and the roster are hidden from the compile: {out!r}")
    finally:
        shutil.rmtree(class_dir, ignore_errors=True)
        roster.unlink(missing_ok=True)
    try:
        batch.out_dir_of(Namespace(out=str(ROOT.parent)))
        expect(False, "an --out holding the kit is refused")
    except UsageError as e:
        expect("holds the kit" in str(e), f"an --out holding the kit is a usage error: {e}")


# ---- nothing a submission holds stops the class run ---------------------------------------------

def test_broken_archives(tmp):
    zipped = Path(tmp) / "zed.zip"
    attacks.corrupt_zip(zipped, {f"{LAB}/cpu_openmp.cpp": WORK * 200, f"{LAB}/02_kogge_stone.cu": WORK})
    notes, got = staged_from(zipped, tmp, "zed")
    expect(refused(notes, "cpu_openmp.cpp", "cannot be read") and got["cpu_openmp.cpp"] == starter("cpu_openmp.cpp"),
           f"a zip member with a corrupt deflate stream is refused with a note, starter used: {notes}")
    expect(got["02_kogge_stone.cu"] == WORK, "the zip's other member is taken")
    expect(source_key(zipped), "and the archive has a key")

    tarred = Path(tmp) / "tom.tar.gz"
    attacks.broken_tar(tarred, f"{LAB}/cpu_openmp.cpp", WORK)
    notes, got = staged_from(tarred, tmp, "tom")
    expect(got["cpu_openmp.cpp"] == WORK, f"a .tar.gz broken after its first member: that member is taken: {notes}")
    expect(any("the archive breaks after 2 members" in n and "new upload" in n for n in notes),
           f"and the break is noted: {notes}")
    expect(any(n.startswith(f"{LAB}: not handed in") and "the part of the submission that was not read" in n
               for n in notes), f"the files not found may be in what was not read, and their note says so: {notes}")

    fifo = Path(tmp) / "fifo.zip"
    os.mkfifo(fifo)
    notes, got = staged_from(fifo, tmp, "fifo")
    expect(any("neither a folder nor a regular file" in n for n in notes) and got["cpu_openmp.cpp"] == starter("cpu_openmp.cpp"),
           f"a fifo named like an archive is a note, never a read that blocks: {notes}")


def test_odd_names(tmp):
    sub = Path(tmp) / "oscar"
    (sub / LAB).mkdir(parents=True)
    (sub / LAB / "cpu_openmp.cpp").write_text(WORK)
    (sub / attacks.odd_name("notes-")).write_text("not UTF-8 in its name\n")
    (sub / attacks.odd_name("dir-") / LAB).mkdir(parents=True)
    (sub / attacks.odd_name("dir-") / LAB / "01_naive.cu").write_text(WORK)
    key = source_key(sub)
    expect(len(key) == 24, "a folder holding names that are not UTF-8 has a key")
    notes, got = staged_from(sub, tmp, "oscar")
    expect(got["cpu_openmp.cpp"] == WORK and got["01_naive.cu"] == WORK, f"its files are taken all the same: {notes}")
    shown = [n for n in notes if "not valid UTF-8" in n]
    expect(any("notes-\\xff\\xfe" in n for n in shown), f"a name that is not UTF-8 is noted, its bytes as \\xNN: {notes}")
    expect(all(n.encode("utf-8") for n in notes), "every note is UTF-8 text, ready for the class files")

    archive = Path(tmp) / "olga.tar.gz"
    tar_with(archive, [(attacks.odd_name("olga-") + f"/{LAB}/cpu_openmp.cpp", "file", WORK.encode())])
    notes, got = staged_from(archive, tmp, "olga")
    expect(got["cpu_openmp.cpp"] == WORK and any("not valid UTF-8" in n for n in notes) and
           all(n.encode("utf-8") for n in notes), f"in an archive too: {notes}")


def test_deep_nesting(tmp):
    sub = Path(tmp) / "deep"
    attacks.deep_folders(sub)
    (sub / LAB).mkdir()
    (sub / LAB / "cpu_openmp.cpp").write_text(WORK)
    expect(len(source_key(sub)) == 24, "1,100 nested folders have a key (no recursion)")
    notes, got = staged_from(sub, tmp, "deep")
    expect(got["cpu_openmp.cpp"] == WORK and any(f"more than {MAX_DEPTH} deep" in n for n in notes),
           f"1,100 nested folders: the file at the top is taken, the depth noted: {notes}")
    subprocess.run(["rm", "-rf", str(sub)], check=True)  # shutil.rmtree recurses, and would fail


def test_names(tmp):
    root = Path(tmp) / "class"
    given = ["_alice", "alice", "bob", "Bob", "carol.zip", "carol", "d e", os.fsdecode(b"\xff")]
    names = dict(zip(given, submission_names([root / g for g in given])))
    expect(names["alice"] == "alice" and names["_alice"].startswith("alice~"),
           f"_alice/ never takes alice's name, whatever the order: {names}")
    expect(names["bob"] == "bob" and names["Bob"] == "Bob", f"bob/ and Bob/ keep their own names: {names}")
    expect(names["carol"] != names["carol.zip"] and names["d e"] == "d_e", f"carol/ and carol.zip differ: {names}")
    expect(len(set(names.values())) == len(given), "no two share a name")
    again = dict(zip(reversed(given), submission_names([root / g for g in reversed(given)])))
    expect(again == names, "the names do not depend on the order of the folders")
    twice = submission_names([Path(tmp) / "a" / "x", Path(tmp) / "b" / "x"])
    expect(len(set(twice)) == 2, f"--single a/x b/x: two names ({twice})")


def result(name, folder, points):
    return {"schema": batch.SCHEMA, "name": name, "folder": folder, "source": f"/class/{folder}", "notes": [],
            "labs": {LAB: {"points": points, "max_points": 10, "bonus_points": 0, "max_bonus": 0, "groups": []}},
            "points": points, "max_points": 10, "bonus_points": 0, "max_bonus": 0}


def gradebook_rows(results, roster):
    rows = list(csv.DictReader(io.StringIO(gradebook.gradebook_csv(results, roster, [LAB]))))
    return rows


def test_roster_collisions(tmp):
    results = [result("alice", "alice", 10), result("alice~1f3a9c0e", "_alice", 0),
               result("Bob", "Bob", 10), result("bob", "bob", 0), result("carol", "carol.zip", 7)]
    roster_file = Path(tmp) / "roster.csv"
    roster_file.write_text("login,student id\nalice,1001\nBob,1002\nCAROL,1003\ndan,1004\n")
    roster = gradebook.read_roster(roster_file)
    for with_roster in (roster, None):
        rows = gradebook_rows(results, with_roster)
        by = {}
        for r in rows:
            by.setdefault(r["folder"], []).append(r)
        expect(by["alice"][0]["points"] == "10" and (not with_roster or by["alice"][0]["student_id"] == "1001"),
               f"alice's row holds alice's 10 ({'with' if with_roster else 'without'} a roster): {by['alice']}")
        expect(by["Bob"][0]["points"] == "10" and (not with_roster or by["Bob"][0]["student_id"] == "1002"),
               f"Bob's row holds Bob's 10: {by['Bob']}")
        expect(len(by["bob"]) == 1 and by["bob"][0]["points"] == "0" and len(by["_alice"]) == 1
               and by["_alice"][0]["points"] == "0", "bob/ and _alice/ each have a row of their own, with their own "
               "points and the folder they were handed in as")
        for folder in ("alice", "_alice", "Bob", "bob"):
            expect(gradebook.COLLIDES in by[folder][0]["notes"], f"the collision is noted on {folder}'s row: "
                                                                 f"{by[folder][0]['notes']}")
        expect("graded apart, this one as alice~1f3a9c0e" in by["_alice"][0]["notes"],
               "and the name _alice/ was graded as (its result and feedback files)")
        expect(len(rows) == (6 if with_roster else 5), f"one row per submission and roster student: {len(rows)}")
    rows = {r["folder"]: r for r in gradebook_rows(results, roster)}
    expect(rows["CAROL"]["points"] == "7", "a roster key matches a folder handed in under another case (carol.zip)")
    expect(rows["dan"]["notes"] == "no submission", "a roster student without a submission: no submission")
    both = [result("eve", "eve", 3), result("EVE", "EVE", 4)]
    rows = gradebook_rows(both, {"Eve": {}})
    expect(rows[0]["notes"].startswith(f"{gradebook.SEVERAL} ('EVE', 'eve')") and len(rows) == 3,
           f"two folders matching a roster key only without regard to case: it takes neither, both keep rows: {rows}")


FLOOD = ("echo '[1/2] Compiling C++ object a.o'; echo 'FAILED: a.o'; yes 'a.cpp:1:2: warning: #warning flood' | "
         "head -c {bytes}; echo; echo 'a.cpp:9:2: error: #error the last word'; echo '[2/2] Compiling C++ object b.o'; "
         "echo 'FAILED: b.o'; echo \"b.cpp:3:1: error: b's own mistake\"; echo 'ninja: build stopped'")


def test_output_cap(tmp):
    """A compile that prints a gigabyte: labkit (here a child Python that captures it as a class
    run's build does) keeps a few MiB, each step's start and end, and stays small itself."""
    code = ("import resource, sys; sys.path.insert(0, sys.argv[1]); from labkit.proc import capture; "
            "from labkit.build import NINJA_SECTIONS; rc, text, _ = capture(['bash', '-c', sys.argv[2]], "
            "opens=NINJA_SECTIONS); open(sys.argv[3], 'w').write(text); "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    kept = Path(tmp) / "kept.log"
    started = time.monotonic()
    out = subprocess.run([sys.executable, "-c", code, str(ROOT / "cli"), FLOOD.format(bytes=1 << 28), str(kept)],
                         capture_output=True, text=True, timeout=300)
    peak_mib = int(out.stdout.split()[-1]) / 1024
    text = kept.read_text()
    expect(peak_mib < 128, f"256 MiB of compiler output: labkit's peak memory {peak_mib:.0f} MiB "
                           f"({time.monotonic() - started:.1f} s)")
    expect(len(text) < KEEP_BYTES + (1 << 20), f"what is kept is capped: {len(text)} bytes")
    expect(all(t in text for t in ("FAILED: a.o", "error: #error the last word", "FAILED: b.o", "b's own mistake",
                                   "ninja: build stopped", "bytes of output cut here]")),
           "each step's start and end are kept, and the cut is said")


def test_failure_stays(tmp):
    """An exception while staging one submission (as a RecursionError or zlib.error did) is its
    ERROR and its result; another while grading one lab is that lab's; the run goes on."""
    kit = [{"name": "cpu-openmp"}, {"name": "gpu-01-naive"}]
    pipe = fake_pipeline(tmp, "/bin/false", kit)
    pipe.slots, pipe.staged_files, pipe.lab_files = batch.queue.Queue(), {LAB: FILES}, {LAB: FILES}
    pipe.slots.put(Path(tmp) / "slot-0")
    pipe.main = Namespace(names=lambda: [LAB])

    def stage_fails(*_):
        raise RecursionError("maximum recursion depth exceeded")

    real_stage, real_run_grader = batch.stage, batch.run_grader
    batch.stage = stage_fails
    try:
        built = pipe.build("rita", Path(tmp), "k1", "rita")
        got = pipe.grade(built)
    finally:
        batch.stage = real_stage
    lab = got["labs"][LAB]
    expect(lab["state"] == "error" and "RecursionError" in lab["detail"] and lab["points"] == 0,
           f"an exception while staging is the submission's ERROR, with its reason: {lab['detail']}")
    expect(pipe.slots.qsize() == 1, "its build slot is given back")
    expect((pipe.out / "submissions" / "rita" / batch.LABKIT_ERROR_LOG).is_file(), "the traceback is kept beside it")
    expect(pipe.finished("rita", "k1"), "its result is written: a rerun resumes past it")

    batch.run_grader = lambda *a, **k: (_ for _ in ()).throw(KeyError("variants"))
    try:
        got = pipe.grade(batch.Built("sam", Path(tmp), [], "k2", time.monotonic(), Path(tmp), runners={LAB: "/bin/true"}))
    finally:
        batch.run_grader = real_run_grader
    expect(got["labs"][LAB]["state"] == "error" and "KeyError" in got["labs"][LAB]["detail"] and pipe.finished("sam", "k2"),
           f"an exception while grading a lab is that lab's ERROR: {got['labs'][LAB]['detail']}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for test in (test_folder, test_archives, test_broken_archives, test_odd_names, test_deep_nesting, test_names,
                     test_roster_collisions, test_output_cap, test_failure_stays, test_work_dir, test_atomic_write,
                     test_read_report, test_process_timeout, test_flags, test_class_files, test_compile_sandbox):
            sub = Path(tmp) / test.__name__
            sub.mkdir()
            test(sub)
    print("all ok")


if __name__ == "__main__":
    main()
