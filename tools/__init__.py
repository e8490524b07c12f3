"""tools: the concrete tools (the tutorial's registerTool). Adding a tool = one file here, imported
below, plus one line in `default_tools`; the prompt, `/tools` and the MCP server all follow."""

from __future__ import annotations

from agent.function_tool import FunctionTool
from tools.calculator import CalculatorTool
from tools.current_time import CurrentTimeTool
from tools.device_service import DeviceService
from tools.market_name import UpdateMarketNameTool
from tools.model_tool import AddModelTool, DeleteModelTool, ListModelsTool, QueryModelTool


def default_tools(models_url: str | DeviceService) -> list[FunctionTool]:
    """The tools every front end registers; `models_url` is ADD_MODEL_URL (or a client of it)."""
    service = models_url if isinstance(models_url, DeviceService) else DeviceService(models_url)
    return [
        AddModelTool(service),
        QueryModelTool(service),
        ListModelsTool(service),
        UpdateMarketNameTool(service),
        DeleteModelTool(service),
        CalculatorTool(),
        CurrentTimeTool(),
    ]
