"""The shipped docs/summary.schema.json is the one the summary's types give now, and the
command that writes it says when it is stale."""

from locustfiles.suite.tools import summary_schema


def test_the_shipped_schema_is_the_one_the_types_give():
    assert summary_schema.SHIPPED.read_text() == summary_schema.generated(), (
        "docs/summary.schema.json is stale: python -m locustfiles.suite.tools.summary_schema"
    )


def test_check_writes_nothing_and_fails_on_a_stale_file(tmp_path, capsys):
    stale = tmp_path / "summary.schema.json"
    stale.write_text("{}\n")
    assert summary_schema.main(["--check", "--out", str(stale)]) == 1
    assert stale.read_text() == "{}\n"
    assert "stale" in capsys.readouterr().out


def test_writing_then_checking_passes(tmp_path):
    out = tmp_path / "summary.schema.json"
    assert summary_schema.main(["--out", str(out)]) == 0
    assert out.read_text() == summary_schema.generated()
    assert summary_schema.main(["--check", "--out", str(out)]) == 0
