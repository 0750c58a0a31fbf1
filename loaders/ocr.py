"""OCR: the text of scans (PNG, JPEG, TIFF, and PDF pages without a text layer) by Tesseract.

Tesseract is a program, not a Python package: Debian's ``tesseract-ocr`` and one
``tesseract-ocr-LANG`` per language (``make ocr`` installs English, Portuguese and Italian).
Where it is missing, reading a scan fails with :class:`OcrUnavailable` naming the package, and
every other format reads as before.
"""

from __future__ import annotations

import threading
import warnings
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from io import BytesIO
from typing import TYPE_CHECKING, Protocol

from anchorgraph.errors import DocumentTooLarge, OcrUnavailable, TooManyPages, UnreadableDocument
from anchorgraph.loaders.draft import Draft, Found, Rendered
from anchorgraph.loaders.running_lines import page_bodies

if TYPE_CHECKING:
    from PIL.Image import Image

    from anchorgraph.loaders.files import FileReading

# pytesseract keeps the program's path in a module global: one call at a time sets and uses it.
_COMMAND_LOCK = threading.Lock()
_INSTALL = "apt-get install tesseract-ocr tesseract-ocr-eng tesseract-ocr-por tesseract-ocr-ita"
_WORD_LEVEL = 5  # image_to_data's rows: 1 page, 2 block, 3 paragraph, 4 line, 5 word


@dataclass(frozen=True)
class OcrText:
    """What OCR read on one image: lines joined by newlines, paragraphs by blank lines."""

    text: str
    confidence: float | None  # the mean of its words' confidences, in [0, 1]; None: no words


class Ocr(Protocol):
    """Reads the text of an image."""

    def check(self) -> None:
        """Raise :class:`OcrUnavailable` unless OCR can run here: called before a file that
        needs it is decoded, so a missing program is the answer rather than a later failure."""
        ...

    def read(self, image: Image, dpi: int | None = None) -> OcrText:
        """The text on ``image``; ``dpi`` its resolution when known (small print is read
        better when Tesseract knows it).

        Raises:
            OcrUnavailable: The OCR program or its language data is not installed.
        """
        ...


@dataclass(frozen=True)
class Tesseract:
    """The Tesseract program, through pytesseract."""

    languages: str = "eng+por+ita"  # Tesseract's codes, '+'-joined
    command: str = "tesseract"

    def read(self, image: Image, dpi: int | None = None) -> OcrText:
        import pytesseract

        self.check()
        config = f"--dpi {dpi}" if dpi else ""
        with _COMMAND_LOCK:
            pytesseract.pytesseract.tesseract_cmd = self.command
            try:
                data = pytesseract.image_to_data(
                    _plain(image),
                    lang=self.languages,
                    config=config,
                    output_type=pytesseract.Output.DICT,
                )
            except pytesseract.TesseractNotFoundError as error:
                raise OcrUnavailable(self._missing()) from error
            except pytesseract.TesseractError as error:
                raise UnreadableDocument(f"Tesseract could not read the image: {error}") from error
        return _assemble(data)

    def check(self) -> None:
        """Raise :class:`OcrUnavailable` unless the program and every language are installed."""
        import pytesseract

        try:
            installed = _installed_languages(self.command)
        except pytesseract.TesseractNotFoundError as error:
            raise OcrUnavailable(self._missing()) from error
        missing = [code for code in self.languages.split("+") if code not in installed]
        if missing:
            packages = " ".join(
                f"tesseract-ocr-{code.lower().replace('_', '-')}" for code in missing
            )
            raise OcrUnavailable(
                f"OCR needs Tesseract's data for {', '.join(missing)}: install Debian's "
                f"{packages} (apt-get install {packages}), or set ANCHORGRAPH_OCR_LANGUAGES "
                f"to installed ones ({'+'.join(sorted(installed)) or 'none'})."
            )

    def _missing(self) -> str:
        return (
            f"This needs OCR, and Tesseract ({self.command!r}) is not installed: install "
            f"Debian's tesseract-ocr and its language data ({_INSTALL}, or `make ocr`). "
            "Files with a text layer (PDF, Word, text, Markdown, HTML) need no OCR."
        )


@cache
def _installed_languages(command: str) -> frozenset[str]:
    """The languages Tesseract has data for. A missing program raises pytesseract's
    ``TesseractNotFoundError``, which is not cached: installing it later is seen at once."""
    import pytesseract

    with _COMMAND_LOCK:
        pytesseract.pytesseract.tesseract_cmd = command
        return frozenset(pytesseract.get_languages(config=""))


def _plain(image: Image) -> Image:
    """An image Tesseract takes as it is: palette, 16-bit and alpha images become RGB or grey."""
    if image.mode in ("1", "L", "RGB"):
        return image
    return image.convert("L" if image.mode.startswith(("I", "F", "LA")) else "RGB")


def _assemble(data: dict[str, list[object]]) -> OcrText:
    """Words into lines and paragraphs, in Tesseract's reading order, and their confidence."""
    lines: dict[tuple[int, int, int], list[str]] = defaultdict(list)
    confidences: list[float] = []
    for at, level in enumerate(data["level"]):
        word = str(data["text"][at]).strip()
        if level != _WORD_LEVEL or not word:
            continue
        line = (_number(data["block_num"][at]), _number(data["par_num"][at]))
        lines[(*line, _number(data["line_num"][at]))].append(word)
        confidence = float(str(data["conf"][at]))
        if confidence >= 0:  # -1: a row that is no word
            confidences.append(confidence / 100)
    paragraphs: dict[tuple[int, int], list[str]] = defaultdict(list)
    for (block, paragraph, _), words in lines.items():
        paragraphs[(block, paragraph)].append(" ".join(words))
    text = "\n\n".join("\n".join(paragraph) for paragraph in paragraphs.values())
    mean = sum(confidences) / len(confidences) if confidences else None
    return OcrText(text, mean)


def _number(value: object) -> int:
    return int(str(value))


def render_images(data: bytes, doc_id: str, *, max_pages: int, ocr: Ocr) -> Rendered:
    """The text of an image file (PNG, JPEG, TIFF; every frame of a multi-page TIFF a page),
    without the running headers and footers of its pages (``page_bodies``).

    Raises:
        UnreadableDocument: Not an image Pillow can decode, or truncated.
        TooManyPages: More frames than ``max_pages``.
        DocumentTooLarge: More pixels than Pillow's decompression-bomb limit.
        OcrUnavailable: Tesseract is not installed.
    """
    from PIL import Image, ImageSequence, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            # Pillow only warns between its limit and twice it; past the limit is too large.
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(BytesIO(data))
            # Decoded before OCR is asked for: a corrupt file is named as such, not sent to
            # install Tesseract first.
            image.load()
            frames = getattr(image, "n_frames", 1)
            if frames > max_pages:
                raise TooManyPages(
                    f"{doc_id}: {frames:,} pages is over the limit of {max_pages:,} pages."
                )
            ocr.check()
            reads = []
            for frame in ImageSequence.Iterator(image):
                frame.load()
                reads.append(ocr.read(frame, _dpi(frame)))
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as error:
        raise DocumentTooLarge(f"{doc_id}: the image is too large to read ({error}).") from error
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as error:
        # Pillow's decoders raise OSError for truncated data, SyntaxError for malformed headers.
        raise UnreadableDocument(
            f"{doc_id}: not a readable PNG, JPEG or TIFF image (corrupt or truncated): {error}"
        ) from error
    draft = Draft()
    bodies = page_bodies([read.text for read in reads])
    for number, (read, (start, end)) in enumerate(zip(reads, bodies, strict=True), start=1):
        draft.start_page(number, read.confidence)
        draft.write(read.text[start:end])
    return draft.finish()


def _dpi(image: Image) -> int | None:
    dpi = image.info.get("dpi")
    if isinstance(dpi, tuple) and dpi and isinstance(dpi[0], int | float) and dpi[0] >= 50:
        return round(dpi[0])
    return None


def read(data: bytes, doc_id: str, reading: FileReading) -> Found:
    """A scan (PNG, JPEG, TIFF; the reader of ``anchorgraph.loaders.formats``) read by OCR,
    titled by its first line."""
    rendered = render_images(data, doc_id, max_pages=reading.max_pages, ocr=reading.ocr)
    return Found(rendered.first_line(), rendered)
