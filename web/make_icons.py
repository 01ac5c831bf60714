"""Draw the dashboard's home-screen icons (``claudeops_web/static/icons/icon-{192,512}.png``).

Run once after changing the design (``.venv/bin/python web/make_icons.py``) and commit the PNGs:
the dashboard serves them as files, nothing is fetched from a CDN. Standard library only: a
heartbeat line, white on the dashboard's accent blue, with a margin that survives a maskable crop.
"""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

BLUE = (0x2F, 0x5F, 0xD0)
WHITE = (0xFF, 0xFF, 0xFF)
# the heartbeat, in units of the icon's size (inside the 80 % safe zone of a maskable icon)
LINE = [(0.18, 0.55), (0.36, 0.55), (0.44, 0.34), (0.54, 0.72), (0.62, 0.48), (0.82, 0.48)]
THICKNESS = 0.045
TARGET = Path(__file__).parent / "claudeops_web" / "static" / "icons"


def distance_to_segment(x: float, y: float, a: tuple[float, float], b: tuple[float, float]) -> float:
    (ax, ay), (bx, by) = a, b
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(x - (ax + t * dx), y - (ay + t * dy))


def pixel(x: float, y: float, size: int) -> tuple[int, ...]:
    distance = min(distance_to_segment(x, y, LINE[i], LINE[i + 1]) for i in range(len(LINE) - 1))
    edge = THICKNESS - distance  # a one-pixel soft edge
    cover = max(0.0, min(1.0, 0.5 + edge * size))
    return tuple(round(b + (w - b) * cover) for b, w in zip(BLUE, WHITE, strict=True))


def png(size: int) -> bytes:
    rows = bytearray()
    for row in range(size):
        rows.append(0)  # filter: none
        for column in range(size):
            rows.extend(pixel((column + 0.5) / size, (row + 0.5) / size, size))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)  # 8-bit RGB
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + \
        chunk(b"IEND", b"")


if __name__ == "__main__":
    TARGET.mkdir(parents=True, exist_ok=True)
    for size in (192, 512):
        (TARGET / f"icon-{size}.png").write_bytes(png(size))
        print(f"wrote {TARGET / f'icon-{size}.png'}")
