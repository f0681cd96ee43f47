"""The formatting every class output shares: numbers, Markdown escaping, a variant's line, a lab's problem."""

import re

from .. import reports
from ..verdicts import BUILD_ERROR, NOT_CHECKED, SHOWN


# Markdown (CommonMark, GitHub's, Gradescope's) that a text could open inside a line: a backslash
# escape, code, emphasis, strikethrough, a link or an image, a table cell. An underscore between
# two letters or digits opens nothing (CommonMark's intraword rule), so cpu_openmp.cpp stays as it
# is. <, > and & become HTML entities, which every Markdown renderer shows as the characters (raw
# HTML needs a real <).
MD_INLINE = re.compile(r"[\\`*~\[\]|]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")

# ... and what opens a block at the start of a list item's text: a heading, a list, a rule.
MD_BLOCK_START = re.compile(r"[#+\-=]")
MD_ORDERED_START = re.compile(r"\d+(?=[.)])")


def _num(x):
    """A number as an LMS imports it: no unit, no trailing zeros, at most 2 decimals; '' for none."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return ""
    return f"{x:.2f}".rstrip("0").rstrip(".") or "0"


def _f(x):
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else 0.0


_one_line = reports.one_line


def _md(text):
    """text as literal Markdown on one line (capped, cleaned): nothing in it renders as emphasis,
    a link, an image, code, HTML or a table cell."""
    line = _one_line(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return MD_INLINE.sub(lambda m: "\\" + m.group(), line)


def _bullet(text):
    """A Markdown list item of literal text: _md, and a start that would open a heading, a list
    or a rule inside the item escaped too ('12. ' escapes its '.')."""
    line = _md(text)
    ordered = MD_ORDERED_START.match(line)
    if ordered:
        line = line[:ordered.end()] + "\\" + line[ordered.end():]
    elif MD_BLOCK_START.match(line):
        line = "\\" + line
    return f"- {line}"


def _lab_order(results):
    """The labs of all results, in the order they first appear (grade-all writes them in the
    kit's teaching order)."""
    labs = []
    for r in results:
        labs += [lab for lab in r["labs"] if lab not in labs]
    return labs


def _groups(lab):
    return lab.get("groups") or []


def _flags(group):
    return [f for v in group.get("variants") or [] for f in v.get("flags") or []]


def _timing_notes(group):
    """What the grader noted of the group's timings that costs nothing (e.g. threads left idle)."""
    return [f"{v.get('name', '?')}: {n}" for v in group.get("variants") or [] for n in v.get("notes") or []]


def _shown(status):
    return SHOWN.get(status, status)


def _perf_text(perf):
    """'1.200 ms vs 0.630 ms for the reference (1.9× its time) at 8192x8192'; '' when untimed."""
    if not perf or perf.get("student_ms") is None:
        return _one_line((perf or {}).get("note"))
    text = f"{reports.fmt_ms(perf['student_ms'])} ms"
    if perf.get("reference_ms") is not None:
        text += f" vs {reports.fmt_ms(perf['reference_ms'])} ms for the reference"
    if isinstance(perf.get("ratio"), (int, float)):
        speed = " in this run's machine speed" if round(perf.get("drift", 1), 2) != 1 else ""
        text += f" ({perf['ratio']:.1f}× its time{speed})"
    if perf.get("size"):
        text += f" at {perf['size']}"
    if perf.get("note"):
        text += f"; {_one_line(perf['note'])}"
    return text


def _sanitizer_text(san):
    if not san:
        return ""
    missed = san.get("unchecked") if isinstance(san.get("unchecked"), list) else []
    missed = f"; could not watch {', '.join(map(str, missed))} all through (no penalty)" if missed else ""
    return _sanitizer_verdict(san) + missed


def _sanitizer_verdict(san):
    if san.get("not_checked"):
        return f"{san.get('tool', 'sanitizer')}: {NOT_CHECKED}: {_one_line(str(san['not_checked']))} (no penalty)"
    if san.get("clean"):
        return f"{san.get('tool', 'sanitizer')}: clean"
    found = san.get("findings") if isinstance(san.get("findings"), dict) else {}
    where = "; ".join(f"{n}" + (f" ({_one_line(str(f[0]))})" if isinstance(f, list) and f else "")
                      for n, f in ((n, found.get(n)) for n in san.get("variants") or []))
    return (f"{san.get('tool', 'sanitizer')}: errors found" + (f" in {where}" if where else "")
            + f" (-{_num(_f(san.get('penalty')))} points)")


def _variant_line(v):
    cases = f" ({v['cases_passed']}/{v['cases_total']} cases)" if v.get("cases_total") else ""
    detail = f": {_one_line(v['detail'])}" if v.get("detail") else ""
    return f"{v.get('name', '?')}: {_shown(v.get('status', '?'))}{cases}{detail}"


def _fenced(text):
    """text (capped, cleaned) in a Markdown code block whose fence no backtick run inside it can
    close: shown as written, line by line."""
    text = reports.student_text(text).rstrip()
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def _lab_problem(name, lab):
    """One line on a lab that was not graded as a whole (build-error, error); '' when graded.
    Its detail (the compiler's message) is shown apart, in full."""
    state = lab.get("state", "graded")
    if state == "graded":
        return ""
    return f"{name}: " + ("the files do not compile (build-error)" if state == BUILD_ERROR
                          else f"grading stopped ({state})")


def _problem_lines(name, lab):
    """Markdown lines on a lab not graded as a whole: the problem, then its detail in a code
    block; none when the lab was graded."""
    problem = _lab_problem(name, lab)
    if not problem:
        return []
    if not lab.get("detail"):
        return [problem + ".", ""]
    return [problem + ":", "", _fenced(str(lab["detail"])), ""]


def _cell(text):
    """A Markdown table cell of literal text; '-' when empty."""
    return _md(text) or "-"


def _percent(r):
    top = _f(r.get("max_points"))
    return f"{100 * _f(r.get('points')) / top:.1f}%" if top else "-"
