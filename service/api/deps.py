"""FastAPI dependencies: the long-lived resources created in the app's lifespan."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

import neo4j
from fastapi import Depends, Request

from loaders.ingest import Ingestor
from service.embedding import Embedder
from service.retrieval.pipeline import SearchContext
from service.settings import Settings


@dataclass(frozen=True)
class Resources:
    """What the lifespan builds once and every request shares."""

    settings: Settings
    driver: neo4j.Driver
    embedder: Embedder
    ingestor: Ingestor
    search: SearchContext


def get_resources(request: Request) -> Resources:
    resources: Resources = request.app.state.resources
    return resources


ResourcesDep = Annotated[Resources, Depends(get_resources)]
