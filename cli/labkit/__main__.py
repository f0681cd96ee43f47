"""`python3 -m labkit ...` (what ./labkit runs)."""

import sys

from .cli import main

sys.exit(main())
