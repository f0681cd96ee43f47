#!/usr/bin/env python3
"""`labkit grade-all` on a small class of Lab 1 submissions: the scores are right, one
denominator for all, one bad file costs only its variants, a build error still gets its feedback,
an interrupted class resumes without regrading, and submissions named with --single (what
`grade --submission` runs) are graded alone, each with its table.

    grade_all_selftest.py --build-dir BUILD

The class (correctness only, small sizes, the CPU variants checked; the GPU ones too on a GPU):
  good      the reference solution's files
  empty     nothing handed in (the starter everywhere): 0 points, never the baseline's
  wrong     only cpu_openmp.cpp, with a 32-bit overflow (tests/corpus/overflow_32bit): 0 for it
  one_bad   the solution, but 02_kogge_stone.cu does not compile: cpu-openmp still scores, the
            Kogge-Stone variants are build-error with that file's compiler message
  no_link   the solution, but cpu_openmp.cpp defines main(): nothing links, every variant is
            build-error, out of the same maximum, with feedback files
  injected  only cpu_openmp.cpp, throwing a message of Markdown and HTML (tests/corpus/
            report_injection): every class file shows it as the text it is
  hog       only cpu_openmp.cpp, holding every process it may have for 12 s before it answers
            (tests/corpus/holds_every_process_slot), graded beside its classmates (--jobs 2):
            each sandbox has its own limits, so it scores, and so do they

Then a class that once stopped the run, or took classmates' rows, graded with a roster in the same
work folder: two honest students (alice: the reference's files; Bob: its cpu_openmp.cpp) beside
_alice/ and bob/ (nothing handed in: their names collide with alice's once cleaned and Bob's once
case-folded), a zip whose member has a corrupt deflate stream, a .tar.gz whose stream breaks after a
good member, a folder named with bytes that are not UTF-8 holding one more such name, a file at the
top of 1,100 nested folders, and a cpu_openmp.cpp that makes the compiler print about 290 MB. The
run finishes; each honest row holds its student's own points, with the roster and without; each
hostile one has its note; labkit's own memory stays small and the class folder under 50 MB; a
rerun changes nothing.

    grade_all_selftest.py --build-dir BUILD --sanitize

On a GPU: --sanitize racecheck over Lab 2's reference and a Kogge-Stone scan that lost a barrier
(its output stays right); the finding costs the rubric's sanitizer penalty, the feedback names
the variant and racecheck's whole report is kept.
"""
import argparse
import csv
import json
import os
import runpy
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import attacks  # noqa: E402
from checks import expect  # noqa: E402

KIT = Path(__file__).resolve().parent.parent
LAB = "integral_image"
ARGS = ["--no-perf", "--sizes", "1x1,7x5,31x33,255x257,3000x3000", "--timeout", "20", "--jobs", "2"]


def grade_all(build, subs, out, work, *extra, lab=LAB, peak=None):
    """subs: the folder of submissions, or None (extra names them with --single). peak: a list
    that gets labkit's own peak memory in MiB (VmHWM of its process, read every 0.2 s)."""
    cmd = [str(KIT / "labkit"), "grade-all", *([str(subs)] if subs else []), lab, "--build-dir", str(build), "--out", str(out),
           "--work-dir", str(work), *ARGS, *extra]
    proc = subprocess.Popen(cmd, cwd=KIT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            errors="replace")
    output = []
    reader = threading.Thread(target=lambda: output.append(proc.stdout.read()))
    reader.start()
    high, started = 0, time.monotonic()
    while proc.poll() is None and time.monotonic() - started < 1200:
        try:  # ./labkit execs python: the same process
            status = Path(f"/proc/{proc.pid}/status").read_text()
            high = max(high, int(status.split("VmHWM:")[1].split()[0]) // 1024)
        except (OSError, IndexError, ValueError):
            pass
        time.sleep(0.2)
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    reader.join()
    if peak is not None:
        peak.append(high)
    text = output[0]
    expect("Traceback" not in text and "internal error" not in text, "grade-all ends without a traceback")
    return proc.returncode, text


def make_class(subs):
    solution = KIT / "solutions" / LAB
    for name in ("good", "one_bad", "no_link"):
        shutil.copytree(solution, subs / name)
    (subs / "empty").mkdir()
    (subs / "empty" / "README.txt").write_text("I did not get to it\n")
    (subs / "wrong").mkdir()
    shutil.copy(KIT / "tests" / "corpus" / "overflow_32bit" / LAB / "cpu_openmp.cpp", subs / "wrong")
    for name, entry in (("injected", "report_injection"), ("hog", "holds_every_process_slot")):
        (subs / name).mkdir()
        shutil.copy(KIT / "tests" / "corpus" / entry / LAB / "cpu_openmp.cpp", subs / name)
    with open(subs / "one_bad" / "02_kogge_stone.cu", "a") as f:
        f.write("\nthis line is not C++;\n")
    with open(subs / "no_link" / "cpu_openmp.cpp", "a") as f:
        f.write("\nint main() { return 0; }\n")


def make_hostile_class(subs):
    """The class of the module's docstring."""
    solution = KIT / "solutions" / LAB
    shutil.copytree(solution, subs / "alice")
    (subs / "Bob" / LAB).mkdir(parents=True)
    shutil.copy(solution / "cpu_openmp.cpp", subs / "Bob" / LAB)
    for name in ("_alice", "bob"):
        (subs / name).mkdir()
        (subs / name / "README.txt").write_text("nothing here\n")
    attacks.corrupt_zip(subs / "corrupt.zip", {f"{LAB}/cpu_openmp.cpp": (solution / "cpu_openmp.cpp").read_text()})
    attacks.broken_tar(subs / "broken.tar.gz", f"{LAB}/cpu_openmp.cpp", (solution / "cpu_openmp.cpp").read_text())
    odd = subs / attacks.odd_name("olga-")
    (odd / LAB).mkdir(parents=True)
    shutil.copy(solution / "cpu_openmp.cpp", odd / LAB)
    (odd / attacks.odd_name("notes-")).write_text("a name that is not UTF-8\n")
    attacks.deep_folders(subs / "deep")
    (subs / "deep" / LAB).mkdir()
    (subs / "deep" / LAB / "cpu_openmp.cpp").write_text("// deep's own\n")
    (subs / "flood" / LAB).mkdir(parents=True)
    (subs / "flood" / LAB / "cpu_openmp.cpp").write_text(attacks.compiler_flood())


def folder_bytes(folder):
    return sum(p.stat().st_size for p in Path(folder).rglob("*") if p.is_file() and not p.is_symlink())


def hostile_class(build, tmp, work):
    """The hostile class of the module's docstring, graded with a roster, then a rerun."""
    subs, out = tmp / "hostile", tmp / "hostile-class"
    subs.mkdir()
    make_hostile_class(subs)
    roster = tmp / "roster.csv"
    roster.write_text("login,student id,name\nalice,1001,Alice A.\nBob,1002,Bob B.\n")
    peak = []
    started = time.monotonic()
    rc, text = grade_all(build, subs, out, work, "--roster", str(roster), peak=peak)
    took = time.monotonic() - started
    print(text[-4000:])
    results = {r["folder"]: r for r in (json.loads(p.read_text()) for p in (out / "results").glob("*.json"))}
    expect(len(results) == 9, f"the class run finishes, one result per submission: {sorted(results)}")
    rows = list(csv.DictReader(open(out / "gradebook.csv")))
    by_folder = {r["folder"]: r for r in rows}
    alice, bob = results["alice"], results["Bob"]
    expect(alice["name"] == "alice" and alice["points"] > 0 and bob["points"] > 0 and
           group(bob, "OpenMP")["points"] == group(alice, "OpenMP")["points"],
           f"the honest students score: alice {alice['points']}, Bob {bob['points']}")
    for folder, sid, honest in (("alice", "1001", alice), ("Bob", "1002", bob)):
        row = by_folder[folder]
        expect(row["student_id"] == sid and row["points"] == f"{honest['points']:g}",
               f"with the roster, {folder}'s row ({sid}) holds {folder}'s own {honest['points']:g} points: {row}")
    for folder in ("_alice", "bob"):
        row = by_folder.get(folder, {})
        expect(row.get("points") == "0" and "collides with" in row.get("notes", ""),
               f"{folder} has a row of its own, with its own 0 and the collision noted: {row}")
    expect("collides with" in by_folder["alice"]["notes"] and "collides with" in by_folder["Bob"]["notes"],
           "and the collision is noted on the honest rows too")
    notes = lambda folder: " ".join(next(r for f, r in results.items() if f.startswith(folder))["notes"])
    expect("cannot be read" in notes("corrupt.zip"), f"the corrupt zip member is noted: {notes('corrupt.zip')}")
    expect("the archive breaks after" in notes("broken.tar.gz"),
           f"the broken .tar.gz stream is noted: {notes('broken.tar.gz')}")
    expect(group(results["broken.tar.gz"], "OpenMP")["points"] > 0, "its good first member is graded")
    olga = next(r for f, r in results.items() if f.startswith("olga-"))
    expect("not valid UTF-8" in " ".join(olga["notes"]) and olga["folder"] == "olga-\\xff\\xfe" and olga["points"] > 0,
           f"a folder named with bytes that are not UTF-8 is graded, its names noted: {olga['folder']}")
    expect("folders more than" in notes("deep") and results["deep"]["labs"][LAB]["state"] in ("graded", "build-error"),
           f"1,100 nested folders are graded, the depth noted: {notes('deep')}")
    flood = results["flood"]["labs"][LAB]
    log = out / "submissions" / "flood" / f"{LAB}-build.log"
    expect("cpu_openmp.cpp" in flood["detail"] and "bytes of output cut here" in log.read_text(errors="replace"),
           f"the compiler flood is a build error of cpu_openmp.cpp, its log cut: {flood['detail'][:200]}")
    cases = folder_bytes(out / "cases")  # the kit's cases and expected outputs, the same for any class
    size = folder_bytes(out) - cases
    expect(peak[0] < 256 and size < 50 << 20, f"labkit's own peak memory {peak[0]} MiB (under 256), the class folder "
                                               f"{size / 2**20:.1f} MiB (under 50) beside its cases/ "
                                               f"({cases / 2**20:.0f} MiB), in {took:.0f} s")
    gradebook = (out / "gradebook.csv").read_text()
    before = {p.name: p.read_text() for p in (out / "results").glob("*.json")}
    rc, text = grade_all(build, subs, out, work, "--roster", str(roster))
    expect("9 already graded" in text and (out / "gradebook.csv").read_text() == gradebook and
           {p.name: p.read_text() for p in (out / "results").glob("*.json")} == before,
           "a rerun resumes: nothing is graded again, nothing changes")
    again = subprocess.run([str(KIT / "labkit"), "gradebook", "--out", str(out)], cwd=KIT, capture_output=True, text=True)
    rows = {r["folder"]: r for r in csv.DictReader(open(out / "gradebook.csv"))}
    expect(again.returncode == 0 and rows["alice"]["points"] == f"{alice['points']:g}" and
           rows["Bob"]["points"] == f"{bob['points']:g}" and len(rows) == 9,
           "without a roster too, alice's and Bob's rows hold their own points")
    subprocess.run(["rm", "-rf", str(subs)], check=True)  # shutil.rmtree fails on the deep folders


def check_class_files(out, result):
    """injected's message is text in every class file: escaped in the Markdown (nothing of it
    renders), plain text in Gradescope's tests, escaped in junit.xml; and Gradescope's tests add up
    to the rubric's total, what was not graded here said."""
    feedback = (out / "feedback" / "injected.md").read_text()
    scout = json.loads((out / "gradescope" / "injected" / "results.json").read_text())
    rendered = [t for t in ("**Score", "<img", "[details](") if t in feedback + scout["output"]]
    expect(not rendered and "\\*\\*Score override by TA: 100/100\\*\\* &lt;img" in feedback,
           f"feedback and Gradescope's summary: the message is escaped Markdown ({rendered or 'nothing renders'})")
    shown = [t for t in scout["tests"] if "**Score override" in t["output"]]
    expect(shown and all(t["output_format"] == "text" for t in shown) and scout["output_format"] == "md",
           "Gradescope: the message as it is in a plain-text test; the summary is Markdown")
    junit = (out / "junit.xml").read_text()
    expect("<img" not in junit and "&lt;img" in junit, "junit.xml: the message is escaped")
    rubric_total = sum(g["rubric_points"] for g in result["labs"][LAB]["groups"] if not g["bonus"])
    expect(sum(t["max_score"] for t in scout["tests"]) == rubric_total > result["max_points"] and
           "not graded here" in scout["output"],
           f"Gradescope: max_scores add up to the rubric's {rubric_total}, the {result['max_points']:g} graded here said")


def group(result, title_start, lab=LAB):
    return next(g for g in result["labs"][lab]["groups"] if g["title"].startswith(title_start))


def sanitized_class(build, tmp):
    """--sanitize racecheck over two Lab 2 submissions (GPU only): the reference's files, and the
    same with a Kogge-Stone scan that lost its second barrier (tests/inject_bug.py ks_one_barrier:
    the output stays right on real GPUs, and racecheck reports the hazard every time)."""
    lab, variant, bug = "histogram_equalization", "gpu-01-global-atomics-ks-b256", "ks_one_barrier"
    subs, out, work = tmp / "subs-san", tmp / "class-san", tmp / "work-san"
    for name in ("good", "racy"):
        shutil.copytree(KIT / "solutions" / lab, subs / name)
    bugs = KIT / "labs" / lab / "kit" / "tests" / "reference" / "bugs.py"
    file = runpy.run_path(str(bugs))["BUGS"][bug]["file"]
    subprocess.run([sys.executable, str(KIT / "tests" / "inject_bug.py"), str(bugs), bug,
                    str(KIT / "solutions" / lab / file), str(subs / "racy" / file)], check=True)
    # The whole lab, as an instructor grades it: once the variant list handed to the sanitizer's
    # run named the kit's peers, which a submission's runner does not have; that run stopped at
    # once, and every group read "racecheck: clean" (a narrower --variants hid it).
    rc, text = grade_all(build, subs, out, work, "--sanitize", "racecheck", lab=lab)
    print(text[-3000:])
    results = {p.stem: json.loads(p.read_text()) for p in (out / "results").glob("*.json")}
    expect(sorted(results) == ["good", "racy"], "one result per submission")
    good, racy = group(results["good"], "Global atomics", lab), group(results["racy"], "Global atomics", lab)
    expect(good["sanitizer"] and good["sanitizer"]["clean"] and good["sanitizer"]["penalty"] == 0,
           f"racecheck finds nothing in the reference: {good['sanitizer']}")
    san = racy["sanitizer"] or {}
    expect(san.get("clean") is False and san.get("penalty", 0) > 0 and variant in san.get("variants", []),
           f"racecheck's finding in the one-barrier Kogge-Stone costs the rubric's penalty: {san}")
    expect(racy["points"] < good["points"], f"the racy submission scores less ({racy['points']} < {good['points']})")
    report_path = results["racy"]["labs"][lab].get("sanitizer", {}).get("report", "")
    report = json.loads(Path(report_path).read_text()) if report_path else {}
    expect(report.get("sandbox", "").startswith("bubblewrap") or "not sandboxed" in report.get("sandbox", "none"),
           f"the sanitized run says how the runner ran: {report.get('sandbox')}")
    kept = [v.get("sanitizer", {}).get("report", "") for v in report.get("variants", [])]
    expect(any(k and "Race reported" in Path(k).read_text(errors="replace") for k in kept),
           f"racecheck's whole report is kept for the student: {kept}")
    feedback = (out / "feedback" / "racy.md").read_text()
    expect(f"racecheck: errors found in {variant}" in feedback, "the feedback names the variant racecheck caught")
    for name, result in results.items():
        sanitized = result["labs"][lab].get("sanitizer") or {}
        expect(not sanitized.get("not_checked") and len(sanitized.get("variants", {})) > 1,
               f"{name}: the sanitizer watched the lab's GPU variants ({sorted(sanitized.get('variants', {}))}; "
               f"{sanitized.get('not_checked')})")
    return 0


def check_grader_options(build):
    """labkit offers the grader's own options (`<grader> options`), with the grader's help, and
    hands each on as given; a resumed class is regraded under any of them that differs: the key
    covers every one (once it missed --max-case-pixels and --python-simulate), and nothing else
    (--jobs changes no result)."""
    sys.path.insert(0, str(KIT / "cli"))
    from labkit import grader_cli  # noqa: E402
    from labkit.batch import options_key  # noqa: E402
    from labkit.cli import as_grade_all, make_parser  # noqa: E402
    from labkit.util import UsageError  # noqa: E402
    grader = build / "labs" / f"{LAB}_grader"
    spec = json.loads(subprocess.run([str(grader), "options"], capture_output=True, text=True, check=True).stdout)
    expect(len(spec) >= 10 and {"--sizes", "--quick", "--max-case-pixels"} <= {o["name"] for o in spec},
           f"the grader lists its grading options: {[o['name'] for o in spec]}")
    offered = grader_cli.spec_for(["grade-all", "--build-dir", str(build)])
    expect([o["name"] for o in offered] == [o["name"] for o in spec], "labkit offers exactly the grader's options")
    parse = lambda *extra: make_parser(offered).parse_args(["grade-all", "subs", *extra])
    key = lambda *extra: options_key(parse(*extra), [LAB])
    base = key()
    for o in spec:
        given = [o["name"], "7x3" if o["name"] == "--sizes" else "5"] if o["value"] else [o["name"]]
        expect(grader_cli.forwarded(parse(*given)) == given, f"grade-all {' '.join(given)} is handed on as given")
        expect(key(*given) != base, f"grade-all {' '.join(given)} resumes nothing graded without it")
    expect(key("--sanitize", "memcheck") != base, "--sanitize is keyed too")
    expect(key("--jobs", "4") == base, "--jobs changes no result: a resumed class keeps its results")
    help_text = " ".join(subprocess.run([str(KIT / "labkit"), "grade-all", "--help", "--build-dir", str(build)],
                                        capture_output=True, text=True).stdout.split())
    expect("--max-case-pixels" in help_text and "Numba's simulator" in help_text,
           "labkit's --help shows the grader's options with the grader's help")
    # grade --submission stands for grade-all --single: the same grader options, unchanged.
    parser = make_parser(offered)
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    given = ["--sizes", "7x3", "--no-perf", "--compile-timeout", "9.0"]
    asked = parser.parse_args(["grade", LAB, "--submission", "a/", "b.zip", *given])
    asked.command_parser = commands["grade"]
    alias = parser.parse_args(as_grade_all(asked, commands["grade-all"]))
    expect(alias.func.__name__ == "cmd_grade_all" and alias.single == ["a/", "b.zip"] and alias.paths == [LAB]
           and grader_cli.forwarded(alias) == grader_cli.forwarded(parse(*given)) and options_key(alias, [LAB]) == key(*given),
           "grade LAB --submission a/ b.zip OPTIONS is grade-all --single a/ --single b.zip OPTIONS LAB")
    asked = parser.parse_args(["grade", "--submission", "a/", "--plots"])
    asked.command_parser = commands["grade"]
    try:
        as_grade_all(asked, commands["grade-all"])
        expect(False, "grade --submission refuses an option grade-all does not have")
    except UsageError as e:
        expect("--plots" in str(e), f"grade --submission refuses an option grade-all does not have: {e}")
    refused = subprocess.run([str(KIT / "labkit"), "grade", LAB, "--build-dir", str(build), "--runs", "0", "--no-perf",
                              "--variants", "cpu-sequential"], capture_output=True, text=True)
    expect(refused.returncode == 2 and "--runs: must be a finite number above 0" in refused.stdout + refused.stderr,
           "a value the grader refuses gets the grader's message before anything is graded (exit 2)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default=str(KIT / "build"))
    parser.add_argument("--sanitize", action="store_true",
                        help="grade-all --sanitize racecheck on a racy Kogge-Stone instead (needs a GPU: exit 77)")
    options = parser.parse_args()
    build = Path(options.build_dir).resolve()
    if not (build / "labs" / f"{LAB}_solution_runner").exists() and not (KIT / "solutions").is_dir():
        print("SKIP: needs the reference solution (solutions/)")
        return 77
    check_grader_options(build)
    if options.sanitize:
        grader = build / "labs" / "histogram_equalization_grader"
        if subprocess.run([str(grader), "device"], capture_output=True).returncode != 0:
            print("SKIP: no CUDA device (compute-sanitizer watches kernels as they run)")
            return 77
        with tempfile.TemporaryDirectory() as tmp:
            sanitized_class(build, Path(tmp))
        print("all ok")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        subs, out, work = tmp / "subs", tmp / "class", tmp / "work"
        subs.mkdir()
        make_class(subs)
        rc, text = grade_all(build, subs, out, work)
        print(text[-3000:])
        expect(rc == 1, "exit 1: not every submission has full points")
        results = {p.stem: json.loads(p.read_text()) for p in (out / "results").glob("*.json")}
        expect(sorted(results) == ["empty", "good", "hog", "injected", "no_link", "one_bad", "wrong"],
               "one result per submission")
        expect(not list((out / "results").glob("*.partial*")), "no partial result file is left")
        gpu = bool(results["good"]["machine"]["gpu"])
        maxima = {r["labs"][LAB]["max_points"] for r in results.values()}
        expect(len(maxima) == 1, f"one denominator for every submission, whatever it did: {maxima}")
        top = maxima.pop()
        expect(top == (75 if gpu else 10), f"the maximum is the rubric's correctness points of what this machine "
               f"grades ({top}): performance is out with --no-perf" + ("" if gpu else ", the GPU groups without a GPU"))
        expect(results["good"]["points"] == top, "the reference's files get every point, beside a hog")
        expect(group(results["hog"], "OpenMP")["points"] == 10, "the hog exhausts only its own process limit and scores")
        expect(results["empty"]["points"] == 0, "an empty hand-in scores 0 (the baseline never scores)")
        expect(results["wrong"]["points"] == 0 or results["wrong"]["points"] < group(results["good"], "OpenMP")["points"],
               "a submission whose only variant fails does not get its points")
        bad = results["one_bad"]
        expect(group(bad, "OpenMP")["points"] == 10, "one file that does not compile costs nothing elsewhere: "
               "cpu-openmp still scores")
        ks = group(bad, "Kogge")
        statuses = {v["status"] for v in ks["variants"] if v["name"].startswith("gpu-02")}
        if gpu:
            expect(statuses == {"build-error"}, f"the Kogge-Stone variants are build-error ({statuses})")
        else:
            expect(not ks["graded"] and ks["why_not_graded"] == "no CUDA device",
                   "a GPU group without a GPU is not graded: out of the maximum, never zero, never full")
            expect(statuses <= {"build-error", "not-run"}, f"the Kogge-Stone variants are never passed: {statuses}")
        expect("02_kogge_stone.cu" in bad["labs"][LAB]["detail"], "the lab's detail names the file that did not compile")
        log = (out / "submissions" / "one_bad" / f"{LAB}-build.log").read_text()
        expect("this line is not C++" in log or "error" in log, "the compiler's message is kept in the build log")
        no_link = results["no_link"]["labs"][LAB]
        expect(no_link["state"] == "build-error" and no_link["points"] == 0, "a lab that does not link is build-error, 0 points")
        for name in results:
            expect((out / "feedback" / f"{name}.md").is_file() and (out / "gradescope" / name / "results.json").is_file(),
                   f"{name} gets its feedback and results.json")
        expect("main" in (out / "feedback" / "no_link.md").read_text(), "the build error's feedback shows the linker's message")
        cases = out / "cases"
        expect(stat.S_IMODE(cases.stat().st_mode) == 0o700, "the cases folder (expected outputs) is the instructor's alone")
        slots = sorted(p.name for p in cases.iterdir() if p.is_dir())
        expect(slots and all(p.startswith(f"{LAB}") or p.startswith("transpose") for p in slots) and
               not any(".tmp-" in p for p in slots), f"the cases were cached, one slot per exercise: {slots}")
        seeds = {json.loads(p.read_text())["seed"] for p in (out / "submissions").glob(f"*/{LAB}-*.json")}
        expect(seeds == {int((cases / "seed").read_text())},
               f"every submission was graded on the class's one seed, kept in cases/seed: {seeds}")
        rows = list(csv.DictReader(open(out / "gradebook.csv")))
        expect(len(rows) == 7 and {r["max_points"] for r in rows} == {f"{top:g}"}, "gradebook.csv: one row each, one maximum")
        check_class_files(out, results["injected"])

        before = {n: r["graded_at"] for n, r in results.items()}
        os.remove(out / "results" / "wrong.json")  # as if the run had stopped before it
        rc, text = grade_all(build, subs, out, work)
        kept = f"{len(results) - 1} already graded"
        expect(kept in text, f"a second run keeps the finished results ({kept})")
        again = {p.stem: json.loads(p.read_text()) for p in (out / "results").glob("*.json")}
        expect(all(again[n]["graded_at"] == before[n] for n in before if n != "wrong") and "wrong" in again,
               "it grades only the missing submission")
        (subs / "empty" / "cpu_openmp.cpp").write_bytes((KIT / "solutions" / LAB / "cpu_openmp.cpp").read_bytes())
        # Two of the class named with --single (what `grade LAB --submission PATH...` runs).
        rc, text = grade_all(build, None, out, work, "--single", str(subs / "empty"), "--single", str(subs / "good"))
        got = json.loads((out / "results" / "empty.json").read_text())
        expect(group(got, "OpenMP")["points"] == 10 and "1 already graded" in text,
               "a submission that changed is regraded, the other kept")
        full = all(json.loads((out / "results" / f"{n}.json").read_text())["points"] == top for n in ("empty", "good"))
        expect(text.index("=== submission empty") < text.index("=== submission good") and rc == (0 if full else 1),
               f"each one's table is printed, in the order given, and the exit status ({rc}) is theirs, not the "
               "class's (wrong lacks points)")
        rows = list(csv.DictReader(open(out / "gradebook.csv")))
        expect(len(rows) == 7, "the gradebook is the whole class's again")
        rc, text = grade_all(build, subs, out, work, "--force")
        expect("already graded" not in text and text.count("] ") >= len(results) - 1, "--force regrades every submission")
        hostile_class(build, tmp, work)
    print("all ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
