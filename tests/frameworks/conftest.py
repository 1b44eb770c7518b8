"""The framework tests import the shared harness (harness.py, checks.py, data.py) from here."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
