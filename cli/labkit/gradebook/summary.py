"""The per-variant summary: summary.md and the class table grade-all prints."""

from .csv_gradebook import _class_facts
from .text import _bullet, _cell, _f, _groups, _lab_order, _md, _num, _percent, _shown


VARIANT_COLUMNS = ["lab", "part", "variant", "status", "cases", "points", "time vs ref", "% copy BW"]


def variant_rows(result):
    """One row per lab and variant of a result (VARIANT_COLUMNS): its status and cases, its
    group's points on the group's first row, its own time against the reference solution's same
    variant and its % of the copy bandwidth, where it was timed."""
    rows = []
    for lab_name, lab in result["labs"].items():
        first = len(rows)  # the lab is named on its first row only
        if lab.get("state", "graded") != "graded" and not _groups(lab):
            rows.append([lab_name, "-", "-", lab.get("state", "?"), "-", "0", "-", "-"])
        for g in _groups(lab):
            title = (g.get("title") or g.get("name", "?")) + (" (bonus)" if g.get("bonus") else "")
            points = (f"{_num(_f(g.get('points')))}/{_num(_f(g.get('max_points')))}" if g.get("graded", True)
                      else "not graded")
            for i, v in enumerate(g.get("variants") or []):
                t = v.get("timing") or {}
                ratio = f"{t['ratio']:.2f}x" if t.get("ratio") else "-"
                pct = f"{t['pct_copy_bw']:.0f}%" if t.get("pct_copy_bw") else "-"
                cases = f"{v.get('cases_passed', 0)}/{v['cases_total']}" if v.get("cases_total") else "-"
                status = _shown(v.get("status")) if g.get("graded", True) else f"not graded ({_shown(v.get('status'))})"
                rows.append([lab_name if len(rows) == first else "", title if i == 0 else "",
                             v.get("name", "?"), status, cases, points if i == 0 else "", ratio, pct])
    return rows


def _class_lines(results):
    """summary.md's lines on how the class was graded (the sandbox, the parts not graded): each
    once, with how many submissions it holds for when not all (those rows' notes name it too)."""
    counts = {}
    for r in results:
        for fact in dict.fromkeys(_class_facts(r)):
            counts[fact] = counts.get(fact, 0) + 1
    if not counts:
        return []
    return (["How the submissions were graded (gradebook.csv's notes name a line only where it does not hold "
             "for every submission):", ""]
            + [_bullet(fact + ("" if n == len(results) else f" ({n} of {len(results)} submissions)"))
               for fact, n in counts.items()] + [""])


def summary_tables(results):
    """summary.md: how the class was graded, then every submission's per-variant table, in
    Markdown, for the instructor (one place to read the whole class) and for a student's report."""
    lines = ["# Class summary", "", f"{len(results)} submission(s).", ""] + _class_lines(results)
    for r in results:
        lines += [f"## {_md(r['name'])}: {_num(_f(r.get('points')))} / {_num(_f(r.get('max_points')))} ({_percent(r)})", "",
                  "| " + " | ".join(VARIANT_COLUMNS) + " |", "|" + "---|" * len(VARIANT_COLUMNS)]
        lines += ["| " + " | ".join(_cell(str(c)) if c else "" for c in row) + " |" for row in variant_rows(r)]
        lines.append("")
    return "\n".join(lines)


def class_rows(results):
    """One row per submission: its points per lab, its total and percent."""
    labs = _lab_order(results)
    header = ["submission"] + labs + ["total", "percent"]
    rows = []
    for r in results:
        cells = []
        for lab in labs:
            l = r["labs"].get(lab)
            cells.append("-" if l is None else f"{_num(_f(l.get('points')))}/{_num(_f(l.get('max_points')))}"
                         + ("" if l.get("state", "graded") == "graded" else f" ({l['state']})"))
        rows.append([r["name"]] + cells + [f"{_num(_f(r.get('points')))}/{_num(_f(r.get('max_points')))}", _percent(r)])
    return header, rows
