"""Title linking: exact, case-aware, whole-word, longest-first mentions of other documents' titles
become links; ambiguous, common and own titles do not; the chunker resolves what it makes."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from anchorgraph.loaders.chunking import chunk_document
from anchorgraph.loaders.model import RawLink, SourceDocument
from anchorgraph.loaders.title_links import (
    TITLE_LINK_MARK,
    ChunkSpan,
    SkippedTitles,
    SkipReason,
    TitleIndex,
    is_title_link,
    link_corpus,
    link_titles,
    place_links,
    title_link_href,
)


def words(text: str) -> int:
    return len(text.split())


def doc(doc_id: str, text: str, title: str = "", **kwargs: object) -> SourceDocument:
    return SourceDocument(id=doc_id, text=text, title=title, **kwargs)  # type: ignore[arg-type]


def index(titles: Mapping[str, str]) -> TitleIndex:
    return TitleIndex.build(titles)


def anchors(document: SourceDocument) -> list[tuple[str, str]]:
    """(anchor text, target id) of the document's title links, in order."""
    return [
        (link.anchor_text, link.href.removeprefix("/").removesuffix(TITLE_LINK_MARK))
        for link in document.links
        if is_title_link(link)
    ]


TITLES = {
    "paris": "Paris",
    "nyc": "New York City",
    "ny": "New York",
    "marathon": "New York City Marathon",
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("She lived in Paris.", [("Paris", "paris")]),
        ("She lived in paris, then PARIS.", []),  # case-aware
        ("A Parisian café.", []),  # not inside a longer word
        ("Paris's museums.", [("Paris", "paris")]),
        ("A Paris-based band.", [("Paris", "paris")]),
        ("Paris2024 and Paris_old.", []),  # digits and underscores are word characters
        ("He moved to New York City.", [("New York City", "nyc")]),  # longest first
        ("New York, not New York City.", [("New York", "ny"), ("New York City", "nyc")]),
        ("She ran the New York City Marathon.", [("New York City Marathon", "marathon")]),
        ("New Yorker magazine.", []),
    ],
)
def test_mentions_are_exact_case_aware_whole_words_longest_first(
    text: str, expected: list[tuple[str, str]]
) -> None:
    linked = link_titles(doc("source", text, "Source Notes"), index(TITLES))
    assert anchors(linked) == expected


def test_spans_are_the_anchor_text_and_hrefs_resolve_to_the_target() -> None:
    document = doc("guides/trip.md", "From Paris to New York City and back to Paris.", "Trip")
    linked = link_titles(document, index(TITLES))
    assert [(link.start, link.end) for link in linked.links] == [(5, 10), (14, 27)]
    for link in linked.links:
        assert linked.text[link.start : link.end] == link.anchor_text
    # Rooted: resolved from the ingest root, not from the linking document's folder.
    assert [link.href for link in linked.links] == ["/paris?link=title", "/nyc?link=title"]


def test_one_link_per_target_the_first_mention() -> None:
    linked = link_titles(doc("source", "Paris first. Then Paris again. Paris!"), index(TITLES))
    assert [(link.start, link.anchor_text) for link in linked.links] == [(0, "Paris")]


def test_self_mentions_are_not_links() -> None:
    paris = doc("paris", "Paris is the capital of France.", "Paris")
    assert link_titles(paris, index({**TITLES, "france": "France"})).links == (
        RawLink("/france?link=title", "France", 24, 30),
    )


def test_titles_inside_the_documents_own_title_are_not_linked() -> None:
    """The marathon's text naming itself must not link the city inside its name, even when its
    own title cannot link (here: shared with another document, so ambiguous)."""
    text = "The New York City Marathon is run in New York City."
    marathon = doc("marathon", text, "New York City Marathon")
    assert anchors(link_titles(marathon, index(TITLES))) == [("New York City", "nyc")]
    ambiguous = {**TITLES, "marathon-2": "New York City Marathon"}
    assert anchors(link_titles(marathon, index(ambiguous))) == [("New York City", "nyc")]


def test_existing_links_are_not_overlapped_and_their_targets_not_linked_again() -> None:
    text = "See Paris and New York City, then France."
    ny, france = text.index("New York"), text.index("France")
    written = (
        RawLink("new-york.md", "New York", ny, ny + 8),  # overlaps the mention "New York City"
        RawLink("/france?x=1", "France", france, france + 6),  # already links to "france"
    )
    titles = {**TITLES, "france": "France"}
    linked = link_titles(doc("source", text, links=written), index(titles))
    assert linked.links[:2] == written
    assert anchors(linked) == [("Paris", "paris")]


def test_linking_again_adds_nothing() -> None:
    once = link_titles(doc("source", "Paris, New York and Paris."), index(TITLES))
    assert link_titles(once, index(TITLES)) is once


def test_documents_without_mentions_are_returned_as_they_are() -> None:
    document = doc("source", "Nothing to see here.")
    assert link_titles(document, index(TITLES)) is document


@pytest.mark.parametrize(
    ("title", "reason"),
    [
        ("Oak", SkipReason.SHORT),
        ("1999", SkipReason.NO_LETTERS),
        ("5:55", SkipReason.NO_LETTERS),
        ("Music", SkipReason.COMMON_WORD),
        ("However", SkipReason.COMMON_WORD),
        ("hexanol", SkipReason.COMMON_WORD),  # one word, all lower case
    ],
)
def test_titles_that_cannot_mean_their_document_are_skipped(title: str, reason: SkipReason) -> None:
    built = index({"target": title})
    assert built.titles == {}
    assert built.skipped == {reason: (title,)}
    assert link_titles(doc("source", f"{title} again."), built).links == ()


def test_kept_titles_that_look_like_skipped_ones() -> None:
    built = index({"a": "INXS", "b": "Music Man Stingray", "c": "iPhone", "d": "1999 in film"})
    assert set(built.titles) == {"INXS", "Music Man Stingray", "iPhone", "1999 in film"}


def test_ambiguous_titles_are_skipped_case_sensitively() -> None:
    built = index({"planet": "Mercury", "element": "Mercury", "band": "MERCURY"})
    assert built.titles == {"MERCURY": "band"}
    assert built.skipped == {SkipReason.AMBIGUOUS: ("Mercury", "Mercury")}
    linked = link_titles(doc("source", "Mercury and MERCURY."), built)
    assert anchors(linked) == [("MERCURY", "band")]


def test_a_title_links_without_its_disambiguator_when_that_is_unambiguous() -> None:
    built_titles = {
        "film": "Kiss and Tell (1945 film)",
        "band": "Paris (band)",  # one word left: too likely another Paris
        "play": "The Odd Couple (play)",
        "movie": "The Odd Couple (film)",  # two documents' short form: neither links by it
        "novel": "Little Women (novel)",
        "other": "Little Women",  # another document's title: the short form is not linked
        "song": "Blue (Da Ba Dee) (song)",
    }
    built = index(built_titles)
    assert built.titles["Kiss and Tell"] == built.titles["Kiss and Tell (1945 film)"] == "film"
    assert built.titles["Blue (Da Ba Dee)"] == "song"
    assert built.titles["Little Women"] == "other"
    assert "Paris" not in built.titles and "The Odd Couple" not in built.titles
    text = "Kiss and Tell starred Temple; The Odd Couple ran long; Paris played; Little Women."
    linked = link_titles(doc("source", text), built)
    assert anchors(linked) == [("Kiss and Tell", "film"), ("Little Women", "other")]
    report = link_corpus([doc(i, "", title) for i, title in built_titles.items()])[1]
    assert report.short_forms == 2  # Kiss and Tell, Blue (Da Ba Dee)
    # A document's own short form is its own name: not a link, and it hides titles inside it.
    own = index({"film": "Kiss and Tell (1945 film)", "kiss": "Kiss and"})
    film = doc("film", "Kiss and Tell is a film.", "Kiss and Tell (1945 film)")
    assert anchors(link_titles(film, own)) == []


def test_html_references_in_titles_are_decoded() -> None:
    built = index({"aw": "A&amp;W Restaurants", "q": "&quot;Q&quot; Is for Quarry"})
    linked = link_titles(doc("source", 'A&W Restaurants sold "Q" Is for Quarry.'), built)
    assert anchors(linked) == [("A&W Restaurants", "aw"), ('"Q" Is for Quarry', "q")]


def test_an_undecoded_own_title_in_the_text_hides_the_titles_inside_it() -> None:
    """The BEIR convention puts the title as given at the start of the text, references and all."""
    title = "Catan: Cities &amp; Knights"
    built = index({"catan": "Catan", "ck": title})
    linked = link_titles(doc("ck", f"{title}\n\nAn expansion of Catan.", title), built)
    assert [(link.start, link.anchor_text) for link in linked.links] == [(len(title) + 18, "Catan")]


def test_ids_that_hrefs_cannot_name_are_skipped() -> None:
    built = index({"notes/../x.md": "Strange Path", "a b#c?.md": "Odd Name"})
    assert built.titles == {"Odd Name": "a b#c?.md"}
    assert built.skipped == {SkipReason.UNLINKABLE_ID: ("Strange Path",)}
    assert title_link_href("a b#c?.md") == "/a%20b%23c%3F.md?link=title"


def test_documents_under_a_web_url_get_no_title_links() -> None:
    """Their relative hrefs resolve to URLs, so no href can name a plain id from them."""
    page = doc("https://example.org/page", "About Paris.")
    assert link_titles(page, index(TITLES)) is page


def test_link_corpus_reports_what_it_did() -> None:
    documents = [
        doc("paris", "Paris is in France. Paris!", "Paris"),
        doc("france", "France borders Spain; its capital is Paris.", "France"),
        doc("spain", "Spain. Mercury. Music.", "Spain"),
        doc("mercury-1", "A planet.", "Mercury"),
        doc("mercury-2", "An element.", "Mercury"),
        doc("music", "Sound.", "Music"),
        doc("untitled", "Spain and France."),
    ]
    linked, report = link_corpus(documents)
    assert [d.id for d in linked] == [d.id for d in documents]
    assert [anchors(d) for d in linked] == [
        [("France", "france")],
        [("Spain", "spain"), ("Paris", "paris")],
        [],
        [],
        [],
        [],
        [("Spain", "spain"), ("France", "france")],
    ]
    assert report.documents_scanned == 7
    assert report.titles_indexed == 3
    assert report.links_made == 5
    assert report.documents_linked == 3
    assert report.skipped == {
        SkipReason.AMBIGUOUS: SkippedTitles(2, ("Mercury",)),
        SkipReason.COMMON_WORD: SkippedTitles(1, ("Music",)),
    }
    assert report.summary() == (  # reasons in SkipReason's order
        "title links: 5 links in 3 of 7 documents; 3 titles indexed (0 also without their "
        "disambiguator), skipped: 1 common_word, 2 ambiguous"
    )


def test_link_corpus_links_to_titles_already_in_the_graph() -> None:
    """Extra titles receive links; a document of the batch overrides its id's old title."""
    documents = [doc("new", "Lisbon, then Oporto."), doc("renamed", "Text.", "Porto")]
    extra = {"lisbon": "Lisbon", "renamed": "Oporto"}
    linked, report = link_corpus(documents, extra)
    assert anchors(linked[0]) == [("Lisbon", "lisbon")]
    assert report.documents_scanned == 2
    assert report.titles_indexed == 2  # Lisbon, Porto


def test_the_chunker_turns_title_links_into_chunk_links_with_their_sentence() -> None:
    text = (
        "The trip began in Lisbon. It went on by train for two days. "
        "Then it reached Paris at night. The rest was by bus. New York City came last."
    )
    titles = {"cities/lisbon.md": "Lisbon", "hp001": "Paris", "a b#c?.md": "New York City"}
    source = doc("guides/trip.md", text, "Trip")
    linked = link_titles(source, index(titles))
    chunks = chunk_document(linked, words, target_tokens=12, overlap=0.0)
    found = [(c.ordinal, link.target_document, link.context) for c in chunks for link in c.links]
    assert found == [
        (0, "cities/lisbon.md", "The trip began in Lisbon."),
        (2, "hp001", "Then it reached Paris at night."),  # chunk 1 is the 8-word sentence
        (3, "a b#c?.md", "New York City came last."),
    ]
    assert all(link.fragment == "" for c in chunks for link in c.links)


def test_place_links_puts_links_where_the_chunker_would() -> None:
    """For the pass over a stored graph: same chunks, same contexts, without chunking again."""
    sentence = "Filler words fill this sentence up. "
    text = sentence * 3 + "Paris shines. " + sentence * 2 + "France and New York City. " + sentence
    source = doc("guides/trip.md", text.strip(), "Trip")
    linked = link_titles(source, index({**TITLES, "france": "France"}))
    chunks = chunk_document(linked, words, target_tokens=20, overlap=0.3)
    expected = [(c.id, link) for c in chunks for link in c.links]
    spans = [ChunkSpan(c.id, c.start, c.end) for c in chunks]
    assert place_links(linked, linked.links, spans) == expected
    assert len(expected) == 3
