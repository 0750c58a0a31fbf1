"""The errors anchorgraph raises, mapped to HTTP in one place (``anchorgraph.api.errors``).

AnchorgraphError
├── InvalidInput          the caller sent something unusable           → 400/413/415/422
│   ├── UnsupportedFormat   a file format no reader handles            → 415
│   ├── DocumentTooLarge    over ``max_document_bytes`` / ``max_file_bytes`` → 413
│   ├── TooManyPages        more pages than ``max_pages``              → 422
│   └── UnreadableDocument  a corrupt, truncated or encrypted file     → 422
├── NotFound              no such collection / document / entity       → 404
├── Forbidden             the key may read that collection, not write  → 403
├── Conflict              it would replace a document unseen, or the graph changed under it → 409
│   ├── PreconditionFailed  If-Match / If-None-Match does not hold    → 412
│   ├── ModelMismatch       the collection was embedded with another model → 409
│   └── JobRunning          an ingest job is writing into the collection already → 409
├── GraphUnavailable      Neo4j cannot be reached or refused us        → 503
├── DeadlineExceeded      Neo4j did not answer within the request deadline → 504
├── ClaimExtractionError  an optional LLM claim extractor failed         → 502
├── OcrUnavailable        Tesseract (or a language's data) is not installed → 503
├── SourceUnavailable     a source URL's bucket or folder cannot be listed or read → 502
├── EmbeddingUnavailable  the embedding server cannot be reached, or kept failing → 503
├── EmbeddingFailed       the embedding server refused a request or answered nonsense → 502
├── IndexNotReady         an index did not come ONLINE in time         → 503
│   └── SchemaMissing       a reader found no schema (never initialised) → 503
└── LocalServerError      the project's own Neo4j could not be set up  → (CLI message)
"""

from __future__ import annotations


class AnchorgraphError(Exception):
    """Root of every error anchorgraph raises on purpose."""


class InvalidInput(AnchorgraphError):
    """The request or file cannot be used as given; the message says why."""


class UnsupportedFormat(InvalidInput):
    """No reader handles this file format."""


class DocumentTooLarge(InvalidInput):
    """The document is larger than the configured limit."""


class TooManyPages(InvalidInput):
    """A PDF or TIFF has more pages than the configured limit."""


class UnreadableDocument(InvalidInput):
    """The file is not what its format says: corrupt, truncated, or encrypted."""


class OcrUnavailable(AnchorgraphError):
    """A page needs OCR and this machine has no Tesseract, or not the language data asked for;
    the message names the Debian package to install."""


class SourceUnavailable(AnchorgraphError):
    """A source named by URL cannot be listed or read: no such bucket or folder, credentials
    refused, or its endpoint out of reach; the message says which, and never a credential."""


class NotFound(AnchorgraphError):
    """The named collection, document or entity does not exist (or the caller may not see it:
    the same answer)."""


class Forbidden(AnchorgraphError):
    """The caller's key may read the collection but not write it."""


class Conflict(AnchorgraphError):
    """A write would replace, unseen, a document that came from another origin (or from a
    request without one), or another write changed what it was about to replace. ``etag``: the
    ETag of the document in the graph, when there is one, for the caller to name in
    ``If-Match`` once it has seen it."""

    def __init__(self, message: str, *, etag: str = "") -> None:
        super().__init__(message)
        self.etag = etag


class PreconditionFailed(Conflict):
    """A condition of the write (``If-Match``, ``If-None-Match``; RFC 9110 §13.1) does not hold
    for the document in the graph."""


class ModelMismatch(Conflict):
    """The collection was embedded with another model than the one this process embeds with:
    its vectors and the new ones would not be comparable."""


class JobRunning(Conflict):
    """An ingest job is writing into the collection already: one job at a time."""


class EmbeddingUnavailable(AnchorgraphError):
    """The embedding server cannot be reached, or still answered busy or failing after the
    retries (``embedding_retry_s``); nothing of the batch was written."""


class EmbeddingFailed(AnchorgraphError):
    """The embedding server refused a request (a key, a model or a batch size it does not
    take) or answered something that is not the embeddings asked for."""


class GraphUnavailable(AnchorgraphError):
    """Neo4j cannot be reached, or refused the credentials."""


class DeadlineExceeded(AnchorgraphError):
    """Neo4j did not answer within the request's deadline (``request_deadline_s``); what was
    left of the request was cancelled and nothing was written."""


class ClaimExtractionError(AnchorgraphError):
    """A claim extractor failed: its endpoint is unreachable or answered something unusable."""


class IndexNotReady(AnchorgraphError):
    """An index did not reach the ONLINE state in time."""


class SchemaMissing(IndexNotReady):
    """A read-only process found the graph without its indexes: nothing initialised it."""


class LocalServerError(AnchorgraphError):
    """The local Neo4j server could not be installed, started or stopped."""
