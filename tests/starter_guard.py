#!/usr/bin/env python3
"""The starter's own tests check the starter as the kit ships it, never a student's work in
progress: once a student has edited a file, they are skipped, and say why (`./labkit grade` is
what checks the student's work).

    starter_guard.py MANIFEST DIR -- COMMAND...   run COMMAND when every file listed in MANIFEST
                                                  is unchanged in DIR; else exit 77 (skipped)
    starter_guard.py --check MANIFEST DIR         exit 1 when a file differs (CI: a stale manifest)
    starter_guard.py --write MANIFEST DIR FILE... write MANIFEST for FILEs in DIR (kit developers)

MANIFEST lines are "<sha256>  <file name>", as sha256sum writes them.
"""
import hashlib
import os
import sys
from pathlib import Path

SKIP = 77  # Meson's "skipped"


def digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def read_manifest(path):
    entries = {}
    for line in Path(path).read_text().splitlines():
        if line.strip():
            value, name = line.split(maxsplit=1)
            entries[name.strip()] = value
    return entries


def edited(manifest, folder):
    """The files of the manifest whose content differs from the shipped starter (or are gone)."""
    changed = []
    for name, value in read_manifest(manifest).items():
        path = Path(folder) / name
        if not path.is_file() or digest(path) != value:
            changed.append(name)
    return changed


def main(argv):
    if len(argv) >= 3 and argv[0] == "--write":
        manifest, folder, files = argv[1], argv[2], argv[3:]
        Path(manifest).write_text("".join(f"{digest(Path(folder) / f)}  {f}\n" for f in files))
        return 0
    if len(argv) == 3 and argv[0] == "--check":
        changed = edited(argv[1], argv[2])
        if changed:
            print(f"the starter files differ from {argv[1]}: {', '.join(changed)}; if the starter was "
                  f"changed on purpose, rewrite the manifest (tests/starter_guard.py --write)")
            return 1
        return 0
    if len(argv) >= 4 and argv[2] == "--":
        manifest, folder, command = argv[0], argv[1], argv[3:]
        changed = edited(manifest, folder)
        if changed:
            print(f"skipped: these checks test the starter as shipped, and you have edited "
                  f"{', '.join(changed)}. That is expected once you start: `./labkit grade` checks "
                  f"your work.")
            return SKIP
        os.execvp(command[0], command)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
