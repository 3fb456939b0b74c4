"""Small inline SVG charts, rendered on the server (the inspector works offline: no CDN, no JS)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape


def decay_curve(
    points: Sequence[Sequence[float]],
    *,
    threshold: float | None = None,
    width: int = 180,
    height: int = 56,
    label: str = "",
    axis: str = "tick",
) -> str:
    """A memory's significance over ticks (``[tick, value]`` points, value in 0..1) as a polyline,
    with the forgetting threshold dashed, and axes: significance 0 and 1 at the left, the first
    and last tick (``axis`` names them) below. Empty points: an empty string."""
    if not points:
        return ""
    first, last = points[0][0], points[-1][0]
    span = max(1.0, float(last - first))
    pad, left, bottom = 2.0, 12.0, 12.0

    def x(tick: float) -> float:
        return left + (tick - first) / span * (width - left - pad)

    def y(value: float) -> float:
        return pad + (1.0 - max(0.0, min(1.0, value))) * (height - bottom - pad)

    line = " ".join(f"{x(t):.1f},{y(v):.1f}" for t, v in points)
    parts = [
        f'<svg class="curve" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(label)}">',
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#fafafa" stroke="#ddd"/>',
    ]
    if threshold:
        parts.append(
            f'<line x1="{pad}" x2="{width - pad}" y1="{y(threshold):.1f}" y2="{y(threshold):.1f}" '
            'stroke="#c0392b" stroke-dasharray="3,2"/>'
        )
    text = 'font-size="8" fill="#666" font-family="sans-serif"'
    parts += [
        f'<line x1="{left}" x2="{left}" y1="{pad}" y2="{y(0):.1f}" stroke="#999"/>',
        f'<line x1="{left}" x2="{width - pad}" y1="{y(0):.1f}" y2="{y(0):.1f}" stroke="#999"/>',
        f'<text x="1" y="{y(1) + 6:.1f}" {text}>1</text><text x="1" y="{y(0):.1f}" {text}>0</text>',
        f'<text x="{left}" y="{height - 2}" {text}>{escape(axis)} {first:g}</text>',
        f'<text x="{width - pad}" y="{height - 2}" text-anchor="end" {text}>{last:g}</text>',
    ]
    parts.append(f'<polyline fill="none" stroke="#2c7be5" stroke-width="1.5" points="{line}"/>')
    parts.append(f'<circle cx="{x(first):.1f}" cy="{y(points[0][1]):.1f}" r="2.5" fill="#2c7be5"/>')
    parts.append("</svg>")
    return "".join(parts)
