"""A company network on loopback, for installing behind it: a package index served over HTTPS, a proxy that
intercepts TLS in front of it (mitmproxy, from tests/.venv-mitmproxy: `make mitmproxy`), and a private copy
of the system's certificate store with the proxy's certificate added, as a company's IT adds it."""

from __future__ import annotations

import http.server
import os
import shutil
import socket
import ssl
import subprocess
import threading
import time
from pathlib import Path

import trustme

from plumbing.processes import stop
from plumbing.sockets import free_port

VENV = Path(__file__).resolve().parents[1] / ".venv-mitmproxy"
SYSTEM_STORE = Path("/etc/ssl/certs")  # Debian's: OpenSSL's default file (ca-certificates.crt) and folder


class HttpsIndex:
    """The folder `root` (a PEP 503 index, see tests/support/wheels.py) over HTTPS on 127.0.0.1, with a
    certificate of a CA of its own: `ca_file` (which only the proxy is given)."""

    def __init__(self, root: Path, ca_file: Path) -> None:
        ca = trustme.CA()
        ca.cert_pem.write_to_path(str(ca_file))
        self.ca_file = ca_file
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ca.issue_cert("127.0.0.1").configure_cert(context)

        class Quiet(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *args, **kwargs) -> None:
                super().__init__(*args, directory=str(root), **kwargs)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
        self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
        self.url = f"https://127.0.0.1:{self._server.server_address[1]}/simple"

    def __enter__(self) -> HttpsIndex:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


class InterceptingProxy:
    """mitmdump on 127.0.0.1: it answers each HTTPS request with a certificate it makes for the host, signed
    by its own CA (`ca_file`), and checks the upstream's against `upstream_ca`. Its log lists each request."""

    def __init__(self, folder: Path, upstream_ca: Path) -> None:
        program = VENV / "bin" / "mitmdump"
        if not program.exists():
            raise RuntimeError(f"{program} not found: run `make mitmproxy`")
        self.folder = folder
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ca_file = folder / "mitmproxy-ca-cert.pem"  # written by mitmdump when it starts
        self._command = [str(program), "--listen-host", "127.0.0.1", "--listen-port", str(self.port)]
        self._command += ["--set", f"confdir={folder}"]
        self._command += ["--set", f"ssl_verify_upstream_trusted_ca={upstream_ca}"]
        self._process: subprocess.Popen | None = None

    def __enter__(self) -> InterceptingProxy:
        # Unbuffered: mitmdump writes its log to a file, where Python would hold each line back until a
        # few kilobytes had gathered (or it exited), so a test reading the log meanwhile saw too little.
        env = os.environ | {"PYTHONUNBUFFERED": "1"}
        with (self.folder / "proxy.log").open("w") as log:
            self._process = subprocess.Popen(self._command, stdout=log, stderr=log, env=env)
        give_up_at = time.monotonic() + 60
        while not (self.ca_file.exists() and self._listening()):
            if self._process.poll() is not None or time.monotonic() > give_up_at:
                stop(self._process)
                raise RuntimeError(f"mitmdump did not start: {self.log()[-2000:]}")
            time.sleep(0.1)
        return self

    def _listening(self) -> bool:
        with socket.socket() as probe:
            return probe.connect_ex(("127.0.0.1", self.port)) == 0

    def log(self) -> str:
        return (self.folder / "proxy.log").read_text(errors="replace")

    def __exit__(self, *exc: object) -> None:
        stop(self._process)


def store_with(ca_file: Path, folder: Path) -> Path:
    """A copy of the system's certificate folder with `ca_file` added as Debian's update-ca-certificates
    adds a company's CA: its own file, and appended to the bundle (ca-certificates.crt) that OpenSSL's
    default paths, Python's ssl module and uv's --system-certs read (the hashed links are left out)."""
    shutil.copytree(SYSTEM_STORE, folder, symlinks=True)
    pem = ca_file.read_text()
    (folder / "company-proxy.pem").write_text(pem)
    bundle = folder / "ca-certificates.crt"
    bundle.unlink()  # a copy of the machine's bundle, not a link through to it
    bundle.write_text((SYSTEM_STORE / "ca-certificates.crt").read_text() + pem)
    return folder


def with_store(store: Path, command: list[str]) -> list[str]:
    """`command` run where `store` is the system's certificate folder: `store` mounted over it in a mount
    namespace of the command's own (unshare), so the machine's real store is never touched."""
    mount = 'mount --bind "$0" "$1" && shift && exec "$@"'
    namespace = ["unshare", "--mount", "--map-root-user"]
    return [*namespace, "sh", "-c", mount, str(store), str(SYSTEM_STORE), *command]


def behind(proxy: InterceptingProxy, index_url: str, folder: Path) -> dict[str, str]:
    """The environment of an install through `proxy` from `index_url`: no certificate but the system's
    store (this machine's SSL_CERT_FILE, PIP_CERT and pip's config dropped), no uv or pip setting, and
    no cache from before (a fresh one in `folder`)."""
    dropped = ("SSL_CERT_", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "PIP_", "UV_", "NO_PROXY", "no_proxy")
    env = {key: value for key, value in os.environ.items() if not key.startswith(dropped)}
    return env | {
        "HTTPS_PROXY": proxy.url,
        "https_proxy": proxy.url,
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_INDEX_URL": index_url,
        "PIP_CACHE_DIR": str(folder / "pip-cache"),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PIP_RETRIES": "0",  # a certificate refused once is refused again
        "UV_INDEX_URL": index_url,
        "UV_CACHE_DIR": str(folder / "uv-cache"),
        "UV_NO_CONFIG": "1",
    }
