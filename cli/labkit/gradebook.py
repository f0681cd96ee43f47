"""The course-tool outputs of a graded class, made from the per-submission results that
`labkit grade-all` writes (<out>/results/<name>.json, schema "labkit-result/1"): a gradebook CSV
for the LMS, Gradescope's results.json per submission, a JUnit XML file for CI dashboards, and a
feedback file per student.

Everything here reads finished result files only and writes through util.write_atomic, so that
`labkit gradebook` can run while a (Slurm) class run is still adding results, and a reader never
meets half a file.

What a submission wrote (an exception message, a compiler's output, a file name) is data in all
of them: capped and cleaned by reports.student_text, escaped for each format (Markdown and its
HTML in the feedback, summary.md and Gradescope's summary; CSV cells by reports.csv_text; XML by
ElementTree), and shown as plain text where Gradescope allows it (each test's output)."""

import csv
import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from . import reports
from .submissions import NOT_HANDED_IN, NOTHING_HANDED_IN, PATHS_USED, SOURCE_SUFFIXES, handed_in, same_name
from .util import LabkitError, UsageError, kit_path, print_table, rel, say, write_atomic
from .verdicts import BUILD_ERROR, ERROR, FAILING, NOT_CHECKED, NOT_RUN, PASS, SHOWN, SKIPPED, TODO

SCHEMA = "labkit-result/1"

# Roster headers, compared after _header(): lower case, '_' and '-' as spaces. LMS exports spell
# them differently (Canvas: "SIS Login ID", Moodle: "Email address", a hand-made sheet: "login").
ROSTER_COLUMNS = {
    "key": ("folder", "submission", "submission folder", "login", "username", "user name",
            "sis login id", "github", "github username"),
    "id": ("id", "student id", "sis id", "sis user id", "student number"),
    "name": ("name", "student name", "full name", "student"),
    "email": ("email", "e mail", "email address", "mail"),
}

# Variant statuses as JUnit sees them: a failure, or a test that was not run (skipped).
JUNIT_FAILURE = FAILING
JUNIT_SKIPPED = {TODO, NOT_RUN, SKIPPED}

# Characters XML 1.0 cannot hold at all (reports.student_text has removed the control characters;
# U+FFFE and U+FFFF remain).
XML_INVALID = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")

# Markdown (CommonMark, GitHub's, Gradescope's) that a text could open inside a line: a backslash
# escape, code, emphasis, strikethrough, a link or an image, a table cell. An underscore between
# two letters or digits opens nothing (CommonMark's intraword rule), so cpu_openmp.cpp stays as it
# is. <, > and & become HTML entities, which every Markdown renderer shows as the characters (raw
# HTML needs a real <).
MD_INLINE = re.compile(r"[\\`*~\[\]|]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
# ... and what opens a block at the start of a list item's text: a heading, a list, a rule.
MD_BLOCK_START = re.compile(r"[#+\-=]")
MD_ORDERED_START = re.compile(r"\d+(?=[.)])")

# Source file names in a compiler's message ("integral_image/cpu_openmp.cpp:14:9: error: ..."),
# for a gradebook note on a lab that did not build: the first few, without their folders.
SOURCE_NAME_RE = re.compile(r"([A-Za-z0-9_.+-]+(?:%s))(?![A-Za-z0-9_+])"
                            % "|".join(map(re.escape, sorted(SOURCE_SUFFIXES, key=len, reverse=True))))
MAX_NAMED_FILES = 3

# Gradescope's formats (results.json's output_format, test_output_format, name_format): the summary
# is Markdown, with student text escaped; a test's output and names are plain text, never rendered.
GRADESCOPE_SUMMARY_FORMAT = "md"
GRADESCOPE_TEST_FORMAT = "text"


# --- reading -------------------------------------------------------------------------------------

def _header(text):
    return " ".join(str(text or "").lower().replace("_", " ").replace("-", " ").split())


def read_roster(path):
    """folder name -> {"id", "name", "email"}, in the roster's order, from a CSV whose header names
    the columns in any of the usual spellings (ROSTER_COLUMNS). A roster that cannot be used is a
    UsageError: a grade exported against the wrong students is worse than none."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")  # Excel writes a byte-order mark
    except FileNotFoundError:
        raise UsageError(f"roster {path} not found") from None
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"roster {path} cannot be read as UTF-8 text: {e}") from None
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))  # quoted cells may span lines
    except csv.Error as e:
        raise UsageError(f"roster {path} is not valid CSV: {e}") from None
    if not rows:
        raise UsageError(f"roster {path} is empty")
    heads = [_header(h) for h in rows[0]]
    col = {field: next((heads.index(s) for s in spellings if s in heads), None)
           for field, spellings in ROSTER_COLUMNS.items()}
    if col["key"] is None:
        raise UsageError(f"roster {path} has no column naming the submission folder (one of: "
                         f"{', '.join(ROSTER_COLUMNS['key'])}); its header is: {', '.join(rows[0])}")
    roster, seen = {}, set()
    for n, row in enumerate(rows[1:], start=2):
        cells = {field: row[i].strip() if i is not None and i < len(row) else "" for field, i in col.items()}
        key = cells.pop("key")
        if not key:
            if any(c.strip() for c in row):
                say(f"warning: roster {path} line {n} has no {rows[0][col['key']]}: left out")
            continue
        if key.casefold() in seen:  # folder names are matched without regard to case
            raise UsageError(f"roster {path} lists {key!r} twice (line {n})")
        seen.add(key.casefold())
        roster[key] = cells
    return roster


def _usable(result):
    """Why a parsed result file cannot be used ('' when it can): only the fields every writer
    here relies on are checked; the rest is read with defaults."""
    if not isinstance(result, dict) or result.get("schema") != SCHEMA:
        return f"not a {SCHEMA} result"
    if not isinstance(result.get("name"), str) or not result["name"]:
        return "no name"
    labs = result.get("labs")
    if not isinstance(labs, dict) or not all(isinstance(l, dict) for l in labs.values()):
        return "its labs are not objects"
    groups = [g for l in labs.values() for g in l.get("groups") or []]
    if not all(isinstance(g, dict) for g in groups):
        return "a rubric group is not an object"
    if not all(isinstance(v, dict) for g in groups for v in g.get("variants") or []):
        return "a variant is not an object"
    return ""


def load_results(results_dir):
    """Every finished result in results_dir (<name>.json), sorted by name. grade-all writes them
    atomically, so a result still being written is a temporary file (.<name>.json.*.tmp), never
    a *.json: those and *.partial are not read. A file that cannot be used is reported and left
    out."""
    results = []
    for path in sorted(Path(results_dir).glob("*.json")):
        try:
            result = reports.load_json(path)
        except (OSError, ValueError) as e:
            say(f"warning: {rel(path)} left out: cannot be read ({e.__class__.__name__}: {e})")
            continue
        why = _usable(result)
        if why:
            say(f"warning: {rel(path)} left out: {why}")
            continue
        results.append(result)
    return sorted(results, key=lambda r: r["name"])


# --- small formatting helpers --------------------------------------------------------------------

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


# --- gradebook.csv -------------------------------------------------------------------------------

def _class_facts(result):
    """What a result's grading took from its class run rather than from the submission: the
    sandbox, and the parts that the machine or the options left ungraded."""
    facts = [f"sandbox: {result['sandbox']}"] if result.get("sandbox") else []
    return facts + [f"{name}: not graded: {n}" for name, lab in result["labs"].items()
                    for n in lab.get("not_graded") or []]


def _shared(results):
    """The class facts that every result has: said once, in summary.md, not on every row."""
    facts = [set(_class_facts(r)) for r in results]
    return set.intersection(*facts) if facts else set()


def staging_exceptions(result):
    """The staging notes that are exceptions: files refused, misplaced or handed in twice, and a
    lab with nothing handed in; not the inventories (the paths used, the files not handed in:
    the optional ones are missing from most rows), which the feedback lists."""
    out = []
    for note in map(str, result.get("notes") or []):
        lab = next((l for l in result["labs"] if note.startswith(f"{l}: ")), None)
        if lab and note.startswith((f"{lab}: {PATHS_USED}: ", f"{lab}: {NOT_HANDED_IN}: ")):
            out += [f"{lab}: {NOTHING_HANDED_IN}"] if NOTHING_HANDED_IN in note else []
        else:
            out.append(note)
    return out


def _notes(result, shared=frozenset()):
    """What a person should look at for this submission: files refused, misplaced or with
    nothing handed in (staging_exceptions), a lab that did not build (with the source files its
    compiler message names) or whose grading stopped, a file that did not compile, flagged
    timings, sanitizer findings, and any class fact that is not in shared (a Slurm task on
    another node: another sandbox, a GPU)."""
    notes = staging_exceptions(result)
    for name, lab in result["labs"].items():
        state, detail = lab.get("state", "graded"), str(lab.get("detail") or "").strip()
        if state == BUILD_ERROR:
            files = list(dict.fromkeys(SOURCE_NAME_RE.findall(detail)))[:MAX_NAMED_FILES]
            notes.append(f"{name}: build-error" + (f" (the compiler names {', '.join(files)})" if files else ""))
        elif state != "graded":
            notes.append(f"{name}: {state}" + (f": {detail}" if detail else ""))
        elif detail:  # a graded lab's detail names the files that did not compile
            notes.append(f"{name}: {detail}")
        for g in _groups(lab):
            notes += [f"{name}/{g.get('name', '?')}: {f}" for f in _flags(g)]
            if g.get("sanitizer") and not g["sanitizer"].get("clean"):
                notes.append(f"{name}/{g.get('name', '?')}: {_sanitizer_verdict(g['sanitizer'])}")
    notes += [f for f in _class_facts(result) if f not in shared]
    return [_one_line(n) for n in notes]


def _score_cells(result, labs):
    points, top = _f(result.get("points")), _f(result.get("max_points"))
    cells = [_num(points), _num(top), _num(round(100 * points / top, 1)) if top else "",
             _num(_f(result.get("bonus_points")))]
    for lab in labs:
        entry = result["labs"].get(lab)
        cells += [_num(_f(entry.get("points"))), _num(_f(entry.get("max_points")))] if entry else ["", ""]
    return cells


def _folder(result):
    """The folder or archive a result's submission was handed in as (its bytes that are not
    UTF-8 shown as \\xNN); a result from before the kit kept it: its name."""
    return str(result.get("folder") or result["name"])


def _handed_in(result):
    """The name a result's submission was handed in under: its folder's, its archive's without
    the extension (what a roster names)."""
    return handed_in(_folder(result))


COLLIDES = "collides with"  # in the note on each of the submissions whose names collide


def naming_notes(results):
    """{result name: [note]}: where a submission is filed under a name other than the one it
    was handed in under ("graded as ..."; its result and feedback files have that name), and, for
    every submission whose name another's is too once cleaned and case-folded (bob/ and Bob/,
    _alice/ and alice/), that it collides, with which, and under which name it was graded apart:
    each keeps its own row and points."""
    groups = {}
    for r in results:
        groups.setdefault(same_name(_handed_in(r)), []).append(r)
    notes = {}
    for members in groups.values():
        folders = [_folder(o) for o in members]
        label = lambda o: repr(_folder(o) if folders.count(_folder(o)) == 1 else str(o.get("source") or o["name"]))
        for r in members:
            if len(members) > 1:
                others = [label(o) for o in members if o is not r]
                listed = ", ".join(others[:-1]) + (" and " if len(others) > 1 else "") + others[-1]
                notes[r["name"]] = [f"{label(r)} {COLLIDES} {listed} once names are cleaned and case is ignored: "
                                    f"graded apart, this one as {r['name']}"]
            elif r["name"] != _handed_in(r):
                notes[r["name"]] = [f"graded as {r['name']} (its result and feedback files)"]
    return notes


def match_roster(roster, results):
    """({roster key: its result, or None}, {roster key: why none}, the results no roster key
    takes). A key takes the result handed in under that very name; else the one result handed in
    under it without regard to case (an LMS that changed Alice to alice). Two such results: the
    key takes neither (said), and both keep rows of their own."""
    results = sorted(results, key=lambda r: r["name"])
    exact = {}
    for r in results:
        exact.setdefault(_handed_in(r), []).append(r)
    taken, matched, why = set(), {}, {}
    for key in roster or {}:
        found = [r for r in exact.get(key, []) if r["name"] not in taken]
        if not found:  # (a result handed in under another key's very name is that key's)
            found = [r for r in results if r["name"] not in taken and _handed_in(r).casefold() == key.casefold()
                     and _handed_in(r) not in roster]
        if len(found) == 1:
            matched[key] = found[0]
            taken.add(found[0]["name"])
        else:
            matched[key] = None
            if found:
                why[key] = (f"{SEVERAL} (" + ", ".join(repr(_folder(r)) for r in found)
                            + "): not graded on this row; choose one, and see their rows")
    return matched, why, [r for r in results if r["name"] not in taken]


SEVERAL = "several submissions match this student"
NO_SUBMISSION = "no submission"


def row_notes(results):
    """{result name: its gradebook notes}: its own (_notes), what every row shares left out, and
    its naming notes."""
    shared, naming = _shared(results), naming_notes(results)
    return {r["name"]: _notes(r, shared) + [_one_line(n) for n in naming.get(r["name"], [])] for r in results}


def gradebook_csv(results, roster, labs):
    """The gradebook as CSV text: one row per submission (and per roster student without one),
    a plain header row and bare numbers, so that an LMS imports it as is. With a roster, rows come
    in its order (match_roster), its key in the folder column; then the results it does not list,
    each with the folder or archive it was handed in as. The notes are row_notes'; what every row
    shares is in summary.md."""
    head = ["folder", "student_id", "name", "email", "points", "max_points", "percent", "bonus_points"]
    for lab in labs:
        head += [f"{lab}_points", f"{lab}_max"]
    rows = [head + ["notes"]]
    notes = row_notes(results)
    matched, why, rest = match_roster(roster, results)
    blank = [""] * (4 + 2 * len(labs))
    for key, who in (roster or {}).items():
        result = matched[key]
        person = [key, who.get("id", ""), who.get("name", ""), who.get("email", "")]
        if result is None:
            rows.append(person + blank + [why.get(key, NO_SUBMISSION)])
        else:
            rows.append(person + _score_cells(result, labs) + ["; ".join(notes[result["name"]])])
    for result in rest:
        rows.append([_folder(result), "", "", ""] + _score_cells(result, labs)
                    + ["; ".join(notes[result["name"]] + (["not in roster"] if roster else []))])
    return reports.csv_text(rows)


# --- Gradescope ----------------------------------------------------------------------------------

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


# --- junit.xml -----------------------------------------------------------------------------------

def _xml_text(text):
    """text as XML 1.0 can hold it (ElementTree escapes the markup): capped and cleaned
    (reports.student_text), and what XML 1.0 has no place for (U+FFFE, U+FFFF) as '?'."""
    return XML_INVALID.sub("?", reports.student_text(text))


def _testcase(suite, classname, name, status, message, body):
    case = ET.SubElement(suite, "testcase", classname=_xml_text(classname), name=_xml_text(name), time="0")
    if status in JUNIT_FAILURE:
        ET.SubElement(case, "failure", message=_xml_text(message), type=_xml_text(status)).text = _xml_text(body)
    elif status in JUNIT_SKIPPED:
        ET.SubElement(case, "skipped", message=_xml_text(message))
    return case


def _lab_suite(root, result, lab_name, lab):
    """The <testsuite> of one submission's lab: a testcase per variant of each rubric group (a
    lab without groups gets one for its own state). The result does not time variants one by
    one, so every time is 0 and each total the sum of its parts."""
    base = f"{result['name']}.{lab_name}"
    suite = ET.SubElement(root, "testsuite", name=_xml_text(base))
    for g in _groups(lab):
        for v in g.get("variants") or []:
            status = v.get("status", ERROR)
            _testcase(suite, f"{base}.{g.get('name', '?')}", v.get("name", "?"), status,
                      _variant_line(v), v.get("detail") or lab.get("detail") or "")
    if not _groups(lab):
        state = lab.get("state", "graded")
        _testcase(suite, base, "build" if state == BUILD_ERROR else state,
                  state if state in FAILING else PASS, _lab_problem(lab_name, lab), lab.get("detail", ""))
    cases = suite.findall("testcase")
    suite.set("tests", str(len(cases)))
    suite.set("failures", str(sum(c.find("failure") is not None for c in cases)))
    suite.set("errors", "0")
    suite.set("skipped", str(sum(c.find("skipped") is not None for c in cases)))
    suite.set("time", "0")
    if result.get("graded_at"):
        suite.set("timestamp", _xml_text(result["graded_at"]).rstrip("Z"))
    return suite


def junit_xml(results):
    """JUnit XML of the class: one <testsuite> per submission and lab, one <testcase> per
    variant, failures and skips as CI dashboards count them."""
    root = ET.Element("testsuites", name="labkit")
    for result in results:
        for lab_name, lab in result["labs"].items():
            _lab_suite(root, result, lab_name, lab)
    for attr in ("tests", "failures", "errors", "skipped"):
        root.set(attr, str(sum(int(s.get(attr)) for s in root)))
    root.set("time", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


# --- feedback ------------------------------------------------------------------------------------

def _cell(text):
    """A Markdown table cell of literal text; '-' when empty."""
    return _md(text) or "-"


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


# --- the per-variant summary ---------------------------------------------------------------------

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


# --- the class outputs ---------------------------------------------------------------------------

def _public(value):
    """value without the private fields (keys starting with '_'), at every depth."""
    if isinstance(value, dict):
        return {k: _public(v) for k, v in value.items() if not str(k).startswith("_")}
    if isinstance(value, list):
        return [_public(v) for v in value]
    return value


def _safe(results):
    """The results whose name can be a file name; the others are reported and left out."""
    safe = []
    for r in results:
        if "/" in r["name"] or "\\" in r["name"] or r["name"].startswith("."):
            say(f"warning: result {r['name']!r} left out of the class outputs: not a safe file name")
        else:
            safe.append(r)
    return safe


# The class outputs under <out>: the class's own files, then each submission's (submission_files).
CLASS_FILES = ("gradebook.csv", "junit.xml", "summary.md")


def submission_files(out, name):
    """A submission's class outputs: Gradescope's results.json, the feedback's .md and .json."""
    return [out / "gradescope" / name / "results.json", out / "feedback" / f"{name}.md", out / "feedback" / f"{name}.json"]


def write_class_outputs(out_dir, results, roster=None):
    """Writes gradebook.csv, junit.xml, summary.md, gradescope/<name>/results.json, feedback/<name>.md and
    feedback/<name>.json (the result without private fields) under out_dir, each atomically.
    Returns the paths written."""
    out = Path(out_dir)
    results = _safe(results)
    files = dict(zip((out / f for f in CLASS_FILES),
                     (gradebook_csv(results, roster, _lab_order(results)), junit_xml(results), summary_tables(results))))
    for r in results:
        files.update(zip(submission_files(out, r["name"]), (json.dumps(gradescope_results(r), indent=2),
                                                           feedback_markdown(r), json.dumps(_public(r), indent=2))))
    for path, text in files.items():
        write_atomic(path, text)
    return list(files)


def drop_class_outputs(out_dir, names):
    """Before a run changes results: the class outputs made from the old ones go (the class's
    files, and those of each submission in names), so that a run cut short leaves none that
    looks current; write_class_outputs makes them again from the results there (at the run's
    end, or `labkit gradebook`)."""
    out = Path(out_dir)
    for path in [out / f for f in CLASS_FILES] + [p for name in names for p in submission_files(out, name)]:
        path.unlink(missing_ok=True)


def _percent(r):
    top = _f(r.get("max_points"))
    return f"{100 * _f(r.get('points')) / top:.1f}%" if top else "-"


def cmd_gradebook(args):
    """`labkit gradebook`: rebuilds the class outputs from the results found so far."""
    out = kit_path(args.out)
    roster = read_roster(kit_path(args.roster)) if args.roster else None
    results = load_results(out / "results")
    if not results:
        raise LabkitError(f"no results in {rel(out / 'results')}: run ./labkit grade-all first")
    say(f"found {len(results)} result{'s' if len(results) != 1 else ''} in {rel(out / 'results')}")
    written = write_class_outputs(out, results, roster)
    notes = row_notes(results)
    print_table(["name", "points", "max", "percent", "notes"],
                [[r["name"], _num(_f(r.get("points"))), _num(_f(r.get("max_points"))), _percent(r),
                  "; ".join(notes[r["name"]])[:60]] for r in results])
    if roster is not None:
        matched, _, extra = match_roster(roster, results)
        missing = [k for k, r in matched.items() if r is None]
        say(f"roster: {len(roster)} students, {len(missing)} without a submission, "
            f"{len(extra)} result{'s' if len(extra) != 1 else ''} not in the roster")
    say(f"wrote {rel(out / 'gradebook.csv')}, {rel(out / 'junit.xml')}, {rel(out / 'gradescope')}/<name>/results.json "
        f"and {rel(out / 'feedback')}/<name>.md|.json ({len(written)} files)")
    return 0
