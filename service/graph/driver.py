"""One place that turns settings into a connected ``Graph`` (the driver inside it)."""

from __future__ import annotations

import neo4j
from neo4j.exceptions import AuthError, DriverError

from anchorgraph.errors import GraphUnavailable
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.local_server import LocalNeo4j
from anchorgraph.settings import Settings


def neo4j_auth(settings: Settings) -> tuple[str, str]:
    """User and password: configured, or the local server's stored one."""
    if settings.neo4j_password is not None:
        return settings.neo4j_user, settings.neo4j_password.get_secret_value()
    if settings.uses_local_server:
        return settings.neo4j_user, LocalNeo4j(settings).password()
    raise GraphUnavailable("ANCHORGRAPH_NEO4J_PASSWORD is required with ANCHORGRAPH_NEO4J_URI.")


def connect(settings: Settings) -> Graph:
    """A ``Graph`` whose connection and credentials were checked once.

    Raises:
        GraphUnavailable: nothing answers at the URI, or the credentials are refused.
    """
    driver = neo4j.GraphDatabase.driver(
        settings.bolt_uri,
        auth=neo4j_auth(settings),
        connection_timeout=settings.neo4j_connect_timeout_s,
        connection_acquisition_timeout=settings.neo4j_acquire_timeout_s,
        max_transaction_retry_time=settings.neo4j_retry_s,
        # "Property key does not exist" notices (an empty graph) are noise in our logs.
        notifications_disabled_classifications=[
            neo4j.NotificationDisabledClassification.UNRECOGNIZED
        ],
    )
    hint = (
        " Start the local server with 'anchorgraph neo4j start'."
        if settings.uses_local_server
        else ""
    )
    try:
        driver.verify_connectivity()
    except (DriverError, AuthError, OSError) as error:
        driver.close()
        raise GraphUnavailable(
            f"Neo4j at {settings.bolt_uri} is not usable: {error}.{hint}"
        ) from error
    return Graph(
        driver,
        settings.neo4j_database,
        uri=settings.bolt_uri,
        query_timeout_s=settings.neo4j_query_timeout_s,
        write_timeout_s=settings.neo4j_write_timeout_s,
        retry_s=settings.neo4j_retry_s,
        acquire_timeout_s=settings.neo4j_acquire_timeout_s,
        hint=hint,
    )
