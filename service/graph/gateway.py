"""The one door to Neo4j: every read and write of the service goes through a ``Graph``.

It does three things the driver leaves to its caller:

* **Bounded failure.** An unreachable server, a dropped connection, a refused login or a query
  past its timeout becomes :class:`~anchorgraph.errors.GraphUnavailable` (HTTP 503) with a message
  that says what to do, within the time the settings allow: connecting, acquiring a pooled
  connection, the server-side transaction timeout and the retry budget are all set from
  ``Settings``. Without them a stopped Neo4j kept ``/health`` waiting 30 s (the driver's default
  retry time) and a search answered 500.
* **A deadline.** Within a request (``anchorgraph.graph.deadline``), each statement's server-side
  timeout, the wait for a pooled connection and the retries end by the request's deadline, and
  a statement cut by it is :class:`~anchorgraph.errors.DeadlineExceeded` (HTTP 504).
* **Retries for reads.** A read that fails transiently (a stale pooled connection after Neo4j
  restarted, a leader switch in a cluster) is tried again with a doubling pause until the retry
  budget is spent; writes are managed transactions, retried by the driver within the same budget.
  So the service recovers by itself when Neo4j comes back.
* **Typed rows.** ``read`` gives each statement's rows as its ``TypedDict``
  (``anchorgraph.graph.rows``); ``models`` validates them into a pydantic model, with Neo4j's
  temporal values made native and absent (null) properties left to the model's defaults, so a
  route handler is a few lines. In a write transaction, ``rows_in``, ``single_in`` and ``run_in``
  do the same for ``tx.run``.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar, cast

import neo4j
from neo4j.exceptions import (
    AuthError,
    ConnectionAcquisitionTimeoutError,
    DriverError,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
)
from pydantic import BaseModel

from anchorgraph.errors import AnchorgraphError, GraphUnavailable
from anchorgraph.graph.deadline import Deadline, current
from anchorgraph.graph.queries import Statement, as_parameters, cypher

M = TypeVar("M", bound=BaseModel)
R = TypeVar("R")
T = TypeVar("T")

# Transaction timeouts the server reports (Neo.ClientError.Transaction.TransactionTimedOut...).
_TIMED_OUT = "TransactionTimedOut"
_FIRST_PAUSE_S = 0.05
# Errors that say the server is out of reach, whatever the statement.
_LOST = (ServiceUnavailable, SessionExpired, ConnectionAcquisitionTimeoutError, AuthError, OSError)


class GraphReader(Protocol):
    """What a search needs of the graph: ``Graph``, or recorded rows in a unit test."""

    def read(
        self, query: Statement[R], parameters: Mapping[str, Any] | None = None
    ) -> Sequence[R]: ...


class Graph:
    """Reads and writes against one database, with the failure rules in the module docstring."""

    def __init__(
        self,
        driver: neo4j.Driver,
        database: str,
        *,
        uri: str = "",
        query_timeout_s: float = 30.0,
        write_timeout_s: float = 600.0,
        retry_s: float = 1.0,
        acquire_timeout_s: float = 10.0,
        hint: str = "",
    ) -> None:
        """Args:
        driver: built by ``anchorgraph.graph.driver.connect`` with the settings' timeouts.
        uri: where the server is, for error messages.
        query_timeout_s: server-side timeout of one read.
        write_timeout_s: server-side timeout of one write transaction (an ingest batch).
        retry_s: how long a transiently failing read is tried again.
        acquire_timeout_s: the longest wait for a pooled connection (the driver's setting).
        hint: appended to unavailability messages (how to start the server).
        """
        self._driver, self.database, self.uri = driver, database, uri
        self._read_timeout, self._write_timeout = query_timeout_s, write_timeout_s
        self._retry_s, self._acquire_s, self._hint = retry_s, acquire_timeout_s, hint
        self._rehearsing = False

    def rehearsal(self) -> Graph:
        """This graph with every write rolled back: Neo4j plans and caches a write's
        statements, and the graph is left as it was (the API's warm start)."""
        rehearsing = copy.copy(self)
        rehearsing._rehearsing = True
        return rehearsing

    @property
    def driver(self) -> neo4j.Driver:
        """The driver itself, for code that must hand one to a third party (neo4j-graphrag)."""
        return self._driver

    def close(self) -> None:
        self._driver.close()

    # --- reads -----------------------------------------------------------------------------------
    def read(self, query: Statement[R], parameters: Mapping[str, Any] | None = None) -> list[R]:
        """One auto-commit read: RUN and PULL go out together, one network round trip where a
        managed transaction costs two (BEGIN+RUN+PULL, then COMMIT). Retried while transient
        failures last and the budget allows. The rows are the driver's records, which read like
        the statement's row (``anchorgraph.graph.rows``): not copied.

        Raises:
            GraphUnavailable: the server cannot be reached, or the read timed out.
            DeadlineExceeded: the request's deadline passed first.
        """
        deadline = current()
        values = as_parameters(parameters or {})
        retry_until = time.monotonic() + self._retry_s
        pause = _FIRST_PAUSE_S
        while True:
            timeout = _bounded(self._read_timeout, deadline)
            statement = neo4j.Query(cypher(query), timeout=timeout)
            try:
                with self._session(deadline, neo4j.READ_ACCESS) as session:
                    return cast(list[R], list(session.run(statement, values)))
            except (Neo4jError, DriverError, OSError) as error:
                left = float("inf") if deadline is None else deadline.remaining()
                if _retryable(error) and pause <= min(retry_until - time.monotonic(), left):
                    time.sleep(pause)
                    pause *= 2
                    continue
                failure = self._failure(error, deadline)
                if failure is None:
                    raise
                raise failure from error

    def models(
        self, query: Statement[Any], model: type[M], parameters: Mapping[str, Any] | None = None
    ) -> list[M]:
        """Each row as ``model``: columns are fields; a null column takes the field's default."""
        return [model.model_validate(row_values(row)) for row in self.read(query, parameters)]

    def model(
        self, query: Statement[Any], model: type[M], parameters: Mapping[str, Any] | None = None
    ) -> M | None:
        """The first row as ``model``, or None when there is none."""
        rows = self.models(query, model, parameters)
        return rows[0] if rows else None

    # --- writes ----------------------------------------------------------------------------------
    def write(self, work: Callable[[neo4j.ManagedTransaction], T]) -> T:
        """Run ``work`` in one write transaction: all of it commits or none (the driver retries
        it on transient failures within the retry budget set at connect).

        Raises:
            GraphUnavailable: the server cannot be reached, or the transaction timed out.
            DeadlineExceeded: the request's deadline passed first (nothing was committed).
        """
        deadline = current()
        timeout = _bounded(self._write_timeout, deadline)
        try:
            with self._session(deadline) as session:
                if self._rehearsing:
                    return _rolled_back(session, work, timeout)
                return session.execute_write(neo4j.unit_of_work(timeout=timeout)(work))
        except (Neo4jError, DriverError, OSError) as error:
            failure = self._failure(error, deadline)
            if failure is None:
                raise
            raise failure from error

    def run(self, statement: str, parameters: Mapping[str, Any] | None = None) -> None:
        """One auto-commit statement of a schema file (DDL cannot run in a managed write)."""
        try:
            with self._driver.session(database=self.database) as session:
                session.run(statement, dict(parameters or {})).consume()
        except (Neo4jError, DriverError, OSError) as error:
            if _unavailability(error):
                raise self._unavailable(error) from error
            raise

    def _session(
        self, deadline: Deadline | None, access: str = neo4j.WRITE_ACCESS
    ) -> neo4j.Session:
        """A session whose wait for a pooled connection and whose retries of managed
        transactions end by ``deadline`` too."""
        acquire = _bounded(self._acquire_s, deadline)
        return self._driver.session(
            database=self.database,
            default_access_mode=access,
            connection_acquisition_timeout=acquire,
            max_transaction_retry_time=min(self._retry_s, acquire),
        )

    def _failure(self, error: Exception, deadline: Deadline | None) -> AnchorgraphError | None:
        """What a failed statement raises instead of ``error``: the deadline's error once it has
        passed (a statement or a wait cut by it ends after it), unavailability when the server
        is out of reach; None for an error of the statement itself."""
        if deadline is not None and deadline.remaining() <= 0:
            return deadline.exceeded()
        return self._unavailable(error) if _unavailability(error) else None

    def _unavailable(self, error: Exception) -> GraphUnavailable:
        if isinstance(error, Neo4jError) and _timed_out(error):
            return GraphUnavailable(f"Neo4j at {self.uri} did not answer in time: {error.message}")
        if isinstance(error, AuthError):
            return GraphUnavailable(f"Neo4j at {self.uri} refused the credentials: {error}")
        detail = str(error) or type(error).__name__
        return GraphUnavailable(f"Neo4j at {self.uri} is unavailable: {detail}.{self._hint}")


class _Rehearsed(Exception):
    """Raised out of a rehearsed write's transaction with its result: the driver then rolls the
    transaction back, as after any exception of the work."""

    def __init__(self, result: object) -> None:
        self.result = result


def _rolled_back(
    session: neo4j.Session, work: Callable[[neo4j.ManagedTransaction], T], timeout: float
) -> T:
    def rehearse(transaction: neo4j.ManagedTransaction) -> T:
        raise _Rehearsed(work(transaction))

    try:
        session.execute_write(neo4j.unit_of_work(timeout=timeout)(rehearse))
    except _Rehearsed as done:
        return cast(T, done.result)
    raise AssertionError("a rehearsal always ends in _Rehearsed")


def _bounded(timeout: float, deadline: Deadline | None) -> float:
    """``timeout``, or the deadline's time left when that is shorter.

    Raises:
        DeadlineExceeded: the deadline has passed (no statement is sent).
    """
    return timeout if deadline is None else deadline.bound(timeout)


def _timed_out(error: Exception) -> bool:
    return isinstance(error, Neo4jError) and _TIMED_OUT in (error.code or "")


def _retryable(error: Exception) -> bool:
    if isinstance(error, AuthError):
        return False
    if isinstance(error, OSError):
        return True
    retryable = getattr(error, "is_retryable", None)
    return bool(retryable()) if callable(retryable) else False


def _unavailability(error: Exception) -> bool:
    """Whether an error is about reaching Neo4j rather than about the statement."""
    return isinstance(error, _LOST) or _retryable(error) or _timed_out(error)


def row_values(row: Mapping[str, object]) -> dict[str, Any]:
    """A row as plain Python: temporal values made native, null columns left out."""
    return {key: _native(value) for key, value in row.items() if value is not None}


# --- typed rows inside a write transaction -----------------------------------------------------
def rows_in(
    tx: neo4j.ManagedTransaction, query: Statement[R], parameters: Mapping[str, Any]
) -> list[R]:
    """Every row ``query`` returns within ``tx``, as its row type (the records, not copied)."""
    return cast(list[R], list(tx.run(cypher(query), as_parameters(parameters))))


def single_in(
    tx: neo4j.ManagedTransaction, query: Statement[R], parameters: Mapping[str, Any]
) -> R | None:
    """The one row ``query`` returns within ``tx``, or None when it returns none."""
    return cast(R | None, tx.run(cypher(query), as_parameters(parameters)).single())


def run_in(
    tx: neo4j.ManagedTransaction, query: Statement[object], parameters: Mapping[str, Any]
) -> None:
    """Run ``query`` within ``tx`` for what it writes, its rows (if any) unread, and wait for
    it to finish."""
    tx.run(cypher(query), as_parameters(parameters)).consume()


def _native(value: Any) -> Any:
    if isinstance(value, list):
        return [_native(item) for item in value]
    if isinstance(value, dict):
        return {key: _native(item) for key, item in value.items() if item is not None}
    to_native = getattr(value, "to_native", None)
    return to_native() if callable(to_native) else value
