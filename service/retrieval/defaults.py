"""Every tuned default of a search, each with where it was chosen.

The sections named are those of docs/benchmarks.md, "How the defaults were chosen", which give
each choice's command and figures. The paths' default weights are declared by each path
(``anchorgraph.retrieval.paths``, whose docstring says how they were chosen) and gathered here
per level. docs/development.md, "Changing the default weights", says what must pass after a
change here.
"""

from __future__ import annotations

from anchorgraph.retrieval.evidence import NoMatchRule
from anchorgraph.retrieval.fusion import Fusion
from anchorgraph.retrieval.normalise import Normalisation
from anchorgraph.retrieval.paths import CHUNK_PATH_WEIGHTS as CHUNK_PATH_WEIGHTS
from anchorgraph.retrieval.paths import DOCUMENT_PATH_WEIGHTS as DOCUMENT_PATH_WEIGHTS
from anchorgraph.retrieval.scoring import SignalWeights

# The name a search's answer gives the ranking it used when that is these defaults; a
# collection's own weights (``anchorgraph tune``) are named by the collection.
DEFAULT_RANKING = "default-v4"

# Candidates each path fetches (``k_over``): 400 beat 100 on NFCorpus by 0.0045 NDCG@10 and tied
# on SciFact, for +15 ms p50; 50 cost NFCorpus 0.0032 ("Document fusion and weights").
DEFAULT_K_OVER = 100

# Every level normalises each path's scores by their L2 norm unless a request says otherwise
# ("Document fusion and weights").
DEFAULT_NORMALISATION = Normalisation.L2

# A hybrid search of documents fuses with FLOOR_SUM (anchorgraph.retrieval.fusion): a path that
# did not find a document counts as its weakest candidate, not as 0, so a small path (TF-IDF, a
# lexical path on a corpus where words say little) cannot lift a document just by finding it
# ("Document fusion and weights": every fold of five corpora chose it).
DEFAULT_DOCUMENT_FUSION = Fusion.FLOOR_SUM

# The exponent of the lexical paths' scaling by the dense path's confidence
# (anchorgraph.retrieval.query_weights), chosen with the document weights ("Document fusion and
# weights": every fold chose 1.5); the chunk level keeps its weights as they are (0), where
# nothing was chosen.
DOCUMENT_CONFIDENCE_EXPONENT = 1.5

# Pseudo-relevance feedback is off unless asked for (`feedback`: how many top documents move the
# query vector, by `feedback_weight` of their centroid). With the document defaults chosen on five
# corpora it loses NDCG@10 on the multi-hop ones (MuSiQue -0.019) and gains on the two whose
# questions have many relevant documents (NFCorpus, SciFact: +0.005), for a second dense round
# ("Document fusion and weights"); 0.3 of the centroid from 3 documents was the best setting
# that lost on neither SciFact nor NFCorpus.
DEFAULT_FEEDBACK_WEIGHT = 0.3

# λ of the FD* rerank, chosen with `anchorgraph fd fit-authority` on the tune parts of SciFact
# train and NFCorpus dev ("FD* (λ and a_source)"): the largest λ whose NDCG@10 stays within 0.01
# of cosine's on both, where the evidence tiers' share of the top 5 about doubles.
DEFAULT_FD_LAMBDA = 0.1

# What the graph adds to the default search: links and entity bridges followed from the top hits
# where the collections hold links, nothing where they hold none (four folds of five chose this
# rule, at or above flat on every dev split: "The graph in the default search"); a hit bridges
# only where none of its links is valid ("Bridges": bridging beside every link cost HotpotQA).
DEFAULT_EXPAND_LINKS = True
DEFAULT_EXPAND_BRIDGES = True
DEFAULT_BRIDGES_WITHOUT_LINKS = False
DEFAULT_BRIDGES_BESIDE_LINKS = False

# How a supporting chunk inherits its score: the least validation of a link's landing chunk, the
# anchor chunk's FD* weight and the decay per hop, chosen on HotpotQA dev500's tune part by
# re-ranking one collected expansion run ("The expansion").
DEFAULT_EXPAND_THRESHOLD = 0.2
DEFAULT_EXPAND_FD_WEIGHT = 0.25
DEFAULT_EXPAND_DECAY = 0.95

# The expansion's query weight and the entity bridges' specificity bound, chosen on the tune
# parts of MuSiQue dev and HotpotQA dev500 ("The expansion", "Bridges").
DEFAULT_EXPAND_QUERY_WEIGHT = 0.5
DEFAULT_BRIDGE_THRESHOLD = 0.1
DEFAULT_BRIDGE_MAX_MENTIONS = 12

# Bridges read per chunk, per supporting chunk a hit may have (some of the best will be taken by
# another hit or fail the token budget): reading one per supporting chunk cost MuSiQue 0.009
# ("Bridges").
BRIDGE_FANOUT = 2

# Multi-signal document scoring's weights (anchorgraph.retrieval.scoring): docs/design.md §2's,
# summing to 1 so that the score stays in [0, 1]; S_fd is off unless a caller weighs it.
SIGNAL_WEIGHTS = SignalWeights(doc=0.25, segment=0.30, entity=0.20, triple=0.15, text=0.10, fd=0.0)

# The bars a hit's evidence is held to before the answer says it matched (anchorgraph.retrieval.
# evidence), chosen on the tune parts of five dev splits: the largest recall of "no match" calls
# with at most 1 % of answerable queries called. The folds that left one dataset out chose 0.30
# with a share of 0.6 or 0.8 on four of five, and the share of 0.8 called NFCorpus's topics of a
# word or two "no match" when it was left out, so the choice on every dataset ships ("The
# no-match bars"). The cosine is all-MiniLM-L6-v2's: with another model, choose it again
# (python -m anchorgraph.evaluation.no_match).
DEFAULT_NO_MATCH_RULE = NoMatchRule(noise_cosine=0.35, min_term_share=0.3)
