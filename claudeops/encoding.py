"""One rule for text that is not UTF-8, and one message for it, on every path.

claudeops stores and shows UTF-8 text. Bytes that are not UTF-8 reach it from a config file, a
recording, a command-line argument (Python hands those over as lone surrogates, which it would
later refuse with "surrogates not allowed"), an API body or a dashboard form. Each path asks
here and refuses the input with the same words — ``not UTF-8 text (byte 0xff at offset 13)`` —
instead of storing replacement characters or mojibake, or failing deep inside with Python's
own wording.
"""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def _message(byte: int, offset: int) -> str:
    return f"not UTF-8 text (byte 0x{byte:02x} at offset {offset})"


def bytes_problem(data: bytes) -> str | None:
    """Why ``data`` is not UTF-8 text, or ``None`` when it is."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _message(data[exc.start], exc.start)
    return None


def text_problem(text: str) -> str | None:
    """Why ``text`` did not come from UTF-8 bytes (it holds a lone surrogate), or ``None``.

    A command-line argument or a file name that was not UTF-8 arrives as ``\\udcXX`` for each
    such byte ``0xXX`` (Python's ``surrogateescape``); the offset counts bytes, as for a file.
    """
    found = _SURROGATE.search(text)
    if found is None:
        return None
    code = ord(found.group(0))
    byte = code - 0xDC00 if 0xDC80 <= code <= 0xDCFF else code
    offset = len(text[:found.start()].encode("utf-8", "surrogateescape"))
    return _message(byte & 0xFF if byte <= 0xFF else byte, offset)
