"""Running headers and footers are found on page texts alone: the lines that repeat at the top or
bottom of most pages, numbers that count the pages allowed, are dropped; content is kept."""

from __future__ import annotations

from anchorgraph.loaders.running_lines import page_bodies


def bodies(pages: list[str], protected: list[list[int]] | None = None) -> list[str]:
    return [
        text[start:end]
        for text, (start, end) in zip(pages, page_bodies(pages, protected or []), strict=True)
    ]


FACTS = ("Acquisitions: twelve.", "Loans: three.", "Visitors: many.", "Staff: nine.")
NOTES = ("as the board noted", "in the spring", "a record", "as before")


def test_a_header_and_a_numbered_footer_are_dropped() -> None:
    pages = [
        f"Annual report 1978\r\nCity Museum\r\n{fact}\r\n{note}\r\nPage {n} of 4"
        for n, (fact, note) in enumerate(zip(FACTS, NOTES, strict=True), start=1)
    ]
    assert bodies(pages) == [f"{fact}\r\n{note}" for fact, note in zip(FACTS, NOTES, strict=True)]


def test_a_title_page_without_the_header_keeps_its_text() -> None:
    pages = [
        "The report of 1978\n\nFor the trustees",
        *(f"City Museum\n{fact}\n{n}" for n, fact in enumerate(FACTS[1:], start=2)),
    ]
    assert bodies(pages) == ["The report of 1978\n\nFor the trustees", *FACTS[1:]]


def test_numbers_that_do_not_count_the_pages_are_content() -> None:
    # The same shape on every page, but the figures follow the ledger, not the page.
    ledger = [
        "Item 12: 45 letters\nsome text\nTotal 310",
        "Item 13: 50 letters\nmore text\nTotal 297",
        "Item 14: 61 letters\nstill text\nTotal 402",
    ]
    assert bodies(ledger) == ledger
    # Numbered from another start, the pages are still counted: the footer goes.
    offset = [f"{fact}\n- {n + 10} -" for n, fact in enumerate(FACTS)]
    assert bodies(offset) == list(FACTS)


def test_a_line_on_fewer_than_half_the_pages_stays() -> None:
    pages = ["Draft\nOne.", "Draft\nTwo.", "Three.", "Four.", "Five."]
    assert bodies(pages) == pages


def test_only_lines_at_the_edges_and_only_up_to_the_first_content_line() -> None:
    pages = [
        "Summary\nCity Museum\nfirst\nCity Museum\nend one",
        "Summary\nCity Museum\nsecond\nCity Museum\nend two",
    ]
    # "Summary" and "City Museum" are running at the top; at the bottom the content line
    # "end …" stops the search before the repeated "City Museum" above it.
    assert bodies(pages) == ["first\nCity Museum\nend one", "second\nCity Museum\nend two"]


def test_a_protected_line_is_kept_and_one_page_has_no_running_lines() -> None:
    pages = ["Section 1\nText one.", "Section 2\nText two."]
    assert bodies(pages) == ["Text one.", "Text two."]
    assert bodies(pages, [[0], [3]]) == pages  # the outline's headings
    assert bodies(["page 1\nAlone.\npage 1"]) == ["page 1\nAlone.\npage 1"]


def test_a_page_of_running_lines_only_and_a_blank_page_are_empty() -> None:
    pages = [
        "City Museum\nText one.\npage 1",
        "City Museum\npage 2",
        "",
        "City Museum\nText.\npage 4",
    ]
    assert page_bodies(pages)[1:3] == [(len(pages[1]),) * 2, (0, 0)]
    assert bodies(pages) == ["Text one.", "", "", "Text."]
