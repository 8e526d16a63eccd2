"""The README's screenshots of the browser table, taken by its browser tests.

``python -m tests.web_screenshots [DIR]`` (default ``docs/img``) runs the browser tests
that take them (:func:`tests.web_helpers.shoot`: the start page, the table, a decision
dialog, a phone, the statistics, a LAN table) with ``P2PCARDS_SCREENSHOTS=DIR``: every
picture is of a real table, played by clicks in chromium.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> int:
    where = Path(argv[0] if argv else ROOT / "docs" / "img").resolve()
    env = {**os.environ, "P2PCARDS_SCREENSHOTS": str(where)}
    tests = "start_page or dialogs or lan_table"
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(ROOT / "tests" / "test_web_browser.py"), "-k", tests], env=env, cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
