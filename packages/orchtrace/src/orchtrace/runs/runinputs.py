"""The inputs of a run table: which files, cut into chunks of work, and the traces in a chunk.

Reads directories (every .json, .jsonl, .ndjson, .pb and .traj below them, also compressed as .gz
or .zst), globs, files, and URIs that pyarrow's filesystems open (`s3://...`, `gs://...`,
`file://...`). Writes nothing. A chunk is a unit of work that a killed run redoes whole: a
stretch of lines of a plain JSON Lines file (cut at line ends, about CHUNK_BYTES each), or a
run of consecutive single-trace files (compressed JSON Lines files are one chunk each: they
cannot be read from the middle). A file whose first record is not a trace is read as
exported spans, as `orchtrace import` reads them. What a chunk reads is bounded, so that a
small compressed file cannot fill a worker's memory: one input may decompress to at most
MAX_INPUT_BYTES, and the inputs of one chunk (one worker's work at a time) to MAX_CHUNK_BYTES
together; an input over either is a record with the code `too-large` (the lines read before
it stay records).
"""

from __future__ import annotations

import glob
import gzip
import hashlib
import io
import json
import os
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any

import msgspec

CHUNK_BYTES = 4 << 20
MAX_INPUT_BYTES = 512 << 20  # one input, decompressed: `orchtrace validate`'s default limit
MAX_CHUNK_BYTES = 1 << 30  # the inputs of one chunk, decompressed, together
CHUNK_FILES = 256
LINES = (".jsonl", ".ndjson")
SUFFIXES = (".json", *LINES, ".pb", ".traj")  # .traj: SWE-agent's trajectories
COMPRESSED = (".gz", ".zst")


class InputError(ValueError):
    """An input that names nothing to read (a usage error: nothing has been done)."""


@dataclass(frozen=True, slots=True)
class Chunk:
    """FILES, or lines START to END (bytes; the first is line FIRST_LINE) of the one file."""

    files: tuple[str, ...]
    start: int = 0
    end: int = -1
    first_line: int = 1

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Chunk:
        return cls(tuple(data["files"]), data["start"], data["end"], data["first_line"])


def _is_uri(name: str) -> bool:
    return "://" in name


def _inner(name: str) -> str:
    """NAME without its compression suffix."""
    for suffix in COMPRESSED:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def _wanted(name: str) -> bool:
    return _inner(name).endswith(SUFFIXES)


def passed_over(inputs: Sequence[str]) -> Counter[str]:
    """The files of the local input folders that no reader here takes, by suffix (hidden
    files aside): a file of a folder is said to be passed over, never skipped without a
    word."""
    out: Counter[str] = Counter()
    for name in inputs:
        if not _is_uri(name) and Path(name).is_dir():
            for p in Path(name).rglob("*"):
                if p.is_file() and not p.name.startswith(".") and not _wanted(p.name):
                    out[p.suffix or p.name] += 1
    return out


def _filesystem(uri: str) -> tuple[Any, str]:
    from pyarrow import fs

    return fs.FileSystem.from_uri(uri)  # type: ignore[no-any-return]


def expand(inputs: Sequence[str]) -> list[str]:
    """Every file the INPUTS name, sorted within each input, each once; raises InputError
    for an input that names none."""
    files: dict[str, None] = {}
    for name in inputs:
        found: list[str] = []
        if _is_uri(name):
            from pyarrow import fs

            filesystem, path = _filesystem(name)
            info = filesystem.get_file_info(path)
            scheme = name.split("://", 1)[0]
            if info.type == fs.FileType.Directory:
                selector = fs.FileSelector(path, recursive=True)
                found = sorted(
                    f"{scheme}://{i.path}"
                    for i in filesystem.get_file_info(selector)
                    if i.type == fs.FileType.File and _wanted(i.path)
                )
            elif info.type == fs.FileType.File:
                found = [name]
        elif Path(name).is_dir():
            found = sorted(str(p) for p in Path(name).rglob("*") if p.is_file() and _wanted(p.name))
        elif Path(name).is_file():
            found = [name]
        elif glob.has_magic(name):
            found = sorted(p for p in glob.glob(name, recursive=True) if Path(p).is_file())
        if not found:
            raise InputError(
                f"{name}: no trace files (.json, .jsonl, .ndjson, .pb, .traj; .gz, .zst)"
            )
        files.update(dict.fromkeys(found))
    return list(files)


def _stat(name: str) -> tuple[int, int]:
    """Size and modification time (ns) of a file or URI."""
    if _is_uri(name):
        filesystem, path = _filesystem(name)
        info = filesystem.get_file_info(path)
        return info.size or 0, info.mtime_ns or 0
    st = os.stat(name)
    return st.st_size, st.st_mtime_ns


def _open(name: str) -> IO[bytes]:
    if _is_uri(name):  # pyarrow's files read lines only through a buffer
        filesystem, path = _filesystem(name)
        return io.BufferedReader(filesystem.open_input_file(path))
    return open(name, "rb")


def _line_chunks(name: str, size: int) -> Iterator[Chunk]:
    """A plain JSON Lines file cut at line ends into chunks of about CHUNK_BYTES."""
    start, line = 0, 1
    with _open(name) as f:
        while start < size:
            f.seek(min(start + CHUNK_BYTES, size))
            tail = f.readline() if start + CHUNK_BYTES < size else b""
            end = min(start + CHUNK_BYTES, size) + len(tail)
            f.seek(start)
            lines = f.read(end - start).count(b"\n")
            yield Chunk((name,), start, end, line)
            start, line = end, line + lines


def plan(files: Sequence[str]) -> tuple[list[Chunk], str]:
    """The chunks of FILES, and a fingerprint of what they read (names, sizes, times and the
    chunking): a run resumes only the plan it started."""
    chunks: list[Chunk] = []
    group: list[str] = []
    weight = 0
    stats = [_stat(name) for name in files]
    for name, (size, _) in zip(files, stats, strict=True):
        if name.endswith(LINES):
            if group:
                chunks.append(Chunk(tuple(group)))
                group, weight = [], 0
            with _open(name) as f:
                traces = _is_trace(f.readline())
            # lines of traces are cut into chunks; exported spans are read whole
            chunks.extend(_line_chunks(name, size) if traces else [Chunk((name,))])
            continue
        group.append(name)
        weight += size
        if len(group) >= CHUNK_FILES or weight >= CHUNK_BYTES:
            chunks.append(Chunk(tuple(group)))
            group, weight = [], 0
    if group:
        chunks.append(Chunk(tuple(group)))
    digest = hashlib.sha256(
        json.dumps([list(files), stats, CHUNK_BYTES, CHUNK_FILES]).encode()
    ).hexdigest()
    return chunks, digest


def _decompressed(name: str, raw: IO[bytes]) -> IO[bytes]:
    if name.endswith(".gz"):
        return gzip.GzipFile(fileobj=raw)  # type: ignore[return-value]
    if name.endswith(".zst"):
        import zstandard

        return io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(raw))
    return raw


@dataclass(slots=True)
class Record:
    """One record of a chunk: a trace's text (LABEL: file, or file:line), or a whole file of
    exported spans (SPANS), or the reason the file cannot be read (FAILED: code, message)."""

    label: str
    text: bytes = b""
    spans: bool = False
    failed: tuple[str, str] | None = None


class _Top(msgspec.Struct):
    edges: msgspec.Raw = msgspec.Raw()  # left unread; empty when the key is absent


def _is_trace(text: bytes) -> bool:
    """Whether TEXT (one JSON document) is a trace rather than exported spans: both formats
    of traces have an edge list at the top, and exports have none there (they may name edges
    deeper down, in an attribute). Broken JSON that names edges is taken for a trace, to be
    reported as one."""
    if b'"edges"' not in text:
        return False
    try:
        return len(msgspec.json.decode(text, type=_Top).edges) > 0
    except msgspec.ValidationError:  # not an object
        return False
    except msgspec.DecodeError:
        return True


class _TooLarge(Exception):
    """An input that decompresses to more than its limit allows; the message says which."""


class _Budget:
    """The bytes a chunk may still decompress, and the limit of the input being read."""

    def __init__(self) -> None:
        self.left = MAX_CHUNK_BYTES

    def limit(self) -> int:
        return min(MAX_INPUT_BYTES, self.left)

    def spend(self, n: int, limit: int) -> None:
        """Counts N bytes read against LIMIT (from `limit()`); raises _TooLarge past it."""
        if n > limit:
            if limit < MAX_INPUT_BYTES:
                raise _TooLarge(
                    f"the chunk's inputs decompress to more than {MAX_CHUNK_BYTES:,} bytes "
                    "together, the limit for one worker (runinputs.MAX_CHUNK_BYTES)"
                )
            raise _TooLarge(
                f"decompresses to more than {MAX_INPUT_BYTES:,} bytes, the limit for one "
                "input (runinputs.MAX_INPUT_BYTES); split it into smaller files"
            )

    def read(self, f: IO[bytes]) -> bytes:
        limit = self.limit()
        text = f.read(limit + 1)  # never more than one byte past the limit
        self.spend(len(text), limit)
        self.left -= len(text)
        return text

    def lines(self, f: IO[bytes]) -> Iterator[bytes]:
        limit, read = self.limit(), 0
        while line := f.readline(limit - read + 1):  # a line without an end stops there too
            read += len(line)
            self.spend(read, limit)
            self.left -= len(line)
            yield line


def records(chunk: Chunk) -> Iterator[Record]:
    """The records of CHUNK, in order."""
    budget = _Budget()
    for name in chunk.files:
        try:
            with _open(name) as raw:
                if chunk.end >= 0:  # lines of a plain JSON Lines file
                    raw.seek(chunk.start)
                    block = raw.read(chunk.end - chunk.start)
                    yield from _lines(name, block.split(b"\n"), chunk.first_line)
                    continue
                with _decompressed(name, raw) as f:
                    inner = _inner(name)
                    if inner.endswith(LINES):
                        yield from _lines(name, budget.lines(f), 1)
                    else:
                        text = budget.read(f)
                        trace = not inner.endswith(".pb") and _is_trace(text)
                        yield Record(name, text, spans=not trace)
        except _TooLarge as exc:
            yield Record(name, failed=("too-large", str(exc)))
        except OSError as exc:
            yield Record(name, failed=("unreadable", exc.strerror or str(exc)))
        except Exception as exc:  # a corrupt archive (gzip, zstd): the file, not the run
            yield Record(name, failed=("unreadable", f"{type(exc).__name__}: {exc}"))


def _lines(name: str, lines: Any, first: int) -> Iterator[Record]:
    """JSON Lines of traces, one record each; a file whose first record is not a trace is
    exported spans (the Collector's file exporter writes JSON Lines), read whole, every line
    in its place (so that an error names the line of the file)."""
    held: list[bytes] = []
    for n, line in enumerate(lines, first):
        if held:
            held.append(line.removesuffix(b"\n"))
            continue
        if not line.strip():
            continue
        if n == 1 and not _is_trace(line):
            held.append(line.removesuffix(b"\n"))
            continue
        yield Record(f"{name}:{n}", line)
    if held:
        yield Record(name, b"\n".join(held), spans=True)
