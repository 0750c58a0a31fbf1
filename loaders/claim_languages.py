"""The words behind the claim rules in Portuguese and Italian (``anchorgraph.loaders.claims`` builds
the rules from them; English has its own there).

Each language gives: its hedges, soft ("talvez", "forse": the claim counts less) and
speculative ("supõe-se", "si ritiene": the claim is dropped); its vague quantifiers; the phrases
of a comparison; "per cent" in words; its month names, for dates written as archives write them
("11 de março de 1978", "15 settembre 1975"; "11/03/1978" is read in every language); the small
words inside a name ("Museu de Arte Contemporânea", "Galleria della Spiga"); and how to tell
that a sentence has a verb (auxiliaries, and the endings of past tenses, participles and
gerunds), without which it is a fragment. Numbers with a decimal comma and thousands dots
("3,5 %", "Cr$ 1.850.000,00") are read by the shared number pattern.

Letters in an archive are written in the first person ("recebi o teu postal"), so the English
rule that drops first-person anecdotes does not apply to these languages; nor does the English
splitting of compound sentences at ", and" (here only "; " splits, when both sides have a verb).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ClaimWords:
    """One language's words for the claim rules; each pattern is matched in lowercase."""

    code: str  # ISO 639-1
    soft_hedges: str
    strong_hedges: str
    vague_quantifiers: str
    comparison: str
    per_cent: str
    months: str
    name_joiners: str  # the small words inside a capitalised name
    auxiliaries: str  # words, space-separated
    verb_endings: str  # of words of four letters or more, space-separated


PORTUGUESE = ClaimWords(
    code="pt",
    soft_hedges=(
        r"talvez|possivelmente|provavelmente|aparentemente|supostamente|presumivelmente"
        r"|pode(?:m|ria|riam)?\s+ter|parec(?:e|em|ia|iam)|é\s+provável|deve\s+ter"
    ),
    strong_hedges=(
        r"supõe-se|acredita-se|hipótese|especula\w*|é\s+possível\s+que"
        r"|não\s+(?:está|é|ficou)\s+claro|permanece\s+(?:incerto|desconhecido)"
    ),
    vague_quantifiers=(
        r"alguns|algumas|muitos|muitas|vários|várias|frequentemente|às\s+vezes|geralmente"
        r"|comumente|relativamente|certos|certas|diversos|diversas"
    ),
    comparison=(
        r"(?:mais|menos)\s+(?:\S+\s+)?do\s+que|(?:maior|menor|melhor|pior)(?:es)?\s+(?:do\s+)?que"
        r"|em\s+comparação\s+com|comparad[oa]s?\s+(?:com|a)|\bversus\b"
        r"|(?:aument|reduz|diminu|cresc|ca)\w*\s+(?:\S+\s+){0,4}?(?:em|de|para)\s+\d"
    ),
    per_cent=r"por\s+cento",
    months=(
        r"janeiro|fevereiro|março|marco|abril|maio|junho|julho|agosto|setembro|outubro"
        r"|novembro|dezembro"
    ),
    name_joiners=r"de|da|do|dos|das|e",
    auxiliaries=(
        "é são foi foram era eram será serão seria está estão estava esteve tem têm tinha "
        "teve tiveram há houve havia pode podem deve devem fica ficou vai vão fez fizeram deu "
        "deram pôs veio disse"
    ),
    verb_endings=(
        "ou ava avam aram eram iram ia iam eu iu ará erá irá ado ada ados adas ido ida idos "
        "idas ando endo indo amos emos imos ei ce cem ta tam"
    ),
)

ITALIAN = ClaimWords(
    code="it",
    soft_hedges=(
        r"forse|probabilmente|possibilmente|presumibilmente|apparentemente|sembra(?:no)?"
        r"|pare|potrebbe(?:ro)?\s+essere|è\s+probabile"
    ),
    strong_hedges=(
        r"si\s+ritiene|si\s+suppone|si\s+crede|ipotesi|specula\w*|è\s+possibile\s+che"
        r"|non\s+è\s+chiaro|resta\s+(?:incerto|sconosciuto)"
    ),
    vague_quantifiers=(
        r"alcuni|alcune|molti|molte|vari|varie|spesso|talvolta|a\s+volte|generalmente"
        r"|comunemente|relativamente|certi|certe|diversi|diverse"
    ),
    comparison=(
        r"(?:più|meno)\s+(?:\S+\s+)?di\b|(?:maggiore|minore|migliore|peggiore)\s+di\b"
        r"|rispetto\s+(?:a|al|alla|ai|agli|alle)\b|in\s+confronto\s+(?:a|con)\b|\bversus\b"
        r"|(?:aument|ridott|ridus|diminu|cresc|cal)\w*\s+(?:\S+\s+){0,4}?(?:del|di|a)\s+\d"
    ),
    per_cent=r"per\s+cento",
    months=(
        r"gennaio|febbraio|marzo|aprile|maggio|giugno|luglio|agosto|settembre|ottobre"
        r"|novembre|dicembre"
    ),
    name_joiners=r"di|del|della|dei|degli|delle|e",
    auxiliaries=(
        "è sono era erano fu furono sarà saranno sarebbe ha hanno aveva avevano ebbe può "
        "possono deve devono sta stanno fa fanno fece diede venne disse"
    ),
    verb_endings=(
        "ò ato ata ati ate ito ita iti ite uto uta avano ava eva evano iva ivano erà irà "
        "arono erono irono ando endo iamo ono"
    ),
)

CLAIM_WORDS = {words.code: words for words in (PORTUGUESE, ITALIAN)}
"""The languages with claim rules of their own, by ISO 639-1 code; any other is read as English."""
