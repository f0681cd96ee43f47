"""The grader's options that labkit hands on as given: what a grading checks and times (--sizes,
--quick, --runs, ...). Their one definition is the grader's command line (grader/grader/grade_command.cpp, the
"Grading" group of `grade`); labkit reads them from a built grader (`<grader> options`, JSON),
offers them under the same names with the grader's own help, and hands on exactly the words
given. The grader checks the values (labkit asks it first: grading.validate_options), so a
wrong one gets the grader's message before anything is built or graded.

  spec_for(argv)             the options, read from the graders of the build folder argv names
                             (built first when a grading command finds none; None for --help
                             without a build, or for another command)
  add_options(parser, spec, leave_out)
                             the options as argparse arguments (values kept as text)
  forwarded(args)            the words to hand on: each option given, in the grader's order"""

import json
import subprocess
from pathlib import Path

from .build import BUILD_INFO, BuildInfo, open_build
from .programs import build_grader
from .util import LabkitError, kit_path

# The labkit commands whose graders take these options.
GRADING_COMMANDS = ("grade", "grade-all", "bench")
# argparse's attribute for the options given here (add_options), read by forwarded().
_SPEC = "grader_options_spec"
OPTIONS_TIMEOUT_S = 60


def _read(grader):
    """`<grader> options`: [{name, value, type, default, help}], or None when it cannot say."""
    try:
        r = subprocess.run([str(grader), "options"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           stdin=subprocess.DEVNULL, timeout=OPTIONS_TIMEOUT_S)
        options = json.loads(r.stdout) if r.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return None
    if not isinstance(options, list) or not all(isinstance(o, dict) and str(o.get("name", "")).startswith("--")
                                                for o in options):
        return None
    return options


def _merge(by_lab):
    """One list from each lab's: the same names (the harness defines them); where a lab's help
    says more of itself (its timed parameters), each lab's help, by lab."""
    first = next(iter(by_lab.values()))
    merged = []
    for option in first:
        helps = {}
        for lab, options in by_lab.items():
            own = next((o for o in options if o["name"] == option["name"]), None)
            if own is not None:
                helps.setdefault(own.get("help", ""), []).append(lab)
        text = option.get("help", "") if len(helps) == 1 else \
            "; ".join(f"{', '.join(labs)}: {h}" for h, labs in helps.items())
        merged.append(dict(option, help=text))
    return merged


def _build_dir(argv):
    """The --build-dir argv gives (as argparse would take it), else build/."""
    found = "build"
    for i, word in enumerate(argv):
        if word == "--":
            break
        if word == "--build-dir" and i + 1 < len(argv):
            found = argv[i + 1]
        elif word.startswith("--build-dir="):
            found = word.split("=", 1)[1]
    return kit_path(found)


def spec_for(argv):
    """The grader's options for the command argv starts with: read from every grader already
    built in the build folder (never building beside a running class: a Slurm task only reads);
    a grading command that finds none builds one lab's grader: the first the command names (a grade
    of Lab 2 compiles no Lab 1 code), else the first lab. None for other commands, and for --help
    without a built grader."""
    if not argv or argv[0] not in GRADING_COMMANDS:
        return None
    build_dir = _build_dir(argv)
    asks_help = any(w in ("-h", "--help") for w in argv)
    info = None
    if (Path(build_dir) / BUILD_INFO).is_file():
        try:
            info = BuildInfo.read(build_dir)
        except LabkitError:
            info = None
    graders = {l.name: Path(build_dir) / l.grader for l in info.labs} if info else {}
    by_lab = {}
    for lab, grader in graders.items():
        if grader.is_file() and (options := _read(grader)) is not None:
            by_lab[lab] = options
    if not by_lab and not asks_help:
        info = open_build(build_dir)  # configures it when needed, as the command itself would
        if not info.labs:
            raise LabkitError(f"{build_dir}: this build has no labs")
        first = next((l for l in info.labs if l.name in argv[1:]), info.labs[0])
        options = _read(build_grader(info, first))
        if options is None:
            raise LabkitError(f"the {first.name} grader does not list its options (`{first.grader} options`): "
                              "rebuild the kit (./labkit build)")
        by_lab[first.name] = options
    return _merge(by_lab) if by_lab else None


def dest(option):
    """The argparse attribute of an option: --perf-sizes -> perf_sizes."""
    return option["name"][2:].replace("-", "_")


def add_options(parser, spec, leave_out=()):
    """The grader's options as arguments of parser (an argument group works too), but those
    whose dest is in leave_out (options the command sets itself); without a spec, a note that
    says where they come from. Values stay text: the grader reads them."""
    if spec is None:
        return
    kept = [o for o in spec if dest(o) not in leave_out]
    for o in kept:
        default = f" (the grader's default: {o['default']})" if o.get("default") else ""
        if o.get("value"):
            parser.add_argument(o["name"], metavar=(o.get("type") or "VALUE").split(":")[0],
                                help=o.get("help", "") + default)
        else:
            parser.add_argument(o["name"], action="store_true", help=o.get("help", ""))
    # Every one is handed on when set, those left out too: the command sets them itself.
    parser.set_defaults(**{_SPEC: [(o["name"], dest(o), bool(o.get("value"))) for o in spec]})


def forwarded(args):
    """The grader's options given in args, as command-line words in the grader's order, each
    value exactly as given (an option a command set itself, e.g. bench's --perf-sizes, too)."""
    words = []
    for name, attr, takes_value in getattr(args, _SPEC, None) or []:
        value = getattr(args, attr, None)
        if takes_value and value is not None:
            words += [name, str(value)]
        elif not takes_value and value:
            words.append(name)
    return words
