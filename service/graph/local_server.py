"""The project's own Neo4j Community server, assembled from Maven Central and run on loopback.

No Docker and no tarball: ``org.neo4j:neo4j`` (the server entry point, which pulls the web server
and Bolt) and ``org.neo4j.client:neo4j-browser`` are resolved by Maven into a jar cache outside the
checkout, and the server runs from those jars with a ``neo4j.conf`` this module writes.

We start ``org.neo4j.server.CommunityEntryPoint`` directly rather than through Neo4j's bootloader,
so the JVM flags the bootloader would derive from ``neo4j.conf`` (heap, ``--add-opens``) are given
here (source: Neo4j 5.x, ``org.neo4j.server.startup.BootloaderOsAbstraction`` in neo4j/neo4j).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from anchorgraph.errors import LocalServerError
from anchorgraph.settings import Settings

# The driver is imported where a server is started or its indexes read: `anchorgraph neo4j status`,
# `stop` and `password` need it not, and importing it was most of their time.
if TYPE_CHECKING:
    from anchorgraph.graph.gateway import Graph

_ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"
# JVM options through which a user chooses class sharing themselves (LocalNeo4j's class archive).
_CLASS_SHARING_OPTIONS = ("-Xshare", "SharedArchiveFile", "ArchiveClassesAtExit")
_ADMIN_TOOL = "org.neo4j.cli.AdminTool"
# The JVM options Neo4j's own launcher adds (5.x default neo4j.conf); --add-opens java.nio is
# needed for native vector index population on newer JDKs.
_JVM_OPTIONS = (
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    # The Lucene vector code uses the incubating Vector API when it is present.
    "--add-modules=jdk.incubator.vector",
    "-Dlog4j2.disable.jmx=true",
    "-Dfile.encoding=UTF-8",
)


# Keep each vector index in few Lucene segments. A vector query walks one HNSW graph per
# segment, each asked for all k neighbours, so its cost grows with the number of segments more
# than with the number of vectors. Neo4j's defaults (internal settings, LuceneSettings in
# neo4j-lucene-index) favour write speed: population flushes small segments and never merges
# them, and transactional writes merge only fifty segments at a time. Here population buffers
# 256 MB and merges pairwise, and later writes merge pairwise too, as Neo4j's other Lucene
# indexes do (lucene.merge_factor=2). Measured (docs/benchmarks.md, "Server settings"): 100k
# chunks populated into 20 segments took 16 ms a dense query, into one 4 ms (population 214 s
# instead of 72 s, once); SciFact ingested through transactions leaves one to four segments
# with these settings and 44 with Neo4j's, and the ingest, bound by the embedding model, takes
# no longer. The population buffer grows with the heap (population_buffer_mb): a million
# 384-dimension chunks fill three 256 MB segments, and the pairwise merges that follow
# re-insert 690,000 and then a million vectors, most of a two-hour build (docs/benchmarks.md,
# "A million chunks against 100,000").
_VECTOR_INDEX_SEGMENTS = {
    "internal.dbms.index.vector.population_ram_buffer_size": "256",
    "internal.dbms.index.vector.population_merge_factor": "2",
    "internal.dbms.index.vector.standard_merge_factor": "2",
}
_MIN_POPULATION_BUFFER_MB = 256
_HEAP_UNITS_MB = {"k": 1 / 1024, "m": 1, "g": 1024, "t": 1024 * 1024}


def population_buffer_mb(heap: str) -> int:
    """The RAM buffer (MB) of one vector index's population: an eighth of ``heap`` (a JVM size,
    "2g", "4096m"), at least 256 MB.

    ``buffer = max(256, heap_mb / 8)``: Neo4j populates two indexes at a time, so the buffers
    take a quarter of the heap at most; the default 2 GB heap keeps 256 MB, and an 8 GB heap
    builds a million 384-dimension vectors into one segment (~770 bytes a vector were buffered).
    """
    size = heap.strip().lower()
    unit = size[-1] if size[-1:] in _HEAP_UNITS_MB else ""
    number = size[: len(size) - len(unit)]
    if not number.isdigit():
        raise ValueError(f"not a JVM memory size: {heap!r} (e.g. 2g, 4096m)")
    megabytes = int(number) * _HEAP_UNITS_MB[unit] if unit else int(number) / 2**20
    return max(_MIN_POPULATION_BUFFER_MB, int(megabytes // 8))


def vector_index_settings(heap: str) -> dict[str, str]:
    """``_VECTOR_INDEX_SEGMENTS`` with the population buffer of ``heap``."""
    buffer = {
        "internal.dbms.index.vector.population_ram_buffer_size": str(population_buffer_mb(heap))
    }
    return _VECTOR_INDEX_SEGMENTS | buffer


# A statement past its timeout (a request's deadline, service/graph/deadline.py) is stopped
# when the server next checks, every 2 s by default: a 5 s deadline is kept at 5.8 s. Checked
# every 100 ms, a cut statement ends when its request answers.
_TRANSACTION_MONITOR = {"db.transaction.monitor.check.interval": "100ms"}


# Plans made once per statement, ready when first used. Neo4j 5 keys a cached plan on the sizes
# of list and string parameters as well as their types (bucketed;
# `internal.cypher.use_parameter_size`), so a query with one term more, one entity fewer or a
# shorter text than any before is planned again; and it compiles a plan's expressions only once
# they are hot (the 11th use; `internal.cypher.expression_engine`), ~40 ms on that use. After the
# warm-up, first searches on the sample corpus take 40-395 ms with Neo4j's defaults ("AG-2048":
# 395 ms), 28-47 ms with one plan per statement compiled at once (docs/benchmarks.md, "Server
# settings"). Every statement seeks by key or index first, so the sizes never change a plan worth
# its planning, and the latency on MuSiQue dev once warm is the same either way.
_PLAN_CACHE = {
    "internal.cypher.use_parameter_size": "false",
    "internal.cypher.expression_engine": "COMPILED",
}


def browser_settings(settings: Settings) -> dict[str, str]:
    """Neo4j Browser ready on first login: after connecting it turns off its crash reports and
    usage statistics (Browser's own settings, set with its ``:config`` command), applies the
    graph's style and plays the guide, both served by the API (``service/api/browser.py``),
    whose host Browser must be allowed to fetch from (it checks host names only, not ports)."""
    host, api = settings.api_host_here, settings.api_url
    return {
        "browser.post_connect_cmd": (
            'config {"allowCrashReports": false, "allowUserStats": false}; '
            f"style {api}/browser/style.grass; play {api}/browser/guide.html"
        ),
        "browser.remote_content_hostname_whitelist": ",".join(
            dict.fromkeys((host, "127.0.0.1", "localhost"))
        ),
        # No product analytics from Browser, and no banner asking for them (the operations
        # manual's configuration settings: client.allow_telemetry). Browser reads the setting
        # through dbms.clientConfig(); the older browser.allow_outgoing_connections is no
        # setting of 5.26 any more (its strict validation refuses it), and the test of Browser
        # checks that no request leaves loopback without it.
        "client.allow_telemetry": "false",
    }


@dataclass(frozen=True)
class ServerStatus:
    running: bool
    pid: int | None
    bolt_uri: str  # where it listens: while it runs, the ports it was started with
    browser_url: str
    home: Path
    # The settings' Bolt and Browser addresses, when they are not the ones it runs with (a
    # port changed since its start): where every other command looks for it.
    configured: tuple[str, str] | None = None


def _bolt_uri(port: int) -> str:
    return f"bolt://127.0.0.1:{port}"


def _browser_url(port: int) -> str:
    return f"http://127.0.0.1:{port}/browser/"


class LocalNeo4j:
    """Install, start, stop and inspect the local server described by ``settings``."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.home = settings.neo4j_home
        self.lib_dir = settings.cache_dir / f"neo4j-{settings.neo4j_version}" / "lib"
        # The server this object started, kept so that stop() can reap it (no zombie) and
        # Python does not warn about a child still running when the handle is dropped.
        self._process: subprocess.Popen[bytes] | None = None

    # --- paths --------------------------------------------------------------------------------
    @property
    def conf_dir(self) -> Path:
        return self.home / "conf"

    @property
    def pid_file(self) -> Path:
        return self.home / "run" / "anchorgraph-neo4j.pid"

    @property
    def password_file(self) -> Path:
        return self.home / "password"

    @property
    def console_log(self) -> Path:
        return self.home / "logs" / "console.log"

    @property
    def bolt_uri(self) -> str:
        return _bolt_uri(self.settings.neo4j_bolt_port)

    @property
    def browser_url(self) -> str:
        return _browser_url(self.settings.neo4j_http_port)

    def vector_index_segments(self, graph: Graph) -> dict[str, int]:
        """The Lucene segments on disk of each vector index of this server, by index name (one
        ``.si`` file each; writes Lucene still buffers in memory are not counted, so a small
        index can show 0). A vector query searches every segment apart: see
        _VECTOR_INDEX_SEGMENTS."""
        from anchorgraph.graph.schema import index_states

        index_root = self.home / "data" / "databases" / graph.database / "schema" / "index"
        return {
            state.name: sum(1 for _ in index_root.glob(f"*/{state.id}/*/*.si"))
            for state in index_states(graph)
            if state.type == "VECTOR"
        }

    # --- install ------------------------------------------------------------------------------
    def is_installed(self) -> bool:
        return (self.lib_dir / ".complete").exists()

    def install(self) -> Path:
        """Resolve the server and Browser jars into the cache (once); return the lib folder."""
        if self.is_installed():
            return self.lib_dir
        mvn = shutil.which("mvn")
        if mvn is None:
            raise LocalServerError(
                "Maven ('mvn') is not on PATH; it is needed once to fetch Neo4j "
                f"{self.settings.neo4j_version} from Maven Central. Install Maven, or set "
                "ANCHORGRAPH_NEO4J_URI to use an existing Neo4j server."
            )
        self.java()  # fail early, before a download, when there is no usable Java
        work = self.lib_dir.parent
        partial = work / "lib.partial"
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        pom = work / "pom.xml"
        pom.write_text(
            resources.files("anchorgraph.graph").joinpath("neo4j-server.pom.xml").read_text()
        )
        command = [
            mvn, "-q", "-B", "-f", str(pom), "dependency:copy-dependencies",
            f"-Dneo4j.version={self.settings.neo4j_version}",
            f"-Dbrowser.version={self.settings.neo4j_browser_version}",
            "-DincludeScope=runtime", f"-DoutputDirectory={partial}",
        ]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
            raise LocalServerError(f"Maven could not fetch Neo4j:\n{tail}")
        (partial / ".complete").write_text(self.settings.neo4j_version)
        shutil.rmtree(self.lib_dir, ignore_errors=True)
        partial.rename(self.lib_dir)  # the cache is either complete or absent, never half-filled
        return self.lib_dir

    # --- start / stop / status ----------------------------------------------------------------
    def status(self) -> ServerStatus:
        """Whether it runs, and where: a running server's ports are those of the
        ``neo4j.conf`` it was started with, whatever the settings say now."""
        pid = self._running_pid()
        started = self._started_ports() if pid is not None else None
        if started is None or started == (
            self.settings.neo4j_bolt_port,
            self.settings.neo4j_http_port,
        ):
            return ServerStatus(pid is not None, pid, self.bolt_uri, self.browser_url, self.home)
        bolt, http = started
        return ServerStatus(
            True,
            pid,
            _bolt_uri(bolt),
            _browser_url(http),
            self.home,
            configured=(self.bolt_uri, self.browser_url),
        )

    def _started_ports(self) -> tuple[int, int] | None:
        """The Bolt and HTTP ports of the ``neo4j.conf`` the server was started with."""
        conf = self.conf_dir / "neo4j.conf"
        if not conf.exists():
            return None
        lines = dict(line.split("=", 1) for line in conf.read_text().splitlines() if "=" in line)
        try:
            bolt, http = (
                int(lines[f"server.{kind}.listen_address"].rsplit(":", 1)[1])
                for kind in ("bolt", "http")
            )
        except (KeyError, ValueError, IndexError):
            return None
        return bolt, http

    def password(self) -> str:
        """The password clients use: from settings, else the stored one, else a new one (0600)."""
        if self.settings.neo4j_password is not None:
            return self.settings.neo4j_password.get_secret_value()
        if self.password_file.exists():
            return self.password_file.read_text().strip()
        self.home.mkdir(parents=True, exist_ok=True)
        generated = secrets.token_urlsafe(18)
        fd = os.open(self.password_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(generated + "\n")
        return generated

    def client_environment(self) -> dict[str, str]:
        """The variables that point another anchorgraph process at the settings' server, its
        password among them: for a child process's environment, never for a log."""
        return {
            "ANCHORGRAPH_NEO4J_URI": self.settings.bolt_uri,
            "ANCHORGRAPH_NEO4J_PASSWORD": self.password(),
            "ANCHORGRAPH_NEO4J_DATABASE": self.settings.neo4j_database,
        }

    def start(self) -> ServerStatus:
        """Start the server and wait until Bolt accepts our credentials and the HTTP port
        (Neo4j Browser) listens.

        Raises:
            LocalServerError: already running, a port is taken, or the server did not come up.
        """
        if (pid := self._running_pid()) is not None:
            raise LocalServerError(
                f"The local Neo4j is already running (pid {pid}, {self.bolt_uri}); "
                "'anchorgraph neo4j stop' stops it."
            )
        for port in (self.settings.neo4j_bolt_port, self.settings.neo4j_http_port):
            if _port_in_use(port):
                raise LocalServerError(
                    f"Port {port} on 127.0.0.1 is taken by another program; choose others with "
                    "ANCHORGRAPH_NEO4J_BOLT_PORT / ANCHORGRAPH_NEO4J_HTTP_PORT."
                )
        self.install()
        for sub in ("conf", "data", "logs", "run", "plugins"):
            (self.home / sub).mkdir(parents=True, exist_ok=True)
        self._write_config()
        password = self.password()
        if not (self.home / "data" / "dbms").exists():
            self._set_initial_password(password)

        java = self.java()
        own_options = shlex.split(self.settings.neo4j_jvm_options)
        command = [
            str(java), f"-Xms{self.settings.neo4j_heap}", f"-Xmx{self.settings.neo4j_heap}",
            *_JVM_OPTIONS, *self._class_archive_options(java, own_options), *own_options,
            "-cp", f"{self.home / 'plugins'}/*:{self.lib_dir}/*",
            _ENTRY_POINT, f"--home-dir={self.home}", f"--config-dir={self.conf_dir}",
            "--console-mode",
        ]  # fmt: skip
        with self.console_log.open("ab") as log:
            # A session of its own: Ctrl-C in the terminal that started us does not kill Neo4j,
            # and 'stop' can signal the whole process group.
            process = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                cwd=self.home, start_new_session=True,
            )  # fmt: skip
        self._process = process
        self.pid_file.write_text(str(process.pid))
        try:
            self._wait_for_bolt(process, password)
        except BaseException:
            self.stop()
            raise
        return self.status()

    def stop(self, timeout_s: float = 60.0) -> bool:
        """Stop the server (SIGTERM, then SIGKILL after ``timeout_s``); False if none ran."""
        pid = self._running_pid()
        if pid is None:
            self.pid_file.unlink(missing_ok=True)
            return False
        os.killpg(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout_s
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        if _alive(pid):
            os.killpg(pid, signal.SIGKILL)
            while _alive(pid):
                time.sleep(0.1)
        else:
            self._keep_class_archive()  # written as it exited, whole: it was not killed
        if self._process is not None:
            self._process.wait()
            self._process = None
        self.pid_file.unlink(missing_ok=True)
        return True

    # --- the class archive --------------------------------------------------------------------
    @property
    def class_archives(self) -> Path:
        return self.lib_dir.parent / "class-archives"

    def class_archive(self, java: Path) -> Path:
        """The class archive (AppCDS) of ``java`` running this server's jars, in the jar cache:
        one per Java and set of jars (the plugins included), since the JVM accepts an archive
        only for the JVM and the class path it was made with."""
        jars = sorted(jar.name for jar in self.lib_dir.glob("*.jar"))
        jars += sorted(jar.name for jar in (self.home / "plugins").glob("*.jar"))
        java_file = java.resolve()
        key = "\n".join((str(java_file), str(java_file.stat().st_mtime_ns), *jars))
        return self.class_archives / f"{_digest(key)}.jsa"

    def _class_archive_options(self, java: Path, own_options: list[str]) -> list[str]:
        """Start from the class archive when there is one, else write it as the server exits.

        A JVM loading Neo4j's classes from jars spends most of its start reading and verifying
        them; mapped from an archive an earlier run made (a dynamic archive, JDK 13+), the
        server answers in about two thirds of the time (docs/benchmarks.md, "Start-up of the
        commands"). An archive the JVM does not accept is ignored with a warning in
        console.log, and the server starts as it would without one. A user's own options that
        choose class sharing (``-Xshare:off``, an archive) are left alone."""
        if any(word in option for option in own_options for word in _CLASS_SHARING_OPTIONS):
            return []
        archive = self.class_archive(java)
        if archive.exists():
            return [f"-XX:SharedArchiveFile={archive}"]
        self.class_archives.mkdir(parents=True, exist_ok=True)
        writing = self._class_archive_writing(archive.stem)
        writing.unlink(missing_ok=True)  # left by a server killed as it wrote
        return [f"-XX:ArchiveClassesAtExit={writing}"]

    def _class_archive_writing(self, stem: str) -> Path:
        """Where this home's server writes the archive ``stem`` as it exits: a file per home
        (one server runs in a home at a time), renamed once the server has exited whole."""
        return self.class_archives / f"{stem}.{self._home_tag}.part"

    @property
    def _home_tag(self) -> str:
        return _digest(str(self.home.resolve()))

    def _keep_class_archive(self) -> None:
        """Make the archive this home's server wrote as it exited the one later starts use."""
        for writing in self.class_archives.glob(f"*.{self._home_tag}.part"):
            if writing.stat().st_size > 0:
                writing.replace(self.class_archives / f"{writing.name.split('.')[0]}.jsa")
            writing.unlink(missing_ok=True)

    # --- internals ----------------------------------------------------------------------------
    def _running_pid(self) -> int | None:
        try:
            pid = int(self.pid_file.read_text().strip())
        except (FileNotFoundError, ValueError):
            return None
        return pid if _alive(pid) and _is_neo4j(pid) else None

    def java(self) -> Path:
        """The Java 17+ runtime the server (and neo4j-admin, for bulk imports) runs on.

        Raises:
            LocalServerError: no Java, or one older than 17.
        """
        java_home = self.settings.java_home or (
            Path(os.environ["JAVA_HOME"]) if os.environ.get("JAVA_HOME") else None
        )
        java = java_home / "bin" / "java" if java_home else shutil.which("java")
        if java is None or not Path(java).exists():
            raise LocalServerError(
                "No Java runtime found: install Java 17 or 21, or set JAVA_HOME."
            )
        done = subprocess.run([str(java), "-version"], capture_output=True, text=True, check=False)
        version = _java_feature_version(done.stderr)
        if version is None or version < 17:
            raise LocalServerError(
                f"Neo4j {self.settings.neo4j_version} needs Java 17 or 21; {java} reports: "
                f"{done.stderr.strip().splitlines()[0] if done.stderr.strip() else 'nothing'}"
            )
        return Path(java)

    def _write_config(self) -> None:
        s = self.settings
        lines = {
            "server.default_listen_address": "127.0.0.1",
            "server.default_advertised_address": "127.0.0.1",
            "server.bolt.enabled": "true",
            "server.bolt.listen_address": f"127.0.0.1:{s.neo4j_bolt_port}",
            "server.bolt.advertised_address": f"127.0.0.1:{s.neo4j_bolt_port}",
            "server.http.enabled": "true",
            "server.http.listen_address": f"127.0.0.1:{s.neo4j_http_port}",
            "server.http.advertised_address": f"127.0.0.1:{s.neo4j_http_port}",
            "server.https.enabled": "false",
            "server.http_enabled_modules": "TRANSACTIONAL_ENDPOINTS,UNMANAGED_EXTENSIONS,"
            "BROWSER,QUERY_API_ENDPOINTS",
            "dbms.security.auth_enabled": "true",
            "server.memory.heap.initial_size": s.neo4j_heap,
            "server.memory.heap.max_size": s.neo4j_heap,
            "server.memory.pagecache.size": s.neo4j_pagecache,
            "server.directories.data": str(self.home / "data"),
            "server.directories.logs": str(self.home / "logs"),
            "server.directories.run": str(self.home / "run"),
            "server.directories.plugins": str(self.home / "plugins"),
            "server.directories.import": str(self.home / "import"),
            "dbms.usage_report.enabled": "false",
            "server.config.strict_validation.enabled": "true",
            **vector_index_settings(s.neo4j_heap),
            **_TRANSACTION_MONITOR,
            **_PLAN_CACHE,
            **browser_settings(s),
        }
        text = "# Written by anchorgraph from its settings; edits are overwritten on start.\n"
        text += "".join(f"{key}={value}\n" for key, value in lines.items())
        (self.conf_dir / "neo4j.conf").write_text(text)

    def _set_initial_password(self, password: str) -> None:
        env = {**os.environ, "NEO4J_HOME": str(self.home), "NEO4J_CONF": str(self.conf_dir)}
        done = subprocess.run(
            [str(self.java()), "-cp", f"{self.lib_dir}/*", _ADMIN_TOOL,
             "dbms", "set-initial-password", "--", password],
            capture_output=True, text=True, env=env, cwd=self.home, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            raise LocalServerError(f"Could not set the initial password: {done.stderr.strip()}")

    def _wait_for_bolt(self, process: subprocess.Popen[bytes], password: str) -> None:
        from neo4j import GraphDatabase
        from neo4j.exceptions import AuthError, ServiceUnavailable

        deadline = time.monotonic() + self.settings.neo4j_start_timeout_s
        with GraphDatabase.driver(self.bolt_uri, auth=(self.settings.neo4j_user, password)) as drv:
            while True:
                if process.poll() is not None:
                    raise LocalServerError(
                        f"Neo4j exited with code {process.returncode} while starting:\n"
                        f"{_tail(self.console_log)}"
                    )
                try:
                    drv.verify_connectivity()
                    # Bolt comes up about a second before the HTTP port (Neo4j Browser).
                    if _port_in_use(self.settings.neo4j_http_port):
                        return
                except AuthError as error:
                    raise LocalServerError(
                        f"Neo4j refused the password ({error.message}). The data in {self.home} "
                        "was created with another one: set ANCHORGRAPH_NEO4J_PASSWORD to it, "
                        "or remove that folder to start afresh."
                    ) from error
                except (ServiceUnavailable, OSError):
                    pass
                if time.monotonic() > deadline:
                    raise LocalServerError(
                        f"Neo4j did not answer on {self.bolt_uri} and {self.browser_url} within "
                        f"{self.settings.neo4j_start_timeout_s:.0f} s:\n{_tail(self.console_log)}"
                    )
                # Every start waits for this: a poll every 0.5 s returned 0.3-0.45 s after the
                # HTTP port opened (4.1-4.3 s into a start here); a refused poll costs little.
                time.sleep(0.1)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie answers kill(0) but is gone; /proc tells the difference on Linux.
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(") ", 1)[-1].startswith("Z"))


def _is_neo4j(pid: int) -> bool:
    """Guard against a stale pid file whose number now belongs to another program."""
    cmdline = Path(f"/proc/{pid}/cmdline")
    return not cmdline.exists() or _ENTRY_POINT.encode() in cmdline.read_bytes()


def _port_in_use(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _java_feature_version(version_banner: str) -> int | None:
    """17 from 'openjdk version "17.0.15" 2025-04-15'; 8 from '"1.8.0_392"'."""
    for line in version_banner.splitlines():
        if "version" in line and '"' in line:
            number = line.split('"')[1]
            parts = number.split(".")
            major = parts[1] if parts[0] == "1" and len(parts) > 1 else parts[0]
            return int(major.split("-")[0]) if major.split("-")[0].isdigit() else None
    return None


def _tail(path: Path, lines: int = 20) -> str:
    if not path.exists():
        return "(no log)"
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now (for tests and tools)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def throwaway_settings(home: Path, *, heap: str, pagecache: str) -> Settings:
    """Settings of a private local Neo4j in ``home`` on free ports, ignoring any ``.env``
    (for the test suite and the benchmark scripts, which start and remove their own)."""
    return Settings(
        _env_file=None,
        neo4j_home=home,
        neo4j_bolt_port=free_port(),
        neo4j_http_port=free_port(),
        neo4j_heap=heap,
        neo4j_pagecache=pagecache,
    )
