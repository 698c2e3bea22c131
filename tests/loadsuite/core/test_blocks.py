"""The report model (core/blocks.py): cells, tables and their Markdown and plain renderings."""

from locustfiles.suite.core import blocks


def test_a_missing_value_is_a_dash_and_numbers_print_without_trailing_zeros():
    assert blocks.fmt(None) == "–"
    assert [blocks.fmt(v) for v in (True, False, 2.50, 3, 1234567, "x")] == [
        "yes",
        "no",
        "2.5",
        "3",
        "1234567",
        "x",
    ]
    assert (
        blocks.fmt(-12.5, "+g") == "-12.5" and blocks.fmt(7, "+g") == "+7" and blocks.fmt(None, "+g") == "–"
    )


def test_counts_read_as_name_times_count_in_order():
    assert blocks.tally({"503": 2, "201": 40}) == "201×40, 503×2"
    assert blocks.tally({}) == "–" and blocks.tally({}, "none") == "none"


def test_a_column_holding_a_number_is_numeric_down_to_its_empty_cells():
    found = blocks.table(["step", "p95", "note"], [["1 user", 120, "ok"], ["2 users", None, None]])
    assert found["kinds"] == ["text", "num", "text"]
    assert [c["kind"] for c in found["rows"][1]] == ["text", "num", "text"]
    assert [c["text"] for c in found["rows"][1]] == ["2 users", "–", "–"]


def test_a_table_in_markdown_aligns_numbers_escapes_pipes_and_shows_marks():
    found = blocks.table(
        ["step", "p95", "statement"],
        [
            ["1 user", blocks.cell(120, "num", "thin"), blocks.cell("a | b", "code")],
            ["2 users", blocks.cell(900, mark="warn"), blocks.cell("x", mark="significant")],
        ],
        notes=["† few samples"],
        caption="Per step:",
    )
    assert blocks.markdown(found) == (
        "Per step:\n\n"
        "| step | p95 | statement |\n"
        "| --- | ---: | --- |\n"
        "| 1 user | 120 † | a \\| b |\n"
        "| 2 users | 900 ⚠ | x **!** |\n"
        "\n† few samples\n"
        "\n"
    )


def test_the_other_blocks_in_markdown_and_a_document_ends_with_one_newline():
    parts = [
        blocks.text("Hello."),
        blocks.links(("a.svg", "flame graph"), ("a.txt", "stacks")),
        blocks.image("p.png", "percentiles"),
        blocks.bullets(["one", "two"]),
    ]
    assert [blocks.markdown(b) for b in parts] == [
        "Hello.\n\n",
        "[flame graph](a.svg) · [stacks](a.txt)\n\n",
        "![percentiles](p.png)\n\n",
        "* one\n* two\n\n",
    ]
    assert (
        blocks.markdown_document("Title", [parts[0], None, parts[3]]) == "# Title\n\nHello.\n\n* one\n* two\n"
    )


def test_a_table_in_plain_text_pads_to_the_widest_cell_or_the_least_width():
    found = blocks.table(["step", "p95"], [["1 user", blocks.cell(70, "num", "thin")], ["all", 1234]])
    assert blocks.plain(found, [8, 5]) == [
        "step        p95",
        "1 user      70†",
        "all        1234",
    ]
    assert blocks.plain(found) == ["step     p95", "1 user   70†", "all     1234"]


def test_a_section_keeps_only_the_blocks_it_has():
    found = blocks.section("s", "Title", blocks.text("a"), None, blocks.text("b"))
    assert found == {"id": "s", "title": "Title", "blocks": [blocks.text("a"), blocks.text("b")]}
