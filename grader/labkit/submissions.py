"""Submitted folders and archives: unpacking them safely, finding the student files in whatever
layout they came in, and staging them as <staged>/<lab>/<file> for a build with
-Dsubmission=<staged>."""

import re
import shutil
import tarfile
import zipfile
from pathlib import Path

from .util import ROOT, LabkitError

# Python 3.12 warns about tar extraction without a filter, and 3.14 changes the default: ask for
# the "data" filter (no links out, no devices, sane modes) wherever it exists (3.11.4 and later).
TAR_FILTER = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}


def safe_extract(archive, dest):
    """Unpacks a .zip/.tar(.gz) submission, refusing members that would land outside dest."""
    dest = Path(dest).resolve()
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)

    def check(name):
        target = (dest / name).resolve()
        if target != dest and dest not in target.parents:
            raise LabkitError(f"{archive}: member {name!r} points outside the archive")

    try:
        if zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as z:
                for n in z.namelist():
                    check(n)
                z.extractall(dest)
        else:
            with tarfile.open(archive) as t:
                members = []
                for m in t.getmembers():
                    check(m.name)
                    if m.isfile() or m.isdir():  # no links or devices
                        members.append(m)
                t.extractall(dest, members=members, **TAR_FILTER)
    except (tarfile.TarError, zipfile.BadZipFile, EOFError) as e:
        first = str(e).splitlines()[0].rstrip(":") if str(e) else e.__class__.__name__
        raise LabkitError(f"{archive}: not a readable .zip or .tar(.gz) archive ({first})") from None
    return dest


def find_student_file(sub_dir, lab, name, labs):
    """DIR/labs/<lab>/F, DIR/<lab>/F, DIR/F, else a single F found deeper (preferring one inside
    a <lab> folder), so that an archive with an extra top-level folder still works. labs: every
    lab of the kit, so that a same-named file of another lab is not taken."""
    for cand in (sub_dir / "labs" / lab / name, sub_dir / lab / name, sub_dir / name):
        if cand.is_file():
            return cand
    other_labs = set(labs) - {lab}
    found = [p for p in sub_dir.rglob(name) if p.is_file() and p.parent.name not in other_labs]
    in_lab = [p for p in found if p.parent.name == lab]
    for group in (in_lab, found):
        if len(group) == 1:
            return group[0]
    return None


def submission_name(path, taken):
    """A folder name for the submission at path, unique among taken (which it joins)."""
    name = path.name
    for ext in (".tar.gz", ".tgz", ".tar", ".zip"):
        if name.endswith(ext):
            name = name[:-len(ext)]
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "submission"
    base, i = name, 2
    while name in taken:
        name, i = f"{base}-{i}", i + 1
    taken.add(name)
    return name


def stage(src, staged, lab_files, all_labs, graded):
    """Copies each lab's student files from the submission src into staged/<lab>/, the
    starter's (labs/<lab>/) where one was not handed in. lab_files: lab -> file names, for every
    lab of the kit (the submission's build configures them all); graded: the labs being graded.
    Returns notes on what was missing, one per graded lab that missed something."""
    if staged.exists():
        shutil.rmtree(staged)
    notes = []
    # Fresh copies (new mtimes), so that ninja rebuilds whatever changed since the last run.
    for lab, files in lab_files.items():
        (staged / lab).mkdir(parents=True)
        missing = []
        for f in files:
            dest = staged / lab / f
            dest.parent.mkdir(parents=True, exist_ok=True)
            # A lab not graded keeps its starter: never a same-named file of another lab.
            found = find_student_file(src, lab, f, all_labs) if lab in graded else None
            if found is None:
                starter = ROOT / "labs" / lab / f
                if not starter.is_file():
                    raise LabkitError(f"{lab}: {f} is neither in the submission nor in labs/{lab}/")
                shutil.copyfile(starter, dest)
                missing.append(f)
            else:
                shutil.copyfile(found, dest)
        if missing and lab in graded:
            notes.append(f"{lab}: not handed in, starter used: {', '.join(missing)}")
    return notes
