"""make compare's HTML: the report model's sections with their own plots inline, read back with
the standard library's HTML parser (sections, headings, table cells and their classes, images)."""

import base64
from html.parser import HTMLParser

from locustfiles.suite.report import compare, versus
from tests.loadsuite import synthetic

PNG = b"\x89PNG\r\n\x1a\n"


class Page(HTMLParser):
    """Each section's heading, tables (rows of (text, class) cells) and images, by section id."""

    def __init__(self, html: str):
        super().__init__()
        self.sections, self.tags, self.current, self.cell = {}, [], None, None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        if tag == "section":
            self.current = self.sections.setdefault(attrs["id"], {"title": "", "tables": [], "images": []})
        elif tag == "table":
            self.current["tables"].append([])
        elif tag == "tr":
            self.current["tables"][-1].append([])
        elif tag in ("td", "th"):
            self.cell = ["", attrs.get("class", "")]
        elif tag == "img":
            self.current["images"].append((attrs["alt"], attrs["src"]))

    def handle_endtag(self, tag):
        while tag in self.tags and self.tags.pop() != tag:  # void elements (img, meta) never close
            pass
        if tag in ("td", "th"):
            self.current["tables"][-1][-1].append((self.cell[0].strip(), self.cell[1]))
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell[0] += data
        elif self.tags and self.tags[-1] == "h2" and self.current is not None:
            self.current["title"] += data


def runs(b_slower_after=20):
    p, recorder, _, log = synthetic.recorded(seed=3)
    a = synthetic.summary_for(p, recorder, log=log, machine_cpu=150.0)
    p, recorder, _, log = synthetic.recorded(seed=3, slow_after=b_slower_after)
    b = synthetic.summary_for(p, recorder, log=log, machine_cpu=150.0)
    return a, b


def test_compare_html_is_a_report_of_sections_with_its_plots_inline_and_no_pre():
    result = compare.compare(*runs())
    html = compare.html(result, "runs/<a>", "runs/b")
    page = Page(html)
    assert "<pre>" not in html and "runs/&lt;a&gt;" in html
    assert list(page.sections) == ["runs", "percentiles", "changes", "cpu"]
    assert page.sections["percentiles"]["title"] == "Order endpoint per step, A against B (ms)"
    images = [alt for part in page.sections.values() for alt, _ in part["images"]]
    assert images == [
        "p50, p95 and p99 per step, A beside B",
        "B − A in % per step, beyond or within the noise floor",
        "CPU ms per purchase of each process group, A beside B",
    ]
    for part in page.sections.values():
        for _, src in part["images"]:
            assert src.startswith("data:image/png;base64,")
            assert base64.b64decode(src.split(",", 1)[1]).startswith(PNG)


def test_compare_html_marks_exactly_the_cells_beyond_the_noise_floor():
    result = compare.compare(*runs())
    (table,) = Page(compare.html(result, "a", "b")).sections["percentiles"]["tables"]
    header, *rows = table
    assert [text for text, _ in header] == ["step", "RPS", *compare.KEYS]
    assert [row[0][0] for row in rows] == ["1 user", "2 users", "3 users", "all"]
    for row, found in zip(rows, [*result["steps"], result["overall"]], strict=True):
        for (text, kind), key in zip(row[2:], compare.KEYS, strict=True):
            assert ("significant" in kind.split()) == found[key]["significant"], (row[0], key)
            assert text.endswith("!") == found[key]["significant"]
    assert any("significant" in kind for _, kind in rows[2][2:])  # the last step is five times slower
    assert not any("significant" in kind for row in rows[:2] for _, kind in row)


def test_compare_html_without_cpu_in_both_runs_says_so_and_draws_no_cpu_plot():
    a, b = runs()
    del b["cpu_ms_per_purchase"]
    page = Page(compare.html(compare.compare(a, b), "a", "b"))
    assert page.sections["cpu"]["tables"] == [] and page.sections["cpu"]["images"] == []
    assert "CPU per purchase: not compared (not measured in both runs)." in compare.html(
        compare.compare(a, b), "a", "b"
    )


def test_the_plots_are_drawn_only_from_what_was_compared():
    result = compare.compare(*runs())
    drawn = versus.draw(result)
    assert set(drawn) == {"percentiles.png", "changes.png", "cpu.png"}
    assert all(png.startswith(PNG) for png in drawn.values())
    result["steps"], result["cpu_ms_per_purchase"] = [], None
    assert versus.draw(result) == {}


def test_compare_shows_cpu_per_purchase_a_against_b_when_both_have_it():
    a, b = synthetic.cpu_summary(), synthetic.cpu_summary()
    for run in (a, b):
        run["cpu_accounting"]["purchases"] = compare.CPU_MIN_PURCHASES
    b["cpu_ms_per_purchase"] = {
        **a["cpu_ms_per_purchase"],
        "ecommerce": a["cpu_ms_per_purchase"]["ecommerce"] / 2,
    }
    result = compare.compare(a, b)
    ecommerce = result["cpu_ms_per_purchase"]["ecommerce"]
    assert ecommerce["significant"] and ecommerce["pct"] == -50.0
    assert not result["cpu_ms_per_purchase"]["lms_stub"]["significant"]
    text = compare.markdown(result, "a", "b")
    assert "CPU ms per purchase, the whole run" in text
    assert (
        f"| {a['cpu_ms_per_purchase']['ecommerce']:g} → {ecommerce['b']:g} (" in text
        and " %) **!** |" in text
    )

    del a["cpu_ms_per_purchase"]
    result = compare.compare(a, b)
    assert result["cpu_ms_per_purchase"] is None
    assert "CPU per purchase: not compared (not measured in both runs)." in compare.markdown(result, "a", "b")


def test_a_thin_percentile_is_marked_and_never_called_significant():
    a, b = synthetic.cpu_summary(), synthetic.cpu_summary()
    step_a, step_b = a["steps"][0], b["steps"][0]
    step_a["p99"], step_b["p99"] = 100.0, 400.0  # four times slower, on a handful of samples
    step_b["thin"] = ["p99"]
    result = compare.compare(a, b)
    p99 = result["steps"][0]["p99"]
    assert p99["thin"] and not p99["significant"] and p99["pct"] == 300.0
    assert "(+300 ms, +300 %)† |" in compare.markdown(result, "a", "b")
    step_b["thin"] = []
    assert compare.compare(a, b)["steps"][0]["p99"]["significant"]


def percentile_table(result: dict) -> dict:
    (part,) = [part for part in compare.sections(result, "a", "b") if part["id"] == "percentiles"]
    return next(block for block in part["blocks"] if block["kind"] == "table")


def open_model_run(late: float) -> dict:
    env = {"RPM": "600", "DURATION": "20", "WARMUP_SECONDS": "0"}
    p, recorder, _, _ = synthetic.recorded("rpm", env, late=late)
    return synthetic.summary_for(p, recorder)


def test_two_open_model_runs_are_compared_on_the_p95_from_the_schedule_too():
    a, b = open_model_run(0.1), open_model_run(0.5)
    result = compare.compare(a, b)
    found = result["overall"][compare.SCHEDULED]
    assert (found["a"], found["b"]) == (
        a["overall"]["from_schedule"]["p95"],
        b["overall"]["from_schedule"]["p95"],
    )
    assert found["b"] > found["a"] and found["significant"]
    table = percentile_table(result)
    at = table["headers"].index("p95")
    assert table["headers"][at + 1] == "p95 from schedule"
    assert table["rows"][-1][at + 1]["text"].startswith(f"{found['a']:g} → {found['b']:g}")
    # Not a change counted with the percentiles (it is significant here), and no column where a
    # run is closed-model.
    every = [*result["steps"], result["overall"]]
    assert result["significant"] == sum(1 for row in every for key in compare.KEYS if row[key]["significant"])
    closed, _ = runs()
    mixed = compare.compare(a, closed)
    assert mixed["overall"][compare.SCHEDULED] is None
    assert "p95 from schedule" not in percentile_table(mixed)["headers"]


def test_cpu_is_judged_for_the_services_only_and_over_purchases_enough():
    """The trial's case: 20 purchases a run, whole-millisecond figures 9 → 8 marked "!", and
    Locust's, the machine's and "other" (whatever else ran) marked too."""
    a, b = synthetic.cpu_summary(), synthetic.cpu_summary()
    halved = {key: (value / 2 if value else value) for key, value in a["cpu_ms_per_purchase"].items()}
    b["cpu_ms_per_purchase"] = halved
    for run in (a, b):
        run["cpu_accounting"]["purchases"] = 20
    few = compare.compare(a, b)
    assert not any(d["significant"] for d in few["cpu_ms_per_purchase"].values())
    assert "not judged: 20 purchases in a run, under 200" in compare.markdown(few, "a", "b")
    for run in (a, b):
        run["cpu_accounting"]["purchases"] = 1000
    found = compare.compare(a, b)["cpu_ms_per_purchase"]
    marked = {key for key, d in found.items() if d["significant"]}
    assert marked and marked <= set(compare.CPU_JUDGED)
    assert not {"locust", "machine", "other"} & marked
