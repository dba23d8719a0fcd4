"""The Debian package, end to end: scripts/build-deb makes axsight_VERSION_amd64.deb
from the built binary (AXSIGHT_BIN; or AXSIGHT_DEB names a .deb already made),
`apt-get install` installs it on this machine, the installed /usr/bin/axsight runs
`doctor` and serves an MCP session over stdio (the official Python SDK) against the
fixture app on the desktop of scripts/with-desktop, its manual pages and
completions are where man, bash, zsh and fish look, and `apt-get remove --purge`
takes every file it brought away again.

It needs root (apt) and refuses to touch an axsight that is installed already: it
fails, saying so, rather than replace a package it did not install. The tests run
in file order; the last one removes the package (a fixture removes it too when a
test before fails).
"""
import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import AXSIGHT_BIN, REPO, doctor_finds_the_desktop, serves_the_fixture_over_mcp

INSTALLED_BIN = Path("/usr/bin/axsight")
# Where Debian's man, bash-completion, zsh and fish look.
EXPECTED_FILES = [
    INSTALLED_BIN,
    Path("/usr/share/man/man1/axsight.1.gz"),
    Path("/usr/share/man/man1/axsight-serve.1.gz"),
    Path("/usr/share/man/man1/axsight-tree.1.gz"),
    Path("/usr/share/bash-completion/completions/axsight"),
    Path("/usr/share/zsh/vendor-completions/_axsight"),
    Path("/usr/share/fish/vendor_completions.d/axsight.fish"),
    Path("/usr/share/doc/axsight/copyright"),
    Path("/usr/share/doc/axsight/changelog.gz"),
]
# apt waits this long for another apt or dpkg to let go of its lock, then fails.
APT_LOCK_TIMEOUT_S = 120


def package_status():
    """dpkg's status of the axsight package ('' when dpkg has never heard of it)."""
    out = subprocess.run(["dpkg-query", "-W", "-f=${Status} ${Version}", "axsight"],
                         capture_output=True, text=True)
    return out.stdout.strip() if out.returncode == 0 else ""


def apt_get(*args):
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    out = subprocess.run(["apt-get", "-o", f"DPkg::Lock::Timeout={APT_LOCK_TIMEOUT_S}", *args],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0, f"apt-get {' '.join(args)}:\n{out.stdout}\n{out.stderr}"
    return out


@pytest.fixture(scope="module")
def deb(tmp_path_factory):
    """The .deb: AXSIGHT_DEB's, or made by scripts/build-deb from AXSIGHT_BIN."""
    if os.environ.get("AXSIGHT_DEB"):
        path = Path(os.environ["AXSIGHT_DEB"])
        assert path.is_file(), f"AXSIGHT_DEB={path} is not a file"
        return path
    assert AXSIGHT_BIN.exists(), f"{AXSIGHT_BIN} is missing: run cargo build -p axsight"
    out_dir = tmp_path_factory.mktemp("deb")
    built = subprocess.run([str(REPO / "scripts" / "build-deb"), "--fast", "--bin", str(AXSIGHT_BIN),
                            "--out", str(out_dir)], capture_output=True, text=True)
    assert built.returncode == 0, f"scripts/build-deb failed:\n{built.stdout}\n{built.stderr}"
    path = Path(built.stdout.strip().splitlines()[-1])
    version = subprocess.run(["dpkg-deb", "-f", str(path), "Version"], capture_output=True,
                             text=True, check=True).stdout.strip()
    assert path.name == f"axsight_{version}_amd64.deb", path
    return path


@pytest.fixture(scope="module")
def installed(deb, desktop):
    """The package installed with apt-get, as a user would; the paths dpkg says it
    installed. Removed at the end, whatever happened."""
    if os.geteuid() != 0:
        pytest.skip("installing a .deb needs root (CI runs as root)")
    status = package_status()
    if status.startswith("install ok installed"):
        pytest.fail(f"axsight is installed already ({status}): this test installs and removes "
                    "the package, so it will not replace one it did not install; remove it "
                    "first (apt-get remove --purge axsight)")
    if INSTALLED_BIN.exists():
        pytest.fail(f"{INSTALLED_BIN} exists and no package owns it: installing would "
                    "overwrite it; move it away first")
    # A path with a slash makes apt-get install a file, not a package by name; its
    # dependencies come from the archive (at-spi2-core is there on a desktop).
    apt_get("install", "-y", "--no-install-recommends", str(deb.resolve()))
    listed = subprocess.run(["dpkg-query", "-L", "axsight"], capture_output=True, text=True,
                            check=True).stdout.split("\n")
    yield [Path(line) for line in listed if line.strip()]
    if package_status().startswith("install ok installed"):
        apt_get("remove", "--purge", "-y", "axsight")


def test_the_package_installs_its_files_where_debian_looks(installed, deb):
    assert package_status().startswith("install ok installed"), package_status()
    for path in EXPECTED_FILES:
        assert path in installed, f"{path} is not in the package: {installed}"
        assert path.is_file(), f"{path} was not installed (dpkg path-exclude?)"
    assert os.access(INSTALLED_BIN, os.X_OK)
    version = subprocess.run([str(INSTALLED_BIN), "--version"], capture_output=True, text=True,
                             check=True).stdout
    if not os.environ.get("AXSIGHT_DEB"):
        built = subprocess.run([str(AXSIGHT_BIN), "--version"], capture_output=True, text=True,
                               check=True).stdout
        assert version == built
    commit = r"[0-9a-f]{7}( \d{4}-\d\d-\d\d)?|commit unknown"
    assert re.fullmatch(rf"axsight \d+\.\d+\.\d+\S* \(({commit})\)\n", version), version
    fields = subprocess.run(["dpkg-deb", "-f", str(deb), "Depends", "Recommends"],
                            capture_output=True, text=True, check=True).stdout
    assert "at-spi2-core" in fields and "libc6" in fields and "tesseract-ocr" in fields, fields


def test_man_shows_the_installed_pages(installed):
    env = dict(os.environ, MANPAGER="cat", MANWIDTH="80")
    for page, words in [("axsight", ["axsight-serve(1)", "--display"]),
                        ("axsight-serve", ["--read-only", "--http"])]:
        where = subprocess.run(["man", "-w", page], capture_output=True, text=True, env=env)
        assert where.stdout.strip() == f"/usr/share/man/man1/{page}.1.gz", where
        shown = subprocess.run(["man", "--warnings=all", page], capture_output=True, text=True,
                               env=env)
        assert shown.returncode == 0 and shown.stderr == "", shown.stderr
        # man hyphenates and may join words across a line: compare without breaks.
        flat = re.sub(r"\s+", " ", shown.stdout.replace("\u2010\n", "").replace("-\n", ""))
        for word in words:
            assert word in flat, f"man {page} lacks {word}:\n{shown.stdout[:3000]}"


def test_the_shells_complete_from_the_installed_scripts(installed, tmp_path):
    bash = ("source /usr/share/bash-completion/completions/axsight; "
            "COMP_WORDS=(axsight se); COMP_CWORD=1; COMP_LINE='axsight se'; COMP_POINT=10; "
            "_axsight axsight se axsight; printf '%s\\n' \"${COMPREPLY[@]}\"")
    out = subprocess.run(["bash", "--norc", "-c", bash], capture_output=True, text=True)
    assert out.stdout.split() == ["serve"], out
    # fish loads vendor_completions.d by itself: no path given (and a home of its
    # own, so that no user's fish configuration takes part; --no-config would also
    # leave the completion path empty).
    home = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "XDG_DATA_HOME": str(tmp_path / "data")}
    out = subprocess.run(["fish", "-c", "complete -C 'axsight se'"], capture_output=True,
                         text=True, env=dict(os.environ, **home))
    assert any(line.startswith("serve\t") for line in out.stdout.splitlines()), out
    # zsh's compinit finds functions on $fpath, which holds Debian's vendor directory.
    out = subprocess.run(["zsh", "-fc", "print -l $fpath"], capture_output=True, text=True)
    assert "/usr/share/zsh/vendor-completions" in out.stdout.split(), out
    out = subprocess.run(["zsh", "-n", "/usr/share/zsh/vendor-completions/_axsight"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out


def test_the_installed_doctor_finds_the_desktop(installed, fixture_app):
    doctor_finds_the_desktop(INSTALLED_BIN)


def test_the_installed_server_answers_an_mcp_client(installed, fixture_app):
    serves_the_fixture_over_mcp(INSTALLED_BIN, fixture_app)


def test_removing_the_package_takes_every_file_away(installed):
    apt_get("remove", "--purge", "-y", "axsight")
    assert package_status() in ("", "unknown ok not-installed"), package_status()
    left = [path for path in installed if path.is_file() or path.is_symlink()]
    assert left == [], f"left behind: {left}"
    assert not Path("/usr/share/doc/axsight").exists()
