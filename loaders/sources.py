"""Sources: where documents are read from, named by a path or a URL.

A :class:`Source` lists its files as :class:`Entry` records, streamed (a million keys never sit
in memory: a folder is walked one directory at a time, a bucket listed one page of keys at a
time), opens one file's bytes, and looks up what its file system knows of a file besides
(``describe``: the native lookup, which becomes the document's metadata and tags). The readers
(``anchorgraph.loaders.read``) take it from there by each file's suffix.

``open_source`` picks the implementation by the URL's scheme from one table: a local path or
``file://`` is a :class:`LocalSource`; ``s3://bucket/prefix`` an :class:`S3Source` on any
S3-compatible endpoint; any other scheme fsspec knows (``gs://`` with gcsfs, ``az://`` with
adlfs, ``hdfs://`` with pyarrow, ...) a :class:`FsspecSource`. Endpoints, regions and
credentials come from each store's own settings (for S3: ``AWS_ENDPOINT_URL``,
``AWS_ACCESS_KEY_ID``, ``AWS_PROFILE``, ``~/.aws``, ...); anchorgraph neither logs nor stores
them, and an entry's ``uri`` is ``s3://bucket/key``, never with a credential in it.
"""

from __future__ import annotations

import os
import posixpath
import pwd
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import IO, Any, Protocol, TypeVar
from urllib.parse import unquote, urlsplit

from anchorgraph.errors import InvalidInput, SourceUnavailable


@dataclass(frozen=True)
class Entry:
    """One file of a source, as its listing describes it."""

    path: str  # posix, relative to the source's root: a file's document id ("" for the root file)
    uri: str  # where it is: file:///…, s3://bucket/key (never with credentials)
    size: int
    modified: datetime | None
    # What changes when the file's content does: an object's version id or ETag, else its size
    # and modification time. A sync reads only the files whose revision changed.
    revision: str
    # What the listing told besides (owner, etag): part of the document's metadata.
    attributes: Mapping[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return posixpath.basename(self.path)

    @property
    def folder(self) -> str:
        """The posix folder relative to the source's root; ``""`` at the root."""
        return posixpath.dirname(self.path)


@dataclass(frozen=True)
class Description:
    """What a file system knows of one file beyond its listing: the native lookup."""

    metadata: Mapping[str, str] = field(default_factory=dict)
    tags: tuple[str, ...] = ()


class Source(Protocol):
    """A folder, bucket prefix or single file to read documents from."""

    @property
    def uri(self) -> str:
        """The root's URI: what a sync compares the documents' ``uri`` with."""

    @property
    def name(self) -> str:
        """The root folder's name: the documents' ``source``."""

    @property
    def single(self) -> bool:
        """Whether the source is one file (read whole or not at all) rather than a folder."""

    def entries(self) -> Iterator[Entry]:
        """The files, streamed; hidden ones (a name or folder starting with ``.``) left out."""

    def open(self, entry: Entry) -> AbstractContextManager[IO[bytes]]:
        """The file's bytes, to read whole or line by line."""

    def describe(self, entry: Entry) -> Description:
        """What the file system knows of the file besides its listing."""

    def exists(self, path: str) -> bool:
        """Whether a file ``path`` (relative to the root) is there."""


@dataclass(frozen=True)
class SourceOptions:
    """How remote sources are reached: the connect and read timeouts and the attempts of one
    request (``ANCHORGRAPH_SOURCE_*``)."""

    connect_timeout_s: float = 10.0
    read_timeout_s: float = 60.0
    attempts: int = 3


def open_source(location: str | Path, options: SourceOptions | None = None) -> Source:
    """The source at a local path or a URL, chosen by the URL's scheme.

    Raises:
        InvalidInput: A local path that does not exist; a scheme no installed package serves.
        SourceUnavailable: The bucket or folder cannot be listed (it does not exist, the
            credentials are refused, the endpoint cannot be reached).
    """
    text = str(location)
    scheme = urlsplit(text).scheme.lower() if "://" in text else ""
    return _SCHEMES.get(scheme, FsspecSource.at)(text, options or SourceOptions())


def uri_path(uri: str) -> str:
    """The path part of an entry's ``uri``, as the file system names it: a ``file://`` URI's
    decoded, any other's as written (``s3://`` URIs carry keys unescaped, as S3 tools write
    them: ``#``, ``+``, ``%`` and spaces are part of the key)."""
    scheme, _, rest = uri.partition("://")
    return unquote(urlsplit(uri).path) if scheme == "file" else rest


# --- local files ------------------------------------------------------------------------------
class LocalSource:
    """A local file, or a folder walked in sorted order, one directory at a time."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.single = self.root.is_file()
        self.uri = self.root.as_uri()
        self.name = self.root.parent.name if self.single else self.root.name

    @classmethod
    def at(cls, location: str, _: SourceOptions) -> LocalSource:
        path = Path(uri_path(location)) if location.startswith("file:") else Path(location)
        if not path.exists():
            raise InvalidInput(f"{location}: no such file or folder.")
        return cls(path)

    def entries(self) -> Iterator[Entry]:
        if self.single:
            yield self._entry(self.root, self.root.name)
            return
        for directory, subdirectories, files in os.walk(self.root):
            subdirectories[:] = sorted(name for name in subdirectories if not name.startswith("."))
            here = Path(directory)
            folder = here.relative_to(self.root).as_posix().removeprefix(".")
            for name in sorted(name for name in files if not name.startswith(".")):
                yield self._entry(here / name, f"{folder}/{name}" if folder else name)

    def _entry(self, path: Path, relative: str) -> Entry:
        stat = path.stat()
        return Entry(
            path=relative,
            uri=path.as_uri(),
            size=stat.st_size,
            modified=datetime.fromtimestamp(stat.st_mtime, tz=UTC),
            revision=f"{stat.st_size}:{stat.st_mtime_ns}",
            attributes=_owner(stat.st_uid),
        )

    def _path(self, entry: Entry) -> Path:
        return self.root if self.single else self.root / entry.path

    def open(self, entry: Entry) -> AbstractContextManager[IO[bytes]]:
        return self._path(entry).open("rb")

    def describe(self, entry: Entry) -> Description:
        return Description()  # the owner came with the listing; nothing else is kept

    def exists(self, path: str) -> bool:
        return not self.single and (self.root / path).is_file()


def _owner(uid: int) -> dict[str, str]:
    try:
        return {"owner": pwd.getpwuid(uid).pw_name}
    except KeyError:  # a uid without a name on this machine (a mounted volume's, say)
        return {"owner": str(uid)}


# --- fsspec file systems ----------------------------------------------------------------------
class FsspecSource:
    """A folder (or one file) of any file system fsspec serves, walked one directory at a time;
    each file's facts are those its listing reports."""

    def __init__(self, fs: Any, root: str, protocol: str, *, single: bool) -> None:
        self.fs = fs
        self.root = root.rstrip("/")
        self.protocol = protocol
        self.single = single
        self.uri = self._uri(self.root)
        parent, _, own = self.root.rpartition("/")
        self.name = posixpath.basename(parent) if single else own

    @classmethod
    def at(cls, location: str, options: SourceOptions) -> FsspecSource:
        fs, root = _filesystem(location, {})
        return cls(fs, root, urlsplit(location).scheme, single=_is_file(fs, location, root))

    def _uri(self, path: str) -> str:
        return f"{self.protocol}://{path}"

    def _relative(self, path: str) -> str:
        return "" if self.single else path[len(self.root) + 1 :]

    def entries(self) -> Iterator[Entry]:
        if self.single:
            yield self._entry(_guarded(self.uri, lambda: self.fs.info(self.root)))
            return
        walk = iter(self.fs.walk(self.root, detail=True))
        while True:
            found = _guarded(self.uri, lambda: next(walk, None))
            if found is None:
                return
            _, directories, files = found
            for name in [name for name in directories if name.startswith(".")]:
                del directories[name]  # fsspec's walk does not descend into what is removed
            for name, info in sorted(files.items()):
                if not name.startswith(".") and "/." not in self._relative(info["name"]):
                    yield self._entry(info)

    def _entry(self, info: Mapping[str, Any]) -> Entry:
        name = str(info["name"]).rstrip("/")
        size = int(info.get("size") or 0)
        modified = _time(info)
        version = _first(info, "VersionId", "version_id", "generation", "ETag", "etag", "md5Hash")
        return Entry(
            path=self._relative(name) or posixpath.basename(name),
            uri=self._uri(name),
            size=size,
            modified=modified,
            revision=version or f"{size}:{modified.isoformat() if modified else ''}",
            attributes=_attributes(info),
        )

    def _key(self, entry: Entry) -> str:
        return entry.uri.removeprefix(f"{self.protocol}://")

    def open(self, entry: Entry) -> AbstractContextManager[IO[bytes]]:
        return _reading(entry.uri, lambda: self.fs.open(self._key(entry), "rb"))

    def describe(self, entry: Entry) -> Description:
        return Description()

    def exists(self, path: str) -> bool:
        return not self.single and bool(self.fs.isfile(f"{self.root}/{path}"))


class S3Source(FsspecSource):
    """A bucket prefix (or one object) of an S3-compatible store, through s3fs: listed flat, one
    page of ListObjectsV2 at a time with each object's owner; an object read is looked up for
    its content type, user metadata (``x-amz-meta-*``) and tags."""

    page_size = 1000  # the S3 maximum; a store may return fewer

    @classmethod
    def at(cls, location: str, options: SourceOptions) -> S3Source:
        fs, root = _filesystem(
            location,
            {
                "config_kwargs": {
                    "connect_timeout": options.connect_timeout_s,
                    "read_timeout": options.read_timeout_s,
                    "retries": {"max_attempts": options.attempts, "mode": "standard"},
                },
                # Listings and lookups are read once per run: no stale answers across runs.
                "skip_instance_cache": True,
                "use_listings_cache": False,
            },
        )
        bucket, _, prefix = root.partition("/")
        if not bucket:
            raise InvalidInput(f"{location}: no bucket named; use s3://bucket/prefix.")
        # One page of the prefix: a bucket that is missing, refused credentials and an endpoint
        # out of reach all fail here, before anything is read or written.
        first = _guarded(
            f"s3://{bucket}",
            lambda: fs.call_s3("list_objects_v2", Bucket=bucket, Prefix=prefix, MaxKeys=1),
        )
        held = [str(o["Key"]) for o in first.get("Contents", ())]
        single = bool(prefix) and held == [prefix.rstrip("/")] and not prefix.endswith("/")
        return cls(fs, root, "s3", single=single)

    def entries(self) -> Iterator[Entry]:
        bucket, _, key = self.root.partition("/")
        prefix = key if self.single or not key else key + "/"
        token: str | None = None
        while True:
            page = _guarded(self.uri, partial(self._page, bucket, prefix, token))
            for item in page.get("Contents", ()):
                entry = self._object(bucket, item)
                if entry is not None:
                    yield entry
            token = page.get("NextContinuationToken")
            if not page.get("IsTruncated") or not token:
                return

    def _page(self, bucket: str, prefix: str, token: str | None) -> dict[str, Any]:
        """One page of ListObjectsV2, after ``token`` (None: the first), with owners."""
        more = {"ContinuationToken": token} if token else {}
        return self.fs.call_s3(  # type: ignore[no-any-return]
            "list_objects_v2",
            Bucket=bucket,
            Prefix=prefix,
            FetchOwner=True,
            MaxKeys=self.page_size,
            **more,
        )

    def _object(self, bucket: str, item: Mapping[str, Any]) -> Entry | None:
        key = str(item["Key"])
        relative = self._relative(f"{bucket}/{key}")
        if key.endswith("/") or any(part.startswith(".") for part in relative.split("/")):
            return None  # a folder marker, or hidden
        etag = str(item.get("ETag", "")).strip('"')
        owner = item.get("Owner") or {}
        attributes = {"etag": etag} if etag else {}
        if found := owner.get("DisplayName") or owner.get("ID"):
            attributes["owner"] = str(found)
        modified = item.get("LastModified")
        return Entry(
            path=relative or posixpath.basename(key),
            uri=f"s3://{bucket}/{key}",
            size=int(item.get("Size") or 0),
            modified=modified if isinstance(modified, datetime) else None,
            revision=f"etag:{etag}" if etag else f"{item.get('Size')}:{modified}",
            attributes=attributes,
        )

    def describe(self, entry: Entry) -> Description:
        bucket, _, key = self._key(entry).partition("/")
        head = _guarded(entry.uri, lambda: self.fs.call_s3("head_object", Bucket=bucket, Key=key))
        metadata = {str(k).lower(): str(v) for k, v in (head.get("Metadata") or {}).items()}
        if content_type := head.get("ContentType"):
            metadata["content_type"] = str(content_type)
        if (version := head.get("VersionId")) and version != "null":
            metadata["version_id"] = str(version)
        try:
            tagging = self.fs.call_s3("get_object_tagging", Bucket=bucket, Key=key)
        except (PermissionError, OSError):
            tagging = {}  # a store (or a key) that does not report tags: none known
        tags = tuple(
            f"{tag['Key']}={tag['Value']}" if tag.get("Value") else str(tag["Key"])
            for tag in tagging.get("TagSet", ())
        )
        return Description(metadata, tags)


_SCHEMES: dict[str, Callable[[str, SourceOptions], Source]] = {
    "": LocalSource.at,
    "file": LocalSource.at,
    "s3": S3Source.at,
    "s3a": S3Source.at,
}


def _filesystem(location: str, storage_options: dict[str, Any]) -> tuple[Any, str]:
    import fsspec  # type: ignore[import-untyped]  # only a remote source needs it

    try:
        return fsspec.url_to_fs(location, **storage_options)  # type: ignore[no-any-return]
    except (ImportError, ValueError) as error:
        raise InvalidInput(f"{location}: {error}") from None


def _is_file(fs: Any, location: str, root: str) -> bool:
    info = _guarded(location, lambda: fs.info(root))
    return bool(info.get("type") == "file")


_T = TypeVar("_T")


def _guarded(where: str, call: Callable[[], _T]) -> _T:
    """``call()``, its store's failure turned into one clear error naming ``where``."""
    try:
        return call()
    except Exception as error:
        raise _unavailable(where, error) from None


@contextmanager
def _reading(where: str, opener: Callable[[], IO[bytes]]) -> Iterator[IO[bytes]]:
    """A remote file opened, its store's failures while it is read turned into one clear error
    (they stop the read whole: nothing is written from a source that failed half-way)."""
    file = _guarded(where, opener)
    try:
        yield file
    except Exception as error:
        raise _unavailable(where, error) from None
    finally:
        file.close()


def _unavailable(where: str, error: Exception) -> Exception:
    """The ``SourceUnavailable`` a store's ``error`` means (the message is the store's and the
    URL's, neither of which holds a credential), or ``error`` itself when it is not the store's
    (a reader's own, raised while it read)."""
    if isinstance(error, FileNotFoundError):
        return SourceUnavailable(f"{where}: no such bucket, folder or file.")
    if isinstance(error, PermissionError):
        return SourceUnavailable(
            f"{where}: access refused; check the credentials (AWS_ACCESS_KEY_ID, AWS_PROFILE, "
            "~/.aws) and what they may read."
        )
    # botocore's own errors (no credentials found, an endpoint it cannot reach) are not
    # OSErrors.
    store = type(error).__module__.split(".")[0] in {"botocore", "aiobotocore", "aiohttp"}
    if isinstance(error, OSError) or store:
        return SourceUnavailable(f"{where}: cannot be read: {_reason(error)}")
    return error


def _reason(error: BaseException) -> str:
    return str(error) or type(error).__name__


def _first(info: Mapping[str, Any], *keys: str) -> str:
    for key in keys:
        value = info.get(key)
        if value not in (None, "", "null"):
            return str(value).strip('"')
    return ""


def _time(info: Mapping[str, Any]) -> datetime | None:
    """A listing's modification time, in whichever of the file systems' forms it comes."""
    for key in ("LastModified", "last_modified", "mtime", "updated", "modified", "created"):
        value = info.get(key)
        if isinstance(value, datetime):
            return value if value.tzinfo else value.replace(tzinfo=UTC)
        if isinstance(value, int | float):
            return datetime.fromtimestamp(value, tz=UTC)
        if isinstance(value, str) and value:
            try:
                parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
            except ValueError:
                continue
            return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return None


def _attributes(info: Mapping[str, Any]) -> dict[str, str]:
    """The owner, content type and user metadata a listing reports, where it does (HDFS and
    local listings an owner; GCS and Azure a content type and their objects' metadata)."""
    attributes: dict[str, str] = {}
    if owner := _first(info, "owner", "Owner"):
        attributes["owner"] = owner
    if content_type := _first(info, "ContentType", "contentType", "content_type", "mimetype"):
        attributes["content_type"] = content_type
    if etag := _first(info, "ETag", "etag"):
        attributes["etag"] = etag
    user = info.get("metadata")
    if isinstance(user, Mapping):
        attributes |= {str(k).lower(): str(v) for k, v in user.items() if v is not None}
    return attributes
