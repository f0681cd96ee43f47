"""The verdicts: their names (as the grader's JSON reports write them), the words the tables show
for them, and which count as failures, read from their one home, harness/protocol/verdict.hpp, which the C++
grader is compiled with. labkit adds one of its own, build-error: a submission whose files did not
build, so that no grader ran."""

import re
from pathlib import Path

HEADER = Path(__file__).resolve().parents[2] / "harness" / "protocol" / "verdict.hpp"


def _function(text, name):
    """The body of one of verdict.hpp's functions of a Status."""
    start = text.index(f" {name}(Status s)")
    return text[start:text.index("\n}\n", start)]


def _cases(text, name):
    """enumerator -> the string a switch of verdict.hpp returns for it."""
    return dict(re.findall(r'case Status::(\w+): return "([^"]*)";', _function(text, name)))


_TEXT = HEADER.read_text()
_NAME = _cases(_TEXT, "status_name")  # enumerator -> name
_LABEL = _cases(_TEXT, "status_label")

PASS, PASS_EMULATED, FAIL, TODO = _NAME["pass"], _NAME["pass_emulated"], _NAME["fail"], _NAME["todo"]
NOT_RUN, SKIPPED, TIMEOUT, CRASH, ERROR = (_NAME[e] for e in ("not_run", "skipped", "timeout", "crash", "error"))
BUILD_ERROR = "build-error"  # labkit's own (see above)

# The words a table shows for each verdict, the grader's and labkit's alike.
SHOWN = {_NAME[e]: _LABEL[e] for e in _NAME} | {BUILD_ERROR: BUILD_ERROR}
# Verdicts that make `grade` exit 1 (grader::is_failure, and a build that failed). todo, not-run and
# skipped do not: an unimplemented step or a machine without a GPU is not a failure of what was
# implemented.
FAILING = {_NAME[e] for e in re.findall(r"Status::(\w+)", _function(_TEXT, "is_failure"))} | {BUILD_ERROR}
# Not checked here: not-run (a GPU variant that compiled, on a machine without a GPU), skipped.
UNCHECKED = {NOT_RUN, SKIPPED}
# What a sanitizer (or any check) that did not run says, in reports, feedback and the gradebook:
# never "clean", never a pass.
NOT_CHECKED = "not checked"
