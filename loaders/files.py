"""The binary formats (PDF, Word, images): their limits, the OCR engine for scans, and the
reader of each."""

from __future__ import annotations

from dataclasses import dataclass, field

from anchorgraph.errors import DocumentTooLarge, InvalidInput, UnsupportedFormat
from anchorgraph.loaders.draft import Rendered
from anchorgraph.loaders.ocr import Ocr, Tesseract, render_images
from anchorgraph.loaders.pdf import render_pdf
from anchorgraph.loaders.word import render_docx
from anchorgraph.settings import Settings

BINARY_FORMATS = ("pdf", "docx", "image")


@dataclass(frozen=True)
class FileReading:
    """How PDF, Word and image files are read."""

    max_bytes: int = 50_000_000  # the file as sent (413 beyond)
    max_pages: int = 500  # of a PDF or TIFF (422 beyond)
    ocr: Ocr = field(default_factory=Tesseract)

    @classmethod
    def configured(cls, settings: Settings) -> FileReading:
        return cls(
            max_bytes=settings.max_file_bytes,
            max_pages=settings.max_pages,
            ocr=Tesseract(settings.ocr_languages, settings.tesseract_command),
        )

    def check_size(self, size: int, doc_id: str) -> None:
        if size > self.max_bytes:
            raise DocumentTooLarge(
                f"{doc_id}: {size:,} bytes is over the limit of {self.max_bytes:,} bytes."
            )


def render_file(data: bytes, doc_id: str, fmt: str, reading: FileReading) -> tuple[str, Rendered]:
    """The title the file gives itself ("" for none) and its text.

    Raises:
        UnsupportedFormat: ``fmt`` is not one of :data:`BINARY_FORMATS`.
        DocumentTooLarge: Larger than ``reading.max_bytes``.
        InvalidInput: The file is empty; or (subclasses) corrupt or encrypted, or over the page
            limit.
        OcrUnavailable: It needs OCR and Tesseract is missing.
    """
    reading.check_size(len(data), doc_id)
    if not data:
        raise InvalidInput(f"{doc_id}: the file is empty.")
    if fmt == "pdf":
        return render_pdf(data, doc_id, max_pages=reading.max_pages, ocr=reading.ocr)
    if fmt == "docx":
        return render_docx(data, doc_id)
    if fmt == "image":
        return "", render_images(data, doc_id, max_pages=reading.max_pages, ocr=reading.ocr)
    raise UnsupportedFormat(f"{doc_id}: '{fmt}' is not a PDF, Word or image format.")
