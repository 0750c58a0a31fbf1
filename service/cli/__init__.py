"""The ``anchorgraph`` command line: ``main`` builds the program and registers every command;
each other module is one group of commands (``database``: ``neo4j`` and ``db``; ``ingest``:
``ingest`` and ``sync``; ``collections``, ``search``, ``fd``, ``audit``, ``graph``, ``tune``,
``eval``; ``serve``: ``serve``, ``mcp`` and ``run``), printing with ``output``.

Each command loads only what it uses, imported when it runs (``anchorgraph.cli.output``): the
help imports no driver, model or settings; a command on the graph alone (``fd``,
``collections``, ``audit length``) opens the connection without a model; ``db init`` reads the
model's dimension from its files; ``search`` asks a running API (``--api``) or embeds its query
with the model's checked ONNX export, without torch (``anchorgraph.runtime.query_embedder``), as
``audit coverage|blindness``, ``graph link-titles`` and ``mcp`` embed their texts. ``ingest``
and ``sync`` load a model only once a file is new or changed, and then that export too where one
is recorded (``anchorgraph.runtime.ModelWhenNeeded``). The whole model loads in ``run`` while
Neo4j starts, and in ``eval`` and the API server as they start.
"""
