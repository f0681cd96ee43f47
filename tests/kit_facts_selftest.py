"""The kit's facts as Python reads them (grader/grader/kit_facts.json, in git) against what the
C++ that defines them prints now (labkit-facts): a verdict, a sandbox option, a protocol field or a
GPU limit changed in a header and not exported fails here, with the command that writes the file.

    kit_facts_selftest.py LABKIT_FACTS KIT_FACTS_JSON"""
import difflib
import json
import subprocess
import sys
from pathlib import Path


def main():
    program, kept = sys.argv[1], Path(sys.argv[2])
    printed = subprocess.run([program], capture_output=True, text=True, check=True).stdout
    if json.loads(printed) == json.loads(kept.read_text()):
        print(f"{kept.name} holds what {Path(program).name} prints")
        return 0
    diff = difflib.unified_diff(kept.read_text().splitlines(), printed.splitlines(), str(kept), Path(program).name,
                                lineterm="")
    print("\n".join(diff))
    print(f"\nFAIL: {kept} is not what the headers say now. Write it again (and commit it):\n"
          f"  {program} > {kept}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
