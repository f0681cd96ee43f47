#!/usr/bin/env python3
"""tools/gpu_arch.py: -Dgpu_arch's values turned into nvcc's targets, and the values it refuses.
Needs no nvcc: the list of architectures an nvcc compiles for is given."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import gpu_arch  # noqa: E402

NVCC13 = [75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121]  # nvcc 13.0 --list-gpu-code, from sm_75
failures = []


def expect(value, installed, sass, ptx):
    got = gpu_arch.targets(value, NVCC13, installed)
    if got != (sass, ptx):
        failures.append(f"{value!r} with GPUs {installed}: got {got}, want {(sass, ptx)}")


def refused(value, words):
    try:
        got = gpu_arch.targets(value, NVCC13, [])
        failures.append(f"{value!r} was accepted: {got}")
    except ValueError as e:
        if not all(w in str(e) for w in words):
            failures.append(f"{value!r}: the message {str(e)!r} does not name {words}")


expect("auto", [90], [90], [90])                # the installed GPU: a quick build
expect("auto", [], [], [75])                    # none (a laptop, a login node): the oldest's PTX only
expect("auto", [70], [], [75])                  # none this nvcc compiles for: the same
expect("auto", [75, 86], [75, 86], [86])        # two kinds of GPU: both
expect("all", [90], NVCC13, [121])
expect("sm_75", [], [75], [75])                 # machine code, and its PTX for newer GPUs
expect("sm_75,sm_86, sm_90", [], [75, 86, 90], [90])
expect("compute_75", [], [], [75])              # PTX only: the driver JIT-compiles it
expect("sm_90,compute_75", [], [90], [75])
refused("sm_70", ["sm_70", "sm_75"])
refused("sm_91", ["sm_91", "sm_90"])
refused("turing", ["turing", "sm_XY"])
refused(",", ["no target"])
flags = gpu_arch.gencode_flags([75, 90], [90])
if flags != ["-gencode=arch=compute_75,code=sm_75", "-gencode=arch=compute_90,code=sm_90",
             "-gencode=arch=compute_90,code=compute_90"]:
    failures.append(f"gencode flags: {flags}")
# meson's CUDA compiler command has ccache (or sccache) in front where one is installed: only nvcc
# can list its targets, so the cache is skipped, and nvcc's own arguments are kept.
for cmd, want in ((["/usr/bin/ccache", "nvcc"], ["nvcc"]), (["sccache", "/opt/cuda/bin/nvcc", "-ccbin", "g++-12"],
                  ["/opt/cuda/bin/nvcc", "-ccbin", "g++-12"]), (["nvcc"], ["nvcc"]), (["ccache"], ["ccache"])):
    if gpu_arch.nvcc_command(cmd) != want:
        failures.append(f"nvcc_command({cmd}): {gpu_arch.nvcc_command(cmd)}, want {want}")

for f in failures:
    print("FAIL:", f)
print("ok: auto, all, lists and compute_XY give the right targets; old, unknown and empty values are refused; "
          "a compiler cache in front of nvcc is skipped"
      if not failures else f"{len(failures)} failed")
sys.exit(1 if failures else 0)
