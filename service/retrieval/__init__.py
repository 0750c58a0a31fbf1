"""Retrieval: candidate paths, score normalisation and fusion, multi-signal scoring.

The modules here that hold the maths are pure functions over plain floats, with no database or
model access, so they can be tested exhaustively by hand:

* ``normalise``: put each candidate path's scores on one scale (min-max, L2, z-score).
* ``fusion``: combine the paths into one score per candidate (weighted sum, max, mean, RRF),
  keeping every path's contribution and rank.
* ``scoring``: the five-signal document score (S_doc, S_segment, S_entity, S_triple, S_text).
* ``lucene``: turn user text into a Lucene query that the full-text index cannot reject.

Import the submodules directly; this package deliberately imports nothing.
"""
