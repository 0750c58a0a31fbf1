"""Names found by their capitals, where no NER model reads the text.

Without a spaCy pipeline (``ANCHORGRAPH_SPACY_MODEL`` empty), entities would be the gazetteer's
names and the identifier patterns only, and entity bridges (``service/retrieval/expansion.py``)
would cross almost nothing. A name is most often written with capitals, in English, Portuguese
and Italian alike ("Walter Zanini", "Museu de Arte Contemporânea", "Università di Bologna"), so
a run of capitalised words is taken as a name when its document's own writing says the capitals
mean something:

- a word its document also writes in lower case is a common word ("Collection" where "the
  collection" is), and so is a function word of the three languages (spaCy's stop lists);
- a capital at the start of a line or a sentence says nothing, so a single word counts only if
  its document writes it capitalised inside a sentence somewhere;
- a span whose every word is common (a heading "Early Life") is no name.

How often a name occurs in the corpus is judged where it is used, on the live graph: a bridge
crosses only an entity few chunks mention (``mention_bound``), so a frequent capitalised word
never bridges, however the collection grows. A filter at ingest would depend on which documents
one call happens to hold.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from anchorgraph.text.identifiers import Found

NAME = "NAME"
# Bump when the rules below change: it is part of the extractor's signature, so documents are
# read again. 2: greetings and forms of address are no part of a name (``leading_non_name``).
RULES_VERSION = "2"

# A word: letters and digits, with inner apostrophes and hyphens ("O'Brien", "Saint-Exupéry").
_WORD = re.compile(r"\w+(?:['’-]\w+)*", re.UNICODE)
# Lower-case words that join the capitalised words of one name ("University of São Paulo",
# "Museu de Arte Contemporânea", "Leonardo da Vinci", "Ludwig van Beethoven").
CONNECTORS = frozenset(
    """of the for de da do das dos di del della dello delle dei degli d von van der den
    du des la le y""".split()  # noqa: SIM905 - a word list reads better as prose
)
_POSSESSIVE = ("'s", "’s")
# The words that open a letter's greeting and the forms of address written before a name, in
# English, Portuguese and Italian, compared casefolded and without a full stop ("Mr." is "mr"):
# "Dear Mr Okabe" names Okabe, and "Prezado Senhor" or "Egregio Dottore" no one. Titles that
# are part of a name by custom ("Sir Walter", "Dom Pedro", "Dona Maria") are not among them.
FORMS_OF_ADDRESS = frozenset(
    """dear prezado prezada prezados prezadas caro cara caros care querido querida estimado
    estimada gentile gentili gentilissimo gentilissima egregio egregia egregi illustrissimo
    illustrissima ilustríssimo ilustríssima exmo exma ilmo ilma spettabile
    mr mrs ms mx miss madam dr prof profª professor professora senhor senhora sr sra srta
    doutor doutora diretor diretora vossa senhoria excelência signor signora signorina sig
    sigra dott dottore dottoressa direttore direttrice vostra signoria""".split()  # noqa: SIM905
)
# Lower-case words that may open a span of NER without belonging to the name: articles, and the
# "of" of English, Portuguese and Italian ("the Tietê River", "de Coimbra", "da Milano"). The
# particles of Dutch, German and French surnames ("van Gogh", "von Neumann") are not among them.
LEADING_PARTICLES = frozenset(
    "the a an of de da do das dos di del della dello delle dei degli".split()  # noqa: SIM905
)

# After these a word starts a clause (and is capitalised whatever it is).
CLAUSE_ENDS = frozenset(".!?…:;—–")
# Skipped when looking for what comes before a word: opening quotes and brackets, list bullets.
OPENING_PUNCTUATION = frozenset("\"'“‘«([-•*")
_SKIPPED = " \t\u00a0" + "".join(sorted(OPENING_PUNCTUATION))
# Month and weekday names: English ones (the spaCy pipeline's language, for its spans too), then
# the Portuguese and Italian ones.
ENGLISH_CALENDAR_WORDS = frozenset(
    """january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday""".split()  # noqa: SIM905
)
_CALENDAR_WORDS = ENGLISH_CALENDAR_WORDS | frozenset(
    """janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro dezembro
    gennaio febbraio marzo aprile maggio giugno luglio settembre ottobre novembre
    dicembre""".split()  # noqa: SIM905
)


def leading_non_name(words: Sequence[str]) -> int:
    """How many of a span's first ``words`` are no part of the name it holds: whitespace and
    punctuation, greetings and forms of address (:data:`FORMS_OF_ADDRESS`, any case, with or
    without a full stop) and lower-case :data:`LEADING_PARTICLES`, in any order, up to the first
    other word. All of them when the span holds no name ("Dear Mr", "Prezado Senhor").

    "Dear Mr Okabe" → "Okabe"; "Gentile Signora Helena Vasconcelos" → "Helena Vasconcelos";
    "Direttrice del Museu de Arte Contemporânea" → "Museu de Arte Contemporânea"; "de Coimbra" →
    "Coimbra". A capitalised particle stays ("De Beers"), and so does a particle inside a name
    ("Universidade de Coimbra", "Leonardo da Vinci"); a surname written alone with its lower-case
    particle loses it ("de Gaulle" → "Gaulle"), the price of "de Coimbra".
    """
    skipped = 0
    for word in words:
        bare = word.strip()
        punctuation = not any(c.isalnum() for c in bare)
        address = bare.casefold().removesuffix(".") in FORMS_OF_ADDRESS
        particle = bare.islower() and bare in LEADING_PARTICLES
        if not (punctuation or address or particle):
            break
        skipped += 1
    return skipped


@cache
def function_words() -> frozenset[str]:
    """The stop words of spaCy's English, Portuguese and Italian (imported on first use)."""
    from spacy.lang.en.stop_words import STOP_WORDS as english
    from spacy.lang.it.stop_words import STOP_WORDS as italian
    from spacy.lang.pt.stop_words import STOP_WORDS as portuguese

    return frozenset(english | portuguese | italian)


@dataclass(frozen=True)
class _Word:
    start: int
    end: int
    text: str
    telling: bool  # inside a sentence, where a capital is the writer's choice

    @property
    def capitalised(self) -> bool:
        return self.text[0].isupper()

    @property
    def bare(self) -> str:
        """The word without a possessive ending ("London's" → "London")."""
        return self.text[:-2] if self.text.endswith(_POSSESSIVE) else self.text


def _words(text: str) -> list[_Word]:
    """The words of ``text``, each marked telling unless it opens the text, a line or a clause
    (opening quotes and brackets before it skipped)."""
    words: list[_Word] = []
    previous_end = 0
    for match in _WORD.finditer(text):
        before = text[previous_end : match.start()].rstrip(_SKIPPED)
        opens = not words or before.endswith("\n") or before[-1:] in CLAUSE_ENDS
        words.append(_Word(match.start(), match.end(), match.group(), telling=not opens))
        previous_end = match.end()
    return words


@dataclass(frozen=True)
class NameCasing:
    """How one document writes its words: ``lower``, the words it writes in lower case anywhere;
    ``telling``, its capitalised words seen inside a sentence."""

    lower: frozenset[str]
    telling: frozenset[str]

    @classmethod
    def of(cls, texts: Iterable[str]) -> NameCasing:
        """The casing of a document's texts (its chunks)."""
        lower: set[str] = set()
        telling: set[str] = set()
        for text in texts:
            for word in _words(text):
                if word.text.islower():
                    lower.add(word.text)
                elif word.capitalised and word.telling:
                    telling.add(word.bare)
        return cls(frozenset(lower), frozenset(telling))

    def common(self, word: str) -> bool:
        """Whether a word is a common one: written in lower case in the document, or a function
        word (any case), or a month or weekday (in English, Portuguese or Italian)."""
        folded = word.casefold()
        return (
            folded in self.lower
            or folded in function_words()
            or folded.removesuffix("s") in _CALENDAR_WORDS  # "Mondays" too
        )


def name_spans(text: str, casing: NameCasing) -> list[Found]:
    """The names in ``text``, judged by its document's ``casing``.

    A candidate is a run of capitalised words on one line (a line break ends it: a title line is
    not one name with the line under it), which may hold numbers after its first word ("Apollo
    11") and one or two lower-case :data:`CONNECTORS` between capitalised words ("Bank of the
    West"; not a lone "the": "Ask the Collection desk"). Leading function words, and common words
    where a sentence or line opens, are dropped ("The", "However", "In"); what is left is kept
    when

    - it has several words, not all of them common (:meth:`NameCasing.common`);
    - or it is one word, not all capitals (acronyms are the identifier patterns' job), not
      common, and written capitalised inside a sentence somewhere in the document.

    Args:
        text: A chunk's text.
        casing: How its document writes its words.

    Returns:
        The names, type :data:`NAME`, in order, without entity ids.
    """
    words = _words(text)
    found: list[Found] = []
    index = 0
    while index < len(words):
        if not words[index].capitalised:
            index += 1
            continue
        span = _run(text, words, index)
        index += len(span)
        named = _trimmed(span, casing)
        if named and _is_name(named, casing):
            start, end = named[0].start, named[-1].end
            end -= 2 if text[start:end].endswith(_POSSESSIVE) else 0  # "London's" is London
            found.append(Found(start, end, text[start:end], NAME))
    return found


def _run(text: str, words: Sequence[_Word], first: int) -> list[_Word]:
    """The capitalised words from ``first`` on, with numbers and connectors between them."""
    run = [words[first]]
    index = first + 1
    while index < len(words) and _joined(text, words[index - 1], words[index]):
        if words[index].capitalised or words[index].text.isdigit():
            run.append(words[index])
            index += 1
            continue
        joining = _connectors(text, words, index)
        if not joining:
            break
        run += words[index : index + len(joining) + 1]
        index += len(joining) + 1
    return run


def _connectors(text: str, words: Sequence[_Word], first: int) -> list[_Word]:
    """The connectors from ``first`` on (at most two: "of the", "van der") when a capitalised
    word follows them; none when that is a lone "the" ("Ask the Collection desk")."""
    for length in (1, 2):
        joining = words[first : first + length]
        after = first + length
        if (
            len(joining) == length
            and all(word.text in CONNECTORS for word in joining)
            and after < len(words)
            and words[after].capitalised
            and _joined(text, words[after - 1], words[after])
            and [word.text for word in joining] != ["the"]
            and all(_joined(text, a, b) for a, b in itertools.pairwise(joining))
        ):
            return list(joining)
    return []


def _joined(text: str, left: _Word, right: _Word) -> bool:
    gap = text[left.end : right.start]
    return bool(gap) and gap.isspace() and "\n" not in gap


def _trimmed(span: list[_Word], casing: NameCasing) -> list[_Word]:
    """``span`` without its leading function words, greetings and forms of address ("Dear Mr
    Okabe": :data:`FORMS_OF_ADDRESS`), the common words that open a sentence or a line
    ("However", "Museum" of a title line "Museum of …" where the text writes "museum"), and the
    connectors after them. Inside a sentence a common word keeps its capital's meaning
    ("the Museum of the Prehistory of Tuscia")."""
    start = 0
    while start < len(span) and (
        not span[start].capitalised
        or span[start].text.casefold() in function_words()
        or span[start].text.casefold() in FORMS_OF_ADDRESS
        or (casing.common(span[start].text) and not span[start].telling)
    ):
        start += 1
    return span[start:]


def _is_name(span: Sequence[_Word], casing: NameCasing) -> bool:
    names = [word for word in span if word.capitalised]
    if len(names) > 1:
        return not all(casing.common(word.text) for word in names)
    (word,) = names
    return (
        not word.text.isupper()
        and len(word.text) > 1
        and not casing.common(word.bare)
        and word.bare in casing.telling
    )
