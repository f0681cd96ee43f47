"""The drawing of `labkit plot` (plots.py finds the reports and an interpreter with matplotlib): the
plots of a grader report, for a student's report or the kit's results.

For each lab report (results/<lab>-<label>.json, as `labkit grade` writes it) and each timed
exercise, image pattern and parameter set, up to three PNGs on log-scaled axes (the bandwidth
one only where GPU variants were timed):
  <lab>-<label>[-<exercise>][-<pattern>][-<params>]-time.png   kernel time vs image size
  <lab>-<label>[...]-speedup.png                      speedup vs the reference (cpu-sequential)
  <lab>-<label>[...]-bandwidth.png                    % of measured copy bandwidth (GPU variants)
CPU variants are shown at their best thread count. --peers adds the libraries that
`labkit bench --peers` timed (results/bench/<lab>-peers.json; a separate run, marked as such).

Drawing needs matplotlib (the distribution's python3-matplotlib). This module reads the reports
with the standard library only; when this interpreter has no matplotlib, labkit looks for a
python3 that has it (the system's, beside a pyenv or venv one) and draws there."""

import importlib.util
import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

PEER_STYLE = {"linestyle": "--", "marker": "s"}
MATPLOTLIB_HINT = ("matplotlib is not installed for any python3 here: `apt-get install python3-matplotlib` "
                   "(Debian, Ubuntu; ./labkit setup does it where it can) or `python3 -m pip install matplotlib`")
SYSTEM_PYTHONS = ("/usr/bin/python3", "/bin/python3")


def best_times(report):
    """{(exercise, pattern, params): {variant: {size: ms}}} of a report's timings (square sizes
    by side; a CPU variant's best thread count), and {variant: kind}, and {(exercise, pattern,
    params, variant, size): % of copy bandwidth on the floor}."""
    times, kinds, pct = {}, {}, {}
    for p in report.get("performance", []):
        if not isinstance(p.get("kernel_ms"), (int, float)) or p["kernel_ms"] <= 0:
            continue
        key = (p.get("exercise", ""), p.get("pattern", ""), p.get("params", ""))
        size = int(p["width"]) if p["width"] == p["height"] else int(math.isqrt(int(p["width"]) * int(p["height"])))
        series = times.setdefault(key, {}).setdefault(p["variant"], {})
        if size not in series or p["kernel_ms"] < series[size]:
            series[size] = p["kernel_ms"]
        kinds[p["variant"]] = p.get("kind", "")
        if isinstance(p.get("pct_copy_min_bytes"), (int, float)):
            pct[key + (p["variant"], size)] = p["pct_copy_min_bytes"]
    return times, kinds, pct


def floor_bytes_per_pixel(report, exercise=None):
    """An exercise's floor (bytes per pixel) as the report's own % of copy bandwidth implies it."""
    copy = (report.get("environment") or {}).get("copy_gbps") or 0
    for p in report.get("performance", []):
        if exercise is not None and p.get("exercise", "") != exercise:
            continue
        if isinstance(p.get("pct_copy_min_bytes"), (int, float)) and copy > 0 and p["kernel_ms"] > 0:
            return p["pct_copy_min_bytes"] / 100 * copy * 1e9 * p["kernel_ms"] * 1e-3 / (p["width"] * p["height"])
    return 0.0


def peer_times(got):
    """[(tag, size, ms)] of one peer of a bench_alternatives JSON: its rows are "N", "PATTERN N"
    or "PARAMS N" (the tag is "" for the first)."""
    out = []
    for row, ms in (got.get("ms") or {}).items():
        words = row.split()
        if words and words[-1].isdigit() and isinstance(ms, (int, float)):
            out.append((" ".join(words[:-1]), int(words[-1]), ms))
    return out


def peer_series(peers, key):
    """{peer name (gpu|cpu): {size: ms}} of a bench_alternatives JSON for (pattern, params)."""
    out = {}
    for name, got in (peers or {}).items():
        for tag, size, ms in peer_times(got):
            if not tag or tag in key:
                out.setdefault(name, {})[size] = ms
    return out


def reference_of(report, exercise):
    refs = [v["name"] for v in report.get("variants", []) if v.get("reference")
            and v.get("exercise", exercise) == exercise]
    return refs[0] if refs else "cpu-sequential"


def draw(report_path, out_dir, peers=None):
    """Writes the PNGs of one report into out_dir; returns their paths."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    report = json.loads(Path(report_path).read_text())
    times, kinds, pct = best_times(report)
    for old in Path(out_dir).glob(f"{report.get('lab', 'lab')}-{report.get('label', '')}-*.png"):
        old.unlink()  # an earlier drawing of the same report, which this one replaces
    env = report.get("environment") or {}
    copy = env.get("copy_gbps") or 0
    lab, label = report.get("lab", "lab"), report.get("label", "")
    machine = f"{env.get('gpu') or 'no GPU'}, {env.get('cpu', '')} ({env.get('threads', '?')} threads), {env.get('date', '')[:10]}"
    written = []
    for key, variants in sorted(times.items()):
        exercise = key[0]
        ref, bpp = reference_of(report, exercise), floor_bytes_per_pixel(report, exercise)
        # The lab's main exercise is the lab's name; another one (Lab 1's transpose) is named.
        tags = [t for t in key[1:] if t] if exercise in ("", lab) else [exercise] + [t for t in key[1:] if t]
        stem = "-".join([lab, label] + [re.sub(r"[^A-Za-z0-9_.=]+", "_", t) for t in tags])
        others = peer_series(peers, key[1:]) if exercise in ("", lab) else {}
        title = f"{lab} ({label})" + (f", {', '.join(tags)}" if tags else "")

        def figure(ylabel, what):
            fig, ax = plt.subplots(figsize=(9, 5.5))
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("image side (pixels; square images)")
            ax.set_ylabel(ylabel)
            ax.set_title(f"{title}: {what}\n{machine}", fontsize=10)
            ax.grid(True, which="both", alpha=0.3)
            return fig, ax

        def finish(fig, ax, name):
            ax.legend(fontsize=7, ncol=2 if len(ax.get_lines()) > 12 else 1, loc="best")
            fig.tight_layout()
            path = Path(out_dir) / f"{stem}-{name}.png"
            fig.savefig(path, dpi=110)
            plt.close(fig)
            written.append(path)

        fig, ax = figure("time (ms): GPU kernels only, CPU best thread count", "time vs size")
        for v, s in variants.items():
            ax.plot(sorted(s), [s[n] for n in sorted(s)], marker="o", label=f"{v} ({kinds.get(v, '')})")
        for name, s in others.items():
            ax.plot(sorted(s), [s[n] for n in sorted(s)], label=f"{name} (peer, separate run)", **PEER_STYLE)
        finish(fig, ax, "time")

        base = variants.get(ref, {})
        if base:
            fig, ax = figure(f"speedup vs {ref} (same run)", f"speedup vs {ref}")
            for v, s in variants.items():
                common = [n for n in sorted(s) if n in base]
                ax.plot(common, [base[n] / s[n] for n in common], marker="o", label=v)
            for name, s in others.items():
                common = [n for n in sorted(s) if n in base]
                ax.plot(common, [base[n] / s[n] for n in common], label=f"{name} (peer, separate run)", **PEER_STYLE)
            finish(fig, ax, "speedup")

        gpu = {v: s for v, s in variants.items() if kinds.get(v) == "gpu"}
        if gpu and copy > 0:
            fig, ax = figure(f"% of copy bandwidth ({copy:.0f} GB/s) on the {bpp:.3g} B/px floor",
                             "% of copy bandwidth")
            ax.set_yscale("linear")
            ax.axhline(100, color="gray", linewidth=0.8)
            for v, s in gpu.items():
                sizes = [n for n in sorted(s) if key + (v, n) in pct]
                ax.plot(sizes, [pct[key + (v, n)] for n in sizes], marker="o", label=v)
            if bpp > 0:
                for name, s in others.items():
                    if name.endswith("_gpu"):
                        ax.plot(sorted(s), [100 * bpp * n * n / (s[n] * 1e-3) / 1e9 / copy for n in sorted(s)],
                                label=f"{name} (peer, separate run)", **PEER_STYLE)
            finish(fig, ax, "bandwidth")
    return written


def has_matplotlib(python):
    try:
        return subprocess.run([python, "-c", "import matplotlib"], capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def python_with_matplotlib():
    """This interpreter when it has matplotlib, else the system's python3 when that has it."""
    if importlib.util.find_spec("matplotlib") is not None:
        return sys.executable
    for candidate in SYSTEM_PYTHONS:
        if Path(candidate).exists() and Path(candidate).resolve() != Path(sys.executable).resolve() \
                and has_matplotlib(candidate):
            return candidate
    found = shutil.which("python3")
    if found and Path(found).resolve() != Path(sys.executable).resolve() and has_matplotlib(found):
        return found
    return None


def main(argv):
    """python3 -m labkit.draw OUT_DIR PEERS_JSON|- REPORT...: the drawing, in an interpreter that has
    matplotlib. Prints each file written."""
    out_dir, peers_path, reports = argv[0], argv[1], argv[2:]
    peers = json.loads(Path(peers_path).read_text()) if peers_path != "-" else None
    for r in reports:
        for path in draw(r, out_dir, peers):
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
