"""What a variant's name says of the handout step it belongs to: its configuration words.

  CONFIGURATION                 a name's trailing configuration words (-s256-b8, -b16x16)
  family(name)                  the name without them: the configurations of one kernel share it
  first_configurations(rows)    of [{name, kind}], the first GPU row of each family (the lab's
                                table order) and every other row: what an emulated --quick checks"""

import re

# A variant name's trailing configuration words: a letter and a number, or a block shape
# (-s256-b8, -b16x16).
CONFIGURATION = re.compile(r"(-[a-z]\d+(x\d+)?)+$")


def family(name):
    """gpu-02-kogge-stone for gpu-02-kogge-stone-s256-b8; a name without configuration words is
    its own family (gpu-05-expert-64: '-64' has no letter)."""
    return CONFIGURATION.sub("", name)


def first_configurations(rows):
    """The names of rows to check when each GPU kernel is checked in one configuration only: the
    first of its family in the order given (the lab's table, where the lab puts the one to try
    first), and every row that is not a GPU variant (CPU and Python rows cost no emulation)."""
    seen, names = set(), []
    for row in rows:
        if row.get("kind") == "gpu":
            if family(row["name"]) in seen:
                continue
            seen.add(family(row["name"]))
        names.append(row["name"])
    return names
