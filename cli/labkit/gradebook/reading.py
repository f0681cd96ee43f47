"""The roster and the finished results, as the gradebook reads them."""

import csv
import io
from pathlib import Path

from .. import reports
from ..util import UsageError, rel, say


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
