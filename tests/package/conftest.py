"""Shared by the packaging tests (tests/package): where the repository and the built
binary are, and the end-to-end suite's desktop fixtures and helpers
(tests/e2e/conftest.py: `desktop`, `fixture_app`, `launch`, `stop`, `poll`), loaded
under a module name of their own so that they are not copied here.

Run under scripts/with-desktop (scripts/test's package step does), with the repo's
.venv:

    AXSIGHT_BIN=target/debug/axsight scripts/with-desktop -- .venv/bin/python -m pytest tests/package
"""
import importlib.util
import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# The binary the packages are made from: the build's, as for the e2e tests.
AXSIGHT_BIN = Path(os.environ.get("AXSIGHT_BIN")
                   or Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target") / "debug" / "axsight")

_spec = importlib.util.spec_from_file_location("e2e_conftest", REPO / "tests" / "e2e" / "conftest.py")
e2e = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(e2e)

# Fixtures, found by pytest here.
desktop = e2e.desktop
fixture_app = e2e.fixture_app
