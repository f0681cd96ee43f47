#!/usr/bin/env python3
"""The GPU targets of a build (meson's -Dgpu_arch), turned into nvcc's -gencode flags.

    gpu_arch.py VALUE NVCC [ARG...]

NVCC [ARG...] is the CUDA compiler's command as meson holds it: a compiler cache in front of nvcc
(ccache or sccache, which meson puts there when one is installed) is skipped, since only nvcc can
list its targets.

VALUE is what -Dgpu_arch holds:
  auto               the installed GPUs' architectures (nvidia-smi), for build speed; where there
                     is none that this nvcc compiles for (a laptop, a login node, CI), the PTX of
                     the oldest supported one (compute_75): one compile per kernel, which every
                     check without a GPU needs and any course GPU JIT-compiles at its first launch.
                     A login node building for its GPU nodes names them (or `all`) instead
  all                every architecture this nvcc compiles for from sm_75, plus PTX
  sm_75,sm_86,...    machine code (SASS) for each; PTX of the newest is added so that a newer GPU
                     can still JIT-compile it, unless the list names a compute_XY itself
  compute_75         PTX only, JIT-compiled by the driver on any GPU from that architecture on

Prints the oldest compute capability of the targets (e.g. 75: what the dry run without a GPU checks
launches against, the most limiting) on the first line, then nvcc's flags on the second. A value it
cannot use is a one-line message on stderr and exit status 1 (meson shows it).
"""
import re
import subprocess
import sys
from pathlib import Path

# The kit's floor (Turing, the T4; the oldest architecture nvcc 13 compiles for), from its one home.
# gpu_limits.hpp, as labkit-facts exports it (labkit.facts): meson runs this before anything is built.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cli"))
from labkit.facts import FACTS  # noqa: E402
OLDEST = FACTS["gpu_limits"]["oldest_cc"]
TOKEN = re.compile(r"(sm|compute)_(\d+)")
COMPILER_CACHES = ("ccache", "sccache")


def nvcc_command(cmd):
    """The compiler command cmd (a list) without a compiler cache in front of nvcc."""
    while len(cmd) > 1 and Path(cmd[0]).name in COMPILER_CACHES:
        cmd = cmd[1:]
    return cmd


def nvcc_architectures(nvcc):
    """The sm_XY numbers this nvcc (its command, a list) compiles machine code for, from OLDEST on."""
    out = subprocess.run([*nvcc, "--list-gpu-code"], capture_output=True, text=True, check=True).stdout
    return sorted({int(m.group(2)) for m in TOKEN.finditer(out) if m.group(1) == "sm" and int(m.group(2)) >= OLDEST})


def installed_architectures():
    """The sm_XY numbers of the GPUs nvidia-smi reports (none without a driver or a GPU)."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return sorted({int(line.strip().replace(".", "")) for line in out.splitlines()
                   if re.fullmatch(r"\d+\.\d+", line.strip())})


def targets(value, nvcc_list, installed):
    """(sass, ptx): the architectures to build machine code and PTX for. Raises ValueError."""
    value = value.strip()
    if value == "auto":
        value = ",".join(f"sm_{a}" for a in installed if a in nvcc_list) or f"compute_{OLDEST}"
    if value == "all":
        return nvcc_list, [nvcc_list[-1]]
    sass, ptx = [], []
    for item in filter(None, (part.strip() for part in value.split(","))):
        m = TOKEN.fullmatch(item)
        if not m:
            raise ValueError(f"-Dgpu_arch: '{item}' is not auto, all, sm_XY or compute_XY (e.g. sm_75,sm_86,sm_90)")
        arch = int(m.group(2))
        if arch < OLDEST:
            raise ValueError(f"-Dgpu_arch: {item} is older than sm_{OLDEST}, the oldest GPU the kit supports")
        if arch not in nvcc_list:
            raise ValueError(f"-Dgpu_arch: this nvcc does not compile for {item}; it does for "
                             + ", ".join(f"sm_{a}" for a in nvcc_list))
        (sass if m.group(1) == "sm" else ptx).append(arch)
    if not sass and not ptx:
        raise ValueError("-Dgpu_arch: no target named")
    if not ptx:
        ptx = [max(sass)]
    return sorted(set(sass)), sorted(set(ptx))


def gencode_flags(sass, ptx):
    return ([f"-gencode=arch=compute_{a},code=sm_{a}" for a in sass]
            + [f"-gencode=arch=compute_{a},code=compute_{a}" for a in ptx])


def main(argv):
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr if len(argv) != 2 else sys.stdout)
        return 0 if len(argv) == 2 else 1
    value, nvcc = argv[1], nvcc_command(argv[2:])
    try:
        nvcc_list = nvcc_architectures(nvcc)
        installed = installed_architectures() if value.strip() == "auto" else []
        sass, ptx = targets(value, nvcc_list, installed)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"-Dgpu_arch: cannot ask {' '.join(nvcc)} which GPUs it compiles for: {e}", file=sys.stderr)
        return 1
    except ValueError as e:
        print(e, file=sys.stderr)
        return 1
    print(min(sass + ptx))
    print(" ".join(gencode_flags(sass, ptx)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
