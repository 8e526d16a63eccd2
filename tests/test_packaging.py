"""The package stands on its own: its sdist carries what its tests need, and its wheel,
installed into a fresh virtual environment, runs without this checkout.

The build runs with ``--no-isolation`` (this venv's setuptools: no network), from a copy of
the source tree so that nothing is written into the checkout.  The fresh venv sees this
venv's third-party packages through a ``.pth`` file naming a directory of links to them --
every one but p2pcards itself (its editable install, its metadata), so the p2pcards that
runs there is the wheel's.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow  # a build and a fresh venv: some 30 s

#: Not copied into the build's source tree (caches, builds, the venv, git).
_NOT_SOURCE = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*cache",
                                     ".hypothesis")


def _run(*argv: str | Path, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, f"{' '.join(map(str, argv))} failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}"
    return proc


def _fresh_venv(where: Path) -> Path:
    """A venv without pip that sees this venv's packages, p2pcards' own excepted."""
    venv.EnvBuilder(with_pip=False).create(where)
    python = where / "bin" / "python"
    fresh_site = Path(_run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])",
                           cwd=where).stdout.strip())
    ours = Path(sysconfig.get_paths()["purelib"])
    links = where / "borrowed"
    links.mkdir()
    for entry in ours.iterdir():
        name = entry.name.lower()
        if name.startswith(("p2pcards", "__editable__", "_p2pcards")) or name.endswith(".pth"):
            continue
        (links / entry.name).symlink_to(entry)
    (fresh_site / "borrowed.pth").write_text(f"{links}\n")
    return python


def test_sdist_and_wheel_build_install_and_run_in_a_fresh_venv(tmp_path: Path) -> None:
    if importlib.util.find_spec("build") is None:
        pytest.skip("the 'build' package is not installed: pip install -e '.[test]'")
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=_NOT_SOURCE, symlinks=True)
    dist = tmp_path / "dist"
    _run(sys.executable, "-m", "build", "--no-isolation", "--outdir", dist, source, cwd=tmp_path)
    (sdist,) = dist.glob("p2pcards-*.tar.gz")
    (wheel,) = dist.glob("p2pcards-*.whl")

    # the sdist can run its own tests: the helpers, the test plugin, the protocol's vectors
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    shipped = ["LICENSE", "README.md", "p2pcards/py.typed", "tests/conftest.py", "tests/helpers.py",
               "tests/plugin_highcard/pyproject.toml", "protocol/PROTOCOL.md", "protocol/TRANSPORT.md"]
    assert [n for n in shipped if n not in names] == []
    assert any(n.startswith("protocol/vectors/") for n in names)
    assert not any("__pycache__" in n for n in names)
    with zipfile.ZipFile(wheel) as whl:
        assert "p2pcards/py.typed" in whl.namelist()
        # the browser table's page is shipped as it is (no build step)
        page = [f"p2pcards/web/static/{f}" for f in ("index.html", "app.js", "app.css", "cards.js", "icon.svg")]
        assert [f for f in page if f not in whl.namelist()] == []
        assert any(n.endswith(".dist-info/licenses/LICENSE") for n in whl.namelist())

    # the wheel, in a fresh venv, is the p2pcards that runs there
    python = _fresh_venv(tmp_path / "venv")
    _run(python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--no-cache-dir", wheel, cwd=tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["P2PCARDS_HOME"] = str(tmp_path / "home")
    where = _run(python, "-c", "import p2pcards, p2pcards_sueca; print(p2pcards.__file__); print(p2pcards.__version__)",
                 cwd=tmp_path, env=env).stdout.split()
    assert Path(where[0]).is_relative_to(tmp_path / "venv"), where
    assert where[1] == version
    bin_dir = tmp_path / "venv" / "bin"
    games = _run(bin_dir / "p2pcards", "games", cwd=tmp_path, env=env).stdout
    assert all(name in games for name in ("sueca", "bisca", "copas", "sobe-e-desce"))
    arena = _run(bin_dir / "p2pcards", "arena", "sueca", "--deals", "1", "--json", cwd=tmp_path, env=env).stdout
    records = [json.loads(line) for line in arena.splitlines() if line.strip()]
    assert records and all(isinstance(r, dict) for r in records)
    assert _run(bin_dir / "p2pcards", "--version", cwd=tmp_path, env=env).stdout.split() == ["p2pcards", version]
