"""tools: concrete tools. Adding a tool = one file here + one line in `default_tools`."""

from __future__ import annotations

from agent.tools import FunctionTool


def default_tools(models_url: str) -> list[FunctionTool]:
    """The tools `main.py` registers (the tutorial's registerTool); `models_url` is ADD_MODEL_URL."""
    from tools.model_tool import AddModelTool, QueryModelTool

    return [
        AddModelTool(models_url),
        QueryModelTool(models_url),
    ]
