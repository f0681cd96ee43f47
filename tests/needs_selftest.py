#!/usr/bin/env python3
"""Every GPU row of the reference states what it needs (grader/exercise.hpp's Needs), and the
statement is true: each row's host code runs to its launches in a dry run without a GPU (runner
`dry`), which reports per set of parameters the most dynamic shared memory per block its launches
asked and what the row declares. A row that asks more than it declares (48 KB when it declares
nothing) fails; so does one that declares more than 48 KB but asks less (it would be skipped on
GPUs that could run it). The runner checks the declaration against the device before it runs a row
(a skip that says what it needs and what the GPU has). Needs a build with CUDA; a GPU, if there is
one, is hidden from the runners.

    needs_selftest.py --build-dir DIR [--table]

--table also prints, in Markdown, each row's declared needs and on which GPUs they fit (the
opt-in limits of common/labkit/gpu_limits.hpp's kArchLimits, read from there).
"""
import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

MESON_SKIP = 77
LIMITS = Path(__file__).resolve().parent.parent / "common" / "labkit" / "gpu_limits.hpp"
# What a block gets without opting in (labkit::kDefaultDynamicSharedBytes), read from its home.
DEFAULT_SHARED = int(re.search(r"kDefaultDynamicSharedBytes = (\d+) \* 1024;", LIMITS.read_text()).group(1)) * 1024
# The table's GPUs, by compute capability: their shared memory limit comes from LIMITS.
GPUS = (("T4", 75), ("A10 / RTX 30", 86), ("RTX 40", 89), ("A100", 80), ("H100", 90))


def arch_optin():
    """compute capability -> the most shared memory a block may opt in to, from kArchLimits."""
    text = LIMITS.read_text()
    return {int(sm): int(kb) * 1024 for sm, kb in re.findall(r"\{(\d+), (\d+) \* 1024\}", text)}


def fits(cc, optin, min_cc, shared):
    older = [k for k in optin if k <= cc]
    limit = optin[max(older)] if older else 0  # its own row, else the nearest older (labkit::arch_limits)
    return cc >= min_cc and shared <= limit


def runner_lines(runner, *args):
    # No GPU for the runner, even on a GPU node: a dry run's views have no memory behind them, and
    # it relies on every CUDA call failing (runner.hpp).
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    out = subprocess.run([str(runner), *args], capture_output=True, text=True, timeout=120, env=env)
    return [line.split("\t") for line in out.stdout.splitlines()], out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", required=True, type=Path)
    ap.add_argument("--table", action="store_true", help="print each row's needs and the GPUs they fit, in Markdown")
    args = ap.parse_args()
    table = []
    build = json.loads((args.build_dir / "labkit-build.json").read_text())
    if not build.get("cuda"):
        print("skipped: a build without CUDA has no GPU rows")
        return MESON_SKIP
    failures, checked, declared_rows = [], 0, []
    for lab in build["labs"]:
        if not lab.get("solution_runner"):
            continue
        runner = args.build_dir / lab["solution_runner"]
        rows, _ = runner_lines(runner, "list")
        for row in rows:
            if len(row) < 4 or row[0] != "variant" or row[3] != "gpu":
                continue
            exercise, variant = row[1], row[2]
            lines, out = runner_lines(runner, "dry", exercise, variant)
            needs = [line for line in lines if line[0] == "needs"]
            if out.returncode != 0 or not needs:
                failures.append(f"{lab['name']} {variant}: the dry run reported no needs (exit {out.returncode}): "
                                f"{(out.stdout + out.stderr).strip()[-300:]}")
                continue
            most = max(int(line[3]) for line in needs)
            table.append((lab["name"], variant, int(needs[0][4]), most))
            for _, params, asked, declared, _cc in needs:
                asked, declared = int(asked), int(declared)
                checked += 1
                where = f"{lab['name']} {variant}" + ("" if params == "-" else f" ({params})")
                if asked > declared:
                    failures.append(f"{where}: its launches ask {asked} bytes of dynamic shared memory per block, its "
                                    f"row declares {declared}: declare it (Needs in the lab's tables.cpp)")
                elif declared > DEFAULT_SHARED and asked < declared:
                    failures.append(f"{where}: declares {declared} bytes of dynamic shared memory per block but asks "
                                    f"only {asked}: it would be skipped on GPUs that can run it")
                if declared > DEFAULT_SHARED:
                    declared_rows.append(f"{variant} {declared // 1024} KB")
    for f in failures:
        print("FAIL:", f)
    if checked == 0:
        failures.append("no GPU row was checked")
        print("FAIL: no GPU row was checked")
    if not failures:
        print(f"ok: {checked} (row, parameters) pairs ask no more dynamic shared memory than they declare; "
              f"over 48 KB: {', '.join(sorted(set(declared_rows))) or 'none'}")
    if args.table:
        optin = arch_optin()
        print("\n| Lab | Variant | Compute capability | Dynamic shared memory per block | "
              + " | ".join(f"{name} (sm_{cc})" for name, cc in GPUS) + " |")
        print("|---|---|---|---|" + "---|" * len(GPUS))
        for lab, variant, min_cc, shared in table:
            stated = f"{shared // 1024} KB" if shared > DEFAULT_SHARED else "up to 48 KB (the default)"
            print(f"| {lab} | {variant} | {min_cc / 10:.1f} | {stated} | "
                  + " | ".join("runs" if fits(cc, optin, min_cc, shared) else "skipped" for _, cc in GPUS) + " |")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
