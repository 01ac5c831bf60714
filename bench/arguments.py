"""The command line of a bench that takes one optional argument (a size, a list of sizes, a count).

Each bench used to read ``sys.argv[1]`` by hand, so ``--help`` crashed with a traceback and a typo
ran with a ``ValueError``; this gives every such bench the same ``--help`` (its module docstring)
and a one-line usage error (exit 2) for a bad value.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def one_argument(doc: str | None, metavar: str, parse: Callable[[str], T], default: T) -> T:
    """The bench's one optional argument parsed with ``parse`` (``default`` when it is left out)."""
    def parsed(text: str) -> T:
        try:
            return parse(text)
        except (KeyError, ValueError):
            raise argparse.ArgumentTypeError(f"invalid value {text!r}") from None

    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("value", nargs="?", metavar=metavar, type=parsed, default=default,
                        help=f"default: {default}")
    value: T = parser.parse_args().value
    return value
