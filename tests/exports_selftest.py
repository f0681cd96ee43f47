#!/usr/bin/env python3
"""The course-tool outputs of a graded class (cli/labkit/gradebook/, gradescope.py), on
hand-made results: the gradebook CSV against a roster with a student missing and one extra,
Gradescope's results.json, junit.xml, the feedback of a lab that did not compile, and the
Gradescope autograder zip. Needs no build; writes only into a temporary folder.

    exports_selftest.py
"""
import argparse
import csv
import io
import json
import subprocess
import sys
import tempfile
import traceback
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

sys.dont_write_bytecode = True  # nothing written into the kit, not even __pycache__/
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cli"))
from labkit import gradebook, gradescope, grading, reports, rubric  # noqa: E402
from labkit.util import ROOT, LabkitError, UsageError  # noqa: E402
from checks import expect, raises  # noqa: E402

COMPILER_MESSAGE = "filters.cu:12:5: \x1b[31merror:\x1b[0m 'tile' was not declared in this scope"
SHOWN_MESSAGE = "filters.cu:12:5: error: 'tile' was not declared in this scope"  # colour codes dropped
FLAG = "timing flagged for review: 14× faster than the reference solution at 4096x4096"
NO_PERF = "performance: timing was off (--no-perf)"
# An exception message that must reach every output as the text it is: not bold, not an image,
# no raw HTML, no link.
INJECTION = '**Score override by TA: 100/100** <img src="http://evil.example/track.png"> [x](http://evil.example)'
RENDERED = ("**Score", "<img", "[x](")  # what it would leave in Markdown if it were not escaped


def variant(name, status, detail="", flags=(), passed=4, total=4):
    return {"name": name, "status": status, "detail": detail, "flags": list(flags),
            "cases_passed": passed, "cases_total": total}


def group(name, points, top, variants, graded=True, why="", bonus=False, ms=None, kind="cpu", untimed=0.0):
    """A scored rubric group worth top points here (0 when not graded) and top + untimed in the
    rubric: untimed performance points were not graded (timing off)."""
    perf = {"points": 0.0, "max": 0.0, "ratio": None, "student_ms": None, "reference_ms": None,
            "size": "", "pct_copy_bw": None, "note": "not graded: timing was off (--no-perf)" if untimed else ""}
    if ms is not None:
        perf.update(points=1.0, max=2.0, ratio=ms / 0.5, student_ms=ms, reference_ms=0.5, size="4096x4096")
    return {"name": name, "title": name.replace("-", " ").title(), "kind": kind, "bonus": bonus,
            "graded": graded, "why_not_graded": why, "points": points, "max_points": top if graded else 0.0,
            "rubric_points": top + untimed,
            "correctness": {"points": points, "max": top, "cases_passed": 4, "cases_total": 4},
            "performance": perf, "sanitizer": None, "variants": variants,
            "feedback": next((v["detail"] for v in variants if v["status"] != "pass"), "")}


def lab(groups, state="graded", detail="", not_graded=(), top=None):
    counted = [g for g in groups if g["graded"] and not g["bonus"]]
    bonus = [g for g in groups if g["graded"] and g["bonus"]]
    return {"points": sum(g["points"] for g in counted),
            "max_points": sum(g["max_points"] for g in counted) if top is None else top,
            "bonus_points": sum(g["points"] for g in bonus), "max_bonus": sum(g["max_points"] for g in bonus),
            "state": state, "detail": detail, "report": "", "not_graded": list(not_graded), "groups": groups}


def result(name, labs):
    return {"schema": "labkit-result/1", "name": name, "source": f"subs/{name}", "notes": [],
            "graded_at": "2026-11-23T10:00:00Z", "seconds": 12.3,
            "machine": {"gpu": "", "cpu": "Test CPU", "threads": 4}, "sandbox": "not sandboxed: test",
            "points": sum(l["points"] for l in labs.values()), "max_points": sum(l["max_points"] for l in labs.values()),
            "bonus_points": sum(l["bonus_points"] for l in labs.values()),
            "max_bonus": sum(l["max_bonus"] for l in labs.values()), "labs": labs, "_file": "private"}


def class_results():
    """alice: a graded lab (a failing group, a GPU group not graded, a bonus group with a flagged
    timing), a lab that does not compile, a lab that stopped with no group scored; bob and dave:
    full marks on one lab, graded without timing (5 performance points of the rubric not graded),
    dave with a file that did not compile. All three share a sandbox. The roster has alice, bob
    and carol (no submission), not dave."""
    alice = result("alice", {
        "integral_image": lab([
            group("cpu-openmp", 8.0, 10.0, [variant("cpu-openmp", "pass")], ms=1.2),
            group("cpu-naive", 0.0, 10.0, [variant("cpu-naive", "fail", "FAIL 1024x1: pixel (3,0) got 7 want 9", passed=3)]),
            group("gpu-scan", 0.0, 20.0, [variant("01_naive", "not-run", "no CUDA device", passed=0, total=0)],
                  graded=False, why="no CUDA device", kind="gpu"),
            group("cpu-blocked", 3.0, 5.0, [variant("cpu-blocked", "pass", flags=[FLAG])], bonus=True, ms=0.04),
        ], not_graded=["gpu-scan: no CUDA device"]),
        "convolution": lab([group("cpu-direct", 0.0, 20.0, [variant("cpu-direct", "build-error", COMPILER_MESSAGE, passed=0)])],
                           state="build-error", detail=COMPILER_MESSAGE),
        "histogram_equalization": lab([], state="error", detail="grader crashed: signal 11", top=10.0),
    })
    alice["notes"] = ["01_naive.cu: missing, the starter's is used", "integral_image: used: integral_image/cpu_openmp.cpp",
                      "integral_image: not handed in, starter used: 05_expert_sat.cu",
                      "convolution: not handed in, starter used: cpu_direct.cpp (none of this lab's files was handed in)"]
    full = lambda name: result(name, {"integral_image": lab([
        group("cpu-openmp", 10.0, 10.0, [variant("cpu-openmp", "pass")], untimed=2.0),
        group("cpu-naive", 10.0, 10.0, [variant("cpu-naive", "pass"), variant("cpu-naive-2", "todo", passed=0)],
              untimed=3.0)], not_graded=[NO_PERF])})
    dave = full("dave")
    dave["labs"]["integral_image"]["detail"] = "cpu_extra.cpp does not compile (the starter's is used)"
    return [alice, full("bob"), dave]


ROSTER = "\ufeffLogin,Student ID,Full Name,E-mail\nalice,1001,Alice A,alice@example.org\nBob,1002,Bob B,bob@example.org\n" \
         "carol,1003,Carol C,carol@example.org\n"


def check_roster(tmp):
    path = tmp / "roster.csv"
    path.write_text(ROSTER, encoding="utf-8")
    roster = gradebook.read_roster(path)
    expect(list(roster) == ["alice", "Bob", "carol"] and roster["alice"] == {"id": "1001", "name": "Alice A", "email": "alice@example.org"},
           "roster: Login / Student ID / Full Name / E-mail headers (with a byte-order mark) are recognised")
    (tmp / "dup.csv").write_text("username,name\nalice,A\nbob,B\nALICE,A2\n")
    expect(raises(UsageError, lambda: gradebook.read_roster(tmp / "dup.csv"), "'ALICE'"), "roster: a duplicate key is a UsageError naming it")
    (tmp / "nokey.csv").write_text("name,email\nA,a@x\n")
    expect(raises(UsageError, lambda: gradebook.read_roster(tmp / "nokey.csv"), "no column"), "roster: no key column is a UsageError")
    expect(raises(UsageError, lambda: gradebook.read_roster(tmp / "none.csv"), "not found"), "roster: a missing file is a UsageError")
    return roster


def check_load(tmp, results):
    rdir = tmp / "class" / "results"
    rdir.mkdir(parents=True)
    for r in results:
        (rdir / f"{r['name']}.json").write_text(json.dumps(r))
    (rdir / "broken.json").write_text('{"schema": "labkit-result/1", "na')
    (rdir / "other.json").write_text('{"schema": "something-else"}')
    erin = json.dumps(dict(results[1], name="erin"))  # complete JSON, but not a finished result file
    (rdir / "erin.json.partial").write_text(erin)
    (rdir / ".erin.json.x1y2.tmp").write_text(erin)
    loaded = gradebook.load_results(rdir)
    expect([r["name"] for r in loaded] == ["alice", "bob", "dave"],
           "load_results: complete results only (broken, foreign schema, .partial and temporary files left out)")
    return loaded


def check_csv(results, roster):
    labs = ["integral_image", "convolution", "histogram_equalization"]
    rows = list(csv.reader(io.StringIO(gradebook.gradebook_csv(results, roster, labs))))
    head = ["folder", "student_id", "name", "email", "points", "max_points", "percent", "bonus_points",
            "integral_image_points", "integral_image_max", "convolution_points", "convolution_max",
            "histogram_equalization_points", "histogram_equalization_max", "notes"]
    expect(rows[0] == head, f"gradebook.csv header: {rows[0]}")
    by = {r[0]: dict(zip(head, r)) for r in rows[1:]}
    expect(list(by) == ["alice", "Bob", "carol", "dave"], f"gradebook.csv rows in roster order, then the rest: {list(by)}")
    a = by["alice"]
    expect((a["student_id"], a["points"], a["max_points"], a["percent"], a["bonus_points"]) == ("1001", "8", "50", "16", "3"),
           f"alice: 8 of 50 points (the GPU group not graded is out of the maximum), 16%, bonus 3: {a}")
    expect((a["integral_image_points"], a["integral_image_max"], a["convolution_points"], a["convolution_max"]) == ("8", "20", "0", "20"),
           "alice: points and maximum per lab")
    expect(all(s in a["notes"] for s in ("convolution: build-error", "histogram_equalization: error",
                                         "not graded: gpu-scan", "timing flagged for review")),
           f"alice's notes: labs not graded, groups not graded, flagged timings: {a['notes']}")
    expect(by["Bob"]["points"] == "20" and by["Bob"]["email"] == "bob@example.org" and by["Bob"]["convolution_points"] == "",
           "Bob (roster spelling) matches the folder bob; a lab he was not graded on is blank")
    expect(by["carol"]["points"] == "" and by["carol"]["notes"] == "no submission", "carol: blank score, 'no submission'")
    expect(by["dave"]["student_id"] == "" and "not in roster" in by["dave"]["notes"], "dave: 'not in roster'")
    expect(by["Bob"]["notes"] == f"integral_image: not graded: {NO_PERF}" and
           "integral_image: cpu_extra.cpp does not compile" in by["dave"]["notes"],
           f"notes are each student's own: a part not graded for some only, a file that did not compile: "
           f"{by['Bob']['notes']!r}, {by['dave']['notes']!r}")
    expect(not any("sandbox" in r["notes"] for r in by.values()),
           "notes: what every row shares (the sandbox) is not repeated on each")
    expect("01_naive.cu: missing" in a["notes"] and "convolution: none of this lab's files was handed in" in a["notes"]
           and "used:" not in a["notes"] and "05_expert_sat.cu" not in a["notes"],
           f"notes: the staging notes that are exceptions, a lab with nothing handed in; not the paths used nor "
           f"the files not handed in (the feedback lists them): {a['notes']}")
    bare = list(csv.reader(io.StringIO(gradebook.gradebook_csv(results, None, labs))))
    expect(len(bare) == 4 and not any("roster" in r[-1] for r in bare), "without a roster: one row per result, no roster notes")


def check_gradescope(results):
    alice = gradebook.gradescope_results(results[0])
    json.dumps(alice)
    tests = {t["name"]: t for t in alice["tests"]}
    expect(alice["score"] == 11.0 and sum(t["score"] for t in alice["tests"]) == alice["score"],
           f"gradescope: score = points + bonus = the sum of the tests' scores ({alice['score']})")
    expect(sum(t["max_score"] for t in alice["tests"]) == 70 and results[0]["max_points"] == 50,
           "gradescope: the tests' max_score add up to the rubric's total, 70 (the kit's maximum here, 50, leaves out "
           "the GPU group not graded; the bonus counts 0)")
    expect("The rubric's total is 70 points" in alice["output"] and "20 of them were not graded here" in alice["output"]
           and "\n- integral_image, Gpu Scan: 20 points (no CUDA device)" in alice["output"],
           f"gradescope: the summary says which of the rubric's points were not graded here: {alice['output'][:300]!r}")
    expect(all(t["visibility"] == "visible" and t["name"].split(": ")[0] in results[0]["labs"] for t in alice["tests"]),
           "gradescope: every test is visible and named '<lab>: <title>'")
    bonus = tests["integral_image: Cpu Blocked (bonus)"]
    expect(bonus["max_score"] == 0 and bonus["score"] == 3.0, "gradescope: the bonus group is marked, max_score 0")
    gpu = tests["integral_image: Gpu Scan"]
    expect(gpu["max_score"] == 20 and gpu["score"] == 0 and "status" not in gpu and
           gpu["output"].startswith("Not graded here (no CUDA device): 20 of this part's 20 points"),
           f"gradescope: a group not graded keeps its rubric points as max_score, has no status and says why: {gpu}")
    expect(tests["integral_image: Cpu Openmp"]["status"] == "failed" and tests["integral_image: Cpu Naive"]["status"] == "failed",
           "gradescope: a group below its maximum has status failed")
    expect(tests["histogram_equalization: error"]["max_score"] == 10.0, "gradescope: a lab without groups is one test")
    expect(alice["output_format"] == "md" and "was not declared" in alice["output"], "gradescope: the summary shows the compiler message")
    expect(alice["test_output_format"] == alice["test_name_format"] == "text" and
           all(t["output_format"] == t["name_format"] == "text" for t in alice["tests"]),
           "gradescope: every format is set: the summary Markdown, the tests' names and outputs plain text")
    expect(alice["leaderboard"] == [{"name": "integral_image best kernel ms", "value": 1.2, "order": "asc"}],
           f"gradescope: leaderboard holds the best time that is not flagged: {alice['leaderboard']}")
    bob = gradebook.gradescope_results(results[1])
    expect(bob["score"] == 20.0 and all(t["status"] == "passed" for t in bob["tests"]), "gradescope: full marks pass")
    naive = {t["name"]: t for t in bob["tests"]}["integral_image: Cpu Naive"]
    expect(naive["max_score"] == 13 and naive["output"].startswith(
        "Not graded here (performance: timing was off (--no-perf)): 3 of this part's 13 points"),
           f"gradescope: performance points not graded stay in max_score, and the output says so: {naive}")


def check_junit(results):
    root = ET.fromstring(gradebook.junit_xml(results).encode())
    suites = root.findall("testsuite")
    expect([s.get("name") for s in suites] == ["alice.integral_image", "alice.convolution", "alice.histogram_equalization",
                                               "bob.integral_image", "dave.integral_image"],
           "junit.xml parses (ANSI escapes removed); one testsuite per submission and lab")
    ii = suites[0]
    expect((ii.get("tests"), ii.get("failures"), ii.get("skipped")) == ("4", "1", "1"),
           f"junit: alice.integral_image has 4 tests, 1 failure, 1 skipped ({dict(ii.attrib)})")
    case = ii.find("testcase[@name='cpu-naive']")
    expect(case.get("classname") == "alice.integral_image.cpu-naive" and "pixel (3,0)" in case.find("failure").get("message"),
           "junit: the failing variant's testcase has classname <name>.<lab>.<group> and a failure message")
    conv = suites[1].find("testcase/failure")
    expect(conv is not None and SHOWN_MESSAGE in conv.text,
           "junit: the build-error is a failure holding the compiler message")
    expect(all(int(root.get(k)) == sum(int(s.get(k)) for s in suites) for k in ("tests", "failures", "skipped")) and
           all(int(s.get("tests")) == len(s.findall("testcase")) for s in suites) and root.get("tests") == "12",
           "junit: the counts add up at every level")


def check_feedback(results):
    md = gradebook.feedback_markdown(results[0])
    expect("```text\n" + SHOWN_MESSAGE + "\n```" in md, "feedback: the build-error lab shows the compiler's message in a fenced block")
    expect("| Cpu Naive | 0 | 10 | FAIL 1 | - | FAIL 1024x1: pixel (3,0) got 7 want 9; 4/4 cases |" in md and "1.200 ms vs 0.500 ms for the reference" in md,
           "feedback: a table row per group with points, status and time vs reference")
    expect("no CUDA device" in md and "## What to do next" in md and "make it compile" in md and
           "01_naive.cu: missing" in md, "feedback: not-graded reasons, staging notes and next steps")
    expect("Nothing: every graded part" not in md and "still to implement" in gradebook.feedback_markdown(results[1]),
           "feedback: next steps follow the result (a TODO variant is to implement)")


def check_variant_timing():
    """A variant's own time against the reference's same variant, at the largest size both
    timed; nothing for a variant that failed or was not timed."""
    def report(times, status="pass"):
        return {"variants": [{"name": "v", "status": status, "flags": []}],
                "performance": [{"variant": "v", "pattern": "random", "params": "", "width": n, "height": n,
                                 "kernel_ms": ms, "pct_copy_min_bytes": 10.0 * n / 1024} for n, ms in times]}
    got = rubric.variant_timing("v", report([(1024, 2.0), (2048, 8.0), (4096, 40.0)]),
                                report([(1024, 1.0), (2048, 4.0)]))
    expect(got == {"ms": 8.0, "ratio": 2.0, "pct_copy_bw": 20.0, "size": "2048x2048"},
           f"variant_timing: the largest size both timed: {got}")
    alone = rubric.variant_timing("v", report([(1024, 2.0)]), None)
    expect(alone["ratio"] is None and alone["ms"] == 2.0, f"variant_timing without a reference: {alone}")
    expect(rubric.variant_timing("v", report([(1024, 2.0)], "fail"), None) == {}, "variant_timing of a failing variant: {}")


def check_steady_cpu_timings():
    """CPU performance points at one thread in each run's machine speed: the kit's sequential
    reference settled in both runs, the ratio divided by its drift between them (within max_drift);
    a team of threads compared as timed, whatever that one thread did; either way the reference
    solution's own measurement settled (its median_error within settled_error); else "not graded:
    machine too noisy", out of the maximum. The student's own noise never decides it."""
    kit = [{"name": "cpu-sequential", "kind": "cpu", "reference": True}, {"name": "cpu-openmp", "kind": "cpu"}]
    rules = rubric.parse('[[group]]\nvariants = ["cpu-openmp"]\ncorrectness = 10\nperformance = 5\n', "lab", "t.toml", kit)
    runs = 25  # a median_error is a spread over the root of the count: 0.3 over 5

    def report(anchor_ms, ms, anchor_noise=0.02, noise=0.02, settled=0.05, threads=1):
        out = {"variants": [{"name": "cpu-sequential", "kind": "cpu", "reference": True, "exercise": "e", "status": "pass"},
                            {"name": "cpu-openmp", "kind": "cpu", "exercise": "e", "status": "pass",
                             "cases_passed": 4, "cases_total": 4}],
               "performance": [{"variant": v, "exercise": "e", "pattern": "random", "params": "", "width": 2048,
                                "height": 2048, "threads": t, "kernel_ms": m, "noise": n, "runs": runs,
                                "median_error": n / runs ** 0.5}
                               for v, t, m, n in (("cpu-sequential", 1, anchor_ms, anchor_noise),
                                                  ("cpu-openmp", threads, ms, noise))]}
        if settled is not None:
            out["settled_error"] = settled
        return out

    reference = report(10.0, 3.0)
    perf = lambda mine, ref=reference: rubric.score_lab(rules, mine, ref, timing=True)["groups"][0]["performance"]
    steady = perf(report(10.5, 3.0))
    expect(steady["points"] == 5 and steady["max"] == 5 and "known only" not in steady["note"],
           f"a machine that held still: graded ({steady})")
    # Calls that spread 20% (an 8-thread team's short calls spread more) whose median settled: graded.
    spread = perf(report(10.0, 3.0), report(10.0, 3.0, noise=0.2))
    expect(spread["max"] == 5 and spread["points"] == 5, f"a spread whose median settled is graded ({spread})")
    # A machine that ran slower in this run costs no one: the ratio is divided by the kit's drift.
    slower = perf(report(12.0, 3.6))
    expect(slower["points"] == 5 and slower["ratio"] == 1.0 and slower["drift"] == 1.2 and "1.20x as timed, over 1.20x"
           in slower["note"], f"a machine 1.2x slower in this run: the ratio in its own speed ({slower})")
    faster = perf(report(8.0, 6.0))
    expect(faster["ratio"] == 2.5 and faster["points"] < 5, f"and one that ran faster gives no one its speed ({faster})")
    for why, mine, ref, said in (
            ("the kit's reference ran 1.4x slower than in the reference's run", report(14.0, 3.0), reference, "took 1.40x"),
            ("the kit's reference was noisy in this run", report(10.0, 3.0, anchor_noise=0.5), reference,
             "known only within 10% (its 25 calls spread 50%; bound 5%)"),
            ("the reference solution's run was noisy", report(10.0, 3.0), report(10.0, 3.0, anchor_noise=0.5), "within 10%"),
            ("the reference solution's own measurement was noisy", report(10.0, 3.0), report(10.0, 3.0, noise=0.4),
             "reference solution's cpu-openmp's median was known only within 8%")):
        got = perf(mine, ref)
        expect(got["points"] == 0 and got["max"] == 0 and got["note"].startswith("not graded: machine too noisy")
               and said in got["note"], f"{why}: not graded, out of the maximum, saying why ({got})")
    # A team of threads is compared as timed: one thread's time says how fast its own core was
    # (on an H200 node's KVM guest, 1.5x apart between two runs while the teams kept their times).
    team_reference = report(10.0, 3.0, threads=4)
    for anchor_ms, ms, points in ((16.0, 3.0, 5), (6.0, 3.0, 5), (16.0, 5.4, 3.33)):
        team = perf(report(anchor_ms, ms, threads=4), team_reference)
        expect(team["max"] == 5 and team["points"] == points and team["drift"] == 1 and "as timed" not in team["note"],
               f"a team of 4 whose kit's one thread took {anchor_ms} ms against 10: compared as timed ({team})")
    noisy_team = perf(report(10.0, 3.0, threads=4), report(10.0, 3.0, noise=0.4, threads=4))
    expect(noisy_team["max"] == 0 and "reference solution's cpu-openmp's median was known only" in noisy_team["note"],
           f"a team still needs the reference solution's own median settled ({noisy_team})")
    lab = rubric.score_lab(rules, report(16.0, 3.0), reference, timing=True)
    expect(lab["max_points"] == 10 and any(n.startswith("performance: machine too noisy") for n in lab["not_graded"]),
           f"the lab says what was not graded: {lab['not_graded']}")
    # A slow submission that makes its own calls vary at will is still scored, from their median.
    jittery = perf(report(10.0, 9.0, noise=0.6))
    expect(jittery["max"] == 5 and jittery["points"] < 5 and "known only within 12%" in jittery["note"],
           f"the student's own noise is scored, not excused: {jittery}")
    old = perf(report(16.0, 3.0, settled=None), report(10.0, 3.0, settled=None))
    expect(old["points"] == 5 and old["ratio"] == 1.0, f"a report without the bound (an older grader's) is not judged ({old})")
    loose = rubric.parse('[performance]\nmax_drift = 0.7\n[[group]]\nvariants = ["cpu-openmp"]\ncorrectness = 10\n'
                         'performance = 5\n', "lab", "t.toml", kit)
    expect(rubric.score_lab(loose, report(16.0, 4.8), reference, timing=True)["groups"][0]["performance"]["points"] == 5,
           "a rubric's max_drift widens the bound")
    tight = rubric.parse('[performance]\nmax_drift = 0.1\n[[group]]\nvariants = ["cpu-openmp"]\ncorrectness = 10\n'
                         'performance = 5\n', "lab", "t.toml", kit)
    expect(rubric.score_lab(tight, report(11.5, 3.0), reference, timing=True)["groups"][0]["performance"]["max"] == 0,
           "and narrows it")
    expect(raises(UsageError, lambda: rubric.parse('[performance]\nmax_drift = -1\n', "lab", "t.toml", kit), "max_drift"),
           "a negative max_drift is refused")


def check_sanitizer_scores():
    """grade-all --sanitize: a GPU group with a variant the sanitizer found errors in loses the
    rubric's share, the feedback names the variant and its finding; a variant it could not watch
    all through (its check timed out) costs nothing and is named; CPU groups are never touched."""
    from labkit.sanitize import rubric_view
    kit = [{"name": "cpu-openmp", "kind": "cpu"}, {"name": "gpu-a", "kind": "gpu"}, {"name": "gpu-b", "kind": "gpu"},
           {"name": "gpu-c", "kind": "gpu"}]
    text = ('[sanitizer]\npenalty = 0.5\n[[group]]\nvariants = ["cpu-openmp"]\ncorrectness = 10\n'
            '[[group]]\nvariants = ["gpu-a", "gpu-b"]\ncorrectness = 20\n[[group]]\nvariants = ["gpu-c"]\ncorrectness = 6\n')
    rules = rubric.parse(text, "lab", "test.toml", kit)
    report = {"variants": [dict(variant(v["name"], "pass"), kind=v["kind"]) for v in kit]}
    watched = {"gpu-a": {"clean": False, "checked": True, "findings": ["Race reported between Write access at k+0x70"]},
               "gpu-b": {"clean": True, "checked": True, "findings": []},
               "gpu-c": {"clean": True, "checked": False, "findings": []}}
    scored = rubric.score_lab(rules, report, sanitized=rubric_view("racecheck", watched))
    cpu, ab, c = scored["groups"]
    expect(cpu["sanitizer"] is None and cpu["points"] == 10, "a CPU group is never sanitized")
    expect(ab["points"] == 10 and ab["sanitizer"]["penalty"] == 10 and ab["sanitizer"]["variants"] == ["gpu-a"],
           f"a finding costs the group half its points (penalty 0.5): {ab['points']}, {ab['sanitizer']}")
    expect(c["points"] == 6 and not c["sanitizer"]["clean"] and c["sanitizer"]["not_checked"]
           and c["sanitizer"]["unchecked"] == ["gpu-c"],
           f"a group whose one variant the sanitizer could not watch through costs nothing, is not called "
           f"clean, and names it: {c['sanitizer']}")
    said = gradebook.text._sanitizer_text(ab["sanitizer"])
    expect("racecheck: errors found in gpu-a (Race reported" in said and "-10 points" in said,
           f"the feedback names the variant and its first finding: {said!r}")
    said = gradebook.text._sanitizer_text(c["sanitizer"])
    expect("racecheck: not checked" in said and "clean" not in said and "could not watch gpu-c" in said,
           f"and the unwatched one: {said!r}")
    # A sanitizer run that failed (the grader stopped at once: once, a --variants list naming the
    # kit's peers, which a submission's runner does not have) watched nothing: every GPU group
    # reads "not checked: <why>" in the feedback and the gradebook's notes, and costs nothing.
    failed = rubric.score_lab(rules, report, sanitized=rubric_view(
        "racecheck", {}, "the sanitizer's grader run failed: --variants: 'peer-cub' matches no variant"))
    for g in failed["groups"][1:]:
        said = gradebook.text._sanitizer_text(g["sanitizer"])
        expect(g["points"] == g["max_points"] and not g["sanitizer"]["clean"] and "clean" not in said
               and "not checked: the sanitizer's grader run failed: --variants: 'peer-cub'" in said,
               f"a sanitizer run that failed is 'not checked', never 'clean': {g['sanitizer']}, {said!r}")
    notes = gradebook.csv_gradebook._notes({"labs": {"lab": failed}})
    expect(any("racecheck: not checked" in n for n in notes), f"and the gradebook's notes say so: {notes}")
    # What a class run sanitizes: the submission runner's GPU variants that ran to their end;
    # never the reference, nor the kit's peers, nor a TODO or a hung one.
    from labkit.sanitize import gpu_variants, ran_to_the_end
    rows = [dict(variant("gpu-a", "pass"), kind="gpu"), dict(variant("gpu-b", "fail"), kind="gpu"),
            dict(variant("gpu-c", "todo"), kind="gpu"), dict(variant("gpu-d", "timeout"), kind="gpu"),
            dict(variant("peer-cub", "pass"), kind="gpu", peer=True),
            dict(variant("cpu-sequential", "pass"), kind="cpu", reference=True)]
    chosen = [v["name"] for v in ran_to_the_end({"variants": rows}, None)]
    expect(chosen == ["gpu-a", "gpu-b"], f"a class run sanitizes the variants that ran to their end: {chosen}")
    expect([v["name"] for v in gpu_variants(rows, "*")] == ["gpu-a", "gpu-b", "gpu-c", "gpu-d"],
           "a peer is never a student's GPU variant")


def check_summary(results):
    """The per-variant table (the terminal's for --single, summary.md's for a class) and the class
    table: every variant of every lab, its status, cases, its group's points once, and its own
    time against the reference where it was timed."""
    alice = results[0]
    alice["labs"]["integral_image"]["groups"][0]["variants"][0]["timing"] = {
        "ms": 1.2, "ratio": 1.5, "pct_copy_bw": 41.6, "size": "4096x4096"}
    rows = gradebook.variant_rows(alice)
    expect(len(gradebook.VARIANT_COLUMNS) == len(rows[0]), "variant rows have one cell per column")
    by_name = {r[2]: r for r in rows}
    expect(set(by_name) >= {"cpu-openmp", "cpu-naive", "01_naive", "cpu-blocked", "cpu-direct"},
           f"every variant of every lab has a row: {sorted(by_name)}")
    expect(by_name["cpu-openmp"][5:] == ["8/10", "1.50x", "42%"], f"points, time vs ref, % copy BW: {by_name['cpu-openmp']}")
    expect(by_name["cpu-naive"][3:5] == ["FAIL", "3/4"], f"status and cases: {by_name['cpu-naive']}")
    expect(by_name["01_naive"][3].startswith("not graded") and by_name["01_naive"][5] == "not graded",
           f"a group not graded says so: {by_name['01_naive']}")
    expect(any(r[0] == "histogram_equalization" and r[3] == "error" for r in rows), "a lab with no group still has a row")
    expect([r[0] for r in rows if r[0]] == list(alice["labs"]), f"each lab is named once, on its first row: {[r[0] for r in rows]}")
    expect(any("(bonus)" in r[1] for r in rows), "bonus groups are named as such")
    text = gradebook.summary_tables(results)
    expect(text.count("## ") == len(results) and "| lab | part | variant |" in text and "\\|" not in text.split("## alice")[0],
           "summary.md: one section per submission, a Markdown table each")
    header, class_table = gradebook.class_rows(results)
    expect(header[0] == "submission" and header[-2:] == ["total", "percent"] and len(class_table) == len(results),
           f"the class table: one row per submission: {header}")
    expect(class_table[0][header.index("convolution")] == "0/20 (build-error)", f"a lab's state is shown: {class_table[0]}")


def check_student_text(tmp):
    """Reading: one invalid byte or a lone surrogate in a grader's report or a result costs
    nothing but that character; a huge text is cut with a note saying how much."""
    report = tmp / "hostile-report.json"
    report.write_bytes(b'{"variants": [{"name": "cpu-openmp", "status": "error", '
                       b'"detail": "bad \xff byte, \\udcff surrogate, \\u001b[31mred\\u001b[0m"}]}')
    detail = grading.read_report(report)["variants"][0]["detail"]
    expect(detail == "bad \ufffd byte, ? surrogate, red",
           f"read_report: invalid UTF-8 replaced, a lone surrogate and colour codes gone: {detail!r}")
    rdir = tmp / "hostile-results"
    rdir.mkdir()
    (rdir / "eve.json").write_bytes(json.dumps(result("eve", {})).encode().replace(b'"subs/eve"', b'"subs/\xffeve"'))
    expect([r["name"] for r in gradebook.load_results(rdir)] == ["eve"], "load_results: a result with an invalid byte is read")
    huge = reports.student_text("x" * 100_000)
    expect(len(huge) <= reports.STUDENT_TEXT_MAX and huge.endswith(" [... 98,048 more characters cut]")
           and reports.student_text(huge) == huge,
           f"student_text caps at STUDENT_TEXT_MAX with a note of what was cut, and once: {huge[-40:]!r}")


def hostile_result():
    """eve: an exception message made of Markdown and HTML, a flag and a handed-in file name in
    the same vein, and a lab whose compiler message holds a fence and a heading."""
    eve = result("eve", {
        "integral_image": lab([group("cpu-openmp", 0.0, 10.0, [variant("cpu-openmp", "error", INJECTION, flags=[INJECTION])])]),
        "convolution": lab([group("cpu-direct", 0.0, 10.0, [variant("cpu-direct", "build-error", "x", passed=0)])],
                           state="build-error", detail="```\n# not a heading\n````"),
    })
    eve["notes"] = ["integral_image: [x](http://evil.example).cu refused (a symbolic link), starter used", "# not a heading"]
    return eve


def check_escaping(tmp):
    """Writing: the hostile text appears as the text it is in every format: Markdown (feedback,
    summary.md, Gradescope's summary) with nothing rendered; plain text in Gradescope's tests;
    XML escaped; CSV quoted and no formula."""
    eve = hostile_result()
    escaped = "\\*\\*Score override by TA: 100/100\\*\\* &lt;img src=\"http://evil.example/track.png\"&gt; \\[x\\](http"
    scout = gradebook.gradescope_results(eve)
    markdown = {"feedback": gradebook.feedback_markdown(eve), "summary.md": gradebook.summary_tables([eve]),
                "Gradescope's summary": scout["output"]}
    for where, text in markdown.items():
        left = [r for r in RENDERED if r in text]
        expect(not left and (escaped in text or where != "feedback"),
               f"{where}: the message is escaped, nothing of it renders ({left or 'escaped'})")
    expect("\\[x\\](http://evil.example).cu refused" in markdown["feedback"] and "\n- \\# not a heading" in markdown["feedback"],
           "feedback: a handed-in file name is escaped, a note cannot open a heading")
    expect("\n`````text\n```\n# not a heading\n````\n`````\n" in scout["output"],
           "Gradescope's summary: a compiler message is fenced by more backticks than it holds")
    test = scout["tests"][0]
    expect(INJECTION in test["output"] and test["output_format"] == "text",
           "Gradescope's test: the message as it is, in a test shown as plain text")
    xml = gradebook.junit_xml([eve])
    failure = ET.fromstring(xml.encode()).find("testsuite/testcase/failure")
    expect("<img" not in xml and INJECTION in failure.get("message") and INJECTION in failure.text,
           "junit.xml: the message is escaped in the file and reads back as written")
    control = gradebook.junit._xml_text("a\x01\x1b[31mb\ufffe<&>")
    expect(control == "ab?<&>",
           f"junit.xml: control characters gone, what XML 1.0 cannot hold replaced: {control!r}")
    cells = ["=HYPERLINK(\"http://evil.example\")", "+1+2", "-1-2", "@SUM(A1)", "\tx", "-2.5", "+7", 'a,b"c\nd', 5, -2.5]
    back = next(csv.reader(io.StringIO(reports.csv_text([cells]))))
    expect(back == ["'=HYPERLINK(\"http://evil.example\")", "'+1+2", "'-1-2", "'@SUM(A1)", "'\tx", "-2.5", "+7",
                    'a,b"c\nd', "5", "-2.5"],
           f"csv_text: formulas neutralised, plain numbers kept, quoting round-trips: {back}")
    roster = {"eve": {"id": "=1+1", "name": "@cmd", "email": "-x"}}
    row = list(csv.reader(io.StringIO(gradebook.gradebook_csv([eve], roster, ["integral_image", "convolution"]))))[1]
    expect(row[1:4] == ["'=1+1", "'@cmd", "'-x"], f"gradebook.csv: a roster cell is no formula either: {row[1:4]}")


def check_class_outputs(tmp, results, roster):
    out = tmp / "class"
    evil = json.loads(json.dumps(results[1]))
    evil["name"] = ".evil"
    paths = gradebook.write_class_outputs(out, results + [evil], roster)
    want = {out / "gradebook.csv", out / "junit.xml", out / "summary.md"} | {p for r in ("alice", "bob", "dave") for p in (
        out / "gradescope" / r / "results.json", out / "feedback" / f"{r}.md", out / "feedback" / f"{r}.json")}
    expect(set(paths) == want and all(p.is_file() for p in want), "write_class_outputs writes every file, and returns them")
    expect(not any(".evil" in str(p) for p in out.rglob("*")), "a result named .evil is left out")
    public = json.loads((out / "feedback" / "alice.json").read_text())
    expect("_file" not in public and public["name"] == "alice", "feedback/<name>.json has no private fields")
    args = argparse.Namespace(out=str(out), roster=str(tmp / "roster.csv"))
    expect(gradebook.cmd_gradebook(args) == 0, "cmd_gradebook rebuilds the outputs from <out>/results/")
    empty = argparse.Namespace(out=str(tmp / "empty"), roster=None)
    expect(raises(LabkitError, lambda: gradebook.cmd_gradebook(empty), "no results"), "cmd_gradebook without results: LabkitError")


# Stand-ins for ./labkit in a fake /autograder: one that fails at once, one that grades (it
# writes the submission's Gradescope results, then exits 1 as grade-all does for a failing variant).
FAILING_LABKIT = "#!/bin/sh\nexit 3\n"
GRADING_LABKIT = """#!/bin/sh
while [ $# -gt 0 ]; do [ "$1" = --out ] && out="$2"; shift; done
mkdir -p "$out/gradescope/submission" && echo '{"score": 7.5, "tests": []}' >"$out/gradescope/submission/results.json"
exit 1
"""


def run_autograder(tmp, script, labkit):
    """The results.json that run_autograder leaves in a fake /autograder whose ./labkit is labkit."""
    fake = Path(tempfile.mkdtemp(dir=tmp)) / "autograder"
    kit = fake / "source" / "source"
    kit.mkdir(parents=True)
    (kit / "labkit").write_text(labkit)
    (kit / "labkit").chmod(0o755)
    path = fake / "run_autograder"
    path.write_text(script.replace("/autograder", str(fake)))
    subprocess.run(["bash", str(path)], capture_output=True, timeout=60)
    return json.loads((fake / "results" / "results.json").read_text())


def check_bundle_rules():
    left_out = ["build/build.ninja", "build-submissions/x.o", "results/class.csv", "dist/kit.tar.gz",
                ".scratch/notes.md", "third_party/debs/catch2.deb", "cli/labkit/__pycache__/util.cpython-311.pyc"]
    kept = ["labkit", "cli/labkit/build.py", "solutions/integral_image/cpu_openmp.cpp", "third_party/README.md"]
    expect(not any(map(gradescope.bundled, left_out)) and all(map(gradescope.bundled, kept)),
           "bundle: build*/, results/, dist/, .scratch/, third_party/debs/ and caches are left out, solutions/ kept")
    expect(gradescope.entry_mode("source/labkit", 0o100644) == 0o755 and gradescope.entry_mode("run_autograder", 0) == 0o755
           and gradescope.entry_mode("source/README.md", 0o100644) == 0o644 and gradescope.entry_mode("source/t.py", 0o100755) == 0o755,
           "bundle: labkit and the scripts are 0755 even when the checkout lost the bit; other files keep theirs")


def check_bundle(tmp):
    out = tmp / "autograder.zip"
    args = argparse.Namespace(out=str(out), labs="integral_image", no_perf=True)
    expect(gradescope.cmd_gradescope_bundle(args) == 0 and out.is_file(), "cmd_gradescope_bundle writes the zip")
    with zipfile.ZipFile(out) as z:
        infos = {i.filename: i for i in z.infolist()}
        mode = lambda name: (infos[name].external_attr >> 16) & 0o777
        expect(all(mode(n) == 0o755 for n in ("setup.sh", "run_autograder", "source/labkit")),
               "zip: setup.sh, run_autograder and source/labkit have mode 0755")
        has_solutions = (ROOT / "solutions").is_dir()  # not in the student tarball, whose tests run this too
        expect(any(n.startswith("source/cli/labkit/") for n in infos) and
               any(n.startswith("source/solutions/") for n in infos) == has_solutions,
               "zip: source/cli/ is in" + (", and source/solutions/" if has_solutions else " (this kit has no solutions/)"))
        bad = [n for n in infos if n.count("/") > 1 and n.split("/")[1].startswith(("build", "results", "dist", ".scratch", ".git"))
               or n.startswith("source/third_party/debs/") or "__pycache__" in n]
        expect(not bad, f"zip: no build*/, results/, dist/, .git, debs or caches: {bad[:3]}")
        run = z.read("run_autograder").decode()
        setup = z.read("setup.sh").decode()
    expect("OUT=/autograder/results/labkit\n" in run and
           'grade-all --single /autograder/submission --out "$OUT" --no-perf integral_image\n' in run,
           "run_autograder grades the submission with --no-perf and the chosen lab")
    expect("cd \"$KIT\"" in setup and "./labkit setup --cuda auto" in setup and " meson " in setup,
           "setup.sh installs the kit's packages and runs ./labkit setup in the kit")
    for name, text in (("setup.sh", setup), ("run_autograder", run)):
        syntax = subprocess.run(["bash", "-n"], input=text, capture_output=True, text=True)
        expect(syntax.returncode == 0, f"{name} is valid bash {syntax.stderr.strip()}")
    expect(run_autograder(tmp, run, GRADING_LABKIT) == {"score": 7.5, "tests": []},
           "run_autograder copies the submission's results.json (grade-all's exit 1 notwithstanding)")
    fallback = run_autograder(tmp, run, FAILING_LABKIT)
    expect(fallback["score"] == 0 and "exit status 3" in fallback["output"] and fallback["output_format"] == "text",
           "run_autograder writes a results.json with score 0 and the reason when labkit fails")
    bad_lab = argparse.Namespace(out=str(tmp / "x.zip"), labs="nosuchlab", no_perf=False)
    expect(raises(UsageError, lambda: gradescope.cmd_gradescope_bundle(bad_lab), "nosuchlab"), "--labs with an unknown lab: UsageError")


def main():
    with tempfile.TemporaryDirectory(prefix="labkit-exports-") as tmp:
        tmp = Path(tmp)
        roster = check_roster(tmp)
        results = check_load(tmp, class_results())
        check_csv(results, roster)
        check_gradescope(results)
        check_junit(results)
        check_feedback(results)
        check_variant_timing()
        check_steady_cpu_timings()
        check_sanitizer_scores()
        check_summary(results)
        check_student_text(tmp)
        check_escaping(tmp)
        check_class_outputs(tmp, results, roster)
        check_bundle_rules()
        check_bundle(tmp)
    print("all ok")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # a bug the checks did not foresee: still a failure, with its place
        traceback.print_exc()
        print(f"FAILED: unexpected {e.__class__.__name__}: {e}")
        sys.exit(1)
