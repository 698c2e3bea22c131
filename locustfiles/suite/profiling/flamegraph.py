"""A flame graph as one SVG file, drawn from collapsed stacks (make profile).

Each box is a frame; its width is the share of the samples in which that frame was on the
stack, its children stand on it, the callers at the bottom. Siblings are sorted by name, so
the same code lands in the same place run after run. Hovering a box shows the frame, its
samples and its share; clicking one zooms to it, clicking the bottom bar ("all") zooms out.
Frames too narrow to see are left out (their samples still count in their callers).

Colours: our own code (ecommerce/, lms_stub/, common/, locustfiles/, settings/) in blues, the
gevent hub's loop in grey, everything else (Django, Oscar, gunicorn, the standard library) in
warm colours picked from the function's name.

Written for this project from the flame graph's idea (Brendan Gregg's); nothing of other
renderers is copied.
"""

import zlib
from collections.abc import Callable, Mapping
from xml.sax.saxutils import escape, quoteattr

WIDTH = 1200  # px of the drawing
ROW = 17  # px per stack level
FONT = 11  # px
CHAR = FONT * 0.6  # the mean width of a character of the font, in px
TOP = 58  # px above the tallest stack: the title, subtitle and the frame under the pointer
BOTTOM = 8
MIN_PX = 0.4  # narrower frames are not drawn

SCRIPT = """
var svg = document.documentElement, W = %(width)s, CHAR = %(char)s;
function fit(g, x, w) {
  var r = g.querySelector('rect'), t = g.querySelector('text');
  r.setAttribute('x', x); r.setAttribute('width', Math.max(w - 0.5, 0));
  g.style.display = w < %(min_px)s ? 'none' : '';
  var n = Math.floor((w - 6) / CHAR), label = g.getAttribute('data-label');
  t.setAttribute('x', x + 3);
  t.textContent = n < 3 ? '' : (label.length <= n ? label : label.slice(0, n - 2) + '..');
}
function zoom(target) {
  var x0 = +target.getAttribute('data-x'), w0 = +target.getAttribute('data-w');
  var d0 = +target.getAttribute('data-depth'), s = W / w0;
  svg.querySelectorAll('g.f').forEach(function (g) {
    var x = +g.getAttribute('data-x'), w = +g.getAttribute('data-w'), d = +g.getAttribute('data-depth');
    var e = 1e-6, within = x >= x0 - e && x + w <= x0 + w0 + e, holds = x <= x0 + e && x + w >= x0 + w0 - e;
    g.classList.toggle('above', d < d0);
    if (d < d0 && holds) { fit(g, 0, W); return; }  /* a caller of the frame: full width */
    if (d < d0 || !within) { g.style.display = 'none'; return; }
    fit(g, (x - x0) * s, w * s);
  });
}
svg.querySelectorAll('g.f').forEach(function (g) {
  g.addEventListener('click', function () { zoom(g); });
  g.addEventListener('mouseover', function () {
    document.getElementById('details').textContent = g.querySelector('title').textContent;
  });
});
"""

STYLE = """
text { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: %(font)spx; fill: #000; }
text.title { font-size: 16px; font-weight: bold; }
text.sub, text.details { font-size: 12px; fill: #333; }
g.f { cursor: pointer; }
g.f:hover rect { stroke: #000; stroke-width: 0.6; }
g.f.above rect { opacity: 0.5; }
g.f text { pointer-events: none; }
"""


class Node:
    """A frame at one place in the call tree: its samples (inclusive) and its callees."""

    __slots__ = ("name", "samples", "children")

    def __init__(self, name: str):
        self.name = name
        self.samples = 0
        self.children: dict[str, Node] = {}

    def add(self, frames: tuple[str, ...], samples: int) -> None:
        node = self
        node.samples += samples
        for frame in frames:
            node = node.children.setdefault(frame, Node(frame))
            node.samples += samples

    def depth(self) -> int:
        return 1 + max((child.depth() for child in self.children.values()), default=0)


def tree(stacks: Mapping[tuple[str, ...], int]) -> Node:
    root = Node("all")
    for frames, samples in stacks.items():
        root.add(frames, samples)
    return root


def colour(frame: str, kind: str) -> str:
    """A fill for ``frame`` of ``kind`` ("own", "event loop" or "other")."""
    seed = zlib.crc32(frame.split(" (", 1)[0].encode())
    if kind == "event loop":
        return "rgb(190,190,190)"
    if kind == "own":
        return f"rgb({80 + seed % 60},{140 + seed % 50},{220 + seed % 35})"
    return f"rgb({225 + seed % 30},{90 + (seed >> 8) % 120},{40 + (seed >> 16) % 40})"


def _text_for(label: str, width: float) -> str:
    room = int((width - 6) // CHAR)
    if room < 3:
        return ""
    return label if len(label) <= room else label[: room - 2] + ".."


def render(
    stacks: Mapping[tuple[str, ...], int],
    title: str,
    subtitle: str = "",
    kind: Callable[[str], str] = lambda frame: "other",
) -> str:
    """The SVG text of a flame graph of ``stacks`` (frames from the outermost caller in);
    ``kind`` says of a frame whether it is "own" code, the "event loop" or "other"."""
    root = tree(stacks)
    total = root.samples
    levels = root.depth()
    height = TOP + levels * ROW + BOTTOM
    boxes: list[str] = []

    def draw(node: Node, x: float, depth: int) -> None:
        width = WIDTH * node.samples / total
        if width < MIN_PX:
            return
        y = height - BOTTOM - (depth + 1) * ROW
        share = 100 * node.samples / total
        label = node.name if depth else f"all ({total} samples)"
        tip = f"{label}: {node.samples} samples, {share:.2f} %"
        boxes.append(
            f'<g class="f" data-x="{x:.3f}" data-w="{width:.3f}" data-depth="{depth}" '
            f"data-label={quoteattr(label)}><title>{escape(tip)}</title>"
            f'<rect x="{x:.2f}" y="{y}" width="{max(width - 0.5, 0):.2f}" height="{ROW - 1}" '
            f'rx="2" fill="{"rgb(230,230,230)" if not depth else colour(node.name, kind(node.name))}"/>'
            f'<text x="{x + 3:.2f}" y="{y + ROW - 5}">{escape(_text_for(label, width))}</text></g>'
        )
        child_x = x
        for name in sorted(node.children):
            child = node.children[name]
            draw(child, child_x, depth + 1)
            child_x += WIDTH * child.samples / total

    if total:
        draw(root, 0.0, 0)
    empty = "" if total else f'<text class="sub" x="10" y="{TOP}">No samples were recorded.</text>'
    script = SCRIPT % {"width": WIDTH, "char": CHAR, "min_px": MIN_PX}
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}">\n'
        f"<style>{STYLE % {'font': FONT}}</style>\n"
        f'<rect x="0" y="0" width="{WIDTH}" height="{height}" fill="#fff"/>\n'
        f'<text class="title" x="10" y="20">{escape(title)}</text>\n'
        f'<text class="sub" x="10" y="36">{escape(subtitle)}</text>\n'
        f'<text class="details" id="details" x="10" y="52"> </text>\n'
        + "\n".join(boxes)
        + empty
        + f"\n<script><![CDATA[{script}]]></script>\n</svg>\n"
    )
