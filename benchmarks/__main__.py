"""``python -m benchmarks ...`` (from anywhere once installed, or from a checkout), or
``python benchmarks/__main__.py ...``."""

import sys
from pathlib import Path

if __package__ in (None, ""):
    # Run as a script: make the checkout importable so `benchmarks` and `nqcsp` resolve to it.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.cli import main

sys.exit(main())
