"""What a lab server sends back for one request (:class:`Response`), shared by the HTTP engine
(:mod:`crawlers.web.httpd`) and the traps (:mod:`crawlers.web.traps`)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Response"]


@dataclass
class Response:
    """What to send back. ``stream`` > 0 sends that many filler bytes after ``body``, without
    a Content-Length (close-delimited); ``hold`` and ``reset`` send nothing; ``headers`` are
    extra header lines; ``drip`` > 0 sends the body one byte every ``drip`` seconds."""

    status: int = 200
    body: bytes = b""
    content_type: str = "text/html; charset=utf-8"
    location: str | None = None
    stream: int = 0
    hold: bool = False
    reset: bool = False
    headers: tuple[tuple[str, str], ...] = ()
    drip: float = 0.0
