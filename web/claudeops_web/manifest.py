"""The web app manifest: the dashboard installs on a phone's home screen like an app.

Icons are PNG files committed under ``static/icons/`` (drawn by ``web/make_icons.py``, no CDN,
nothing fetched). The manifest is public, like the static files: browsers fetch it without
cookies, and it says nothing but the name and the icons.
"""

from __future__ import annotations

from typing import Any

from litestar import Response, get

MANIFEST_PATH = "/manifest.webmanifest"
ICON_SIZES = (192, 512)
THEME_COLOR = "#2f5fd0"


@get(MANIFEST_PATH, sync_to_thread=False, include_in_schema=False)
def web_manifest() -> Response[dict[str, Any]]:
    """``/manifest.webmanifest`` (application/manifest+json)."""
    icons = [{"src": f"/static/app/icons/icon-{size}.png", "sizes": f"{size}x{size}", "type": "image/png",
              "purpose": "any maskable"} for size in ICON_SIZES]
    manifest = {"name": "claudeops", "short_name": "claudeops", "description": "Is anything wrong in the home lab?",
                "start_url": "/", "scope": "/", "display": "standalone", "background_color": "#f7f7f5",
                "theme_color": THEME_COLOR, "icons": icons}
    return Response(manifest, media_type="application/manifest+json")
