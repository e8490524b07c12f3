"""Tool selection on many tools: recall@5 and schema tokens saved, on tools made from public functions.

The tools are public functions of the Python standard library with a docstring: the name, the
docstring as description, the signature's parameters as the schema. Each query is the docstring's
first line with the function's own name taken out; the right answer is that function's tool. Tokens
are counted with the embedded SmolLM2 model's tokenizer (loaded vocabulary-only from the GGUF file).
"""

from __future__ import annotations

import importlib
import inspect
import json
import re
import statistics
from typing import Any

from langchain_core.messages import HumanMessage

from agent.tool_selection import SearchToolsTool, ToolSelector

MODULES = [
    "os",
    "os.path",
    "shutil",
    "json",
    "math",
    "statistics",
    "string",
    "textwrap",
    "random",
    "re",
    "datetime",
    "calendar",
    "time",
    "glob",
    "fnmatch",
    "zipfile",
    "tarfile",
    "gzip",
    "base64",
    "hashlib",
    "hmac",
    "secrets",
    "uuid",
    "urllib.parse",
    "html",
    "csv",
    "difflib",
    "heapq",
    "bisect",
    "itertools",
    "functools",
    "operator",
    "copy",
    "pprint",
    "socket",
    "ssl",
    "email.utils",
    "mimetypes",
    "platform",
    "locale",
    "gettext",
    "sqlite3",
    "zlib",
    "binascii",
    "colorsys",
    "fractions",
    "decimal",
    "ipaddress",
    "unicodedata",
    "tempfile",
    "filecmp",
    "keyword",
    "shlex",
]


def public_functions(limit: int = 250) -> list[tuple[str, str, list[str]]]:
    seen, out = set(), []
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name, fn in sorted(vars(module).items()):
            doc = inspect.getdoc(fn) if callable(fn) else None
            if name.startswith("_") or not doc or len(doc.splitlines()[0]) < 20 or not inspect.isroutine(fn):
                continue
            tool_name = f"{module_name.replace('.', '_')}_{name}"
            if tool_name in seen:
                continue
            seen.add(tool_name)
            try:
                params = [p for p in inspect.signature(fn).parameters if p not in ("self", "args", "kwargs")]
            except (TypeError, ValueError):
                params = []
            out.append((tool_name, doc[:600], params))
    return out[:limit]


def as_tool(name: str, doc: str, params: list[str]) -> dict[str, Any]:
    properties = {p: {"type": "string", "description": p.replace("_", " ")} for p in params}
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": doc,
            "parameters": {"type": "object", "properties": properties},
        },
    }


def query_for(name: str, doc: str) -> str:
    short = name.split("_", 1)[1] if "_" in name else name
    return re.sub(rf"\b{re.escape(short)}\b", " ", doc.splitlines()[0], flags=re.IGNORECASE)


def token_counter(server: Any) -> Any:
    """Tokens as the embedded model's tokenizer counts them (llama.cpp's /tokenize)."""
    import requests

    url = server.base_url.removesuffix("/v1") + "/tokenize"
    return lambda text: len(requests.post(url, json={"content": text}, timeout=60).json()["tokens"])


def selection_report(k: int = 5) -> str:
    functions = public_functions()
    tools = [as_tool(*f) for f in functions]
    search = {
        "type": "function",
        "function": {
            "name": SearchToolsTool.name,
            "description": SearchToolsTool.description,
            "parameters": SearchToolsTool.parameters,
        },
    }
    from app.models.embedded.runtime import LocalModelServer

    with LocalModelServer() as server:
        return _report(tools, search, ToolSelector(top_k=k), token_counter(server), functions, k)


def _report(tools: list[Any], search: Any, selector: ToolSelector, count: Any, functions: Any, k: int) -> str:
    all_tokens = count(json.dumps(tools + [search], ensure_ascii=False))
    hits, sent = 0, []
    for name, doc, _ in functions:
        query = query_for(name, doc)
        hits += name in selector.rank(tools, query)[:k]
        sent.append(
            count(json.dumps(selector.select(tools + [search], [HumanMessage(query)]), ensure_ascii=False))
        )
    saved = 1 - statistics.mean(sent) / all_tokens
    return (
        f"tool selection on {len(tools)} tools from standard-library functions: recall@{k} = "
        f"{hits / len(tools):.3f} (goal >= 0.95); schema tokens per request {statistics.mean(sent):.0f} "
        f"instead of {all_tokens} = {saved:.1%} fewer (goal >= 80%)"
    )


if __name__ == "__main__":
    print(selection_report())
