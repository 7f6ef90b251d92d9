"""PDF text extraction in a box: a worker process with bounded CPU time and memory.

A PDF is writer input, and pypdf's cost is not bounded by its size: a page whose
``/Contents`` names one small FlateDecode stream a thousand times is inflated and
parsed a thousand times (a few kilobytes: hours, gigabytes). So ``extract`` runs
pypdf in a child process (``python -P -c``, this file run by path: it imports
nothing of wikigate) under ``RLIMIT_CPU`` (``[limits] pdf_seconds``) and
``RLIMIT_AS`` on POSIX, a wall-clock timeout everywhere, pypdf's decompression
limits at ``pdf_bytes``, at most ``pdf_pages`` pages, and the content the wanted
pages ask for (each stream counted as often as it is named) within ``pdf_bytes``;
a stream named twice on one page is read once. All wanted pages come from one
parse. A PDF that breaks the box raises ``PdfLimit``, naming the limit; one that
pypdf cannot read raises ``PdfUnreadable``, and so does every PDF when pypdf (the
``pdf`` extra) is not installed: the citation fails closed, saying what to install.
"""

from __future__ import annotations

import marshal
import re
import signal
import subprocess
import sys
from typing import Any, NamedTuple

# address space of the box beyond pdf_bytes (the interpreter, pypdf, the parsed objects)
BOX_MEMORY_BASE = 512 * 2**20
BOX_MEMORY_PER_BYTE = 3  # the decompressed content, a copy, and the text made of it


class PdfLimits(NamedTuple):
    pages: int
    bytes: int
    seconds: float


class PdfPages(NamedTuple):
    """A PDF's page count, the wanted pages' text, and why a wanted page has none."""

    pages: int
    texts: dict[int, str]
    errors: dict[int, str]


class PdfUnreadable(Exception):
    """pypdf cannot read the PDF; the message says why."""


class PdfLimit(Exception):
    """The PDF is past a ``[limits]`` entry; the message names it and the value seen."""


def extract(data: bytes, pages: list[int], limits: PdfLimits) -> PdfPages:
    """The text of ``pages`` (counted from 1) of the PDF ``data``, read in the box."""
    if not _pypdf_installed():
        raise PdfUnreadable(MISSING_PYPDF)
    wall = limits.seconds * 3 + 10  # CPU time is the limit; a loaded machine is slower
    try:
        proc = subprocess.run(
            [sys.executable, "-P", "-c", _CHILD, __file__],
            input=marshal.dumps((data, sorted(set(pages)), tuple(limits))),
            capture_output=True,
            timeout=wall,
        )
    except subprocess.TimeoutExpired as e:
        raise PdfLimit(_seconds(limits, f"more than {wall:.0f} s of wall-clock time")) from e
    if proc.returncode != 0:
        if b"MemoryError" in proc.stderr[-4096:]:
            raise PdfLimit(
                f"needs more than {_memory(limits) // 2**20} MiB to extract its text "
                f"(512 MiB and 3 × [limits] pdf_bytes, {limits.bytes:,})"
                + _RAISE.format("pdf_bytes")
            )
        if proc.returncode in (-_SIGXCPU, -9):  # past RLIMIT_CPU's soft, then hard limit
            raise PdfLimit(_seconds(limits, f"more than {limits.seconds:g} CPU seconds"))
        if proc.returncode < 0:
            raise PdfLimit(
                f"stopped its reader (signal {-proc.returncode}) before its text was extracted"
            )
        last = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no output"]
        raise PdfUnreadable(f"is not a readable PDF (the reader failed: {last[0][:200]})")
    try:
        kind, *rest = marshal.loads(proc.stdout)
    except (EOFError, ValueError, TypeError) as e:
        raise PdfUnreadable(
            f"is not a readable PDF (the reader's answer is unreadable: {e})"
        ) from e
    if kind == "limit":
        raise PdfLimit(rest[0])
    if kind == "unreadable":
        raise PdfUnreadable(rest[0])
    if kind == "missing":
        raise PdfUnreadable(MISSING_PYPDF)
    count, texts, errors = rest
    return PdfPages(count, texts, errors)


MISSING_PYPDF = (
    "cannot be read: PDF sources need the pdf extra (pypdf), which is not installed "
    "here: pip install 'wikigate[pdf]'"
)


def _pypdf_installed() -> bool:
    """Is pypdf importable here (found, not imported: it is imported only in the box)?"""
    import importlib.util

    if "pypdf" in sys.modules:
        return sys.modules["pypdf"] is not None
    try:
        return importlib.util.find_spec("pypdf") is not None
    except (ImportError, ValueError):
        return False


_SIGXCPU = getattr(signal, "SIGXCPU", 24)
_RAISE = "; if the source is sound, raise `[limits] {}` in the base's wikigate.toml"


def _seconds(limits: PdfLimits, seen: str) -> str:
    return (
        f"took {seen} to extract its text, past the limit of {limits.seconds:g} "
        "([limits] pdf_seconds)" + _RAISE.format("pdf_seconds")
    )


def _memory(limits: PdfLimits) -> int:
    return BOX_MEMORY_BASE + BOX_MEMORY_PER_BYTE * limits.bytes


# the child: this file run by path (no package imported), its answer marshalled on stdout
_CHILD = (
    "import runpy, sys; box = runpy.run_path(sys.argv[1], run_name='wikigate_pdfbox'); "
    "box['child_main']()"
)


def child_main() -> None:
    import logging
    import warnings

    data, pages, raw_limits = marshal.load(sys.stdin.buffer)
    limits = PdfLimits(*raw_limits)
    _box(limits)
    logging.disable(logging.CRITICAL)  # a hostile PDF's warnings would flood the parent
    warnings.simplefilter("ignore")
    try:
        answer: tuple[Any, ...] = _extract_here(data, pages, limits)
    except ModuleNotFoundError as e:
        if e.name != "pypdf":
            raise
        answer = ("missing",)
    except PdfLimit as e:
        answer = ("limit", str(e))
    except PdfUnreadable as e:
        answer = ("unreadable", str(e))
    sys.stdout.buffer.write(marshal.dumps(answer))


def _box(limits: PdfLimits) -> None:
    """This process's CPU time and address space, bounded (POSIX; elsewhere the
    parent's timeout alone bounds it)."""
    try:
        import resource
    except ImportError:
        return
    cpu = max(1, int(limits.seconds + 0.999))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 2))
    memory = _memory(limits)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        memory = min(memory, hard)
    if soft == resource.RLIM_INFINITY or soft > memory:
        resource.setrlimit(resource.RLIMIT_AS, (memory, hard))


def _extract_here(data: bytes, pages: list[int], limits: PdfLimits) -> tuple[Any, ...]:
    import io

    import pypdf
    from pypdf.errors import PyPdfError

    _configure(pypdf, limits.bytes)
    limit_errors = tuple(
        e for e in (getattr(pypdf.errors, "LimitReachedError", None),) if e is not None
    )
    unreadable = (PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError)
    try:
        reader = pypdf.PdfReader(io.BytesIO(data))
        count = len(reader.pages)
    except limit_errors as e:
        raise PdfLimit(_limit_bytes(limits, None, e)) from e
    except (*unreadable, RecursionError) as e:
        raise PdfUnreadable(f"is not a readable PDF ({type(e).__name__}: {e})") from e
    if count > limits.pages:
        raise PdfLimit(
            f"has {count:,} pages, past the limit of {limits.pages:,} ([limits] pdf_pages)"
            + _RAISE.format("pdf_pages")
        )
    texts: dict[int, str] = {}
    errors: dict[int, str] = {}
    budget = limits.bytes
    for number in pages:
        if not 1 <= number <= count:
            continue
        try:
            page = reader.pages[number - 1]
            budget -= _content_bytes(pypdf, page)
            if budget < 0:
                raise PdfLimit(_limit_bytes(limits, limits.bytes - budget))
            texts[number] = page.extract_text() or ""
        except limit_errors as e:
            raise PdfLimit(_limit_bytes(limits, None, e)) from e
        except PdfLimit:
            raise
        except (*unreadable, RecursionError) as e:
            errors[number] = f"is not a readable PDF ({type(e).__name__}: {e})"
    return ("pages", count, texts, errors)


def _limit_bytes(limits: PdfLimits, seen: int | None, why: Exception | None = None) -> str:
    if seen is None:
        return (
            f"holds a stream that decompresses past the limit of {limits.bytes:,} bytes "
            f"([limits] pdf_bytes; pypdf: {why})" + _RAISE.format("pdf_bytes")
        )
    return (
        f"asks to decompress {seen:,} bytes of page content, past the limit of "
        f"{limits.bytes:,} ([limits] pdf_bytes; a stream named N times counts N times)"
        + _RAISE.format("pdf_bytes")
    )


def _configure(pypdf: Any, max_bytes: int) -> None:
    """pypdf's own decompression limits, at most ``max_bytes``: the Configuration of
    pypdf 6+, else the module constants older versions read."""
    names = (
        "maximum_declared_stream_length",
        "array_based_stream_maximum_output_length",
        "lzw_maximum_output_length",
        "run_length_maximum_output_length",
        "zlib_maximum_output_length",
        "brotli_maximum_output_length",
        "jbig2_maximum_output_length",
        "image_maximum_buffer_size",
        "stream_decoding_work_maximum_length",
        "xfa_decoding_work_maximum_length",
    )
    overwrite = getattr(pypdf, "overwrite_configuration", None)
    if overwrite is not None:
        current = pypdf.get_configuration()
        overwrite(**{n: min(getattr(current, n), max_bytes) for n in names if hasattr(current, n)})
        return
    filters = pypdf.filters
    for name in (
        "MAX_DECLARED_STREAM_LENGTH",
        "MAX_ARRAY_BASED_STREAM_OUTPUT_LENGTH",
        "LZW_MAX_OUTPUT_LENGTH",
        "RUN_LENGTH_MAX_OUTPUT_LENGTH",
        "ZLIB_MAX_OUTPUT_LENGTH",
        "JBIG2_MAX_OUTPUT_LENGTH",
        "FLATE_MAX_BUFFER_SIZE",
    ):
        if isinstance(getattr(filters, name, None), int):
            setattr(filters, name, min(getattr(filters, name), max_bytes))


def _content_bytes(pypdf: Any, page: Any) -> int:
    """The decompressed bytes the page's ``/Contents`` asks for: a stream named N times
    counts N times, and a form XObject drawn N times (``/Name Do``, in the page or in a
    form) counts its own content N times, each distinct stream decompressed once. The
    array is left naming each stream once, so that it is parsed once."""
    from pypdf.generic import ArrayObject, IndirectObject, NameObject

    contents = page.get("/Contents")
    if contents is None:
        return 0
    if isinstance(contents, IndirectObject):
        contents = contents.get_object()
    items = list(contents) if isinstance(contents, ArrayObject) else [contents]
    forms = _Forms()
    sizes: dict[object, int] = {}
    distinct = ArrayObject()
    total = 0
    for item in items:
        key = _key(item)
        if key not in sizes:
            stream = item.get_object() if isinstance(item, IndirectObject) else item
            get_data = getattr(stream, "get_data", None)
            data = get_data() if get_data is not None else b""
            sizes[key] = len(data) + forms.drawn(data, page.get("/Resources"))
            distinct.append(item)
        total = min(total + sizes[key], SATURATED)
    if isinstance(contents, ArrayObject):
        page[NameObject("/Contents")] = distinct
    return total


SATURATED = 10**18  # sums stop here: forms drawing forms multiply without bound
_DO = re.compile(rb"/([^\s/\[\]()<>{}%]+)\s*Do(?![^\s/\[\]()<>{}%])")


def _key(item: Any) -> object:
    from pypdf.generic import IndirectObject

    return (item.idnum, item.generation) if isinstance(item, IndirectObject) else id(item)


class _Forms:
    """The bytes of content the form XObjects a stream draws hold, each form counted as
    often as it is drawn, forms within forms too (each form decompressed once)."""

    def __init__(self) -> None:
        self._cost: dict[object, int] = {}
        self._open: set[object] = set()  # forms being measured: a cycle costs nothing more

    def drawn(self, data: bytes, resources: Any) -> int:
        counts: dict[bytes, int] = {}
        for match in _DO.finditer(data):
            counts[match.group(1)] = counts.get(match.group(1), 0) + 1
        if not counts:
            return 0
        if hasattr(resources, "get_object"):
            resources = resources.get_object()
        xobjects = _get(resources, "/XObject")
        total = 0
        for name, times in counts.items():
            entry = _get(xobjects, "/" + name.decode("latin-1"))
            if entry is not None:
                total = min(total + times * self._form(entry, resources), SATURATED)
        return total

    def _form(self, entry: Any, resources: Any) -> int:
        key = _key(entry)
        if key in self._cost:
            return self._cost[key]
        if key in self._open or len(self._open) > 32:
            return 0
        form = entry.get_object() if hasattr(entry, "get_object") else entry
        if _get(form, "/Subtype") != "/Form" or not hasattr(form, "get_data"):
            self._cost[key] = 0
            return 0
        self._open.add(key)
        try:
            data = form.get_data()
            cost = len(data) + self.drawn(data, _get(form, "/Resources") or resources)
        finally:
            self._open.discard(key)
        self._cost[key] = min(cost, SATURATED)
        return self._cost[key]


def _get(obj: Any, name: str) -> Any:
    """``obj[name]`` resolved, or None when obj is no dictionary or lacks it."""
    try:
        value: Any = obj.get(name) if obj is not None and hasattr(obj, "get") else None
        return value.get_object() if hasattr(value, "get_object") else value
    except Exception:  # noqa: BLE001 - a malformed dictionary has no such entry
        return None
