"""The command line: one argparse parser for every Python subcommand, and main(), which makes
sure that no command ends in a traceback."""

import argparse
import os
import signal
import sys
import traceback

from .commands import cmd_build, cmd_grade, cmd_list, cmd_run
from .datasets import cmd_datasets
from .dist import cmd_dist
from .sanitize import SANITIZER_TOOLS
from .testrun import cmd_test
from .util import RESULTS, LabkitError, UsageError, rel, say, write_atomic


def make_parser():
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--build-dir", default="build", metavar="DIR",
                        help="the configured build folder (default: build)")
    parser = argparse.ArgumentParser(
        prog="./labkit", description="GPU Labkit: build, grade and test the labs.",
        epilog="setup and bundle are handled by the bash front (./labkit setup --help).")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("build", parents=[common], help="compile everything (ninja -C build)",
                       description="Configures the build folder when needed, then runs ninja.")
    p.add_argument("-j", "--jobs", type=int, help="parallel jobs (ninja's default otherwise)")
    p.set_defaults(func=cmd_build)

    p = sub.add_parser(
        "grade", parents=[common], help="grade labs (yours and the reference, or submissions)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Builds what is needed, then runs each lab's grader. Default: your files "
        "(labs/<lab>/, label 'student') and, when present, the reference (label 'solution'); "
        "reports go to results/<lab>-<label>.{json,md,csv}, diff images of failures to "
        "results/diff/, and a side-by-side summary is printed.",
        epilog="Statuses: pass; FAIL (first mismatch, diff PNG); TODO (not implemented yet); "
        "TIMEOUT; CRASH; ERROR (a CUDA or other error); build-error; not run (a GPU variant "
        "that compiled, on a machine without a CUDA device: NOT checked); skipped."
        "\nExit status: 0 when every implemented variant passed, 1 otherwise.")
    p.add_argument("labs", nargs="*", metavar="LAB", help="labs to grade (default: all)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--solution", action="store_true", help="grade only the reference solution")
    who.add_argument("--submission", nargs="+", metavar="DIR",
                     help="instructor: grade these submitted folders (or .zip/.tar.gz archives); "
                     "only their student files are taken (no links, devices or files over 1 MiB), "
                     "each is built apart in the work folder (--work-dir) inside the sandbox, and "
                     "the class is summarised in results/class.csv and results/class.json")
    p.add_argument("--work-dir", metavar="DIR",
                   help="with --submission: where submissions are staged and built, outside the kit; a "
                   "relative path is taken from the kit's root, like --build-dir "
                   "(default: ${XDG_CACHE_HOME:-~/.cache}/labkit/<hash of the kit's path>/submissions)")
    p.add_argument("--no-sandbox", action="store_true",
                   help="run every runner (and compile every submission) without bubblewrap, "
                   "which is used by default when bwrap starts here; the output, every report and "
                   "the class files then say 'not sandboxed'")
    p.add_argument("--variants", metavar="GLOB,...", help="only variants matching these patterns")
    p.add_argument("--sizes", metavar="WxH,...", help="correctness sizes")
    p.add_argument("--perf-sizes", metavar="N,...", help="performance sizes")
    p.add_argument("--perf-params", metavar="LABEL,...",
                   help="only these timed parameters, for a lab that times several (convolution: "
                   "k=3,k=5,k=9,k=15,k=25); other labs ignore it")
    p.add_argument("--runs", type=positive(int), metavar="N", help="timed runs per performance size")
    p.add_argument("--seed", type=int, metavar="S", help="seed of the random test images")
    p.add_argument("--no-perf", action="store_true", help="check correctness only")
    p.add_argument("--quick", action="store_true", help="fewer sizes and runs")
    p.add_argument("--timeout", type=positive(int), metavar="SEC",
                   help="per-variant limit (seconds without progress), enforced by the grader "
                   "binary (its default: 60)")
    p.add_argument("--lab-timeout", type=positive(float), metavar="SEC",
                   help="wall-clock limit of one grader process, after which its whole process "
                   "group is killed (default: (per-variant limit, else 120) x (the kit's variants + 1) "
                   "+ 60, at most 6 hours)")
    p.add_argument("--sanitize", choices=SANITIZER_TOOLS, metavar="TOOL",
                   help="run every GPU variant under compute-sanitizer --tool TOOL (memcheck, "
                   "racecheck, synccheck or initcheck; quick sizes, no timing), each in its own run, "
                   "and report what it finds per variant (results/sanitize/); needs a GPU")
    p.add_argument("--json", metavar="FILE", help="also write every report in one JSON file "
                   "(with --submission: the class JSON, default results/class.json)")
    p.add_argument("--csv", metavar="FILE", help="also write one CSV row per variant and size "
                   "(with --submission: the class CSV, default results/class.csv)")
    p.set_defaults(func=cmd_grade)

    p = sub.add_parser("run", parents=[common], help="run one variant on an image",
                       description="Runs VARIANT of LAB on IMG and writes a picture of the result as a "
                       "PNG (and the raw values with --raw). Options of a lab's own picture are handed "
                       "to the lab's grader; integral_image has --radius R (default 8): the input beside "
                       "its box blur of radius R, computed from the table; convolution has --filter SPEC "
                       "(default gaussian:5; e.g. box:7, gaussian:sigma=2.0,size=9, sharpen:5, edge:3, "
                       "laplacian:5, file:my.txt) and --border zero|replicate|mirror (default mirror).")
    p.add_argument("lab", metavar="LAB", help="the lab, e.g. integral_image (./labkit list shows them)")
    p.add_argument("variant", metavar="VARIANT", help="the variant to run (./labkit list LAB shows them)")
    p.add_argument("--input", required=True, metavar="IMG", help="input image (PNG, JPEG, ...)")
    p.add_argument("--output", required=True, metavar="OUT.png", help="output image")
    p.add_argument("--raw", metavar="FILE", help="also write the raw output values")
    p.add_argument("--solution", action="store_true", help="use the reference build")
    p.add_argument("--timeout", type=positive(float), metavar="SEC",
                   help="kill it after SEC seconds without progress (default: the grader's, 60)")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("list", parents=[common], help="list the variants of each lab",
                       description="Prints the variants of each lab (or of LAB) in teaching order.")
    p.add_argument("lab", nargs="?", metavar="LAB")
    p.add_argument("--files", action="store_true", help="also list the files students edit")
    p.add_argument("--solution", action="store_true", help="ask the reference build")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("datasets", parents=[common], help="generate test images",
                       description="Runs build/datasets/generate_dataset for every pattern and "
                       "size; files are named <pattern>-<W>x<H>.png.")
    p.add_argument("--sizes", default="1024,2048,4096,8192", metavar="N|WxH,...",
                   help="image sizes (default: %(default)s)")
    p.add_argument("--patterns", default="random,zeros,full,gradient,checkerboard,low-contrast,skewed",
                   help="patterns to draw (default: %(default)s)",
                   metavar="P,...")
    p.add_argument("--seed", type=int, default=1, metavar="S",
                   help="seed of the random patterns (default: %(default)s)")
    p.add_argument("--out", default="datasets/generated", metavar="DIR",
                   help="folder for the images (default: %(default)s)")
    p.set_defaults(func=cmd_datasets)

    p = sub.add_parser("test", parents=[common], help="run the kit's own tests",
                       description="Builds, runs `meson test --print-errorlogs`, and ends with "
                       "one line 'N passed, M failed, K skipped'. Exit 1 when a test failed or "
                       "none passed. GPU tests skip (exit 77) without a CUDA device.")
    p.add_argument("--cpu-only", action="store_true", help="only the 'cpu' suite")
    p.add_argument("--suite", action="append", metavar="NAME",
                   help="only this meson suite (a lab name, cpu, gpu); repeatable")
    p.add_argument("-j", "--jobs", type=int, help="parallel build jobs")
    p.set_defaults(func=cmd_test)

    p = sub.add_parser("dist", parents=[common], help="write and verify the student tarball",
                       description="Packs the tracked files without solutions/, the tests "
                       "that need the reference (labs/*/kit/tests/reference/) and .ci/, then "
                       "unpacks the tarball in a temporary folder and runs setup, build, test and "
                       "grade there.")
    p.add_argument("--out", default="dist/gpu-labkit-student.tar.gz", metavar="FILE")
    p.add_argument("--no-verify", action="store_true", help="only write the tarball")
    p.add_argument("--cpu-only", action="store_true",
                   help="verify with -Dcuda=disabled and the cpu suite (faster)")
    p.add_argument("-j", "--jobs", type=int, help="parallel build jobs while verifying")
    p.set_defaults(func=cmd_dist)
    return parser


def _quiet_stdout():
    """After a broken pipe (./labkit list | head): point stdout at /dev/null, so that the
    interpreter's last flush at exit does not complain about the pipe as well."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def positive(kind):
    """An argparse type: a number above 0, with a message that says so."""
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be above 0, not {text}")
        return value
    parse.__name__ = kind.__name__
    return parse


def _guarded(run):
    """run(), with the ways it can fail reported in one line each."""
    try:
        return run()
    except UsageError as e:
        say(f"labkit: {e}")
        return 2
    except LabkitError as e:
        say(f"labkit: {e}")
        return 1
    except KeyboardInterrupt:
        say("\nlabkit: interrupted")
        return 130
    except BrokenPipeError:
        raise  # nothing can be said on that pipe any more: main() handles it
    except OSError as e:  # a file or folder that cannot be written, read or made
        say(f"labkit: {e}")
        return 1
    except Exception as e:  # a bug: still one line, and the traceback in a log
        log = RESULTS / "labkit-error.log"
        try:
            write_atomic(log, traceback.format_exc())
            where = f"details in {rel(log)}"
        except OSError:
            where = "LABKIT_TRACEBACK=1 shows where"
        if os.environ.get("LABKIT_TRACEBACK"):
            traceback.print_exc()
        say(f"labkit: internal error: {e.__class__.__name__}: {e} ({where})")
        return 1


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def main(argv=None):
    # kill (SIGTERM) or a closed terminal (SIGHUP) ends labkit as Ctrl-C does: the grader or
    # build it is waiting for is killed with its process group, never left running orphaned.
    # A signal already ignored (nohup) stays ignored.
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) == signal.SIG_DFL:
            signal.signal(sig, _interrupt)

    def run():
        parser = make_parser()
        # `run` hands options it does not know to the lab's grader (a lab's picture options,
        # e.g. --radius), which checks them; every other command takes only its own.
        args, extra = parser.parse_known_args(argv)
        if extra and args.command != "run":
            parser.parse_args(argv)  # the usual "unrecognized arguments" message, exit 2
        args.extra = extra
        return args.func(args)

    try:
        return _guarded(run)
    except BrokenPipeError:  # the reader went away, even while an error was being reported
        _quiet_stdout()
        return 1
    except KeyboardInterrupt:  # a second Ctrl-C while the first one was being reported
        return 130
