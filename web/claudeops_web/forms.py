"""What the dashboard's HTML forms send: the handler parameter for one, and the check of its encoding.

Every page form posts ``application/x-www-form-urlencoded``; a handler takes its fields as
:data:`FormData`. Litestar decodes those fields with ``errors="replace"``
(``urllib.parse.parse_qsl``), so bytes that are not UTF-8 would be stored as U+FFFD and passed on
to the prompt: :func:`refuse_text_that_is_not_utf8` refuses such a form first, with the one wording of
:func:`claudeops.bytes_problem` that a config file, a recording, a command-line argument or a JSON
body get. It refuses a JSON body whose strings hold a lone surrogate escape (``"\\udcff"``) too: valid
JSON syntax, but text no UTF-8 can hold, which the decoder would answer with "invalid utf-16
surrogate pair" or "Input data was truncated".
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import unquote_to_bytes

from litestar import Request
from litestar.exceptions import ValidationException
from litestar.params import URLEncodedBody

from claudeops import bytes_problem, text_problem
from claudeops_web.rendering import ENCODE_AS_UTF8, SAFE_METHODS

FormData = URLEncodedBody[dict[str, Any]]
"""A page form's fields, by name (a repeated name: a list)."""
URL_ENCODED = "application/x-www-form-urlencoded"
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
"""A JSON ``\\uD800``–``\\uDFFF`` escape: only a body with one needs the full check."""


async def refuse_text_that_is_not_utf8(request: Request[Any, Any, Any]) -> None:
    """``before_request``: a form field, or a JSON string, that is not UTF-8 text is a 400 with the one message."""
    if request.method in SAFE_METHODS:
        return
    kind = request.content_type[0]
    if kind == URL_ENCODED:
        await _refuse_undecodable_form(request)
    elif kind == "application/json" or kind.endswith("+json"):
        await _refuse_lone_surrogates(request)


async def _refuse_lone_surrogates(request: Request[Any, Any, Any]) -> None:
    body = await request.body()
    if _SURROGATE_ESCAPE.search(body) is None:
        return
    try:
        document = json.loads(body)  # Python keeps a lone surrogate where the API's decoder gives up
    except ValueError:
        return  # malformed, or bytes that are not UTF-8: the API's own check answers
    if (found := _lone_surrogate(document, "body")) is not None:
        name, problem = found
        raise ValidationException(f"the JSON field {name!r} is {problem}; {ENCODE_AS_UTF8}")


def _lone_surrogate(value: Any, name: str) -> tuple[str, str] | None:
    """(the field, the problem) of the first string in ``value`` that is not UTF-8 text, or ``None``."""
    if isinstance(value, str):
        problem = text_problem(value)
        return None if problem is None else (name, problem)
    if isinstance(value, dict):
        pairs = list(value.items())
    elif isinstance(value, list):
        pairs = [(name, item) for item in value]
    else:
        return None
    for key, item in pairs:
        if (found := _lone_surrogate(key, "(a field's name)") or _lone_surrogate(item, key)) is not None:
            return found
    return None


async def _refuse_undecodable_form(request: Request[Any, Any, Any]) -> None:
    for field in (await request.body()).split(b"&"):
        name, _, value = field.partition(b"=")
        for part in (name, value):
            if (problem := bytes_problem(_unquoted(part))) is not None:
                label = _unquoted(name).decode("utf-8", "replace")
                raise ValidationException(f"the form field {label!r} is {problem}; {ENCODE_AS_UTF8}")


def _unquoted(part: bytes) -> bytes:
    return unquote_to_bytes(part.replace(b"+", b" "))
