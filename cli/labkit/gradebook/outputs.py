"""The class outputs written together (each atomically), and `labkit gradebook`, which rebuilds them."""

import json
from pathlib import Path

from ..util import LabkitError, kit_path, print_table, rel, say, write_atomic
from .csv_gradebook import gradebook_csv, match_roster, row_notes
from .feedback import feedback_markdown
from .gradescope_results import gradescope_results
from .junit import junit_xml
from .reading import load_results, read_roster
from .summary import summary_tables
from .text import _f, _lab_order, _num, _percent


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
