#!/usr/bin/env python3
"""Every GPU row of the reference runs on the GPUs it says it runs on, and on no fewer: the
resource-fit check, without a GPU.

For each architecture of ARCHS:
  1. the kernels: every .cu file of the build's solutions and common code, compiled for it with the
     build's own flags (device code only, nvcc --resource-usage): each kernel's registers and static
     shared memory;
  2. the launches: each GPU row in a dry run standing for that GPU (`runner dry --as`), so that host
     code that asks the device for its limits takes the path it would take there: each launch's
     kernel, threads per block, dynamic shared memory and opt-in;
  3. the fit: static + dynamic shared memory against what the architecture lets a block have, the
     dynamic part against the 48 KB default or the kernel's opt-in, registers times threads against
     the registers a block may hold (common/labkit/gpu_limits.hpp: the programming guide's table).
A row fits an architecture when its dry run runs through and every launch fits. What the row
declares (grader/protocol/exercise.hpp's Needs, which the runner checks against a real GPU before it runs
the row) must say the same: a row that does not fit a GPU it declares no need against fails
("declare it"), and so does one whose declared shared memory would skip it on a GPU it fits.

    resource_fit_selftest.py --build-dir DIR [--table] [--archs 75,80,...]

--table also prints, in Markdown, each row's declared needs and the GPUs it runs on. Needs a build
with CUDA and nvcc; a GPU, if there is one, is hidden from the runners.
"""
import argparse
import concurrent.futures
import json
import math
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

MESON_SKIP = 77
ROOT = Path(__file__).resolve().parent.parent
# The limits, from their one home (gpu_limits.hpp), as labkit-facts exports them.
sys.path.insert(0, str(ROOT / "cli"))
from labkit.facts import FACTS  # noqa: E402
LIMITS = FACTS["gpu_limits"]
DEFAULT_SHARED = LIMITS["default_dynamic_shared_bytes"]  # static + dynamic without an opt-in
REGISTERS_PER_BLOCK = LIMITS["max_registers_per_block"]
REGISTER_UNIT = LIMITS["register_allocation_unit"]
WARP = 32  # threads in a warp: registers are given per warp
OPTIN = {int(sm): b for sm, b in LIMITS["max_shared_optin_by_sm"].items()}
# The GPUs a course has (issue 28), by compute capability: the table's columns and the checked archs.
GPUS = (("T4", 75), ("A100", 80), ("A10 / RTX 30", 86), ("RTX 40", 89), ("H100", 90))
ARCHS = tuple(cc for _, cc in GPUS)


def optin_of(cc):
    """What a block may opt in to on compute capability cc (labkit::arch_limits: its own row, else the
    nearest older)."""
    return OPTIN[max(k for k in OPTIN if k <= cc)]


# --- 1. the kernels -----------------------------------------------------------------------------

def compile_args(entry, archs, out):
    """The build's nvcc command for one file, made a device-only compile for archs that reports
    each kernel's resources."""
    args = shlex.split(entry["command"])
    kept, skip_next = [], False
    for a in args[1:]:
        if skip_next:
            skip_next = False
        elif a in ("-o", "-MF", "-MQ", "-MT"):
            skip_next = True
        elif a in ("-c", "-MD", "-MMD", entry["file"]) or a.startswith("-gencode"):
            continue
        else:
            kept.append(a)
    gencode = [f"-gencode=arch=compute_{cc},code=sm_{cc}" for cc in archs]
    return [args[0], *kept, *gencode, "-fatbin", "--resource-usage", "-o", str(out), entry["file"]]


ENTRY = re.compile(r"Compiling entry function '([^']+)' for 'sm_(\d+)'")
USED = re.compile(r"Used (\d+) registers")
SMEM = re.compile(r"(\d+) bytes smem")


def kernel_resources(entry, archs, workdir, cwd):
    """{(mangled kernel, cc): (registers, static shared bytes)} for one file, or an error string."""
    out = Path(workdir) / (re.sub(r"\W", "_", entry["file"]) + ".fatbin")
    done = subprocess.run(compile_args(entry, archs, out), cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        return f"{entry['file']}: nvcc failed: {(done.stdout + done.stderr).strip()[-400:]}"
    found, current = {}, None
    for line in (done.stdout + done.stderr).splitlines():
        if m := ENTRY.search(line):
            current = (m.group(1), int(m.group(2)))
        elif current and (m := USED.search(line)):
            smem = SMEM.search(line)
            found[current] = (int(m.group(1)), int(smem.group(1)) if smem else 0)
            current = None
    return found


def demangle(names):
    """Mangled -> demangled (c++filt): the anonymous namespaces' ids differ between compiles."""
    names = sorted(names)
    done = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True)
    return dict(zip(names, done.stdout.splitlines()))


# --- 2. the launches ----------------------------------------------------------------------------

def runner_lines(runner, *args):
    # No GPU for the runner, even on a GPU node: a dry run's views have no memory behind them, and
    # it relies on every CUDA call failing (runner.hpp).
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    out = subprocess.run([str(runner), *args], capture_output=True, text=True, timeout=120, env=env)
    return [line.split("\t") for line in out.stdout.splitlines()], out


def stub_names(runner):
    """The runner's symbols by address (hex, as the dry run reports a kernel's stub), demangled."""
    out = subprocess.run(["nm", "-C", "--defined-only", str(runner)], capture_output=True, text=True, check=True)
    names = {}
    for line in out.stdout.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[1] in "Tt":
            names[format(int(parts[0], 16), "x")] = parts[2]
    return names


# --- 3. the fit ---------------------------------------------------------------------------------

def launch_problem(cc, registers, static, threads, dynamic, opted_in):
    """Why one launch does not fit compute capability cc ("" when it does)."""
    per_warp = math.ceil(registers * WARP / REGISTER_UNIT) * REGISTER_UNIT
    if per_warp * math.ceil(threads / WARP) > REGISTERS_PER_BLOCK:
        return (f"{threads} threads of {registers} registers need {per_warp * math.ceil(threads / WARP)} registers "
                f"per block; a block holds {REGISTERS_PER_BLOCK}")
    if static + dynamic > optin_of(cc):
        return (f"{static} B of static and {dynamic} B of dynamic shared memory: sm_{cc} gives a block at most "
                f"{optin_of(cc) // 1024} KB")
    allowed = opted_in if opted_in else DEFAULT_SHARED - static
    if dynamic > allowed:
        return (f"{dynamic} B of dynamic shared memory beside {static} B static, and "
                + (f"an opt-in of {opted_in} B" if opted_in else "no opt-in (48 KB for both)"))
    return ""


def declared_fit(cc, min_cc, shared):
    return cc >= min_cc and shared <= optin_of(cc)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", required=True, type=Path)
    ap.add_argument("--table", action="store_true", help="print each row's needs and the GPUs it runs on, in Markdown")
    ap.add_argument("--archs", default=",".join(map(str, ARCHS)), help="compute capabilities to check (default %(default)s)")
    args = ap.parse_args()
    archs = [int(a) for a in args.archs.split(",")]
    build = json.loads((args.build_dir / "labkit-build.json").read_text())
    if not build.get("cuda"):
        print("skipped: a build without CUDA has no GPU rows")
        return MESON_SKIP
    jobs = os.cpu_count() or 1
    entries = [e for e in json.loads((args.build_dir / "compile_commands.json").read_text())
               if e["file"].endswith(".cu") and ("/solutions/" in e["file"] or "/common/" in e["file"])]
    resources, failures = {}, []
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for found in pool.map(lambda e: kernel_resources(e, archs, tmp, e.get("directory", args.build_dir)), entries):
            if isinstance(found, str):
                failures.append(found)
            else:
                resources.update(found)
    plain = demangle({name for name, _ in resources})
    by_name = {(plain[name], cc): value for (name, cc), value in resources.items()}
    print(f"kernels: {len({n for n, _ in by_name})} compiled for sm_{', sm_'.join(map(str, archs))} "
          f"from {len(entries)} files")

    rows, checked = [], 0
    for lab in build["labs"]:
        if not lab.get("solution_runner"):
            continue
        runner = args.build_dir / lab["solution_runner"]
        stubs = stub_names(runner)
        listed, _ = runner_lines(runner, "list")
        # The peers (kit/peers.cu) are left out: a library's dispatch sizes its own launches for the
        # device it finds, and without a GPU it stops before launching anything.
        gpu_rows = [(r[1], r[2]) for r in listed
                    if len(r) >= 4 and r[0] == "variant" and r[3] == "gpu" and r[5:6] != ["peer"]]
        tasks = [(exercise, variant, cc) for exercise, variant in gpu_rows for cc in archs]
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            runs = list(pool.map(lambda t: runner_lines(runner, "dry", t[0], t[1], "--as", str(t[2])), tasks))
        for (exercise, variant, cc), (lines, out) in zip(tasks, runs):
            where = f"{lab['name']} {variant} on sm_{cc}"
            needs = [line for line in lines if line[0] == "needs"]
            if not needs:
                failures.append(f"{where}: the dry run reported no needs (exit {out.returncode}): "
                                f"{(out.stdout + out.stderr).strip()[-300:]}")
                continue
            min_cc, declared = int(needs[0][4]), max(int(line[3]) for line in needs)
            problems = [f"{line[0]}: {line[1]}" for line in lines if line[0] in ("skip", "error", "todo")]
            for _, params, kernel, threads, dynamic, opted_in in (line for line in lines if line[0] == "launch"):
                checked += 1
                name = stubs.get(kernel)
                if name is None or (name, cc) not in by_name:
                    failures.append(f"{where}: a launch whose kernel ({name or 'stub ' + kernel}) was not found among "
                                    f"the compiled kernels")
                    continue
                registers, static = by_name[(name, cc)]
                if why := launch_problem(cc, registers, static, int(threads), int(dynamic), int(opted_in)):
                    short = name.replace("(anonymous namespace)::", "").split("(")[0]
                    problems.append(short + ("" if params == "-" else f" ({params})") + f": {why}")
            fits = not problems
            if declared_fit(cc, min_cc, declared) and not fits:
                failures.append(f"{where}: does not fit, and its row declares no need that says so (Needs in the lab's "
                                f"tables.cpp): " + "; ".join(dict.fromkeys(problems)))
            elif not declared_fit(cc, min_cc, declared) and fits and cc >= min_cc:
                failures.append(f"{where}: fits, but its row declares {declared // 1024} KB of shared memory per "
                                f"block, so a real sm_{cc} GPU would skip it")
            if (lab["name"], variant) not in [r[:2] for r in rows]:  # rows of two labs may share a name
                rows.append((lab["name"], variant, min_cc, declared))

    for f in failures:
        print("FAIL:", f)
    if checked == 0:
        failures.append("no launch was checked")
        print("FAIL: no launch was checked")
    if not failures:
        over = [f"{variant} {declared // 1024} KB" for _, variant, _, declared in rows if declared > DEFAULT_SHARED]
        print(f"ok: {len(rows)} GPU rows, {checked} launches on sm_{', sm_'.join(map(str, archs))}: each row runs "
              f"exactly where its needs say; needs over 48 KB: {', '.join(over) or 'none'}")
    if args.table:
        print("\n| Lab | Variant | Compute capability | Dynamic shared memory per block | "
              + " | ".join(f"{name} (sm_{cc})" for name, cc in GPUS) + " |")
        print("|---|---|---|---|" + "---|" * len(GPUS))
        for lab, variant, min_cc, shared in rows:
            stated = f"{shared // 1024} KB" if shared > DEFAULT_SHARED else "up to 48 KB (the default)"
            print(f"| {lab} | {variant} | {min_cc / 10:.1f} | {stated} | "
                  + " | ".join("runs" if declared_fit(cc, min_cc, shared) else "skipped" for _, cc in GPUS) + " |")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
