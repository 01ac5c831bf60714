"""What the dashboard's HTML forms send: the handler parameter for one, and the check of its encoding.

Every page form posts ``application/x-www-form-urlencoded``; a handler takes its fields as
:data:`FormData`. Litestar decodes those fields with ``errors="replace"``
(``urllib.parse.parse_qsl``), so bytes that are not UTF-8 would be stored as U+FFFD and passed on
to the prompt: :func:`refuse_undecodable_form` refuses such a form first, with the one wording of
:func:`claudeops.bytes_problem` that a config file, a recording, a command-line argument or a JSON
body get.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote_to_bytes

from litestar import Request
from litestar.exceptions import ValidationException
from litestar.params import URLEncodedBody

from claudeops import bytes_problem
from claudeops_web.rendering import ENCODE_AS_UTF8, SAFE_METHODS

FormData = URLEncodedBody[dict[str, Any]]
"""A page form's fields, by name (a repeated name: a list)."""
URL_ENCODED = "application/x-www-form-urlencoded"


async def refuse_undecodable_form(request: Request[Any, Any, Any]) -> None:
    """``before_request``: a urlencoded form with a field (name or value) that is not UTF-8 is a 400."""
    if request.method in SAFE_METHODS or request.content_type[0] != URL_ENCODED:
        return
    for field in (await request.body()).split(b"&"):
        name, _, value = field.partition(b"=")
        for part in (name, value):
            if (problem := bytes_problem(_unquoted(part))) is not None:
                label = _unquoted(name).decode("utf-8", "replace")
                raise ValidationException(f"the form field {label!r} is {problem}; {ENCODE_AS_UTF8}")


def _unquoted(part: bytes) -> bytes:
    return unquote_to_bytes(part.replace(b"+", b" "))
