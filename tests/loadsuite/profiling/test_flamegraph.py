"""The flame graph (profiling/flamegraph.py): an SVG whose boxes are as wide as their samples."""

import xml.etree.ElementTree as ET
from collections import Counter

import pytest

from locustfiles.suite.profiling import collapsed, flamegraph
from tests.loadsuite.profiling.test_collapsed import COLLAPSED

SVG = "{http://www.w3.org/2000/svg}"


def test_the_flame_graph_is_an_svg_whose_boxes_are_as_wide_as_their_samples():
    recorded = collapsed.read_collapsed(COLLAPSED).stacks
    root = ET.fromstring(flamegraph.render(recorded, "ecommerce & co", "20 samples", collapsed.kind))
    assert root.tag == f"{SVG}svg"
    width = float(root.get("width"))
    boxes = {}
    for group in root.iter(f"{SVG}g"):
        boxes.setdefault(group.get("data-label"), []).append(group)
    (everything,) = boxes["all (20 samples)"]
    assert float(everything.find(f"{SVG}rect").get("width")) == pytest.approx(width - 0.5)
    (post,) = boxes["post (ecommerce/orders/views.py:42)"]  # one box: its stacks share callers
    assert float(post.get("data-w")) == pytest.approx(width * 11 / 20)
    assert post.find(f"{SVG}title").text == "post (ecommerce/orders/views.py:42): 11 samples, 55.00 %"
    assert len(boxes["walk (ecommerce/tree.py:5)"]) == 3  # recursion: one above the other
    fills = {label: g[0].find(f"{SVG}rect").get("fill") for label, g in boxes.items()}
    assert fills["run (gevent/hub.py:631)"] == "rgb(190,190,190)"
    assert fills["post (ecommerce/orders/views.py:42)"] != fills["handle (gunicorn/workers/base_async.py:38)"]
    assert root.find(f"{SVG}text").text == "ecommerce & co"
    empty = ET.fromstring(flamegraph.render(Counter(), "rollup"))
    assert "No samples were recorded." in "".join(empty.itertext())
