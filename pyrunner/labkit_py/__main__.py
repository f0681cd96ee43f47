"""python -m labkit_py --track TRACK --code DIR --inputs-lib LIB [--simulate] list|check|time|dry ...

The Python track's runner (grader/protocol/protocol.hpp): started by the grader, in the sandbox, not by
people. Exit status 0, 2 for bad arguments, 3 after an `error` line."""
import argparse
import importlib.util
import os
import sys

from .student import Todo, first_todo, where

ERROR_EXIT = 3
# A student file that fails to import one of these is a driver missing here, not a bug.
DRIVER_PACKAGES = {"numpy", "cupy", "cupyx", "pycuda", "numba", "llvmlite"}
SETUP_HINT = "./labkit setup --python"


def quiet_caches():
    """No compile cache between calls: the first call's time is a real compile, in every call."""
    os.environ["PYCUDA_DISABLE_CACHE"] = "1"
    os.environ["CUPY_CACHE_IN_MEMORY"] = "1"
    cuda_bin = "/usr/local/cuda/bin"  # PyCUDA runs nvcc from PATH; the sandbox's PATH is /usr/bin:/bin
    if os.path.isdir(cuda_bin) and cuda_bin not in os.environ.get("PATH", "").split(":"):
        os.environ["PATH"] = os.environ.get("PATH", "/usr/bin:/bin") + ":" + cuda_bin


def load_track(path):
    spec = importlib.util.spec_from_file_location("lab_track", path)
    track = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(track)
    return track


def ints(text):
    return [int(x) for x in text.split(",") if x]


def parse(argv):
    p = argparse.ArgumentParser(prog="labkit_py", description=__doc__.splitlines()[0])
    p.add_argument("--track", required=True, help="the lab's kit/track.py")
    p.add_argument("--code", required=True, help="the folder of the student's Python files")
    p.add_argument("--inputs-lib", default="", help="liblabkit_inputs.so, for the timing images")
    p.add_argument("--simulate", action="store_true", help="Numba's variants run on its CUDA simulator")
    p.add_argument("--contract", required=True,
                   help="the grader's `contract` JSON: the exercises' pixel types and output sizes")
    sub = p.add_subparsers(dest="command", required=True)
    listing = sub.add_parser("list")
    listing.add_argument("--report-fd", type=int, default=1)
    for name in ("check", "time", "dry"):
        c = sub.add_parser(name)
        c.add_argument("exercise")
        c.add_argument("variant")
        c.add_argument("--report-fd", type=int, default=1)
        if name == "check":
            c.add_argument("--manifest", required=True)
            c.add_argument("--answers", required=True)
            c.add_argument("--threads", default="1")
            c.add_argument("--digest", default="", help="ignored: this runner always answers with files")
            c.add_argument("--only", default="")
        if name == "time":
            c.add_argument("--sizes", required=True)
            c.add_argument("--patterns", default="random")
            c.add_argument("--threads", default="1")
            c.add_argument("--params", default="")
            c.add_argument("--runs", type=int, default=0)
            c.add_argument("--cpu-max-gflop", default="")
            c.add_argument("--answers", default="")
            c.add_argument("--photo", default="", help="the photo pattern's photo (a raw 8-bit gray image)")
    return p.parse_args(argv)


class Reporter:
    """protocol.Reporter without numpy (this module reports a missing numpy)."""

    def __init__(self, fd):
        self.fd = fd

    def send(self, key, value=""):
        line = (key + "\t" + str(value)).replace("\n", " ").replace("\r", " ") + "\n"
        try:
            os.write(self.fd, line.encode("utf-8", "replace"))
        except OSError:
            pass  # the grader is gone

    def ask(self, key, value=""):
        """A request (grader/protocol/protocol.hpp): the line, then the grader's one-line answer on stdin."""
        self.send(key, value)
        answer = b""
        while not answer.endswith(b"\n"):
            byte = os.read(0, 1)  # byte by byte: nothing past the answer is taken
            if not byte:
                raise RuntimeError(f"no answer to '{key}' on stdin (is the grader running this?)")
            answer += byte
        return answer[:-1].decode("utf-8", "replace")


def main(argv=None):
    args = parse(sys.argv[1:] if argv is None else argv)
    report = Reporter(args.report_fd)
    quiet_caches()
    track = load_track(args.track)
    rows = {row[0]: row for row in track.VARIANTS}
    if args.command == "list":
        for name, driver, _file, summary in track.VARIANTS:
            simulated = "\tsimulated" if args.simulate and driver == "numba" else ""
            report.send("variant", f"{track.EXERCISE}\t{name}\tgpu\t{summary}{simulated}")
        return 0
    if args.exercise != track.EXERCISE or args.variant not in rows:
        report.send("error", f"no variant '{args.variant}' in exercise '{args.exercise}'")
        return ERROR_EXIT
    path = os.path.join(args.code, rows[args.variant][2])
    try:
        if not os.path.exists(path):
            raise Todo(f"{os.path.basename(path)} is not there (python/ of the code base)")
        from . import drivers, harness, protocol
        from .inputs import Generator
        variant = harness.Variant(track, rows[args.variant], args.code, harness.Contract(args.contract, track.EXERCISE))
        if args.command == "dry":
            variant.load(None)  # imports the student file; no GPU is touched
            harness.dry(variant, report)
            return 0
        driver = drivers.load(variant.driver_name, simulate=args.simulate)
        variant.load(driver)
        if args.command == "check":
            harness.check(variant, args.manifest, args.answers, set(ints(args.only)), report)
        else:
            patterns = [x for x in args.patterns.split(",") if x]
            generator = Generator(args.inputs_lib)
            if args.photo:
                generator.use_photo(protocol.read_raw(args.photo, "uint8"))
            harness.time_variant(variant, generator, patterns, ints(args.sizes),
                                 protocol.RunPolicy(args.runs), args.answers, report)
        return 0
    except Exception as e:  # noqa: BLE001  (student code: every failure is a report line)
        return report_failure(e, path, args.code, track, report)


def report_failure(error, path, code_dir, track, report):
    """todo, skip or error for what stopped a variant. A driver (or numpy) that cannot be
    imported here is "skipped", except for a starter: read, not run, its TODO shows either way."""
    missing = None
    if isinstance(error, ImportError) and (getattr(error, "name", None) or "").split(".")[0] in DRIVER_PACKAGES:
        missing = f"{error.name.split('.')[0]} not installed ({SETUP_HINT})"
    elif type(error).__name__ == "Missing":  # drivers.Missing: the driver's package does not load
        missing = str(error)
    if missing:
        todo = first_todo(path, ("compile", track.ENTRY))
        report.send("todo", todo) if todo else report.send("skip", missing)
        return 0
    if isinstance(error, Todo):
        report.send("todo", str(error))
        return 0
    report.send("error", where(error, code_dir))
    return ERROR_EXIT

if __name__ == "__main__":
    sys.exit(main())
