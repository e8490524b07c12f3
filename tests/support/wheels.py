"""Wheels made by a test, and a PEP 503 simple index of them in a folder: what an index behind a proxy
serves to pip and uv. Standard library only, so a build backend made by a test can import it too."""

from __future__ import annotations

import base64
import hashlib
import re
import stat
import zipfile
from pathlib import Path


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def write_wheel(
    folder: str | Path,
    name: str,
    version: str,
    files: dict[str, bytes],
    metadata: tuple[str, ...] = (),
    scripts: dict[str, bytes] | None = None,
) -> str:
    """A wheel tagged py3-none-any, of `files` (paths inside site-packages) and `scripts` (installed into the
    venv's bin/, executable), with `metadata` lines added to its METADATA; its file name."""
    stem = f"{re.sub(r'[-_.]+', '_', name)}-{version}"
    info = f"{stem}.dist-info"
    content = dict(files)
    for script, data in (scripts or {}).items():
        content[f"{stem}.data/scripts/{script}"] = data
    head = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}", *metadata]
    content[f"{info}/METADATA"] = ("\n".join(head) + "\n").encode()
    wheel = ["Wheel-Version: 1.0", "Generator: tests", "Root-Is-Purelib: true", "Tag: py3-none-any"]
    content[f"{info}/WHEEL"] = ("\n".join(wheel) + "\n").encode()
    record = "".join(f"{path},sha256={_digest(data)},{len(data)}\n" for path, data in content.items())
    content[f"{info}/RECORD"] = (record + f"{info}/RECORD,,\n").encode()
    file_name = f"{stem}-py3-none-any.whl"
    with zipfile.ZipFile(Path(folder) / file_name, "w") as archive:
        for path, data in content.items():
            entry = zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0))
            entry.external_attr = (stat.S_IFREG | (0o755 if ".data/scripts/" in path else 0o644)) << 16
            archive.writestr(entry, data)
    return file_name


def index_folder(root: Path, project: str) -> Path:
    """The folder of `project` in the PEP 503 index under `root` (root/simple/<normalized name>/)."""
    folder = root / "simple" / re.sub(r"[-_.]+", "-", project).lower()
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def write_index_pages(root: Path) -> None:
    """Each project's page of the index under `root`: a link to each of its wheels, with its sha256."""
    for folder in (root / "simple").iterdir():
        links = [
            f'<a href="{wheel.name}#sha256={hashlib.sha256(wheel.read_bytes()).hexdigest()}">{wheel.name}</a>'
            for wheel in sorted(folder.glob("*.whl"))
        ]
        (folder / "index.html").write_text("\n".join(links) + "\n")
