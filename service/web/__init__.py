"""Files the API serves to people, read through ``importlib.resources`` and shipped in the wheel
with the code (hatch packages every file under ``anchorgraph``):

* ``static/``: the search page at ``/`` (plain HTML, CSS and JavaScript; no build step, no CDN,
  so it works offline), served by ``anchorgraph.api.web``;
* ``browser/``: Neo4j Browser's style for this graph, served by ``anchorgraph.api.browser`` beside
  the guide it generates from ``cypher/browser/``.

No code lives here.
"""
