"""HTML building blocks of the pages: one self-contained document (inline CSS, inline SVG, a
small inline script), tables, sections. Everything shown is escaped."""

import html
from collections.abc import Iterable
from typing import Any

__all__ = ["document", "escape", "figure", "figures", "note", "pre", "section", "table", "tiles"]

escape = html.escape

_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;max-width:1180px;padding:1em 1.5em;
color:#222;background:#fff}
h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.15em;margin:1.6em 0 .5em;border-bottom:1px solid #ddd}
.banner{padding:.6em 1em;border-radius:6px;margin:.6em 0 1em}
.banner.finished{background:#e6f4ea;border:1px solid #7bc38f}.banner.running{background:#e8f0fe;border:1px solid #8ab4f8}
.banner.stopped{background:#fce8e6;border:1px solid #ee9b92}
.banner b{font-size:1.1em}
.tiles{display:flex;flex-wrap:wrap;gap:.8em}.tile{border:1px solid #ddd;border-radius:6px;padding:.4em .9em}
.tile span{display:block;font-size:.8em;color:#666}.tile b{font-size:1.25em}
.figures{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start}
figure.plot{margin:0;border:1px solid #eee;border-radius:6px;padding:.3em}figure.plot svg{display:block;
max-width:100%;height:auto}
table{border-collapse:collapse;font-size:.85em;margin:.3em 0}td,th{border:1px solid #ddd;padding:.2em .5em;
text-align:right}th{background:#f5f5f5}td.l,th.l{text-align:left}
pre{background:#f7f7f7;border:1px solid #e5e5e5;border-radius:6px;padding:.6em;overflow-x:auto;font-size:.8em}
.note{color:#8a5300;background:#fff8e1;border:1px solid #f3d58a;border-radius:6px;padding:.4em .8em}
footer{margin-top:2em;color:#888;font-size:.8em}
"""

# Marks the page as checked: how many plots have a drawn, non-empty box. A browser test reads the
# attributes; nothing else depends on the script.
_SCRIPT = """
(function(){var figs=document.querySelectorAll('figure.plot svg'),drawn=0;
for(var i=0;i<figs.length;i++){var r=figs[i].getBoundingClientRect();
if(r.width>0&&r.height>0&&figs[i].querySelector('path,image,text'))drawn++;}
document.body.setAttribute('data-plots',String(figs.length));
document.body.setAttribute('data-plots-drawn',String(drawn));})();
"""


def document(title: str, body: str, refresh_seconds: int | None = None) -> str:
    """A whole page."""
    refresh = (
        f'<meta http-equiv="refresh" content="{int(refresh_seconds)}">' if refresh_seconds else ""
    )
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">{refresh}'
        f'<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{escape(title)}</title><style>{_CSS}</style></head>\n<body>\n{body}\n"
        f"<script>{_SCRIPT}</script>\n</body></html>\n"
    )


def section(title: str, *parts: str, anchor: str | None = None) -> str:
    ident = f' id="{escape(anchor)}"' if anchor else ""
    return (
        f"<section{ident}><h2>{escape(title)}</h2>\n"
        + "\n".join(p for p in parts if p)
        + "</section>\n"
    )


def table(header: Iterable[object], rows: Iterable[Iterable[object]], left: int = 1) -> str:
    """A table; the first ``left`` columns are aligned left (names), the rest right (figures)."""

    def cells(tag: str, values: Iterable[object]) -> str:
        return "".join(
            f"<{tag}{' class=l' if i < left else ''}>{escape(str(v))}</{tag}>"
            for i, v in enumerate(values)
        )

    body = "".join(f"<tr>{cells('td', r)}</tr>" for r in rows)
    return f"<table><tr>{cells('th', header)}</tr>{body}</table>"


def pre(text: str) -> str:
    return f"<pre>{escape(text)}</pre>"


def figure(svg: str, caption: str | None = None) -> str:
    """An SVG drawn by matplotlib (trusted markup, not escaped)."""
    cap = f"<figcaption>{escape(caption)}</figcaption>" if caption else ""
    return f'<figure class="plot">{svg}{cap}</figure>'


def figures(*items: str | None) -> str:
    return '<div class="figures">' + "".join(i for i in items if i) + "</div>"


def note(text: str) -> str:
    return f'<p class="note">{escape(text)}</p>'


def tiles(pairs: Iterable[tuple[str, Any]]) -> str:
    return (
        '<div class="tiles">'
        + "".join(
            f'<div class="tile"><span>{escape(k)}</span><b>{escape(str(v))}</b></div>'
            for k, v in pairs
        )
        + "</div>"
    )
