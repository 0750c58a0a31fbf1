"""Reading throughput of the document readers on this machine: PDF pages/s (text layer), Word
documents/s, OCR pages/s (PNG scans, and PDF pages without a text layer).

Reading only (no chunking, embedding or writing: ``benchmarks/ingest.py`` measures those), on
files made by ``benchmarks/document_files.py``; each format is read ``--rounds`` times and the
best round counts, as the machine is shared.

    python -m benchmarks.readers [--pdf-pages 50] [--docx 20] [--scans 3] [--languages eng+por+ita]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass

from anchorgraph.loaders.files import FileReading
from anchorgraph.loaders.ocr import Tesseract
from anchorgraph.loaders.read import read_bytes
from benchmarks.document_files import letter_image, pdf_of_pages, png, text_pdf, word_report


@dataclass(frozen=True)
class Rate:
    what: str
    units: int
    unit: str
    seconds: float

    def line(self) -> str:
        return (
            f"| {self.what} | {self.units} {self.unit} | {self.seconds:.2f} s | "
            f"{self.units / self.seconds:.2f} {self.unit}/s |"
        )


def measure(what: str, unit: str, rounds: int, read: Callable[[], int]) -> Rate:
    """How many units one round reads, timed by its fastest round."""
    best, units = float("inf"), 0
    for _ in range(rounds):
        started = time.perf_counter()
        units = read()
        best = min(best, time.perf_counter() - started)
    return Rate(what, units, unit, best)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pdf-pages", type=int, default=50)
    parser.add_argument("--docx", type=int, default=20, help="Word documents per round.")
    parser.add_argument("--scans", type=int, default=3, help="Scanned pages per round.")
    parser.add_argument("--languages", default="eng+por+ita", help="Tesseract's languages.")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    files = FileReading(max_pages=max(args.pdf_pages, args.scans), ocr=Tesseract(args.languages))

    def read(data: bytes, fmt: str) -> int:
        document = read_bytes(data, doc_id=f"x.{fmt}", fmt=fmt, max_bytes=1, files=files)
        return max(len(document.pages), 1)

    pdf = text_pdf(args.pdf_pages)
    word = word_report()
    scan = png(letter_image())
    scanned_pdf = pdf_of_pages(*[letter_image()] * args.scans)
    rounds = args.rounds
    ocr = f"({args.languages})"
    rates = [
        measure("PDF, text layer", "pages", rounds, lambda: read(pdf, "pdf")),
        measure(
            "Word .docx",
            "documents",
            rounds,
            lambda: sum(read(word, "docx") for _ in range(args.docx)),
        ),
        measure(
            f"OCR, PNG scans at 300 dpi {ocr}",
            "pages",
            rounds,
            lambda: sum(read(scan, "image") for _ in range(args.scans)),
        ),
        measure(
            f"OCR, PDF pages without text {ocr}", "pages", rounds, lambda: read(scanned_pdf, "pdf")
        ),
    ]
    print("| reader | read | best round | rate |\n| --- | --- | --- | --- |")
    for rate in rates:
        print(rate.line())


if __name__ == "__main__":
    main()
