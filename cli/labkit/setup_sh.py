"""What cli/setup.sh (./labkit setup and bundle, in bash) defines, read from bash itself: the file
is sourced and the variable printed, so that its one home stays the script that uses it."""
import subprocess

from .util import ROOT, LabkitError

SETUP_SH = ROOT / "cli" / "setup.sh"
_PRINT = 'set -euo pipefail; ROOT="$1"; source "$2"; declare -n v="$3"; printf "%s\\n" "${v[@]}"'


def setup_values(name):
    """The items of setup.sh's array NAME (a scalar: one item), in order."""
    proc = subprocess.run(["bash", "-c", _PRINT, "bash", str(ROOT), str(SETUP_SH), name],
                          capture_output=True, text=True, timeout=30)
    if proc.returncode != 0:
        raise LabkitError(f"cannot read {name} of {SETUP_SH.relative_to(ROOT)}: {proc.stderr.strip()}")
    return proc.stdout.splitlines()


def setup_value(name):
    """setup.sh's scalar NAME."""
    values = setup_values(name)
    if len(values) != 1:
        raise LabkitError(f"{SETUP_SH.relative_to(ROOT)}: {name} is not one value ({values})")
    return values[0]
