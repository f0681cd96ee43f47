"""The feedback file of one student (Markdown): every lab, its groups and what to do next."""

from .. import reports
from ..verdicts import BUILD_ERROR, FAILING, TODO
from .text import _bullet, _cell, _f, _flags, _groups, _md, _num, _perf_text, _problem_lines, _sanitizer_text, _timing_notes


def _group_row(group):
    perf, corr = group.get("performance") or {}, group.get("correctness") or {}
    if not group.get("graded", True):
        status = "not graded"
    else:
        status = reports.tally({"variants": group.get("variants") or []}) or "-"
    time = "flagged for review" if _flags(group) else _perf_text(perf) if perf.get("student_ms") is not None else "-"
    if group.get("graded", True):
        note = [group.get("feedback"), _sanitizer_text(group.get("sanitizer"))]
        if corr.get("cases_total"):
            note.append(f"{corr.get('cases_passed', 0)}/{corr['cases_total']} cases")
    else:
        note = [group.get("why_not_graded")]
    title = (group.get("title") or group.get("name", "?")) + (" (bonus)" if group.get("bonus") else "")
    return (f"| {_cell(title)} | {_num(_f(group.get('points')))} | {_num(_f(group.get('max_points')))} | "
            f"{_cell(status)} | {_cell(time)} | {_cell('; '.join(filter(None, note)))} |")


def _lab_section(name, lab):
    lines = [f"## {name}: {_num(_f(lab.get('points')))} / {_num(_f(lab.get('max_points')))}"
             + (f" (+{_num(_f(lab.get('bonus_points')))} bonus)" if _f(lab.get("max_bonus")) else ""), ""]
    lines += _problem_lines(name, lab)
    if _groups(lab):
        lines += ["| Part | Points | Max | Status | Time vs reference | Note |", "|---|---|---|---|---|---|"]
        lines += [_group_row(g) for g in _groups(lab)] + [""]
    if lab.get("not_graded"):
        lines += ["Not graded here (left out of the maximum):", ""]
        lines += [_bullet(n) for n in lab["not_graded"]] + [""]
    flags = [_bullet(f"{g.get('name', '?')}: {f}") for g in _groups(lab) for f in _flags(g)]
    if flags:
        lines += ["Flagged for review by the instructor (these times are not compared):", ""] + flags + [""]
    notes = [_bullet(n) for g in _groups(lab) for n in _timing_notes(g)]
    if notes:
        lines += ["Notes on your timings (they cost no points):", ""] + notes + [""]
    return lines


def _group_step(lab_name, group):
    """The next step for one graded rubric group ('' when it has full marks or is flagged, which
    is for the instructor to look at)."""
    where = f"{lab_name}, {group.get('title') or group.get('name', '?')}"
    statuses = {v.get("status") for v in group.get("variants") or []}
    corr, perf = group.get("correctness") or {}, group.get("performance") or {}
    if statuses & FAILING:
        return f"{where}: fix it: {_md(group.get('feedback')) or 'see the table above'}."
    if TODO in statuses:
        return f"{where}: still to implement."
    if _f(corr.get("points")) >= _f(corr.get("max")) and _f(perf.get("points")) < _f(perf.get("max")) \
            and not _flags(group):
        return f"{where}: correct; make it faster ({_md(_perf_text(perf)) or 'see the table above'})."
    return ""


def _next_steps(result):
    """What the student should do next, most urgent first."""
    steps = []
    for name, lab in result["labs"].items():
        state = lab.get("state", "graded")
        if state == BUILD_ERROR:
            steps.append(f"{name}: make it compile (the compiler's first errors are shown above); "
                         "nothing in this lab can be scored until it does.")
        elif state != "graded":
            steps.append(f"{name}: grading stopped with an error ({_md(lab.get('detail')) or state}); "
                         "run `./labkit grade` and ask your instructor if it persists.")
        if state == "graded":
            steps += filter(None, (_group_step(name, g) for g in _groups(lab) if g.get("graded", True)))
        if lab.get("not_graded"):
            steps.append(f"{name}: some parts were not graded here ({_md('; '.join(lab['not_graded']))}); "
                         "check them yourself with `./labkit grade` on a machine that can run them.")
    return steps or ["Nothing: every graded part has full marks."]


def feedback_markdown(result):
    """The feedback file a student receives: the score per lab, a table per lab, what was not
    graded and why, the notes on what was handed in, and what to do next."""
    lines = [f"# Feedback for {_md(result['name'])}", "",
             f"**Total: {_num(_f(result.get('points')))} / {_num(_f(result.get('max_points')))} points**"
             + (f" (+{_num(_f(result.get('bonus_points')))} of {_num(_f(result.get('max_bonus')))} bonus)"
                if _f(result.get("max_bonus")) else "")]
    machine = result.get("machine") or {}
    where = ", ".join(filter(None, [result.get("graded_at"), machine.get("gpu") or "no GPU", machine.get("cpu")]))
    lines += [f"Graded {_md(where)}." if where else "", ""]
    if result.get("notes"):
        lines += ["## What was handed in", ""] + [_bullet(n) for n in result["notes"]] + [""]
    for name, lab in result["labs"].items():
        lines += _lab_section(name, lab)
    lines += ["## What to do next", ""] + [f"- {s}" for s in _next_steps(result)]
    return "\n".join(lines) + "\n"
