"""gradebook.csv, one row per student for the LMS, and the notes on each row (names that collide, a roster match)."""

import re

from .. import reports
from ..submissions import NOTHING_HANDED_IN, NOT_HANDED_IN, PATHS_USED, SOURCE_SUFFIXES, handed_in, same_name
from ..verdicts import BUILD_ERROR
from .text import _f, _flags, _groups, _num, _one_line, _sanitizer_verdict


# Source file names in a compiler's message ("integral_image/cpu_openmp.cpp:14:9: error: ..."),
# for a gradebook note on a lab that did not build: the first few, without their folders.
SOURCE_NAME_RE = re.compile(r"([A-Za-z0-9_.+-]+(?:%s))(?![A-Za-z0-9_+])"
                            % "|".join(map(re.escape, sorted(SOURCE_SUFFIXES, key=len, reverse=True))))
MAX_NAMED_FILES = 3


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
