"""The grader's JSON reports: stand-ins when there is none, tallies, and the tables and files
labkit makes of them."""

import csv
import io
import json
import math
import re
from pathlib import Path

from .util import ANSI_RE, say, write_atomic
from .verdicts import BUILD_ERROR, FAIL, FAILING, NOT_RUN, PASS, PASS_EMULATED, SHOWN, SKIPPED, TODO, UNCHECKED

# Where a student finds this course's GPUs (the instructor fills it in). A no-GPU message that
# points there takes the path from here: one home for it.
GPU_TIME_DOC = "docs/gpu_time.md"


# Student text (a runner's exception message, a compiler's output, a file name from a submission)
# is data the submission chose. One text keeps at most this many characters, the note of the cut
# included: a message of megabytes would bury the table it sits in. The note says how much went.
STUDENT_TEXT_MAX = 2000
CUT_NOTE = " [... {:,} more characters cut]"
CUT_NOTE_ROOM = 48  # room for the note, with any count below 10**15
# Control characters but tab and newline (colour codes are removed whole first): nothing a
# submission prints moves a terminal's cursor or breaks a file format (XML 1.0 has no place for them).
CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# A spreadsheet reads a cell starting with one of these as a formula ("=HYPERLINK(...)"), or
# with a tab as one (a carriage return is too, but student_text has removed those); plain numbers
# keep their sign.
FORMULA_START = ("=", "+", "-", "@", "\t")
PLAIN_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


# A student variant this many times faster than the reference solution's same variant, on the
# same case, is flagged for review (see flag_fast_timings).
REVIEW_FACTOR = 10.0
TIMING_FLAG = "timing flagged for review"

# The shape of a grader's JSON report, as far as labkit reads it: field -> accepted types (None:
# the JSON null), and which fields must be there. Everything else in it is passed on unread.
NUMBER = (int, float, type(None))
TYPE_NAMES = {str: "text", int: "a whole number", float: "a number", bool: "true or false",
              dict: "an object", list: "a list", type(None): "null"}
REPORT_FIELDS = {"lab": (str,), "label": (str,), "sandbox": (str,), "environment": (dict,),
                 "variants": (list,), "performance": (list,), "cases": (list,), "settled_error": (int, float)}
VARIANT_FIELDS = {"name": (str,), "status": (str,), "detail": (str,), "kind": (str,),
                  "exercise": (str,), "reference": (bool,), "cases_passed": (int,),
                  "cases_failed": (int,), "cases_total": (int,), "flags": (list,), "notes": (list,),
                  "sanitizer": (dict,)}
PERF_FIELDS = {"variant": (str,), "exercise": (str,), "kind": (str,), "pattern": (str,),
               "params": (str,), "width": (int,), "height": (int,), "threads": (int,),
               "kernel_ms": NUMBER, "e2e_ms": NUMBER, "cpu_ms": NUMBER, "noise": NUMBER,
               "median_error": NUMBER, "demand_ms": NUMBER}
REQUIRED = {"report": ("variants",), "variant": ("name", "status"),
            "performance": ("variant", "width", "height", "kernel_ms")}


def student_text(text):
    """text from a submission (bytes, str, or None) as text every output can hold: invalid UTF-8
    and lone surrogates (a JSON escape such as \\udcff) replaced, colour codes and control
    characters but newline and tab removed, and at most STUDENT_TEXT_MAX characters, the last of
    them a note of how many were cut. Applying it twice changes nothing."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    text = "" if text is None else str(text)
    text = text.encode("utf-8", "replace").decode("utf-8")
    text = CONTROL_RE.sub("", ANSI_RE.sub("", text))
    if len(text) > STUDENT_TEXT_MAX:
        keep = STUDENT_TEXT_MAX - CUT_NOTE_ROOM
        text = text[:keep] + CUT_NOTE.format(len(text) - keep)
    return text


def one_line(text):
    """student_text on one line: table cells, CSV cells, a line of feedback."""
    return " ".join(student_text(text).split())


def load_json(path):
    """A JSON file that the grader or grade-all wrote and that holds student text: read as bytes,
    invalid UTF-8 replaced (one bad byte in an exception message must not lose the whole file).
    Raises OSError when it cannot be read, ValueError when it is not JSON."""
    data = Path(path).read_bytes().decode("utf-8", "replace")
    try:
        return json.loads(data)
    except (ValueError, RecursionError) as e:  # not JSON at all, or nested beyond reason
        raise ValueError(f"not JSON ({str(e)[:80] or e.__class__.__name__})") from None


def _check_fields(obj, fields, required, where):
    """Raises ValueError naming the first field of obj (a dict) that is missing or of a type the
    readers of a report do not expect (bool is no number here, NaN no time)."""
    if not isinstance(obj, dict):
        raise ValueError(f"{where} is {TYPE_NAMES.get(type(obj), type(obj).__name__)}, not an object")
    for key in required:
        if key not in obj:
            raise ValueError(f"{where} has no {key!r}")
    for key, types in fields.items():
        value = obj.get(key)
        if key not in obj or (value is None and type(None) in types):
            continue
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types) or \
                (isinstance(value, float) and not math.isfinite(value)):
            raise ValueError(f"{where}.{key} is {json.dumps(value)[:40]}, not "
                             + " or ".join(TYPE_NAMES[t] for t in types))


def validate(report):
    """Checks that report (parsed JSON) has the shape every reader of it relies on, and fills in
    the optional lists; each variant's detail and flags become student_text. Raises ValueError
    saying where it does not: one place, so that a malformed report is an ERROR with a reason,
    never a traceback later."""
    _check_fields(report, REPORT_FIELDS, REQUIRED["report"], "report")
    for i, v in enumerate(report["variants"]):
        _check_fields(v, VARIANT_FIELDS, REQUIRED["variant"], f"variants[{i}]")
        if not v["name"]:
            raise ValueError(f"variants[{i}].name is empty")
        for texts in ("flags", "notes"):
            if not all(isinstance(f, str) for f in v.get(texts, [])):
                raise ValueError(f"variants[{i}].{texts} holds something other than text")
            if texts in v:
                v[texts] = [student_text(f) for f in v[texts]]
        if "detail" in v:
            v["detail"] = student_text(v["detail"])
    for i, p in enumerate(report.get("performance", [])):
        _check_fields(p, PERF_FIELDS, REQUIRED["performance"], f"performance[{i}]")
    report.setdefault("performance", [])
    report.setdefault("cases", [])
    return report


def stand_in_reason(report):
    """Why a grader run gave no report of its own ("" for a report the grader wrote): the detail
    of its stand-in (placeholder, grading.run_grader), which every variant of it carries."""
    if "_file" in report:
        return ""
    return next((str(v["detail"]) for v in report.get("variants", []) if v.get("detail")), "no report")


def placeholder(lab, label, variants, status, detail):
    """A report for a run that produced none (build error, crash, timeout): every student variant
    gets status (the grader's references are not the student's); without a variant list, one
    variant "*" stands for all."""
    students = [v for v in variants or [] if not v.get("reference")]
    return {"lab": lab, "label": label, "environment": {}, "cases": [], "performance": [],
            "variants": [{"name": v["name"], "kind": v.get("kind", ""), "status": status,
                          "detail": detail, "cases_passed": 0, "cases_failed": 0}
                         for v in (students or [{"name": "*", "kind": ""}])]}


def mark_not_emulated(report, why):
    """The GPU variants that an emulated grading had to leave 'not run' (the student's files do
    not build for the CPU) say so and why; True if any changed."""
    rows = [v for v in report.get("variants", []) if v.get("status") == NOT_RUN]
    for v in rows:
        v["detail"] = f"cannot be emulated ({why})"
    return bool(rows)


def failing(report):
    return [v for v in report.get("variants", []) if v.get("status") in FAILING]


def counts(report):
    """(passed, total) of the student's variants: the grader's own references are not the
    student's work, and total leaves out what was not checked here (GPU variants without a GPU)."""
    vs = [v for v in report.get("variants", []) if not v.get("reference")]
    passed = sum(v.get("status") == PASS for v in vs)
    total = sum(v.get("status") not in UNCHECKED for v in vs)
    return passed, total


def student_summary(report):
    """One line on the student's variants, by verdict: what passed, what failed, what is still
    TODO, and what compiled but could not be checked on this machine (never a pass)."""
    vs = [v for v in report.get("variants", []) if not v.get("reference")]
    seen = {}
    for v in vs:
        seen[v.get("status")] = seen.get(v.get("status"), 0) + 1
    refs = [v["name"] for v in report.get("variants", []) if v.get("reference")]
    parts = [f"{seen.pop('pass', 0)} of your {len(vs)} variants pass"
             + (f" (the grader's own {', '.join(refs)} not counted)" if refs else "")]
    not_run = [v for v in vs if v.get("status") == NOT_RUN]
    seen.pop(NOT_RUN, None)
    parts += [f"{n} {SHOWN.get(s, s)}" for s, n in seen.items()]
    if BUILD_ERROR in seen:
        parts.append("the files do not compile: the compiler's first errors are above")
    if not_run:
        why = str(not_run[0].get("detail", "")).replace(" (compiled)", "") or "no GPU here"
        parts.append(f"{len(not_run)} GPU variant{'s' if len(not_run) > 1 else ''} compiled but NOT "
                     f"checked here ({why}): check them on a GPU (where: {GPU_TIME_DOC}), or on the CPU "
                     "with --emulate")
    caveat = (report.get("environment") or {}).get("gpu_emulated")
    if PASS_EMULATED in seen and caveat:  # the grader's words for what emulation cannot show
        parts.append(caveat)
    return "; ".join(parts)


def tally(report):
    """'pass 3, FAIL 1, ...' in the order the statuses first appear."""
    seen = {}
    for v in report.get("variants", []):
        seen[v.get("status")] = seen.get(v.get("status"), 0) + 1
    return ", ".join(f"{SHOWN.get(s, s)} {n}" for s, n in seen.items())


def perf_by_variant(report):
    """variant -> {(w, h): kernel_ms}, the best entry per size (e.g. the best thread count), on
    the lab's first timed pattern and parameters (a lab may time several: Lab 2 random and skewed
    images, Lab 3 several filter sizes)."""
    out = {}
    entries = report.get("performance", []) or []
    first = entries[0] if entries and isinstance(entries[0], dict) else {}
    primary = (first.get("pattern"), first.get("params", ""))
    for p in entries:
        if not isinstance(p, dict) or (p.get("pattern"), p.get("params", "")) != primary:
            continue
        try:
            size = (int(p["width"]), int(p["height"]))
            ms = float(p["kernel_ms"])
        except (KeyError, TypeError, ValueError):
            continue
        sizes = out.setdefault(p.get("variant", ""), {})
        sizes[size] = min(ms, sizes.get(size, ms))
    return out


def _perf_key(p):
    """What makes two timings comparable: the same variant, exercise and case. Thread counts are
    not compared one by one: each side's best over its thread sweep is."""
    return (p.get("exercise", ""), p.get("variant"), p.get("width"), p.get("height"),
            p.get("pattern", ""), p.get("params", ""))


def _times(ratio):
    return "infinitely" if math.isinf(ratio) else f"{ratio:.0f}×" if ratio >= 100 else f"{ratio:.1f}×"


def flag_fast_timings(student, solution, factor=REVIEW_FACTOR):
    """Adds "timing flagged for review: N× faster than the reference solution at WxH" to the
    flags of every student variant whose best median kernel time (over its thread counts) is
    more than factor times below the reference solution's fastest run of the same variant on the
    same case (size, pattern, parameters); the largest such gap names the case. The reference's
    fastest run, not its median, so that one noisy reference measurement (a loaded machine)
    flags nobody. A student can beat the instructor, but an order of magnitude on the same
    algorithm is more likely work done outside the timed region or a result reused across runs: a
    person decides, and comparisons leave the time out (flagged). Returns the names of the
    variants flagged."""
    fastest = {}
    for p in (solution or {}).get("performance", []):
        ms = p.get("min_ms", p.get("kernel_ms"))
        if isinstance(ms, (int, float)) and ms > 0:
            fastest[_perf_key(p)] = min(ms, fastest.get(_perf_key(p), ms))
    best = {}  # the student's best median per case, and its row
    for p in (student or {}).get("performance", []):
        ms = p.get("kernel_ms")
        if isinstance(ms, (int, float)) and (_perf_key(p) not in best or ms < best[_perf_key(p)][0]):
            best[_perf_key(p)] = (ms, p)
    worst = {}  # variant -> (ratio, the student's row)
    for key, (ms, p) in best.items():
        ref = fastest.get(key)
        if ref is None:
            continue
        ratio = ref / ms if ms > 0 else math.inf
        if ratio > factor and ratio > worst.get(p["variant"], (0, None))[0]:
            worst[p["variant"]] = (ratio, p)
    flagged = []
    for v in (student or {}).get("variants", []):
        if v.get("reference") or v["name"] not in worst:
            continue
        ratio, p = worst[v["name"]]
        case = ", ".join(str(c) for c in (p.get("pattern"), p.get("params")) if c)
        flag = (f"{TIMING_FLAG}: {_times(ratio)} faster than the reference solution at "
                f"{p['width']}x{p['height']}" + (f" ({case})" if case else ""))
        flags = v.setdefault("flags", [])
        if flag not in flags:
            flags.append(flag)
        flagged.append(v["name"])
    return flagged


def flagged(variant):
    """Whether a variant's timing is flagged for review (by labkit or by the grader)."""
    return bool((variant or {}).get("flags"))


def review(report):
    """'variant: flag; ...' for every flagged variant of report ('' when none)."""
    return "; ".join(f"{v['name']}: {f}" for v in report.get("variants", []) for f in v.get("flags", []))


def timed_on(report):
    """' (k=3)' or ' (random)': what perf_by_variant's times were measured on, when a lab times
    several parameters or patterns; '' otherwise."""
    entries = [p for p in (report or {}).get("performance", []) or [] if isinstance(p, dict)]
    if not entries:
        return ""
    params = {p.get("params", "") for p in entries}
    patterns = {p.get("pattern") for p in entries}
    first = entries[0]
    what = [w for w, many in ((first.get("params", ""), len(params) > 1), (first.get("pattern", ""), len(patterns) > 1))
            if many and w]
    return f" ({', '.join(what)})" if what else ""


def fmt_ms(ms):
    if ms is None:
        return "-"
    return f"{ms:.3f}" if ms < 100 else f"{ms:.1f}"


def comparison_rows(student, solution):
    """Rows of the side-by-side table: variant, statuses, largest common perf size, times, ratio."""
    names = [v["name"] for v in student.get("variants", [])] if student else []
    if solution:
        names += [v["name"] for v in solution.get("variants", []) if v["name"] not in names]
    st = {v["name"]: v for v in (student or {}).get("variants", [])}
    so = {v["name"]: v for v in (solution or {}).get("variants", [])}
    sp, op = perf_by_variant(student or {}), perf_by_variant(solution or {})
    rows = []
    for name in names:
        a, b = sp.get(name, {}), op.get(name, {})
        common = set(a) & set(b)
        pool = common or set(a) or set(b)
        size = max(pool, key=lambda s: (s[0] * s[1], s)) if pool else None
        ams, bms = a.get(size), b.get(size)
        ratio = "flagged" if flagged(st.get(name)) else f"{ams / bms:.2f}x" if ams and bms else "-"
        rows.append([name,
                     SHOWN.get(st.get(name, {}).get("status"), st.get(name, {}).get("status", "-")),
                     SHOWN.get(so.get(name, {}).get("status"), so.get(name, {}).get("status", "-")),
                     f"{size[0]}x{size[1]}" if size else "-", fmt_ms(ams), fmt_ms(bms), ratio])
    return rows


def print_environment(report):
    env = report.get("environment") or {}
    if not env:
        return
    parts = []
    if env.get("gpu"):
        parts.append(f"GPU {env['gpu']}" + (f" ({env['sms']} SMs)" if env.get("sms") else ""))
    elif "gpu" in env:
        reason = env.get("gpu_unavailable_reason")
        parts.append("GPU none" + (f" ({reason})" if reason else ""))
    if env.get("driver") or env.get("cuda"):
        parts.append(f"driver {env.get('driver', '?')}, CUDA {env.get('cuda', '?')}")
    if env.get("cpu"):
        parts.append(f"CPU {env['cpu']}" + (f", {env['threads']} threads" if env.get("threads") else ""))
    if parts:
        say("machine: " + "; ".join(parts))


def print_details(report, title):
    """One line per variant that did not pass, with the grader's detail (first mismatch, ...);
    one line in all when every variant failed the same way (a crash or timeout of the process);
    then one line per flag of a variant (timing flagged for review)."""
    bad = [v for v in report.get("variants", [])
           if v.get("status") not in (PASS, PASS_EMULATED, TODO, NOT_RUN, SKIPPED, BUILD_ERROR)]
    why = lambda v: f"{SHOWN.get(v.get('status'), v.get('status'))}" + (
        f": {' '.join(str(v.get('detail', '')).split())}" if v.get("detail") else "")
    if len(bad) > 1 and len(bad) == len(report.get("variants", [])) and len({why(v) for v in bad}) == 1:
        say(f"  {title} all {len(bad)} variants: {why(bad[0])}")
    else:
        for v in bad:
            say(f"  {title} {v['name']}: {why(v)}")
    for v in report.get("variants", []):
        for f in v.get("flags", []):
            say(f"  {title} {v['name']}: {f}")
        for n in v.get("notes", []):
            say(f"  {title} {v['name']}: note: {n}")


def without_base(text, staged):
    """text (compiler output, a variant's detail) as the student reads it: their files named
    <lab>/<file>, not by the path of the build slot they were staged and compiled in."""
    for base in {str(staged), str(Path(staged).resolve())}:
        text = text.replace(base + "/", "")
    return text


def unstage(report, staged):
    """report's student texts (details, flags, notes, cases) with the slot's path of the student
    files left out (without_base): a runtime error names `convolution/01_global.cu:51`."""
    for v in report.get("variants", []):
        if isinstance(v.get("detail"), str):
            v["detail"] = without_base(v["detail"], staged)
        for texts in ("flags", "notes"):
            if isinstance(v.get(texts), list):
                v[texts] = [without_base(t, staged) if isinstance(t, str) else t for t in v[texts]]
    for c in report.get("cases", []):
        if isinstance(c, dict) and isinstance(c.get("detail"), str):
            c["detail"] = without_base(c["detail"], staged)
    return report


# What a timing run (grade --no-check on the variants that passed) adds to a check run's report
# (grade --no-perf), when a class run grades the two apart (batch.Pipeline.check_and_time).
TIMING_FIELDS = ("performance", "performance_problems", "settled_error", "timing_photo")


def merge_timing(checked, timed):
    """checked, a check run's report, with timed's timings: its performance entries and problems,
    and for each variant it timed, the flags and notes of its timing, and a fail where an output of
    a timed run was wrong (the timing run never calls a variant a pass: it did not check it)."""
    for field in TIMING_FIELDS:
        if field in timed:
            checked[field] = timed[field]
    rows = {v["name"]: v for v in timed.get("variants", [])}
    for v in checked.get("variants", []):
        t = rows.get(v["name"])
        if not t or v.get("reference"):
            continue
        if t.get("status") == FAIL:
            v["status"], v["detail"] = FAIL, t.get("detail", "")
        for texts in ("flags", "notes"):
            v[texts] = list(dict.fromkeys([*(v.get(texts) or []), *(t.get(texts) or [])]))
    return checked


def write_back(report):
    """Rewrites the JSON report a grader wrote (report["_file"]) with what labkit added to it
    (flags, the sandbox of the build), so that the file says what the summaries say."""
    if report.get("_file"):
        write_atomic(report["_file"], json.dumps({k: v for k, v in report.items() if not k.startswith("_")},
                                                 indent=2))


def csv_cell(value):
    """A CSV cell a spreadsheet shows as the text it is: a text that a spreadsheet would take for
    a formula gets a leading apostrophe (OWASP's advice); numbers, and texts that are plain
    numbers, stay as they are."""
    if not isinstance(value, str):
        return value
    value = student_text(value)
    if value.startswith(FORMULA_START) and not PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def csv_text(rows):
    """rows as CSV text, for write_atomic: every cell quoted where it must be (a comma, a quote,
    a line break) and kept from being read as a formula (csv_cell)."""
    out = io.StringIO()
    csv.writer(out).writerows([csv_cell(c) for c in row] for row in rows)
    return out.getvalue()


def write_run_outputs(args, runs, exit_status, sandbox):
    """--json (every report in one file) and --csv (one row per variant and size) of `grade`;
    sandbox: the label of the run's sandbox."""
    if args.json:
        write_atomic(args.json, json.dumps({"exit_status": exit_status, "sandbox": sandbox, "runs": runs},
                                           indent=2))
        say(f"wrote {args.json}")
    if args.csv:
        rows = [["lab", "label", "variant", "kind", "status", "detail", "flags", "pattern", "params",
                 "width", "height", "kernel_ms", "e2e_ms", "sandbox"]]
        for r in runs:
            perf = {}
            for p in r.get("performance", []):
                perf.setdefault(p.get("variant"), []).append(p)
            for v in r.get("variants", []):
                for p in perf.get(v["name"]) or [{}]:
                    rows.append([r.get("lab"), r.get("label"), v["name"], v.get("kind", ""),
                                 v.get("status"), v.get("detail", ""), "; ".join(v.get("flags", [])),
                                 p.get("pattern", ""), p.get("params", ""), p.get("width", ""),
                                 p.get("height", ""), p.get("kernel_ms", ""), p.get("e2e_ms", ""),
                                 r.get("sandbox", sandbox)])
        write_atomic(args.csv, csv_text(rows))
        say(f"wrote {args.csv}")
