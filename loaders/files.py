"""How the file formats (PDF, Word, images; ``anchorgraph.loaders.formats``) are read: their
limits and the OCR engine for scans."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from anchorgraph.errors import DocumentTooLarge
from anchorgraph.loaders.ocr import Ocr, Tesseract

if TYPE_CHECKING:
    from anchorgraph.settings import Settings


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
