#!/usr/bin/env python3
"""`./labkit setup` without root (issue 28): a throwaway user with neither root nor sudo, on a
copy of the kit in its home, in a private mount namespace where the system's meson, ninja and
pkg-config do not run (/bin/false is mounted over each) and the header libraries are gone (their
include folders, pkg-config files and dpkg records hidden). There:

  1. `./labkit bundle` as that user (apt-get download and pip download need no root): the .debs
     into third_party/debs/, the wheels of meson, ninja and pkgconf into third_party/wheels/.
     Made here rather than reused from the system: the system's headers are what this test takes
     away, and CI has package access (it ran apt-get update when it installed what was missing).
  2. A plain `./labkit setup --cuda disabled`: says in one line that it installs for this user
     only, calls neither apt-get nor sudo, puts meson, ninja and pkg-config from pip into the
     kit's tools venv and unpacks the headers from the bundle, and configures with them.
  3. `./labkit datasets` (with the user's own PATH, unchanged): builds the dataset generator (stb
     through the bundle) with the venv's ninja, and writes an image.

Runs as root (useradd, unshare, mount) and needs PyPI and apt-get's package lists: CI sets
LABKIT_SELFTEST_SETUP_USER=1; without it the test is skipped (exit 77), since it creates a user.
Exit status: 0 when all is well, 1 on a failed check.
"""

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cli"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from checks import expect  # noqa: E402
from labkit.dist import tracked_files  # noqa: E402
from labkit.setup_sh import setup_value, setup_values  # noqa: E402
from labkit.util import ROOT  # noqa: E402

OPT_IN = "LABKIT_SELFTEST_SETUP_USER"
USER_PATH = "/usr/local/bin:/usr/bin:/bin"  # a login's PATH: no pyenv, no /usr/local/cuda/bin
HIDDEN_PROGRAMS = ("meson", "ninja", "pkg-config")
STEP_TIMEOUT_S = 300  # each step; they take seconds (bundle, setup: pip and meson; one small build)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=STEP_TIMEOUT_S, **kw)


def show(title, proc):
    print(f"--- {title}: exit {proc.returncode}")
    print(proc.stdout + proc.stderr, end="")
    print("---")


def hiding_script(tmp, headers):
    """Shell lines that, in a private mount namespace, stop the system's meson, ninja and
    pkg-config from running and hide the header packages: their folders in /usr/include, their
    .pc files (each pkgconfig folder replaced by a copy without them) and their dpkg records."""
    lines = []
    for name in HIDDEN_PROGRAMS:
        found = shutil.which(name, path=USER_PATH)
        if found:
            lines.append(f"mount --bind /bin/false {shlex.quote(os.path.realpath(found))}")
    owned = run(["dpkg", "-L", *headers]).stdout.splitlines()
    folders = set()  # /usr/include/<name>, and .../cmake/<name> (meson asks CMake too)
    for f in owned:
        parts = Path(f).parts
        if f.startswith("/usr/include/") and len(parts) > 4:
            folders.add(Path(*parts[:4]))
        if "cmake" in parts[:-2]:
            folders.add(Path(*parts[:parts.index("cmake") + 2]))
    for folder in sorted(folders):
        if folder.is_dir():
            lines.append(f"mount -t tmpfs none {shlex.quote(str(folder))}")
    pcs = {Path(f) for f in owned if f.endswith(".pc")}
    for i, folder in enumerate(sorted({pc.parent for pc in pcs})):
        copy = tmp / f"pkgconfig-{i}"
        shutil.copytree(folder, copy, symlinks=True, ignore=lambda d, names: [n for n in names if Path(d, n) in pcs])
        lines.append(f"mount --bind {shlex.quote(str(copy))} {shlex.quote(str(folder))}")
    stanzas = Path("/var/lib/dpkg/status").read_text().split("\n\n")
    kept = [s for s in stanzas if not any(re.search(rf"^Package: {re.escape(p)}$", s, re.M) for p in headers)]
    (tmp / "dpkg-status").write_text("\n\n".join(kept))
    lines.append(f"mount --bind {shlex.quote(str(tmp / 'dpkg-status'))} /var/lib/dpkg/status")
    return lines


def main():
    if os.environ.get(OPT_IN) != "1":
        print(f"skipped: creates a throwaway user and downloads from PyPI: set {OPT_IN}=1, as root (CI does)")
        return 77
    needed = ["useradd", "userdel", "runuser", "unshare", "mount", "dpkg", "apt-get"]
    expect(os.geteuid() == 0 and all(shutil.which(t) for t in needed),
           f"running as root, with {', '.join(needed)} ({OPT_IN}=1 asks for this test)")
    headers = [p for p in setup_values("BUNDLE_PACKAGES") if p != "bubblewrap"]
    tools_venv, tools_bin = setup_value("TOOLS_VENV"), setup_value("TOOLS_BIN")

    signal.signal(signal.SIGTERM, lambda *_: sys.exit("FAILED: terminated"))  # meson's timeout: clean up all the same
    tmp = Path(tempfile.mkdtemp(prefix="labkit-setup-user-"))
    tmp.chmod(0o755)
    user, home = f"labkit-u{os.getpid()}", tmp / "home"
    start = time.monotonic()
    try:
        r = run(["useradd", "--create-home", "--home-dir", str(home), "--shell", "/bin/bash", user])
        expect(r.returncode == 0, f"useradd {user} {r.stderr.strip()}".strip())
        kit = home / "kit"
        for f in tracked_files():
            (kit / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / f, kit / f, follow_symlinks=False)
        run(["chown", "-R", f"{user}:{user}", str(home)])

        hiding = hiding_script(tmp, headers)

        def as_user(command, hidden):
            env = ["env", "-i", f"HOME={home}", f"PATH={USER_PATH}", "LANG=C.UTF-8", "bash", "-c", f"cd {shlex.quote(str(kit))} && {command}"]
            script = (hiding if hidden else []) + [f"exec runuser -u {user} -- " + shlex.join(env)]
            return run(["unshare", "--mount", "--propagation", "private", "sh", "-ec", "\n".join(script)])

        if shutil.which("sudo"):
            r = as_user("sudo -n true", hidden=False)
            expect(r.returncode != 0, f"{user} has no passwordless sudo")

        r = as_user("./labkit bundle", hidden=False)
        if r.returncode != 0 and "apt-get download failed" in r.stderr:
            print("apt-get download failed: apt-get update, then once more")
            run(["apt-get", "update", "-qq"])
            r = as_user("./labkit bundle", hidden=False)
        show("./labkit bundle", r)
        expect(r.returncode == 0, "./labkit bundle as a user without root")

        r = as_user("./labkit setup --build-dir build-user --cuda disabled", hidden=True)
        show("./labkit setup (hidden: the system's meson, ninja, pkg-config and headers)", r)
        out = r.stdout + r.stderr
        expect(r.returncode == 0, "./labkit setup succeeds without root, sudo, apt-get, or the system's tools and headers")
        expect(len(re.findall(r"neither root nor passwordless sudo", out)) == 1,
               "setup says once that it installs for this user only")
        expect(not re.search(r"^\+ (sudo|apt-get|env DEBIAN_FRONTEND)", out, re.M), "setup ran neither sudo nor apt-get")
        expect("offline: unpacked" in out, "the headers come from the bundle (unpacked)")
        for program in HIDDEN_PROGRAMS:
            link = kit / tools_bin / program
            expect(link.is_symlink() and (kit / tools_venv / "bin" / program).exists(),
                   f"{program} from pip, linked in {tools_bin}/")
        regen = (kit / "build-user" / "build.ninja").read_text()
        expect(str(kit / tools_venv) in regen, f"build-user/ was configured by the meson of {tools_venv}/")

        r = as_user(f"./labkit datasets --build-dir build-user --sizes 37x19 --patterns gradient --out {home}/images",
                    hidden=True)
        show("./labkit datasets (the user's PATH as it was)", r)
        expect(r.returncode == 0 and (home / "images" / "gradient-37x19.png").is_file(),
               "./labkit datasets builds the generator with the venv's ninja and writes an image")
    finally:
        run(["userdel", "--remove", user])
        shutil.rmtree(tmp, ignore_errors=True)
        print(f"({time.monotonic() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
