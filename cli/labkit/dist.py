"""`labkit dist`: the student tarball (the kit without the reference solution), and its proof:
unpacked in a temporary folder, it must configure, build, pass its tests and grade."""

import os
import shutil
import subprocess
import tarfile
import tempfile
from fnmatch import fnmatchcase
from pathlib import Path

from .build import BUILD_TIMEOUT_S, BuildInfo, build_dir_of, build_option
from .proc import capture
from .submissions import TAR_FILTER
from .util import ROOT, LabkitError, kit_path, rel, say

# The kit-only folders, as path patterns matched one component at a time: what students never
# get. Left out of the student tarball here, and hidden from every compile of a submission
# (sandbox.HIDDEN), so that no #include reaches them. labs/<lab>/kit/tests/reference/ holds the
# lab tests that need the reference solution and the deliberately broken kernels that the kit's
# own tests grade. The broken-submission corpus is solution code with one bug each: kit-only,
# like the reference.
KIT_ONLY = ["solutions/", ".ci/", "labs/*/kit/tests/reference/", "tests/corpus/"]
WALK_SKIP = {".git", "results", "dist", "third_party", "__pycache__", ".venv-python"}
TOP = "gpu-labkit"  # the tarball's one top-level folder


def dist_excluded(path):
    """Whether path (relative to the root, with /) lies inside a KIT_ONLY folder."""
    parts = path.split("/")
    for pattern in KIT_ONLY:
        pat = pattern.rstrip("/").split("/")
        if len(parts) > len(pat) and all(fnmatchcase(p, q) for p, q in zip(parts, pat)):
            return True
    return False


def leaked(member):
    """A tarball member that must not reach students (the leak check of verify_dist)."""
    return dist_excluded(member.removeprefix(f"{TOP}/"))


def tracked_files():
    """Files git tracks (or would: untracked but not ignored), else a walk of the tree."""
    if (ROOT / ".git").exists() and shutil.which("git"):
        out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], capture_output=True, check=True).stdout
        files = sorted({f for f in out.decode().split("\0") if f})
        return [f for f in files if (ROOT / f).is_file()]  # not the deleted-but-staged ones
    files = []
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames if d not in WALK_SKIP and not d.startswith("build")
                       and not (Path(dirpath) / d == ROOT / "datasets" / "generated")]
        for f in filenames:
            if f.endswith(".pyc"):
                continue
            files.append(str((Path(dirpath) / f).relative_to(ROOT)))
    return sorted(files)


def cmd_dist(args):
    out = kit_path(args.out)
    try:
        files = [f for f in tracked_files() if not dist_excluded(f)]
    except subprocess.CalledProcessError as e:
        raise LabkitError(f"git ls-files failed: {e.stderr.decode(errors='replace').strip()}") from None
    if not files:
        raise LabkitError("no files to pack")
    out.parent.mkdir(parents=True, exist_ok=True)

    def clean(info):
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        return info

    with tarfile.open(out, "w:gz") as tar:
        for f in files:
            tar.add(ROOT / f, arcname=f"{TOP}/{f}", recursive=False, filter=clean)
    say(f"wrote {rel(out)}: {len(files)} files ({out.stat().st_size / 1024:.0f} KiB); left out: "
        + ", ".join(KIT_ONLY))
    if args.no_verify:
        return 0
    return verify_dist(out, args)


def verify_steps(args):
    """The student's first commands, as README gives them."""
    setup = ["./labkit", "setup", "--no-install"]
    if args.cpu_only:
        setup += ["--cuda", "disabled"]
    pcp = build_option(build_dir_of(args), "pkg_config_path")
    if pcp:
        setup += ["--", "-Dpkg_config_path=" + ",".join(pcp)]
    return [
        ("setup", setup),
        ("build", ["./labkit", "build"] + (["-j", str(args.jobs)] if args.jobs else [])),
        ("test", ["./labkit", "test"] + (["--cpu-only"] if args.cpu_only else [])),
        ("grade", ["./labkit", "grade", "--quick", "--no-perf"]),
    ]


def verify_dist(tarball, args):
    """Unpacks the tarball in a temporary folder and runs the student's first commands there."""
    tmp = Path(tempfile.mkdtemp(prefix="labkit-dist-"))
    say(f"\nverifying in {tmp}")
    with tarfile.open(tarball) as tar:
        bad = [n for n in tar.getnames() if leaked(n)]
        if bad:
            say(f"FAILED: the tarball holds reference files: {', '.join(bad[:5])}")
            return 1
        tar.extractall(tmp, **TAR_FILTER)
    tree = tmp / TOP
    for name, cmd in verify_steps(args):
        say(f"\n[dist verify] {name}: {' '.join(cmd)}")
        rc, _, timed_out = capture(cmd, timeout=BUILD_TIMEOUT_S, echo=True, cwd=tree)
        if rc != 0 or timed_out:
            say(f"\ndist verification FAILED at '{name}' (exit {rc}{', timed out' if timed_out else ''}); "
                f"the unpacked tree is kept in {tree}")
            return 1
    built = BuildInfo.read(tree / "build")
    if any(lab.solution_runner for lab in built.labs):
        say(f"\ndist verification FAILED: the student tree built a reference; kept in {tree}")
        return 1
    shutil.rmtree(tmp)
    say(f"\ndist verification passed: {rel(tarball)} configures, builds, passes its tests and grades")
    return 0
