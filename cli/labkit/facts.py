"""The kit's facts that live in C++ headers (verdicts, the sandbox, the protocol, GPU limits, the
timed sizes), as the kit's labkit-facts program prints them: grader/grader/kit_facts.json, kept in
git so that labkit reads it before anything is built, and checked against the headers by the test
'kit facts'. No Python file reads a header."""
import json

from .util import ROOT

KIT_FACTS = ROOT / "grader" / "grader" / "kit_facts.json"
FACTS = json.loads(KIT_FACTS.read_text())
TIMED_SIZES = ",".join(map(str, FACTS["timed_sizes"]))  # grade's default --perf-sizes (cases.hpp)
