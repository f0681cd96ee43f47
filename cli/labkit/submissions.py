"""Submitted folders and archives, read as data, not as paths: only regular files with the lab's
student file names are taken, and a lab's file only from that lab's folder (<lab>/<file>, at
any depth: labs/<lab>/, alice/<lab>/, ...) or, when one lab is graded, also from the top of
the submission (or of the one folder everything handed in sits in): every lab has a
cpu_openmp.cpp, and one lab's must never be graded as another's. A file with a student file's
name that is not taken, and a near miss (cpu_openMP.cpp, cpu_openmp.cc), get a note saying why;
so does each lab's list of the paths used. Links (and folders reached through one), devices,
fifos, sockets, archive members outside the archive and oversized files are refused with a note
each, and the starter's file stands in for them. Nothing is unpacked: the chosen files' bytes
are staged as <staged>/<lab>/<file> for a build with -Dsubmission=<staged>, in a work folder
outside the kit (batch.work_dir_of)."""

import errno
import hashlib
import os
import re
import shutil
import stat
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from .util import ROOT, LabkitError, error_kind, printable

# Python 3.12 warns about tar extraction without a filter, and 3.14 changes the default: ask for
# the "data" filter (no links out, no devices, sane modes) wherever it exists (3.11.4 and later).
TAR_FILTER = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}

MAX_FILE_BYTES = 1 << 20  # one student file: the largest solution file is a few KiB
MAX_ARCHIVE_BYTES = 64 << 20  # an archive's members together, unpacked (what is read to list it)
MAX_ENTRIES = 10_000  # archive members, or files and folders of a folder, looked at
MAX_DEPTH = 64  # folders within folders looked into: a student's tree is a few deep, an attack 1,000
MAX_NOTES = 5  # notes on refused archive members that are no student file, before "and N more"
# A name that differs from a student file's only in case or in one of these extensions is a
# near miss (cpu_openMP.cpp, cpu_openmp.cc): noted, never taken.
SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".c++", ".cu", ".cuh", ".h", ".hh", ".hpp", ".py")
NOT_USED = "not used"  # in the note on every file with a student file's name that was not taken
# Ends every note on a submission that was not read whole (a limit, a broken archive): its files
# not found may be in what was not read, and the note on them says so.
PARTLY_READ = "what lies past that was not read"
DAMAGED = "ask the student for a new upload"


class Refused(Exception):
    """A file of the submission that is not taken, and why (the text of its note)."""


@dataclass(frozen=True)
class Entry:
    """A file of the submission with a student file's name: where it sits (path parts), and how
    to get its bytes (load() returns them or raises Refused)."""
    parts: tuple
    load: object


def refused(why):
    def load():
        raise Refused(why)
    return load


def size_problem(size):
    return f"{size} bytes, over the limit of {MAX_FILE_BYTES >> 20} MiB for a student file"


def near_miss(name, names):
    """The student file name (of names) that name nearly is: another case, or another source
    extension; None when it is one, or none."""
    stem, ext = os.path.splitext(name)
    if name in names or ext.lower() not in SOURCE_SUFFIXES:
        return None
    return next((n for n in sorted(names) if os.path.splitext(n)[0].lower() == stem.lower()), None)


# ---- folders ------------------------------------------------------------------------------------

def read_regular(root, parts):
    """The bytes of root/parts..., opened one component at a time without following a link (a
    folder on the way included), and only if it is a regular file within MAX_FILE_BYTES."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in parts[:-1]:
            inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = inner
        # O_NONBLOCK: a fifo put there after the listing must not hang labkit on open.
        fd_file = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY, dir_fd=fd)
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.ENOTDIR):
            raise Refused("a symbolic link, or inside a linked folder") from None
        raise Refused(f"cannot be read: {e.strerror}") from None
    finally:
        os.close(fd)
    with os.fdopen(fd_file, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise Refused("not a regular file but a device, fifo or socket")
        data = f.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise Refused(size_problem(max(info.st_size, len(data))))
    return data


def odd_name(name):
    """Whether a name is not valid UTF-8 (os.fsdecode and tarfile keep such bytes as surrogates)."""
    try:
        name.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


def note_odd_names(notes, odd):
    """One note per name that is not valid UTF-8 (a few, then how many more): they are read all
    the same, and shown with their bytes as \\xNN."""
    notes += [f"{shown(parts)}: its name is not valid UTF-8" for parts in odd[:MAX_NOTES]]
    if len(odd) > MAX_NOTES:
        notes.append(f"... and {len(odd) - MAX_NOTES} more names that are not valid UTF-8")


def walk(root, notes):
    """(parts, os.DirEntry) of every file, folder and link under the folder root, without
    following a link, from a stack rather than recursion; at most MAX_ENTRIES entries and
    MAX_DEPTH folders deep, each limit and each folder that cannot be listed noted. Names are
    str as os.fsdecode makes them (a name that is not UTF-8 keeps its bytes as surrogates, and is
    noted): os.fsencode gives every name back exactly."""
    seen, todo, odd, deep = 0, [()], [], 0
    while todo:
        where = todo.pop()
        try:
            with os.scandir(os.path.join(root, *where)) as it:
                listing = sorted(it, key=lambda e: e.name)
        except OSError as e:
            notes.append(f"{shown(where) or '.'}: cannot be listed ({e.strerror})")
            continue
        for e in listing:
            seen += 1
            if seen > MAX_ENTRIES:
                notes.append(f"more than {MAX_ENTRIES} files and folders: {PARTLY_READ}")
                note_odd_names(notes, odd)
                return
            parts = where + (e.name,)
            if odd_name(e.name):
                odd.append(parts)
            if e.is_dir(follow_symlinks=False):
                if len(parts) < MAX_DEPTH:
                    todo.append(parts)
                else:
                    deep += 1
            yield parts, e
    if deep:
        notes.append(f"folders more than {MAX_DEPTH} deep: {PARTLY_READ}")
    note_odd_names(notes, odd)


def folder_entries(root, names, notes, near):
    """The entries of the folder root named like a student file (a name of names), found
    without following links; a link to a folder is noted, never entered. The paths (parts) of
    near misses are added to near."""
    found = []
    for parts, e in walk(root, notes):
        name = e.name
        if e.is_symlink():
            if name in names:
                found.append(Entry(parts, refused("a symbolic link")))
            elif os.path.isdir(e.path):
                notes.append(f"{shown(parts)}: a link to a folder, not followed")
        elif e.is_dir(follow_symlinks=False):
            continue
        elif name in names:
            found.append(Entry(parts, lambda parts=parts: read_regular(root, parts))
                         if e.is_file(follow_symlinks=False)
                         else Entry(parts, refused("not a regular file but a device, fifo or socket")))
        elif near_miss(name, names):
            near.append(parts)
    return found


def source_key(path):
    """What identifies a submission's content cheaply, for resuming: of a folder, every entry's
    path (its bytes), size and modification time, as walk() finds them (links never followed);
    of an archive, its size and modification time."""
    h = hashlib.sha256()
    path = Path(path)
    if path.is_dir():
        for parts, e in walk(path, []):
            try:
                st = e.stat(follow_symlinks=False)
            except OSError:
                continue
            h.update(os.fsencode("/".join(parts)) + f"\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    else:
        st = path.stat()
        h.update(f"{st.st_size}\0{st.st_mtime_ns}".encode())
    return h.hexdigest()[:24]


# ---- archives -----------------------------------------------------------------------------------

def member_parts(name):
    """A member's path parts ('\\' counts as a separator too: archives made on Windows), or
    raises Refused when it is absolute or climbs out with '..'."""
    if name.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", name):
        raise Refused("an absolute path")
    parts = tuple(p for p in re.split(r"[/\\]", name) if p not in ("", "."))
    if ".." in parts:
        raise Refused("a path with '..'")
    return parts


class ArchiveReader:
    """Lists the members of an archive that are named like a student file, reading their bytes
    within the limits, and notes every member it refuses."""

    def __init__(self, names, notes, near):
        self.names, self.notes, self.near = names, notes, near
        self.found, self.total, self.count, self.left_out, self.odd = {}, 0, 0, 0, []

    def refuse(self, name, why, parts=None):
        """A refused member: a student file's note comes from stage(), any other's from here."""
        if parts and parts[-1] in self.names:
            self.found[parts] = Entry(parts, refused(why))
            return
        if self.left_out < MAX_NOTES:
            self.notes.append(f"archive member {printable(repr(name))} refused: {why}")
        self.left_out += 1

    def add(self, name, kind, size, read):
        """One member: kind 'file', 'dir', 'link' or 'special'; size, what its header says;
        read() -> its first MAX_FILE_BYTES + 1 bytes. Returns False once the archive is past its
        limits (stop listing)."""
        self.count += 1
        if self.count > MAX_ENTRIES:
            self.notes.append(f"more than {MAX_ENTRIES} archive members: {PARTLY_READ}")
            return False
        try:
            parts = member_parts(name)
        except Refused as e:
            self.refuse(name, str(e))
            return True
        if any(map(odd_name, parts)):
            self.odd.append(parts)
        if kind == "link":
            self.refuse(name, "a link", parts)
        elif kind == "special":
            self.refuse(name, "not a regular file but a device or fifo", parts)
        elif kind == "file":
            used = size
            if parts and near_miss(parts[-1], self.names):
                self.near.append(parts)
            if parts and parts[-1] in self.names:
                entry, got = self.loaded(parts, read, size)
                self.found[parts], used = entry, max(size, got)
            self.total += used
            if self.total > MAX_ARCHIVE_BYTES:
                self.notes.append(f"the archive unpacks to more than {MAX_ARCHIVE_BYTES >> 20} MiB: {PARTLY_READ}")
                return False
        return True

    @staticmethod
    def loaded(parts, read, size):
        """(the entry of a student file's member, how many bytes were read of it)."""
        if size > MAX_FILE_BYTES:
            return Entry(parts, refused(size_problem(size))), 0
        try:
            data = read()
        except Exception as e:  # noqa: BLE001 - whatever a broken member raises is its own problem:
            # an encrypted zip member (RuntimeError), a corrupt deflate stream (zlib.error), a
            # truncated one (EOFError), an unknown compression (NotImplementedError), ...
            return Entry(parts, refused(f"cannot be read, the archive is damaged or encrypted ({broken(e)}); "
                                        f"{DAMAGED}")), 0
        if len(data) > MAX_FILE_BYTES:
            return Entry(parts, refused(size_problem(len(data)))), len(data)
        return Entry(parts, lambda: data), len(data)

    def entries(self):
        if self.left_out > MAX_NOTES:
            self.notes.append(f"... and {self.left_out - MAX_NOTES} more archive members refused")
        note_odd_names(self.notes, self.odd)
        return list(self.found.values())


def broken(e):
    """What a broken archive or member raised, in a few words."""
    text = str(e).splitlines()[0].rstrip(":") if str(e).strip() else ""
    return printable(f"{error_kind(e)}: {text}"[:100] if text else error_kind(e))


def first_bytes(stream):
    """Up to MAX_FILE_BYTES + 1 bytes of an archive member: enough to tell that it is too big."""
    with stream:
        return stream.read(MAX_FILE_BYTES + 1)


def zip_kind(info):
    """A zip member's kind, from the Unix mode its maker stored (often only the permissions, or
    nothing: a regular file)."""
    kind = stat.S_IFMT(info.external_attr >> 16)
    if kind == stat.S_IFLNK:
        return "link"
    if info.is_dir() or kind == stat.S_IFDIR:
        return "dir"
    return "special" if kind not in (0, stat.S_IFREG) else "file"


def tar_kind(member):
    if member.issym() or member.islnk():
        return "link"
    if member.isdir():
        return "dir"
    return "file" if member.isfile() else "special"


def archive_entries(path, names, notes, near):
    """The members of the .zip or .tar(.gz) archive at path named like a student file (near
    misses go to near)."""
    reader = ArchiveReader(names, notes, near)
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as z:
                for info in z.infolist():
                    read = lambda info=info: first_bytes(z.open(info))
                    if not reader.add(info.filename, zip_kind(info), info.file_size, read):
                        break
        else:
            with tarfile.open(path) as t:
                for m in t:
                    read = lambda m=m: first_bytes(t.extractfile(m))
                    if not reader.add(m.name, tar_kind(m), m.size, read):
                        break
    except Exception as e:  # noqa: BLE001 - not an archive, or a broken one (a stream that breaks
        # after good members: zlib.error, EOFError, ...): what was read before it is kept
        notes.append(f"the archive breaks after {reader.count} member{'s' if reader.count != 1 else ''} "
                     f"({broken(e)}): {PARTLY_READ}; {DAMAGED}" if reader.count else
                     f"not a readable .zip or .tar(.gz) archive ({broken(e)}): nothing taken from it; {DAMAGED}")
    return reader.entries()


# ---- staging ------------------------------------------------------------------------------------

def submission_entries(src, names, notes, near):
    """The entries of a submitted folder or archive named like a student file (names); the
    paths of near misses go to near."""
    if Path(src).is_dir():
        return folder_entries(src, names, notes, near)
    if not Path(src).is_file():  # a fifo named .zip would block the read
        notes.append("neither a folder nor a regular file: nothing taken from it")
        return []
    return archive_entries(src, names, notes, near)


def shown_name(name):
    """A file or folder name as notes, the class files and the terminal show it: bytes that are
    not UTF-8 as \\xNN (printable), and a control character (a newline in a folder's name) as
    its escape, so that a name is always one line."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in printable(name))


def shown(parts):
    return shown_name("/".join(parts))


def wrapper(paths, labs):
    """The one folder everything handed in sits in (an archive of a folder: alice/...), as a
    prefix of parts; () when there is none, or it is a lab's own folder."""
    tops = {p[0] for p in paths}
    if len(tops) == 1 and all(len(p) > 1 for p in paths) and next(iter(tops)) not in labs:
        return (next(iter(tops)),)
    return ()


class Matcher:
    """Which entry each graded lab's file is taken from, and the notes on every file with a
    student file's name that is not taken, or nearly has one (see the module's docstring)."""

    def __init__(self, entries, near, lab_files, all_labs, graded, notes):
        self.entries, self.near, self.lab_files = entries, near, lab_files
        self.all_labs, self.graded, self.notes = set(all_labs), [l for l in lab_files if l in graded], notes
        self.flat = len(self.graded) == 1  # the flat form: only when one lab is graded
        self.root = wrapper([e.parts for e in entries] + near, self.all_labs)
        self.used = set()  # the parts of every entry taken

    def pick(self, lab, name):
        """The entry lab's file `name` is taken from: the shallowest <lab>/name, else (one lab
        graded) name at the top; None, with a note when there are several to choose from."""
        want = tuple(name.split("/"))
        named = [e for e in self.entries if e.parts[-len(want):] == want]
        in_lab = [e for e in named if e.parts[:-len(want)][-1:] == (lab,)]
        if in_lab:
            depth = min(len(e.parts) for e in in_lab)
            found = [e for e in in_lab if len(e.parts) == depth]
        else:
            found = [e for e in named if self.flat and e.parts in (want, self.root + want)]
        if len(found) > 1:
            self.notes.append(f"{lab}: {name} is there {len(found)} times "
                              f"({', '.join(sorted(shown(e.parts) for e in found))}): starter used")
            return None
        if found:
            self.used.add(found[0].parts)
        return found[0] if found else None

    def homes(self, name):
        """Where a file named name (a base name) is taken from: (<lab>/<its path> per graded
        lab, its path at the top where the flat form holds)."""
        wants = [(lab, f) for lab in self.graded for f in self.lab_files[lab] if f.split("/")[-1] == name]
        flat = [shown(self.root + tuple(f.split("/"))) for _, f in wants] if self.flat else []
        return [f"{lab}/{f}" for lab, f in wants], flat

    def lab_of(self, parts):
        """The lab whose folder the file at parts sits in as one of its files (<lab>/<file>), or
        None."""
        for lab, files in self.lab_files.items():
            for f in files:
                want = (lab,) + tuple(f.split("/"))
                if parts[-len(want):] == want:
                    return lab
        return None

    def why_not(self, parts):
        """Why the file at parts (a student file's name) was not taken; None when that needs no
        note: a lab's file in its own folder (a lab not graded now, or one there twice, which
        pick() notes)."""
        if self.lab_of(parts):
            return None
        folders, top = self.homes(parts[-1])
        if shown(parts) in top:
            return "the one in its lab's folder is used instead"
        folder = parts[-2] if len(parts) > 1 else ""
        same = [l for l in sorted(self.all_labs) if l.lower() == folder.lower() and l != folder]
        if same:
            return f"the folder must be named {same[0]} (names are case-sensitive)"
        return ("" if self.flat else "with several labs graded, ") + \
            f"a file is taken only from its lab's folder ({' or '.join(folders)})" + \
            (f" or the top of the submission ({' or '.join(top)})" if top else "")

    def warn(self):
        """Notes on the files not taken: misplaced ones, and near misses."""
        warnings = []
        for e in self.entries:
            why = None if e.parts in self.used else self.why_not(e.parts)
            if why:
                warnings.append(f"{shown(e.parts)} {NOT_USED}: {why}")
        for parts in self.near:
            if len(parts) > 1 and parts[-2] in self.all_labs and parts[-2] not in self.graded:
                continue  # in the folder of a lab not graded now
            meant = near_miss(parts[-1], {f.split("/")[-1] for lab in self.graded for f in self.lab_files[lab]})
            warnings.append(f"{shown(parts)} {NOT_USED}: did you mean {meant}? (file names must match exactly)")
        self.notes += warnings[:MAX_NOTES]
        if len(warnings) > MAX_NOTES:
            self.notes.append(f"... and {len(warnings) - MAX_NOTES} more files {NOT_USED}")


ARCHIVES = (".tar.gz", ".tgz", ".tar", ".zip")  # what a class folder's files are taken as
NAME_MARK = "~"  # between a cleaned name and its hash: no clean name holds it, so none can be taken


def handed_in(path):
    """A submission's name as handed in: its folder's, or its archive's without the extension (str
    as os.fsdecode makes it: bytes that are not UTF-8 kept as surrogates)."""
    name = Path(path).name
    return next((name[:-len(ext)] for ext in ARCHIVES if name.endswith(ext) and len(name) > len(ext)), name)


def cleaned(name):
    """name with what is not safe in a file name, a CSV cell or a shell word made '_'."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "submission"


def same_name(name):
    """What two names handed in share when they collide: one name once cleaned and case-folded
    (bob and Bob, _alice and alice, alice/ and alice.zip)."""
    return cleaned(name).casefold()


def _hashed(base, what):
    return f"{base}{NAME_MARK}{hashlib.sha256(os.fsencode(what)).hexdigest()[:8]}"


def submission_names(paths):
    """The name each submission is graded and filed under (its result, feedback and row), in the
    order of paths. A name comes from the submission's own folder or archive, never from the
    order of the others: the cleaned name it was handed in under, when exactly one submission
    was handed in under that very name (alice/ is alice); else, for every other submission whose
    cleaned name it shares, that name, NAME_MARK and a hash of its own file name (_alice/ beside
    alice/, or alice.zip beside alice/, is alice~1f3a9c0e): two submissions never share a name,
    and none takes a classmate's. Paths named twice (--single a/x b/x) are told apart by the hash
    of their whole path."""
    groups = {}
    for p in paths:
        groups.setdefault(cleaned(handed_in(p)), []).append(p)
    names = {}
    for base, members in groups.items():
        own = [p for p in members if handed_in(p) == base]
        for p in members:
            names[p] = base if len(members) == 1 or (len(own) == 1 and p == own[0]) else _hashed(base, Path(p).name)
    counts = {}
    for n in names.values():
        counts[n] = counts.get(n, 0) + 1
    for p, n in names.items():
        if counts[n] > 1:
            names[p] = _hashed(cleaned(handed_in(p)), os.path.abspath(p))
    return [names[p] for p in paths]


NOTHING_HANDED_IN = "none of this lab's files was handed in"
# The notes listing the paths a lab's files were taken from ("<lab>: used: a, b") and the files
# not handed in ("<lab>: not handed in, starter used: c, d"): for the student's feedback; the
# gradebook, whose notes are the exceptions, leaves them out (but NOTHING_HANDED_IN).
PATHS_USED = "used"
NOT_HANDED_IN = "not handed in, starter used"


def stage(src, staged, lab_files, all_labs, graded):
    """Writes each graded lab's student files, taken from the submission src (a folder or an
    archive), into staged/<lab>/, and the starter's (labs/<lab>/) for every file not handed in
    or refused. lab_files: lab -> file names, for every lab of the kit (the submission's build
    configures them all: a lab not graded gets its starter); graded: the labs being graded.
    Returns the notes: per graded lab the paths used and the files missing, what was refused
    and why, and every file not taken and why."""
    notes, near = [], []
    names = {f.split("/")[-1] for lab in graded for f in lab_files[lab]}
    entries = submission_entries(src, names, notes, near)
    partly = any(PARTLY_READ in n for n in notes)
    match = Matcher(entries, near, lab_files, all_labs, graded, notes)
    written = set()
    for lab, files in lab_files.items():
        missing, used = [], []
        for f in files:
            dest = staged / lab / f
            written.add(dest)
            entry = match.pick(lab, f) if lab in graded else None
            if entry is not None:
                try:
                    write_if_changed(dest, entry.load())
                    used.append(shown(entry.parts))
                    continue
                except Refused as e:
                    notes.append(f"{lab}: {shown(entry.parts)} refused ({e}), starter used")
            starter = ROOT / "labs" / lab / f
            if not starter.is_file():
                raise LabkitError(f"{lab}: labs/{lab}/{f}, the starter's file, is missing from the kit")
            write_if_changed(dest, starter.read_bytes())
            if entry is None:
                missing.append(f)
        if used:
            notes.append(f"{lab}: {PATHS_USED}: {', '.join(used)}")
        if missing and lab in graded:
            notes.append(f"{lab}: {NOT_HANDED_IN}: {', '.join(missing)}"
                         + (f" ({NOTHING_HANDED_IN})" if len(missing) == len(files) else "")
                         + (" (or in the part of the submission that was not read: see above)" if partly else ""))
    match.warn()
    # Nothing else stays in the staging folder (an earlier submission's, or a stray file).
    for path in sorted(staged.rglob("*"), reverse=True) if staged.exists() else []:
        if path.is_symlink() or (path.is_file() and path not in written):
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()
    return notes


def write_if_changed(dest, data):
    """Writes data to dest unless dest already holds exactly these bytes: an unchanged file keeps
    its mtime, so that ninja does not recompile it for the next submission of a class run."""
    if dest.is_symlink():
        dest.unlink()
    elif dest.is_dir():
        shutil.rmtree(dest)
    elif dest.is_file() and dest.read_bytes() == data:
        return
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(data)
