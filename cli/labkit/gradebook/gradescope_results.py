"""Gradescope's results.json of one submission: its summary in Markdown, a test per rubric group."""

from .. import reports
from .text import _bullet, _f, _flags, _groups, _lab_problem, _md, _num, _one_line, _perf_text, _problem_lines, _sanitizer_text, _timing_notes, _variant_line


# Gradescope's formats (results.json's output_format, test_output_format, name_format): the summary
# is Markdown, with student text escaped; a test's output and names are plain text, never rendered.
GRADESCOPE_SUMMARY_FORMAT = "md"
GRADESCOPE_TEST_FORMAT = "text"


def _rubric_points(group):
    """What the rubric gives a group, graded here or not (a result from before rubric_points was
    recorded: its maximum here)."""
    return _f(group.get("rubric_points", group.get("max_points")))


def _left_out(group):
    """(points, why) of the part of a non-bonus group's rubric points that was not graded here:
    all of them for a group not graded, the performance points without timing; (0, '')."""
    if group.get("bonus"):
        return 0.0, ""
    missing = _rubric_points(group) - (_f(group.get("max_points")) if group.get("graded", True) else 0.0)
    if missing <= 0:
        return 0.0, ""
    if not group.get("graded", True):
        return missing, _one_line(group.get("why_not_graded")) or "not checked on this machine"
    note = _one_line((group.get("performance") or {}).get("note"))
    return missing, "performance: " + (note.removeprefix("not graded: ") or "not timed here")


def _group_output(group, lab_state):
    """The text of one Gradescope test (plain text): what happened, what was not graded here
    and is not in the score, then the scores' parts and the variants."""
    missing, why = _left_out(group)
    left_out = (f"Not graded here ({why}): {_num(missing)} of this part's {_num(_rubric_points(group))} "
                "points are in its maximum but not in your score.") if missing else ""
    if not group.get("graded", True):
        return left_out or f"Not graded: {_one_line(group.get('why_not_graded')) or 'not checked on this machine'}."
    lines = [left_out] if left_out else []
    if lab_state != "graded":
        lines.append(f"This lab was not graded ({lab_state}): the summary at the top says why.")
    if group.get("feedback"):
        lines.append(_one_line(group["feedback"]))
    corr, perf = group.get("correctness"), group.get("performance")
    if corr:
        lines.append(f"correctness: {_num(_f(corr.get('points')))}/{_num(_f(corr.get('max')))} points"
                     + (f", {corr.get('cases_passed', 0)} of {corr['cases_total']} cases"
                        if corr.get("cases_total") else ""))
    if perf and (_f(perf.get("max")) or perf.get("student_ms") is not None):
        lines.append(f"performance: {_num(_f(perf.get('points')))}/{_num(_f(perf.get('max')))} points"
                     + (f": {_perf_text(perf)}" if _perf_text(perf) else ""))
    if _sanitizer_text(group.get("sanitizer")):
        lines.append(_sanitizer_text(group["sanitizer"]))
    lines += [_variant_line(v) for v in group.get("variants") or []]
    lines += [f"review: {_one_line(f)}" for f in _flags(group)]
    lines += [f"note: {_one_line(n)}" for n in _timing_notes(group)]
    return "\n".join(lines)


def _plain(test):
    """A Gradescope test whose name and output are shown as plain text, never rendered."""
    return dict(test, output_format=GRADESCOPE_TEST_FORMAT, name_format=GRADESCOPE_TEST_FORMAT)


def _group_test(lab_name, lab, group):
    """One Gradescope test for a rubric group. Its max_score is the rubric's points for the group,
    graded here or not, so that the tests add up to the rubric's total; what was not graded here
    is not in the score and the output says so. A bonus group counts nothing towards the maximum.
    The status compares the group with what was graded of it (a full bonus reads as passed); a
    group not graded at all has none: it neither passed nor failed."""
    graded, bonus = group.get("graded", True), bool(group.get("bonus"))
    points, top = _f(group.get("points")), _f(group.get("max_points"))
    test = {"name": f"{lab_name}: {group.get('title') or group.get('name', '?')}" + (" (bonus)" if bonus else ""),
            "score": points,
            "max_score": 0.0 if bonus else _rubric_points(group),
            "output": _group_output(group, lab.get("state", "graded")),
            "visibility": "visible"}
    if graded:
        test["status"] = "passed" if points >= top else "failed"
    return _plain(test)


def _lab_test(lab_name, lab):
    """The one test of a lab that has no rubric groups (it stopped before any was scored)."""
    points, top = _f(lab.get("points")), _f(lab.get("max_points"))
    return _plain({"name": f"{lab_name}: {lab.get('state', 'graded')}", "score": points, "max_score": top,
                   "status": "passed" if points >= top else "failed",
                   "output": "\n\n".join(filter(None, [_lab_problem(lab_name, lab) or "No rubric group was scored.",
                                                        reports.student_text(lab.get("detail"))])),
                   "visibility": "visible"})


def _leaderboard(result):
    """Per lab, the best kernel time of any graded group; flagged timings stay off the board."""
    board = []
    for lab_name, lab in result["labs"].items():
        times = [_f(g["performance"]["student_ms"]) for g in _groups(lab)
                 if g.get("graded", True) and (g.get("performance") or {}).get("student_ms") is not None
                 and not _flags(g)]
        if times:
            board.append({"name": f"{lab_name} best kernel ms", "value": min(times), "order": "asc"})
    return board


def summary_markdown(result, rubric_total):
    """Gradescope's summary of the submission, in Markdown (student text escaped): the points
    graded here, what of the rubric's total (rubric_total, Gradescope's maximum) was not graded
    here and why, a line per lab, why a lab was not graded (the compiler's message in full), and
    the staging notes."""
    lines = [f"**{_num(_f(result.get('points')))} / {_num(_f(result.get('max_points')))} points** graded here"
             + (f" (+{_num(_f(result.get('bonus_points')))} bonus)" if _f(result.get("max_bonus")) else ""), ""]
    left_out = [(name, g) + _left_out(g) for name, lab in result["labs"].items() for g in _groups(lab)]
    left_out = [(name, g, n, why) for name, g, n, why in left_out if n]
    if left_out:
        lines += [f"The rubric's total is {_num(rubric_total)} points, Gradescope's maximum: "
                  f"{_num(sum(n for *_, n, _ in left_out))} of them were not graded here and are not in this score:", ""]
        lines += [_bullet(f"{name}, {g.get('title') or g.get('name', '?')}: {_num(n)} points ({why})")
                  for name, g, n, why in left_out] + [""]
    lines += ["| Lab | Points | Max | State |", "|---|---|---|---|"]
    for name, lab in result["labs"].items():
        lines.append(f"| {_md(name)} | {_num(_f(lab.get('points')))} | {_num(_f(lab.get('max_points')))} | "
                     f"{_md(lab.get('state', 'graded'))} |")
    lines.append("")
    for name, lab in result["labs"].items():
        lines += _problem_lines(name, lab)
    if result.get("notes"):
        lines += ["Notes on what was handed in:", ""] + [_bullet(n) for n in result["notes"]]
    return "\n".join(lines).rstrip() + "\n"


def gradescope_results(result):
    """Gradescope's results.json for one submission
    (https://gradescope-autograders.readthedocs.io/en/latest/specs/): the score is points plus
    bonus, one test per rubric group per lab, whose max_scores add up to the rubric's total. The
    formats are set, never left to Gradescope's default: the summary is Markdown, the tests
    plain text."""
    tests = []
    for name, lab in result["labs"].items():
        tests += [_group_test(name, lab, g) for g in _groups(lab)] or [_lab_test(name, lab)]
    out = {"score": _f(result.get("points")) + _f(result.get("bonus_points")),
           "output": summary_markdown(result, sum(t["max_score"] for t in tests)),
           "output_format": GRADESCOPE_SUMMARY_FORMAT, "test_output_format": GRADESCOPE_TEST_FORMAT,
           "test_name_format": GRADESCOPE_TEST_FORMAT, "tests": tests}
    if isinstance(result.get("seconds"), (int, float)):
        out["execution_time"] = round(result["seconds"])
    board = _leaderboard(result)
    if board:
        out["leaderboard"] = board
    return out
