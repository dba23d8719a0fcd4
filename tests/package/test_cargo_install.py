"""The cargo install path, end to end: `cargo install --locked --path crates/axsight`
into a root of the test's own, as `cargo install axsight` builds it from the crate
(the same Cargo.lock, the same build script), then the installed binary names its
commit, runs `doctor` and serves an MCP session over stdio against the fixture app on
the desktop of scripts/with-desktop.

To stay within CI's time it builds the dev profile (`--debug`) in the build's own
target directory, so the dependencies step_build compiled are reused: about 20 s,
where a release install from scratch takes some 7 minutes. What crates.io receives
is checked apart, by test_crates.py.
"""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, doctor_finds_the_desktop, serves_the_fixture_over_mcp


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The binary `cargo install` put in a fresh root."""
    root = tmp_path_factory.mktemp("cargo-root")
    cargo = shutil.which("cargo") or str(Path.home() / ".cargo" / "bin" / "cargo")
    env = dict(os.environ)
    env.setdefault("CARGO_TARGET_DIR", str(REPO / "target"))
    out = subprocess.run(
        [cargo, "install", "--locked", "--debug", "--path", str(REPO / "crates" / "axsight"),
         "--root", str(root)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, f"cargo install failed:\n{out.stderr[-4000:]}"
    binary = root / "bin" / "axsight"
    assert binary.is_file() and os.access(binary, os.X_OK), sorted(root.rglob("*"))
    return binary


def test_the_installed_binary_names_the_commit_it_was_built_from(installed):
    head = subprocess.run(["git", "rev-parse", "--short=7", "HEAD"], cwd=REPO,
                          capture_output=True, text=True, check=True).stdout.strip()
    version = subprocess.run([str(installed), "--version"], capture_output=True, text=True,
                             check=True).stdout.strip()
    assert version.startswith("axsight ") and f"({head} " in version, (version, head)


def test_the_installed_doctor_finds_the_desktop(installed, fixture_app):
    doctor_finds_the_desktop(installed)


def test_the_installed_server_answers_an_mcp_client(installed, fixture_app):
    serves_the_fixture_over_mcp(installed, fixture_app)
