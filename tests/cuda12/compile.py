#!/usr/bin/env python3
"""Every .cu file of the kit compiled against CUDA 12's headers and CCCL, so that a CUDA-13-only API
or construct fails CI although only nvcc 13 is installed.

    tests/cuda12/compile.py [--build-dir build] [--cache DIR] [--clang clang++-19] [-j N]

No CUDA 12 nvcc is to be had (the nvidia-*-cu12 wheels carry ptxas and libnvvm, but neither nvcc
nor its front ends, cicc and cudafe++), so the compiler is clang in CUDA mode, pointed at a CUDA 12
tree laid out in a cache folder from the wheels pinned in wheels.txt: headers, CCCL, libdevice,
ptxas. Each file is compiled with its build's flags (-std, -D, -I from compile_commands.json; the
CUDA 13 include folder left out): the device side to PTX for the kit's oldest target, assembled by
CUDA 12's ptxas; the host side checked by clang's front end (-fsyntax-only). Every header a compile
reads must come from that tree, the kit or the C/C++ system folders; prelude.h checks
CUDART_VERSION in every compile; and two CUDA-13-only constructs appended to a kit file must fail,
so that the check cannot pass by compiling against CUDA 13 by mistake. What it can and cannot
catch: docs/cuda_versions.md.

Files: the build's .cu compiles (compile_commands.json), the Python track's python/*.cu (as NVRTC
compiles them: -std=c++17, no include folder) and tests/corpus/*/<lab>/*.cu (with the flags of
the lab's student file of that name), and the example lab's (tests/example_lab/, with a built
lab's flags and its own folder). A tracked .cu file that fits none of these fails.

Prints one line per file, then "N passed, M failed". Exit status 1 on any failure; 77 (skipped)
without clang++-19 (Debian 12: apt-get install clang-19), without compile_commands.json entries
for .cu files (a build without CUDA), or when the wheels cannot be fetched.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
WHEELS = HERE / "wheels.txt"
PRELUDE = HERE / "prelude.h"
sys.path.insert(0, str(ROOT / "tools"))
from gpu_arch import OLDEST  # noqa: E402  the kit's oldest target (sm_75): its PTX and SASS are built here

# The oldest CUDA the kit states, from its one home (cli/setup.sh's MIN_CUDA, which setup enforces):
# the pinned tree must be that version, so that what this check proves is what the README and setup say.
sys.path.insert(0, str(ROOT / "cli"))
from labkit.setup_sh import setup_value  # noqa: E402
MIN_CUDA = tuple(setup_value("MIN_CUDA").split("."))
SKIP = 77  # Meson's "skipped"
# What a wheel brings into the tree: its member path (below nvidia/<component>/) -> the tree's path.
LAYOUT = (("include/", "include/"), ("bin/ptxas", "bin/ptxas"), ("nvvm/libdevice/", "nvvm/libdevice/"))
# Constructs that CUDA 13.0 added (absent from CUDA 12.9's headers too), one per side: each appended
# to a kit file must fail, and name itself in the error.
CUDA13_ONLY = (
    ("host", "cudaMemGetDefaultMemPool", "[[maybe_unused]] static auto* const labkit_cuda13 = &cudaMemGetDefaultMemPool;"),
    ("device", "double4_32a", "__global__ void labkit_cuda13(double4_32a* p) { p->x = 1.0; }"),
)


def skip(why):
    print(f"skipped: {why}")
    sys.exit(SKIP)


def shown(path):
    path = Path(path)
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def cuda_tree(cache):
    """The CUDA 12 tree (include/, bin/ptxas, nvvm/libdevice/) for wheels.txt's pins: laid out once
    per set of pins from the wheels pip fetches (hashes checked), then reused."""
    pins = WHEELS.read_bytes()
    tree = cache / f"cuda12-{hashlib.sha256(pins).hexdigest()[:12]}"
    if (tree / "wheels.txt").is_file():
        return tree
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        wheels = Path(tmp) / "wheels"
        got = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                              "--no-deps", "--only-binary=:all:", "--platform", "manylinux2014_x86_64",
                              "--require-hashes", "-r", str(WHEELS), "-d", str(wheels)],
                             capture_output=True, text=True)
        if got.returncode != 0:
            said = (got.stderr.strip().splitlines() or ["no message"])[-1]
            skip(f"the CUDA 12 wheels of {shown(WHEELS)} could not be fetched (pip: {said})")
        stage = Path(tmp) / "tree"
        for wheel in sorted(wheels.glob("*.whl")):
            with zipfile.ZipFile(wheel) as z:
                for member in z.namelist():
                    m = re.fullmatch(r"nvidia/[^/]+/(.+)", member)
                    if not m or member.endswith(("/", "__init__.py")):
                        continue
                    for src, dst in LAYOUT:
                        if m.group(1).startswith(src):
                            target = stage / (dst + m.group(1)[len(src):])
                            if target.exists():
                                raise SystemExit(f"error: {wheel.name} and another wheel both hold {target.relative_to(stage)}")
                            target.parent.mkdir(parents=True, exist_ok=True)
                            target.write_bytes(z.read(member))
        (stage / "bin" / "ptxas").chmod(0o755)
        (stage / "wheels.txt").write_bytes(pins)  # written last: the tree is complete
        if not (tree / "wheels.txt").is_file():  # else another run laid it out meanwhile
            shutil.rmtree(tree, ignore_errors=True)  # a tree left half-made
            os.replace(stage, tree)
    return tree


def holds_cuda(folder):
    return any((Path(folder) / name).is_file() for name in ("cuda_runtime_api.h", "cuda.h", "crt/host_config.h"))


def system_folders(clang):
    """clang's own include search list for CUDA, less the folders that hold CUDA headers (here
    /usr/local/include, where the CUDA 13 install links its headers): (kept, left out)."""
    said = subprocess.run([clang, "-x", "cuda", "-nocudainc", "--cuda-host-only", "-fsyntax-only", "-v", os.devnull],
                          capture_output=True, text=True).stderr
    listed = re.search(r"#include <\.\.\.> search starts here:\n(.*?)\nEnd of search list", said, re.S)
    if not listed:
        raise SystemExit(f"error: {clang} -v printed no include search list:\n{said}")
    folders = [os.path.normpath(line.strip()) for line in listed.group(1).splitlines()]
    folders = [f for f in folders if not f.endswith("cuda_wrappers")]  # clang adds it itself, first
    left_out = [f for f in folders if holds_cuda(f)]
    for f in left_out:
        if (Path(f) / "stdlib.h").is_file():
            skip(f"{f} holds both CUDA's headers and the C library's: they cannot be told apart here")
    return [f for f in folders if f not in left_out], left_out


def kit_flags(entry):
    """The flags of a compile_commands.json entry that mean the same to clang: -std, -O, -D, -U,
    -I, -isystem, -include (paths made absolute). nvcc's own flags (-gencode, -Xcompiler=...,
    --expt-relaxed-constexpr) are left out, and so is an include folder of CUDA headers (the
    toolkit's, CUDA 13): the CUDA 12 tree takes its place. (flags, include folders, left out)"""
    words = entry.get("arguments") or shlex.split(entry["command"])
    where = Path(entry["directory"])
    flags, folders, left_out = [], [], []
    words = iter(words[1:])
    for word in words:
        m = re.fullmatch(r"(-I|-isystem|-include|-D|-U)(=?)(.*)", word)
        if word.startswith(("-std=", "-O")):
            flags.append(word)
        elif m:
            flag, value = m.group(1), m.group(3) or next(words)
            if flag in ("-D", "-U"):
                flags.append(flag + value)
                continue
            path = os.path.normpath(where / value)
            if flag != "-include" and holds_cuda(path):
                left_out.append(f"{flag}{value}")
                continue
            flags += [flag, path]
            if flag != "-include":
                folders.append(path)
    return flags, folders, left_out


def dependencies(depfile):
    """The files a make-style dependency file (-MD) lists, its target left out."""
    text = Path(depfile).read_text().replace("\\\n", " ").replace("\\ ", "\0")
    return [w.replace("\0", " ") for w in text.split(": ", 1)[1].split()]


class Compiler:
    def __init__(self, clang, tree, system, resource_dir):
        self.clang, self.tree, self.system = clang, tree, system
        api = (tree / "include" / "cuda_runtime_api.h").read_text()
        self.cudart = int(re.search(r"#define\s+CUDART_VERSION\s+(\d+)", api).group(1))
        self.allowed = [str(tree), str(ROOT), resource_dir] + system
        self.common = ["-x", "cuda", f"--cuda-path={tree}", f"--cuda-gpu-arch=sm_{OLDEST}",
                       "-Wno-unknown-cuda-version",  # clang 19 knows CUDA up to 12.3 fully, 12.4 and 12.5 "partially"
                       "-nostdinc"] + [w for f in system for w in ("-idirafter", f)] + [
                       f"-DLABKIT_EXPECTED_CUDART_VERSION={self.cudart}", "-include", str(PRELUDE)]

    def stray(self, depfile, source, folders):
        """The headers a compile of source read from outside the CUDA 12 tree, the kit, its include
        folders and the system folders."""
        allowed = self.allowed + [os.path.realpath(f) for f in folders]
        return [d for d in dependencies(depfile) if os.path.realpath(d) != os.path.realpath(source)
                and not any(Path(os.path.realpath(d)).is_relative_to(a) for a in allowed)]

    def compile(self, source, flags, folders, sides=("device", "host", "ptxas")):
        """None when source compiles, else what failed and the compiler's words."""
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            steps = {
                "device": [self.clang] + self.common + flags + [
                    "--cuda-device-only", "-S", "-o", str(tmp / "k.ptx"), "-MD", "-MF", str(tmp / "device.d"), str(source)],
                "host": [self.clang] + self.common + flags + [
                    "--cuda-host-only", "-fsyntax-only", "-MD", "-MF", str(tmp / "host.d"), str(source)],
                "ptxas": [str(self.tree / "bin" / "ptxas"), f"-arch=sm_{OLDEST}", str(tmp / "k.ptx"), "-o", str(tmp / "k.cubin")],
            }
            for side in sides:
                got = subprocess.run(steps[side], capture_output=True, text=True)
                if got.returncode != 0:
                    return side, (got.stderr + got.stdout).strip()
                depfile = tmp / f"{side}.d"
                if depfile.exists() and (stray := self.stray(depfile, source, folders)):
                    return side, "read headers from outside CUDA 12's tree, the kit and the system:\n  " + "\n  ".join(stray)
        return None


# The example lab (tests/example_lab/) is built only by its own test, in a copy of the kit: its .cu
# files get the flags of a built lab's student file, that lab's folder swapped for the example's.
BUILT_LAB_FILE = Path("labs") / "integral_image" / "01_naive.cu"


def example_lab_entry(by_file, lab):
    """A compile_commands entry for the example lab `lab`'s .cu files, or None when there is no
    built lab file to take the flags of."""
    entry = by_file.get(os.path.realpath(ROOT / BUILT_LAB_FILE))
    if entry is None:
        return None
    swap = lambda word: word.replace(f"/{BUILT_LAB_FILE.parent}", f"/tests/example_lab/labs/{lab}")
    words = entry.get("arguments") or shlex.split(entry["command"])
    return {"directory": entry["directory"], "arguments": [swap(w) for w in words]}


def sources(build_dir):
    """(source, its compile_commands entry) for every .cu file: the build's compiles, then the
    tracked files the build does not compile, each with the entry whose flags it is built with."""
    commands = build_dir / "compile_commands.json"
    entries = [e for e in json.loads(commands.read_text()) if e["file"].endswith(".cu")] if commands.is_file() else []
    if not entries:
        skip(f"{shown(commands)} lists no .cu compile (a build without CUDA?)")
    by_file = {}
    for e in entries:
        by_file.setdefault(os.path.realpath(Path(e["directory"]) / e["file"]), e)
    found = list(by_file.items())
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--", "*.cu"], capture_output=True, text=True)
    if tracked.returncode != 0:
        print(f"note: {ROOT} is not a git checkout: only the build's .cu files are compiled")
    python = {"directory": str(ROOT), "command": "nvrtc -std=c++17"}  # NVRTC's compile: no include folder
    for name in filter(None, tracked.stdout.split("\0")):
        path = os.path.realpath(ROOT / name)
        if path in by_file:
            continue
        parts = Path(name).parts
        if "python" in parts[:-1]:
            found.append((path, python))
        elif parts[:2] == ("tests", "corpus") and len(parts) == 5:  # tests/corpus/<entry>/<lab>/<file>
            found.append((path, by_file.get(os.path.realpath(ROOT / "labs" / parts[3] / parts[4]))))
        elif parts[:2] == ("tests", "example_lab") and len(parts) == 5:  # tests/example_lab/{labs,solutions}/<lab>/<file>
            found.append((path, example_lab_entry(by_file, parts[3])))
        else:
            found.append((path, None))
    return found


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog="What it can and cannot catch: docs/cuda_versions.md")
    p.add_argument("--build-dir", type=Path, default=ROOT / "build", help="a configured build folder (default: build)")
    cache = os.environ.get("XDG_CACHE_HOME", "")
    p.add_argument("--cache", type=Path, default=(Path(cache) if os.path.isabs(cache) else Path.home() / ".cache") / "labkit",
                   help="where the CUDA 12 tree is laid out, once per set of pins (default: ${XDG_CACHE_HOME:-~/.cache}/labkit)")
    p.add_argument("--clang", default="clang++-19", help="clang in CUDA mode (default: clang++-19, Debian 12's clang-19)")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="compiles at once (default: the cores)")
    args = p.parse_args()

    clang = shutil.which(args.clang)
    if clang is None:
        skip(f"no {args.clang} (Debian 12: apt-get install clang-19)")
    files = sources(args.build_dir.resolve())
    tree = cuda_tree(args.cache.resolve())
    system, left_out = system_folders(clang)
    resource_dir = subprocess.run([clang, "-print-resource-dir"], capture_output=True, text=True).stdout.strip()
    compiler = Compiler(clang, tree, system, resource_dir)
    version = subprocess.run([clang, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    ptxas = subprocess.run([str(tree / "bin" / "ptxas"), "--version"], capture_output=True, text=True).stdout
    ptxas = next((line for line in ptxas.splitlines() if "release" in line), ptxas.strip())
    print(f"CUDA {compiler.cudart // 1000}.{compiler.cudart % 1000 // 10} headers and CCCL ({shown(WHEELS)}, in {tree})")
    if (compiler.cudart // 1000, compiler.cudart % 1000 // 10) != tuple(map(int, MIN_CUDA)):
        print(f"FAIL: the pinned tree is CUDA {compiler.cudart // 1000}.{compiler.cudart % 1000 // 10}, but labkit's MIN_CUDA "
              f"(what setup enforces and the README states) is {'.'.join(MIN_CUDA)}: pin that version in {WHEELS.name}")
        return 1
    print(f"compiler: {version}; device code to sm_{OLDEST} PTX, assembled by ptxas {ptxas}")

    def one(item):
        source, entry = item
        if entry is None:
            return ("flags", "no compile flags known (not in compile_commands.json, not a python/ or tests/corpus/ file)"), []
        flags, folders, dropped = kit_flags(entry)
        return compiler.compile(source, flags, folders), dropped

    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        results = list(pool.map(one, files))
        # The check bites: a CUDA-13-only construct appended to the first kit file must fail.
        first_source, first_entry = files[0]
        flags, folders, _ = kit_flags(first_entry)
        with tempfile.TemporaryDirectory() as tmp:
            def control(case):
                side, name, code = case
                probe = Path(tmp) / f"{side}.cu"
                probe.write_text(f'#include "{first_source}"\n{code}\n')
                return compiler.compile(probe, flags, folders, sides=(side,))
            controls = list(pool.map(control, CUDA13_ONLY))

    dropped = sorted({d for _, ds in results for d in ds})
    if left_out or dropped:
        print("left out (CUDA 13's headers): " + ", ".join(left_out + dropped))
    passed, failed, logs = 0, 0, []
    for (source, _), (failure, _) in zip(files, results):
        if failure is None:
            passed += 1
            print(f"ok    {shown(source)}")
        else:
            failed += 1
            side, words = failure
            first = next((line for line in words.splitlines() if "error" in line), words.splitlines()[0])
            print(f"FAIL  {shown(source)} ({side}): {first}")
            logs.append(f"--- {shown(source)} ({side}):\n" + "\n".join(words.splitlines()[:40]))
    for (side, name, _), failure in zip(CUDA13_ONLY, controls):
        if failure is not None and failure[0] == side and name in failure[1]:
            passed += 1
            print(f"ok    the check bites: {name} (CUDA 13 only) in {side} code appended to {shown(first_source)} fails")
        else:
            failed += 1
            print(f"FAIL  the check does not bite: {name} (CUDA 13 only) in {side} code "
                  + ("compiled" if failure is None else f"failed for another reason ({failure[0]})"))
            if failure is not None:
                logs.append(f"--- {name} in {side} code:\n" + "\n".join(failure[1].splitlines()[:40]))
    for log in logs:
        print(log)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
