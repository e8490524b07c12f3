"""`create_app`: the served agent's FastAPI app — its faces (openai_face.py, agui.py, a2a_face.py) and the
chat page (page.py) on one Service, behind the body gate, every error in OpenAI's error shape (errors.py)."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from agent.types import AgentError
from app.serve import a2a_face, agui, openai_face, page
from app.serve.errors import NotFound, RequestError, answer, error_body
from app.serve.hardening import AnswerHeaders
from app.serve.limits import BodyGate
from app.serve.service import Service
from plumbing import telemetry
from plumbing.sql import DatabaseUnavailable


def create_app(service: Service) -> FastAPI:
    # no /docs or /redoc: their pages load scripts from a CDN, on the chat page's origin where the key is
    app = FastAPI(
        title="tool-use-agent",
        description="The tool-calling agent, served",
        version="1",
        docs_url=None,
        redoc_url=None,
        **telemetry.fastapi_options(FastAPI),  # its spans are the project's (agent/tracing.py's `serve`)
    )
    app.state.service = service
    app.add_middleware(BodyGate, limits=service.limits)
    app.add_middleware(AnswerHeaders)
    app.include_router(openai_face.router)
    app.include_router(agui.router)
    app.include_router(page.router)
    a2a_face.mount(app, service)
    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(AgentError, _error)  # the client's mistakes, and the turn's failures
    app.add_exception_handler(DatabaseUnavailable, _error)
    app.add_exception_handler(Exception, _bug)  # a bug: logged, answered without its traceback
    return app


async def _error(request: Request, exc: Exception) -> JSONResponse:
    return answer(exc)


async def _bug(request: Request, exc: Exception) -> JSONResponse:
    """A bug's 500. Starlette answers it in its outermost layer, outside AnswerHeaders: it says their headers
    itself."""
    response = answer(exc)
    response.headers.update({"X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"})
    return response


async def _invalid(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"][1:]) or str(first["loc"][0])
    message = "the body is not JSON" if first["type"] == "json_invalid" else f"{where}: {first['msg']}"
    return answer(RequestError(message, param=where))


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    """Starlette's own refusals (no such path, a method not allowed) in OpenAI's shape."""
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        return answer(NotFound(f"no such endpoint: {request.url.path[:100]}"))
    body = error_body(str(exc.detail), "invalid_request_error", f"http_{exc.status_code}")
    return JSONResponse(body, exc.status_code, dict(exc.headers or {}))
