"""`labkit gradescope-bundle`: the zip of a Gradescope "zip file upload" autograder.

Gradescope unpacks the zip into /autograder/source/, runs setup.sh from there once (as root)
when it builds the image, and /autograder/run_autograder (a copy of the zip's run_autograder)
for each submission, which must leave /autograder/results/results.json. The kit travels under
source/ in the zip, so it lands in /autograder/source/source/, apart from the two scripts. The
autograder is hidden from students, so the reference solution goes with it: grading compares the
student's times with the reference's."""

import io
import os
import stat
import subprocess
import time
import zipfile

from .dist import tracked_files
from .setup_sh import setup_values
from .util import ROOT, LabkitError, UsageError, kit_path, rel, say, write_atomic

KIT_IN_ZIP = "source"
KIT_ON_GRADESCOPE = "/autograder/source/" + KIT_IN_ZIP
# Top folders of the kit that never go in the zip: build output, results, tarballs, notes.
SKIP_TOP = {"results", "dist", ".scratch", ".git"}
EXECUTABLE = {"setup.sh", "run_autograder", f"{KIT_IN_ZIP}/labkit"}

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image: it installs what
# `./labkit setup` needs, then configures and builds the kit (in source/ beside this script), so
# that grading a submission compiles only the submission's own files.
set -euo pipefail
KIT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/source"
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends @PACKAGES@
# The sandbox of student code: grading works without it, and then says "not sandboxed".
apt-get install -y --no-install-recommends @OPTIONAL@ || echo "setup.sh: @OPTIONAL@ not installed"
cd "$KIT"
chmod +x labkit  # should the zip's file modes be lost on the way
./labkit setup --cuda auto
./labkit build
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for every submission: it grades /autograder/submission with the kit
# (in @KIT@) and copies the submission's Gradescope results to
# /autograder/results/results.json. Whatever happens, that file is written: without it
# Gradescope shows no score and no reason.
set -uo pipefail
OUT=/autograder/results/labkit
RESULTS=/autograder/results/results.json
mkdir -p /autograder/results
rm -rf "$OUT" "$RESULTS"
cd @KIT@ && ./labkit grade-all --single /autograder/submission --out "$OUT"@OPTIONS@
status=$?
shopt -s nullglob
found=("$OUT"/gradescope/*/results.json)
if ((${#found[@]} == 1)) && cp "${found[0]}" "$RESULTS"; then
    exit 0
fi
cat >"$RESULTS" <<EOF
{"score": 0, "output": "The autograder failed before it produced a score (labkit exit status $status, ${#found[@]} result files). This is not a verdict on your work: your instructor can see why in the autograder output (the log of this run). Please tell them.", "output_format": "text", "tests": []}
EOF
echo "run_autograder: no results.json from labkit (exit status $status): wrote a score of 0 saying so"
"""


def kit_packages():
    """(required, optional) Debian packages: cli/setup.sh's PACKAGES and OPTIONAL_PACKAGES, one
    list, so that the autograder's setup.sh installs what `./labkit setup` would."""
    return setup_values("PACKAGES"), setup_values("OPTIONAL_PACKAGES")


def bundled(path):
    """Whether a kit file (relative, with /) goes in the zip: not build folders, results/, dist/,
    notes, the offline .debs or Python caches. solutions/ does: timing compares with it."""
    parts = path.split("/")
    if len(parts) > 1 and (parts[0] in SKIP_TOP or parts[0].startswith("build")):
        return False
    return not (path.startswith(("third_party/debs/", "third_party/wheels/", ".venv-python/")) or "__pycache__" in parts
                or path.endswith(".pyc"))


def kit_files():
    """The kit's files, as git knows them (a walk of the tree where there is no git)."""
    try:
        files = [f for f in tracked_files() if bundled(f)]
    except subprocess.CalledProcessError as e:
        raise LabkitError(f"git ls-files failed: {e.stderr.decode(errors='replace').strip()}") from None
    if "labkit" not in files:
        raise LabkitError(f"no kit files found in {ROOT}")
    return files


def grade_options(args):
    """The options run_autograder hands to grade-all: --no-perf and the labs (checked here, so
    that a typo fails now rather than on every submission)."""
    options = ["--no-perf"] if args.no_perf else []
    if args.labs:
        known = sorted(p.parent.parent.name for p in (ROOT / "labs").glob("*/kit/meson.build"))
        labs = list(dict.fromkeys(l.strip() for l in args.labs.split(",") if l.strip()))
        unknown = [l for l in labs if l not in known]
        if unknown or not labs:
            raise UsageError(f"--labs: unknown lab {', '.join(unknown) or '(none given)'}; "
                             f"the labs are: {', '.join(known)}")
        options += labs
    return options


def entry_mode(name, disk_mode):
    """The permissions of a zip entry: 0755 for the scripts and ./labkit (whatever the checkout
    says: Gradescope runs them), and for what is executable on disk; 0644 otherwise."""
    return 0o755 if name in EXECUTABLE or disk_mode & 0o111 else 0o644


def _entry(name, mode):
    """A zip entry with Unix permissions (external_attr's high half), which unzip restores."""
    info = zipfile.ZipInfo(name, date_time=time.localtime()[:6])
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (stat.S_IFREG | mode) << 16
    return info


def bundle_bytes(files, options):
    """The zip, in memory: setup.sh and run_autograder at its root, the kit under source/."""
    required, optional = kit_packages()
    scripts = {
        "setup.sh": SETUP_SH.replace("@PACKAGES@", " ".join(required)).replace("@OPTIONAL@", " ".join(optional)),
        "run_autograder": RUN_AUTOGRADER.replace("@KIT@", KIT_ON_GRADESCOPE)
        .replace("@OPTIONS@", "".join(" " + o for o in options)),
    }
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, text in scripts.items():
            z.writestr(_entry(name, entry_mode(name, 0)), text)
        for f in files:
            name = f"{KIT_IN_ZIP}/{f}"
            z.writestr(_entry(name, entry_mode(name, os.stat(ROOT / f).st_mode)), (ROOT / f).read_bytes())
    return buf.getvalue()


def cmd_gradescope_bundle(args):
    out = kit_path(args.out)
    options = grade_options(args)
    files = kit_files()
    data = bundle_bytes(files, options)
    write_atomic(out, data)
    say(f"wrote {rel(out)}: setup.sh, run_autograder and {len(files)} kit files under {KIT_IN_ZIP}/ "
        f"({len(data) / 1024:.0f} KiB)")
    if not any(f.startswith("solutions/") for f in files):
        say("warning: this kit has no solutions/: the autograder cannot compare times with the reference")
    say("each submission: ./labkit grade-all --single /autograder/submission --out /autograder/results/labkit"
        + "".join(" " + o for o in options))
    say("upload it on Gradescope as the assignment's autograder (Configure Autograder > Zip file upload)")
    return 0
