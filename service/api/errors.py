"""The one place where anchorgraph's errors become HTTP responses."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from service.errors import (
    AnchorgraphError,
    ClaimExtractionError,
    DocumentTooLarge,
    GraphUnavailable,
    IndexNotReady,
    InvalidInput,
    NotFound,
    UnsupportedFormat,
)

# Most specific first: the first class an error is an instance of decides its status.
_STATUS: tuple[tuple[type[AnchorgraphError], int], ...] = (
    (UnsupportedFormat, 415),
    (DocumentTooLarge, 413),
    (InvalidInput, 400),
    (NotFound, 404),
    (GraphUnavailable, 503),
    (ClaimExtractionError, 502),
    (IndexNotReady, 503),
)


def status_for(error: AnchorgraphError) -> int:
    return next((status for kind, status in _STATUS if isinstance(error, kind)), 500)


async def _handle(_: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, AnchorgraphError)
    return JSONResponse(
        status_code=status_for(error),
        content={"error": type(error).__name__, "detail": str(error)},
    )


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(AnchorgraphError, _handle)
