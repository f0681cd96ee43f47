"""The verdicts: their names (as the grader's JSON reports write them), the words the tables show
for them, and which count as failures, from their one home, grader/grader/verdict.hpp, as
labkit-facts exports it (facts.py). labkit adds one of its own, build-error: a submission whose files
did not build, so that no grader ran."""

from .facts import FACTS

_VERDICTS = FACTS["verdicts"]  # enumerator -> name, label, failure
_NAME = {e: v["name"] for e, v in _VERDICTS.items()}

PASS, PASS_EMULATED, FAIL, TODO = _NAME["pass"], _NAME["pass_emulated"], _NAME["fail"], _NAME["todo"]
NOT_RUN, SKIPPED, TIMEOUT, CRASH, ERROR = (_NAME[e] for e in ("not_run", "skipped", "timeout", "crash", "error"))
BUILD_ERROR = "build-error"  # labkit's own (see above)

# The words a table shows for each verdict, the grader's and labkit's alike.
SHOWN = {v["name"]: v["label"] for v in _VERDICTS.values()} | {BUILD_ERROR: BUILD_ERROR}
# Verdicts that make `grade` exit 1 (grader::is_failure, and a build that failed). todo, not-run and
# skipped do not: an unimplemented step or a machine without a GPU is not a failure of what was
# implemented.
FAILING = {v["name"] for v in _VERDICTS.values() if v["failure"]} | {BUILD_ERROR}
# Not checked here: not-run (a GPU variant that compiled, on a machine without a GPU), skipped.
UNCHECKED = {NOT_RUN, SKIPPED}
# What a sanitizer (or any check) that did not run says, in reports, feedback and the gradebook:
# never "clean", never a pass.
NOT_CHECKED = "not checked"
