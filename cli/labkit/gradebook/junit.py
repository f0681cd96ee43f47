"""junit.xml, a test suite per submission and lab, for CI dashboards."""

import re
import xml.etree.ElementTree as ET

from .. import reports
from ..verdicts import BUILD_ERROR, ERROR, FAILING, NOT_RUN, PASS, SKIPPED, TODO
from .text import _groups, _lab_problem, _variant_line


# Variant statuses as JUnit sees them: a failure, or a test that was not run (skipped).
JUNIT_FAILURE = FAILING
JUNIT_SKIPPED = {TODO, NOT_RUN, SKIPPED}

# Characters XML 1.0 cannot hold at all (reports.student_text has removed the control characters;
# U+FFFE and U+FFFF remain).
XML_INVALID = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_text(text):
    """text as XML 1.0 can hold it (ElementTree escapes the markup): capped and cleaned
    (reports.student_text), and what XML 1.0 has no place for (U+FFFE, U+FFFF) as '?'."""
    return XML_INVALID.sub("?", reports.student_text(text))


def _testcase(suite, classname, name, status, message, body):
    case = ET.SubElement(suite, "testcase", classname=_xml_text(classname), name=_xml_text(name), time="0")
    if status in JUNIT_FAILURE:
        ET.SubElement(case, "failure", message=_xml_text(message), type=_xml_text(status)).text = _xml_text(body)
    elif status in JUNIT_SKIPPED:
        ET.SubElement(case, "skipped", message=_xml_text(message))
    return case


def _lab_suite(root, result, lab_name, lab):
    """The <testsuite> of one submission's lab: a testcase per variant of each rubric group (a
    lab without groups gets one for its own state). The result does not time variants one by
    one, so every time is 0 and each total the sum of its parts."""
    base = f"{result['name']}.{lab_name}"
    suite = ET.SubElement(root, "testsuite", name=_xml_text(base))
    for g in _groups(lab):
        for v in g.get("variants") or []:
            status = v.get("status", ERROR)
            _testcase(suite, f"{base}.{g.get('name', '?')}", v.get("name", "?"), status,
                      _variant_line(v), v.get("detail") or lab.get("detail") or "")
    if not _groups(lab):
        state = lab.get("state", "graded")
        _testcase(suite, base, "build" if state == BUILD_ERROR else state,
                  state if state in FAILING else PASS, _lab_problem(lab_name, lab), lab.get("detail", ""))
    cases = suite.findall("testcase")
    suite.set("tests", str(len(cases)))
    suite.set("failures", str(sum(c.find("failure") is not None for c in cases)))
    suite.set("errors", "0")
    suite.set("skipped", str(sum(c.find("skipped") is not None for c in cases)))
    suite.set("time", "0")
    if result.get("graded_at"):
        suite.set("timestamp", _xml_text(result["graded_at"]).rstrip("Z"))
    return suite


def junit_xml(results):
    """JUnit XML of the class: one <testsuite> per submission and lab, one <testcase> per
    variant, failures and skips as CI dashboards count them."""
    root = ET.Element("testsuites", name="labkit")
    for result in results:
        for lab_name, lab in result["labs"].items():
            _lab_suite(root, result, lab_name, lab)
    for attr in ("tests", "failures", "errors", "skipped"):
        root.set(attr, str(sum(int(s.get(attr)) for s in root)))
    root.set("time", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
