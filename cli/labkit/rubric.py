"""Scores: a lab's rubric (labs/<lab>/kit/rubric.toml, read with tomllib) applied to a grader's
report, so that every point can be explained to the student who asks about it.

The rules, for every lab alike:
- Only the student's variants score. The kit's own baselines (the grader's references, e.g.
  cpu-sequential) never do, and an empty hand-in scores 0.
- The denominator depends on the lab, the rubric and the machine (and whether timing is on),
  never on what a submission did: a build error, a crash and a pass are out of the same maximum.
- A group of GPU variants on a machine without a CUDA device is "not graded (no CUDA device)":
  out of the maximum, never zero and never full. Performance points without timing (--no-perf)
  or without a reference timing are out of the maximum in the same way.
- Correctness gives partial credit per case: a variant's share of its group's points times the
  cases it passed over its cases.
- Performance compares the group's fastest passing variant with the reference solution's fastest
  variant of the same group, measured on the same machine in the same run, at the largest size
  both timed: full points at a time ratio of `full_at` (1.2) or below, none at `zero_at` or
  above, linear in between (the CS149 assignment checker's rule). A timing flagged for review
  scores no performance points.
- A CPU time measured at one thread is compared in the machine's own speed of its run: the kit's
  own sequential reference (the same code in both runs, in the grader, where a submission cannot
  reach it; one thread too) must have settled in each run, and the time ratio is divided by the
  ratio of its two times (the drift), so that a machine that ran slower in one run costs no one.
  Beyond `max_drift` (30%) either way the machine changed too much for that. A team of threads is
  compared as timed: one thread's time says how fast the core it ran on was, not how fast the
  cores of a team were. (On an H200 node, a KVM guest, one thread on one core ran 1.47x to 1.89x
  slower while other cores were busy; in one class run the kit's sequential reference took 20 to
  21 ms in some submissions' runs and 32 to 34 ms in others, while the 8-thread teams timed beside
  it kept their times: divided by its drift, the honest teams came out at 0.49x to 1.84x the
  reference's time, as timed at 0.73x to 1.23x (one at 1.52x);
  measurements/cpu-timing-runB-H200-2026-12-02.md.) Either way the reference solution's own
  measurement must have settled. A measurement has settled when its median is known within the
  grader's `settled_error` (its `median_error`: the timed calls' interquartile range over their
  median, over the root of their count; the grader times on until it settles,
  common/labkit/timing.hpp). Else the group's performance points are
  "not graded: machine too noisy", out of the maximum. The student's own noise never decides it
  (a submission could make its times vary at will); its median is scored, and a noisy one is said.
- compute-sanitizer findings (--sanitize) cost the rubric's `sanitizer.penalty` share of the
  group's points. A group none of whose variants the sanitizer watched (its run failed, or none
  ran to its end) is "not checked" and costs nothing: never "clean".
- A bonus group (the expert tier) scores bonus points, outside the maximum.

A lab without a rubric file gets the default one: one group per student variant, one point of
correctness each, so that a lab added later is scored without a new file."""

import fnmatch
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from . import reports
from .util import ROOT, UsageError
from .verdicts import PASS, SHOWN

RUBRIC_FILE = "rubric.toml"
DEFAULT_FULL_AT = 1.2
DEFAULT_ZERO_AT = 3.0
DEFAULT_MAX_DRIFT = 0.3  # the kit's sequential reference, timed in both runs, agrees within 30%
NO_GPU = "no CUDA device"
NO_TIMING = "timing was off (--no-perf)"
NO_REFERENCE_TIMING = "no timing of the reference solution to compare with"
NOISY = "machine too noisy"


@dataclass
class Group:
    title: str
    patterns: list
    correctness: float
    performance: float = 0.0
    bonus: bool = False
    variants: list = field(default_factory=list)  # the kit's variants it holds: [{name, kind}]

    @property
    def kind(self):
        return "gpu" if any(v.get("kind") == "gpu" for v in self.variants) else "cpu"


@dataclass
class Rubric:
    lab: str
    source: str
    groups: list
    full_at: float = DEFAULT_FULL_AT
    zero_at: float = DEFAULT_ZERO_AT
    max_drift: float = DEFAULT_MAX_DRIFT
    sanitizer_penalty: float = 0.0
    unscored: list = field(default_factory=list)  # student variants no group names


def _number(table, key, where, default=None, low=0.0):
    value = table.get(key, default)
    if value is None:
        raise UsageError(f"{where}: '{key}' is missing")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < low:
        raise UsageError(f"{where}: '{key}' must be a number of at least {low}, not {value!r}")
    return float(value)


def parse(text, lab, source, kit_variants):
    """The rubric in text (TOML) for lab, its groups filled with the kit's student variants
    (kit_variants: the list `labkit list` reads). Raises UsageError naming what is wrong."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise UsageError(f"{source}: not valid TOML ({e})") from None
    perf = data.get("performance", {})
    rubric = Rubric(lab, source, [],
                    full_at=_number(perf, "full_at", f"{source} [performance]", DEFAULT_FULL_AT, 1.0),
                    zero_at=_number(perf, "zero_at", f"{source} [performance]", DEFAULT_ZERO_AT, 1.0),
                    max_drift=_number(perf, "max_drift", f"{source} [performance]", DEFAULT_MAX_DRIFT),
                    sanitizer_penalty=_number(data.get("sanitizer", {}), "penalty", f"{source} [sanitizer]", 0.0))
    if rubric.zero_at <= rubric.full_at:
        raise UsageError(f"{source} [performance]: zero_at ({rubric.zero_at}) must be above full_at ({rubric.full_at})")
    if rubric.sanitizer_penalty > 1:
        raise UsageError(f"{source} [sanitizer]: penalty is a share of the points, at most 1")
    students = [v for v in kit_variants if not v.get("reference") and not v.get("peer")]  # a peer is the kit's
    taken = set()
    for i, g in enumerate(data.get("group", [])):
        where = f"{source} group {i + 1}"
        patterns = g.get("variants")
        if isinstance(patterns, str):
            patterns = [patterns]
        if not patterns or not all(isinstance(p, str) for p in patterns):
            raise UsageError(f"{where}: 'variants' must name variants or patterns (e.g. \"gpu-02-*\")")
        group = Group(str(g.get("title") or ", ".join(patterns)), patterns,
                      _number(g, "correctness", where, 0.0), _number(g, "performance", where, 0.0),
                      bool(g.get("bonus", False)))
        group.variants = [v for v in students if v["name"] not in taken
                          and any(fnmatch.fnmatchcase(v["name"], p) for p in patterns)]
        taken.update(v["name"] for v in group.variants)
        rubric.groups.append(group)
    rubric.unscored = [v["name"] for v in students if v["name"] not in taken]
    return rubric


def default_rubric(lab, kit_variants):
    text = "".join(f'[[group]]\nvariants = ["{v["name"]}"]\ncorrectness = 1\n'
                   for v in kit_variants if not v.get("reference"))
    return parse(text, lab, "the default rubric (1 point per variant)", kit_variants)


def load(lab, kit_variants, rubric_dir=None):
    """The rubric of lab: rubric_dir/<lab>.toml when given and present, else the lab's own
    labs/<lab>/kit/rubric.toml, else the default."""
    candidates = ([Path(rubric_dir) / f"{lab}.toml"] if rubric_dir else []) + [ROOT / "labs" / lab / "kit" / RUBRIC_FILE]
    for path in candidates:
        if path.is_file():
            shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            return parse(path.read_text(), lab, str(shown), kit_variants)
    return default_rubric(lab, kit_variants)


def _largest(sizes):
    """The largest of (w, h) sizes: the one a time is judged at."""
    return max(sizes, key=lambda s: (s[0] * s[1], s))


def _perf_best(report, names):
    """(kernel ms, size, % of copy bandwidth, variant) of the fastest unflagged timing among
    names, per size: {(w, h): (ms, pct, variant)}."""
    flagged = {v["name"] for v in report.get("variants", []) if reports.flagged(v)}
    passed = {v["name"] for v in report.get("variants", []) if v.get("status") == PASS}
    by_variant = reports.perf_by_variant(report)
    pct = {}
    for p in report.get("performance", []):
        key = (p.get("variant"), (p.get("width"), p.get("height")), p.get("kernel_ms"))
        pct[key] = p.get("pct_copy_min_bytes")
    best = {}
    for name in names:
        if name in flagged or name not in passed:
            continue
        for size, ms in by_variant.get(name, {}).items():
            if size not in best or ms < best[size][0]:
                best[size] = (ms, pct.get((name, size, ms)), name)
    return best


def _entry(report, variant, size, ms):
    """The performance entry behind perf_by_variant's time ms of variant at size; {} if none."""
    for p in (report or {}).get("performance", []):
        if p.get("variant") == variant and (p.get("width"), p.get("height")) == size and p.get("kernel_ms") == ms:
            return p
    return {}


def _anchor(report, exercise):
    """The kit's own CPU reference of exercise (the sequential one: first in the lab's table),
    whose time in two runs says how much the machine's speed drifted between them; None if none."""
    return next((v["name"] for v in report.get("variants", []) if v.get("reference") and
                 v.get("kind") == "cpu" and v.get("exercise", "") == exercise), None)


def _unsettled(entry, bound):
    """How far off the median of a CPU measurement may be, in words, when that is past bound ("" when
    it settled). Entries without the figure (older reports) are not judged."""
    error = entry.get("median_error", 0)
    if error <= bound:
        return ""
    return (f"known only within {error:.0%} (its {entry.get('runs', '?')} calls spread {entry.get('noise', 0):.0%}; "
            f"bound {bound:.0%})")


def _machine_drift(rubric, report, reference, variant, size, ms, ref_ms):
    """(why comparing a CPU variant's time ms at size with the reference solution's ref_ms cannot
    be trusted, "" when it can; the drift: the kit's sequential reference's time in this run over
    its time in the reference's run, 1 where it is not used: no timing of it at that size, or a
    time at another thread count than its own): see the module's rules. Reports without the bound
    (older ones) are not judged, and not divided."""
    bound = report.get("settled_error")
    if not isinstance(bound, (int, float)) or isinstance(bound, bool):
        return "", 1.0
    mine = _entry(report, variant, size, ms)
    why = _unsettled(_entry(reference, variant, size, ref_ms), bound)
    if why:
        return f"the reference solution's {variant}'s median was {why}", 1.0
    anchor = _anchor(report, mine.get("exercise", ""))
    at_mine = reports.perf_by_variant(report).get(anchor, {}).get(size)
    at_ref = reports.perf_by_variant(reference).get(anchor, {}).get(size)
    if not anchor or not at_mine or not at_ref:  # not timed at that size (--cpu-max-gflop): no check
        return "", 1.0
    anchors = (("this", _entry(report, anchor, size, at_mine)),
               ("the reference solution's", _entry(reference, anchor, size, at_ref)))
    if mine.get("threads") != anchors[0][1].get("threads"):
        return "", 1.0  # a team, where the anchor ran one thread: compared as timed
    for whose, entry in anchors:
        why = _unsettled(entry, bound)
        if why:
            return f"the kit's {anchor}'s median in {whose} run was {why}", 1.0
    drift = at_mine / at_ref
    if max(drift, 1 / drift) > 1 + rubric.max_drift:
        return (f"the kit's {anchor} took {drift:.2f}x its time in the reference solution's run "
                f"(bound {rubric.max_drift:.0%} either way)"), drift
    return "", drift


def _performance(rubric, group, report, reference, timing):
    """The performance part of a group's score: a dict for the result."""
    out = {"points": 0.0, "max": group.performance, "ratio": None, "student_ms": None,
           "reference_ms": None, "size": "", "pct_copy_bw": None, "note": ""}
    if group.performance <= 0:
        return out
    if not timing:
        return dict(out, max=0.0, note=f"not graded: {NO_TIMING}")
    names = [v["name"] for v in group.variants]
    ref = _perf_best(reference or {}, names)
    if not ref:
        return dict(out, max=0.0, note=f"not graded: {NO_REFERENCE_TIMING}")
    mine = _perf_best(report, names)
    common = set(mine) & set(ref)
    if not common:
        flagged = [v["name"] for v in report.get("variants", []) if v["name"] in names and reports.flagged(v)]
        why = "timing flagged for review: " + ", ".join(flagged) if flagged else "no passing variant was timed"
        return dict(out, note=why)
    size = _largest(common)
    ms, pct, variant = mine[size]
    drift = 1.0
    if group.kind == "cpu":
        why, drift = _machine_drift(rubric, report, reference or {}, variant, size, ms, ref[size][0])
        if why:
            return dict(out, max=0.0, note=f"not graded: {NOISY}: {why}")
    ratio = ms / ref[size][0] / drift if ref[size][0] > 0 else float("inf")
    share = min(1.0, max(0.0, (rubric.zero_at - ratio) / (rubric.zero_at - rubric.full_at)))
    unsettled = _unsettled(_entry(report, variant, size, ms), report.get("settled_error", 1))
    varied = f" (its own median was {unsettled}: it is scored all the same)" if unsettled else ""
    speed = (f" ({ms / ref[size][0]:.2f}x as timed, over {drift:.2f}x: the kit's sequential reference's time in "
             "this run against the reference solution's)") if round(drift, 2) != 1 else ""
    return dict(out, points=round(group.performance * share, 2), ratio=round(ratio, 3), student_ms=ms,
                reference_ms=ref[size][0], size=f"{size[0]}x{size[1]}", pct_copy_bw=pct, drift=round(drift, 3),
                note=f"{variant}: {ratio:.2f}x the reference's time{speed}{varied}")


def _correctness(group, statuses):
    """(points, cases passed, cases total) of a group: each variant's share times the share of
    its cases it passed."""
    share = group.correctness / len(group.variants) if group.variants else 0.0
    points, passed, total = 0.0, 0, 0
    for v in group.variants:
        got = statuses.get(v["name"], {})
        cp, ct = int(got.get("cases_passed") or 0), int(got.get("cases_total") or 0)
        if got.get("status") == PASS and ct == 0:  # a pass with no case count: all of it
            cp = ct = 1
        passed, total = passed + cp, total + ct
        if ct:
            points += share * cp / ct
    return round(points, 2), passed, total


def feedback_line(group, statuses):
    """One line on what happened to a group: the first variant that did not pass, and why."""
    for v in group.variants:
        got = statuses.get(v["name"], {})
        if got.get("status") != PASS:
            status = SHOWN.get(got.get("status"), got.get("status") or "missing")
            detail = reports.one_line(got.get("detail"))
            return f"{v['name']}: {status}" + (f": {detail}" if detail else "")
    return "every variant passed"


def variant_timing(name, report, reference):
    """A variant's own time against the reference solution's same variant, at the largest size
    both timed: {"ms", "ratio", "pct_copy_bw", "size"}, or {} when it was not timed (or failed,
    or was flagged)."""
    mine = _perf_best(report, [name])
    if not mine:
        return {}
    ref = _perf_best(reference or {}, [name])
    common = set(mine) & set(ref)
    size = _largest(common or mine)
    ms, pct, _ = mine[size]
    ratio = round(ms / ref[size][0], 3) if size in ref and ref[size][0] > 0 else None
    return {"ms": ms, "ratio": ratio, "pct_copy_bw": pct, "size": f"{size[0]}x{size[1]}"}


def _sanitizer_entry(rubric, group, sanitized, top):
    """A GPU group's sanitizer entry: the variants it found errors in, and the penalty they cost;
    or, where it watched none of the group's variants all through, not_checked saying why
    (clean is then False, and nothing is taken: a check that did not run is never "clean")."""
    names = {v["name"] for v in group.variants}
    watched = {n: clean for n, clean in sanitized.get("variants", {}).items() if n in names}
    dirty = sorted(n for n, clean in watched.items() if not clean)
    findings = sanitized.get("findings", {})
    why = ""
    if not watched:
        why = sanitized.get("not_checked") or "none of this group's variants was watched (none ran to its end)"
    penalty = round(top * rubric.sanitizer_penalty, 2) if dirty else 0.0
    return {"tool": sanitized.get("tool", ""), "clean": bool(watched) and not dirty, "not_checked": why,
            "variants": dirty, "penalty": penalty, "findings": {n: findings.get(n, [])[:1] for n in dirty},
            "unchecked": sorted(n for n in sanitized.get("unchecked", []) if n in names)}


def score_group(rubric, group, report, reference, gpu, timing, sanitized):
    statuses = {v["name"]: v for v in report.get("variants", [])}
    if "*" in statuses:  # a stand-in report without a variant list stands for all
        statuses = {v["name"]: statuses["*"] for v in group.variants}
    entry = {"name": ", ".join(group.patterns), "title": group.title, "kind": group.kind, "bonus": group.bonus,
             "graded": True, "why_not_graded": "",
             # what the rubric gives the group, graded here or not: Gradescope's maximum
             "rubric_points": group.correctness + group.performance,
             "variants": [{"name": v["name"], "status": statuses.get(v["name"], {}).get("status", "missing"),
                           "detail": statuses.get(v["name"], {}).get("detail", ""),
                           "flags": statuses.get(v["name"], {}).get("flags", []),
                           "notes": statuses.get(v["name"], {}).get("notes", []),
                           "cases_passed": statuses.get(v["name"], {}).get("cases_passed", 0),
                           "cases_total": statuses.get(v["name"], {}).get("cases_total", 0),
                           "timing": variant_timing(v["name"], report, reference) if timing else {}}
                          for v in group.variants],
             "sanitizer": None}
    if not group.variants:
        return dict(entry, graded=False, why_not_graded="the rubric names no variant of this build",
                    points=0.0, max_points=0.0, correctness=None, performance=None, feedback="")
    if group.kind == "gpu" and not gpu:
        return dict(entry, graded=False, why_not_graded=NO_GPU, points=0.0, max_points=0.0,
                    correctness=None, performance=None, feedback=f"not graded ({NO_GPU})")
    points, cp, ct = _correctness(group, statuses)
    correct = {"points": points, "max": group.correctness, "cases_passed": cp, "cases_total": ct}
    perf = _performance(rubric, group, report, reference, timing)
    total, top = correct["points"] + perf["points"], correct["max"] + perf["max"]
    if sanitized is not None and group.kind == "gpu":
        entry["sanitizer"] = _sanitizer_entry(rubric, group, sanitized, top)
        total = max(0.0, total - entry["sanitizer"]["penalty"])
    return dict(entry, points=round(total, 2), max_points=top, correctness=correct, performance=perf,
                feedback=feedback_line(group, statuses))


def score_lab(rubric, report, reference=None, gpu=True, timing=False, sanitized=None):
    """The scored lab of a result (docs/instructor.md, "Scores"): groups,
    points, the maximum and what was not graded, from a grader report (or a stand-in)."""
    groups = [score_group(rubric, g, report, reference, gpu, timing, sanitized) for g in rubric.groups]
    regular = [g for g in groups if not g["bonus"]]
    bonus = [g for g in groups if g["bonus"]]
    not_graded = sorted({f"{g['kind']}: {g['why_not_graded']}" for g in groups if not g["graded"]})
    not_graded += sorted({f"performance: {g['performance']['note'][len('not graded: '):]}" for g in groups
                          if g["graded"] and g["performance"] and g["performance"]["note"].startswith("not graded")})
    return {"points": round(sum(g["points"] for g in regular), 2),
            "max_points": round(sum(g["max_points"] for g in regular), 2),
            "bonus_points": round(sum(g["points"] for g in bonus), 2),
            "max_bonus": round(sum(g["max_points"] for g in bonus), 2),
            "rubric": rubric.source, "not_graded": not_graded, "groups": groups}
