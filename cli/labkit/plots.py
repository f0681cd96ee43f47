"""`labkit plot` and `labkit grade --plots`: finds the reports and an interpreter with matplotlib,
and has labkit/draw.py draw them (docs/results.md and a student's report use the same PNGs)."""

import json
import os
import subprocess

from .draw import MATPLOTLIB_HINT, python_with_matplotlib
from .build import build_dir_of, open_build
from .util import RESULTS, ROOT, LabkitError, UsageError, kit_path, rel, say

PLOT_TIMEOUT_S = 600


def timed_reports(paths):
    """The reports among paths that hold timings; says why each other one is left out."""
    keep = []
    for path in paths:
        try:
            report = json.loads(path.read_text())
        except (OSError, ValueError) as e:
            say(f"{rel(path)}: not a grader report ({e.__class__.__name__}): left out")
            continue
        if not isinstance(report, dict) or not report.get("performance"):
            say(f"{rel(path)}: no timings in it (graded with --no-perf?): nothing to plot")
            continue
        keep.append(path)
    return keep


def draw_reports(paths, out_dir, peers=None):
    """Draws the timed reports among paths into out_dir; returns the files written. Raises
    LabkitError (with how to install it) when no python3 here has matplotlib."""
    paths = timed_reports(paths)
    if not paths:
        return []
    python = python_with_matplotlib()
    if python is None:
        raise LabkitError(MATPLOTLIB_HINT)
    out_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "cli"), MPLBACKEND="Agg", PYTHONDONTWRITEBYTECODE="1")
    cmd = [python, "-m", "labkit.draw", str(out_dir), str(peers) if peers else "-", *map(str, paths)]
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=PLOT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise LabkitError(f"drawing the plots took more than {PLOT_TIMEOUT_S} s: stopped") from None
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        raise LabkitError(f"drawing the plots failed ({python}): {last}")
    return [kit_path(line) for line in proc.stdout.splitlines() if line.strip()]


def cmd_plot(args):
    if args.reports:
        paths = [kit_path(r) for r in args.reports]
        missing = [r for r, p in zip(args.reports, paths) if not p.is_file()]
        if missing:
            raise UsageError(f"no such report: {', '.join(missing)}")
    else:
        known = open_build(build_dir_of(args)).names()
        unknown = [lab for lab in args.labs if lab not in known]
        if unknown:
            raise UsageError(f"unknown lab {', '.join(unknown)} (labs: {', '.join(known)})")
        looked = [RESULTS / f"{lab}-{label}.json" for lab in (args.labs or known) for label in ("student", "solution")]
        paths = [p for p in looked if p.is_file()]
        if not paths:
            raise UsageError(f"no report to plot (looked for {', '.join(str(rel(p)) for p in looked)}): run "
                             "./labkit grade first (with timing, not --no-perf), or name reports with --reports")
    peers = kit_path(args.peers) if args.peers else None
    if peers is not None and not peers.is_file():
        raise UsageError(f"--peers {args.peers}: no such file (`./labkit bench LAB --peers` writes "
                         "results/bench/<lab>-peers.json)")
    out = kit_path(args.out) if args.out else RESULTS / "plots"
    written = draw_reports(paths, out, peers)
    for path in written:
        say(f"wrote {rel(path)}")
    return 0 if written else 1
