"""The report model: what every renderer of the suite shows, as data, and its text renderings.

A section is ``{"id", "title", "blocks"}``. A block is text (``{"kind": "text", "text"}``), a
table (``{"kind": "table", "headers", "kinds", "rows", "notes", "caption"}``, rows of cells made
by ``cell``), a plot (``{"kind": "image", "file", "alt"}``), links to files of the run folder
(``{"kind": "links", "links": [{"href", "text"}, ...]}``) or a list of short points
(``{"kind": "list", "items"}``). No block holds markup: the report's HTML template
(report/templates/blocks.html.j2) and the renderers here turn the same data into HTML, Markdown
and plain text. The run's report, the terminal summary, ``make compare``, the index audit and
the cluster's fault table all render through these blocks.

Standard library only: the chaos and tools layers, below or beside the report, render here too.
"""

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

DASH = "–"  # a value that was not measured, in every rendering
MARKS = {  # mark: (Markdown suffix, plain-text suffix)
    "thin": (" †", "†"),  # a percentile on too few samples
    "warn": (" ⚠", " ⚠"),  # a value near or past a limit
    "significant": (" **!**", " !"),  # a change beyond the noise floor
}


def fmt(value, spec: str = "g") -> str:
    """A value as a cell shows it: – when there is none, yes/no, a float in ``spec`` (``g``: no
    trailing zeros; ``+g``: signed), anything else as it prints."""
    if value is None:
        return DASH
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) or (isinstance(value, int) and spec != "g"):
        return format(value, spec)
    return str(value)


def figure_cell(row: Mapping[str, Any], key: str, kind: str | None = "num") -> dict:
    """A row's figure as a cell, marked "thin" where the row says its percentile rests on too
    few samples (figures/results.thin)."""
    return cell(row.get(key), kind, "thin" if key in (row.get("thin") or ()) else None)


def tally(counts: dict, empty: str = DASH) -> str:
    """Counts by name in a few words: "201×40, 503×2" (``empty`` when there are none)."""
    return ", ".join(f"{name}×{n}" for name, n in sorted(counts.items())) or empty


def cell(value, kind: str | None = None, mark: str | None = None, href: str | None = None) -> dict:
    """kind: "num" (right-aligned), "text" or "code" (left-aligned, wrapped); mark: one of
    MARKS, or None; href: the cell's text links there."""
    if kind is None:
        kind = "num" if isinstance(value, int | float) and not isinstance(value, bool) else "text"
    found = {"text": fmt(value), "kind": kind, "mark": mark}
    if href:
        found["href"] = href
    return found


def text(content: str) -> dict:
    return {"kind": "text", "text": content}


def table(headers: list[str], rows: list[list], notes: list[str] | None = None, caption: str = "") -> dict:
    """rows: cells, or plain values made into cells; a column holding any number is a
    numeric column (right-aligned, its empty cells too). The caption says what the table
    holds (above it), the notes explain its marks (below it)."""
    body = [[v if isinstance(v, dict) else cell(v) for v in row] for row in rows]
    kinds = [
        "num" if any(row[i]["kind"] == "num" for row in body) else (body[0][i]["kind"] if body else "text")
        for i in range(len(headers))
    ]
    for row in body:
        for i, c in enumerate(row):
            if c["text"] == DASH:
                c["kind"] = kinds[i]
    return {
        "kind": "table",
        "headers": headers,
        "kinds": kinds,
        "rows": body,
        "notes": notes or [],
        "caption": caption,
    }


def image(file: str, alt: str) -> dict:
    return {"kind": "image", "file": file, "alt": alt}


def links(*pairs: tuple[str, str]) -> dict:
    """Links to files beside the report, (href, text) each; relative, so they work from the
    folder on disk."""
    return {"kind": "links", "links": [{"href": href, "text": content} for href, content in pairs]}


def bullets(items: Iterable[str]) -> dict:
    return {"kind": "list", "items": list(items)}


def section(id_: str, title: str, *blocks) -> dict:
    return {"id": id_, "title": title, "blocks": [b for b in blocks if b]}


# --- Markdown --------------------------------------------------------------------------------


def md_cell(content) -> str:
    """Text that stays inside one Markdown table cell."""
    return str(content).replace("|", "\\|").replace("\n", " ")


def _md_table(block: dict) -> str:
    def shown(c: dict) -> str:
        content = f"[{md_cell(c['text'])}]({c['href']})" if c.get("href") else md_cell(c["text"])
        return content + (MARKS[c["mark"]][0] if c["mark"] else "")

    out = f"{block['caption']}\n\n" if block["caption"] else ""
    out += "| " + " | ".join(map(md_cell, block["headers"])) + " |\n"
    out += "|" + "".join(" ---: |" if kind == "num" else " --- |" for kind in block["kinds"]) + "\n"
    out += "".join("| " + " | ".join(map(shown, row)) + " |\n" for row in block["rows"])
    return out + "".join(f"\n{note}\n" for note in block["notes"]) + "\n"


def markdown(block: dict) -> str:
    """One block as Markdown, followed by a blank line."""
    kind = block["kind"]
    if kind == "table":
        return _md_table(block)
    if kind == "links":
        return " · ".join(f"[{link['text']}]({link['href']})" for link in block["links"]) + "\n\n"
    if kind == "image":
        return f"![{block['alt']}]({block['file']})\n\n"
    if kind == "list":
        return "".join(f"* {item}\n" for item in block["items"]) + "\n"
    return f"{block['text']}\n\n"


def markdown_document(title: str, blocks: Sequence[dict | None]) -> str:
    """A short Markdown page: the title, then the blocks (a None is left out); one newline at
    its end."""
    body = "".join(markdown(block) for block in blocks if block)
    return (f"# {title}\n\n" if title else "") + body.rstrip("\n") + "\n"


# --- plain text (a terminal) ---------------------------------------------------------------------


def plain(block: dict, widths: list[int] | None = None) -> list[str]:
    """A table as aligned lines for a terminal: the first column to the left, the others to the
    right, each at least its ``widths`` entry wide, two spaces apart."""
    headers = block["headers"]
    rows = [[c["text"] + (MARKS[c["mark"]][1] if c["mark"] else "") for c in row] for row in block["rows"]]
    least = widths or [0] * len(headers)
    sizes = [
        max(w, len(h), *(len(row[i]) for row in rows))
        for i, (h, w) in enumerate(zip(headers, least, strict=True))
    ]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(cells, sizes, strict=True))
        )

    return [line(headers), *(line(row) for row in rows)]
