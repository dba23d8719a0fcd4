"""The crates as crates.io would get them: `cargo package --workspace --no-verify`
packs every crate (the internal ones resolved from the packages it just made, as
`cargo publish --workspace` does), and each .crate is checked for what a build from
it needs: every file an `include_str!` or `include_bytes!` of its sources names,
the build script's own files, the metadata crates.io shows (description, licence,
readme, repository, keywords, categories, rust-version), the licence texts, and
internal dependencies by version.

This is CI's cheap stand-in for `cargo publish --workspace --dry-run`, which
compiles every crate again from its package (docs/install.md has its time); a file
missing from a package is what that build would find, and this finds it in
seconds. No desktop needed.
"""
import os
import re
import shutil
import subprocess
import tarfile
import tomllib
from pathlib import Path, PurePosixPath

import pytest

from conftest import REPO

CRATES = sorted(p.parent.name for p in (REPO / "crates").glob("*/Cargo.toml"))
# include_str!("dom/collect.js"), include_bytes!(r"x.bin"), over lines too.
INCLUDE = re.compile(r'include_(?:str|bytes)!\(\s*r?"([^"]+)"\s*\)')
VERSION = tomllib.loads((REPO / "Cargo.toml").read_text())["workspace"]["package"]["version"]


@pytest.fixture(scope="module")
def packages(tmp_path_factory):
    """Each crate's .crate file contents: {crate: {path inside the crate: bytes}}."""
    cargo = shutil.which("cargo") or str(Path.home() / ".cargo" / "bin" / "cargo")
    target = Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target")
    # --allow-dirty: a working tree with changes is packed as it is; what is checked
    # is the packages' contents, and nothing is published.
    out = subprocess.run([cargo, "package", "--workspace", "--no-verify", "--allow-dirty",
                          "--quiet"], cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0, f"cargo package failed:\n{out.stderr}"
    contents = {}
    for crate in CRATES:
        path = target / "package" / f"{crate}-{VERSION}.crate"
        assert path.is_file(), f"{path} was not made"
        with tarfile.open(path) as tar:
            prefix = f"{crate}-{VERSION}/"
            contents[crate] = {m.name.removeprefix(prefix): tar.extractfile(m).read()
                               for m in tar.getmembers() if m.isfile()}
    return contents


@pytest.mark.parametrize("crate", CRATES)
def test_every_included_file_is_in_the_package(packages, crate):
    files = packages[crate]
    sources = {name: data.decode() for name, data in files.items() if name.endswith(".rs")}
    assert "src/lib.rs" in sources or "src/main.rs" in sources, sorted(files)
    included = 0
    for name, text in sources.items():
        for target in INCLUDE.findall(text):
            # Relative to the including file, as rustc resolves them.
            wanted = os.path.normpath(PurePosixPath(name).parent / target)
            assert wanted in files, f"{crate}: {name} includes {target}, not in the package"
            included += 1
    if crate == "axsight-browser":
        # Its page scripts: the check above must have seen them.
        assert included >= 5 and "src/dom/collect.js" in files, included


def test_the_build_script_has_its_files(packages):
    files = packages["axsight"]
    assert {"build.rs", "build/commit.rs", "src/version.rs"} <= files.keys()
    script = files["build.rs"].decode()
    assert '#[path = "build/commit.rs"]' in script
    # What a build from the package reads to name its commit.
    assert ".cargo_vcs_info.json" in files, sorted(files)


@pytest.mark.parametrize("crate", CRATES)
def test_crates_io_gets_its_metadata(packages, crate):
    files = packages[crate]
    manifest = tomllib.loads(files["Cargo.toml"].decode())
    package = manifest["package"]
    for field in ("description", "license", "repository", "readme", "rust-version",
                  "keywords", "categories", "homepage"):
        assert package.get(field), f"{crate}: no {field}"
    assert package["license"] == "MIT OR Apache-2.0"
    assert len(package["keywords"]) <= 5 and all(len(k) <= 20 for k in package["keywords"])
    assert len(package["categories"]) <= 5
    assert package["readme"] in files, f"{crate}: readme {package['readme']} not packed"
    assert b"axsight" in files[package["readme"]]
    assert files["LICENSE-MIT"].startswith(b"MIT License")
    assert b"Apache License" in files["LICENSE-APACHE"]
    # What the code needs: the newest rust-version among the dependencies (ort's).
    assert tuple(map(int, package["rust-version"].split("."))) >= (1, 92)
    for table in ("dependencies", "dev-dependencies", "build-dependencies"):
        for name, spec in manifest.get(table, {}).items():
            if name.startswith("axsight"):
                assert isinstance(spec, dict) and spec.get("version") == VERSION, \
                    f"{crate}: {table}.{name} = {spec}"
                assert "path" not in spec, f"{crate}: {name} still by path in the package"


def test_the_packages_carry_no_repository_only_files(packages):
    for crate, files in packages.items():
        stray = [name for name in files
                 if name.startswith(("target/", ".venv/", "tests/fixtures/"))
                 or name.endswith((".crate", ".deb", ".whl", ".onnx", ".pyc"))]
        assert stray == [], f"{crate}: {stray}"
        # The integration tests need the repository's fixtures and a desktop: they
        # stay out of the packages that have them, whose builds would not run them.
        if crate in ("axsight", "axsight-browser"):
            assert not any(name.startswith("tests/") for name in files), crate
