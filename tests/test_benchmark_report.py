"""benchmarks/README.md is what benchmarks/report.py makes of the stored results (no benchmark runs here)."""

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"


def _report_module():
    """benchmarks/report.py, and the cli.py it imports from its own directory (left off sys.path after)."""
    path = list(sys.path)
    spec = importlib.util.spec_from_file_location("benchmarks_report", BENCHMARKS / "report.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = path
    return module, sys.modules["cli"]


report, cli = _report_module()


def test_readme_is_generated_from_the_stored_results():
    expected = report.render(report.TEMPLATE.read_text(), report.load_results())
    assert (BENCHMARKS / "README.md").read_text() == expected, "run: python benchmarks/report.py"
    assert report.main(["--check"]) == 0


def test_every_result_names_its_command_date_and_machine():
    results = report.load_results()
    assert len(results) >= 15
    scripts = {p.name for p in BENCHMARKS.glob("*.py")}
    for name, record in results.items():
        assert record["format"] == cli.FORMAT, name
        assert record["script"] in scripts, name
        assert record["command"].startswith(f"python benchmarks/{record['script']}"), name
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", record["date"]), name
        assert record["machine"] and record["source"] in ("measured", "transcribed"), name
        if record["source"] == "transcribed":
            assert "Transcribed" in record["note"], name
        tables = [b for b in record["blocks"] if "rows" in b]
        assert tables, f"{name} holds no table"
        for table in tables:
            assert len(table["align"]) == len(table["columns"]), name
            assert all(len(row) == len(table["columns"]) for row in table["rows"]), name
    assert set(report.FAST) <= set(results)
    assert all(results[name]["source"] == "measured" for name in report.FAST)


def test_every_table_row_of_the_readme_comes_from_a_result():
    """No number is typed into the template: its only tables are the two indexes of scripts."""
    template = report.TEMPLATE.read_text()
    headers = [line for line in template.splitlines() if line.startswith("| ") and "---" not in line
               and not line.startswith("| `")]
    assert headers == ["| script | what it measures |"]


def test_placeholders_and_results_match_one_to_one(tmp_path):
    results = {"a": _record("| x | y |\n|---|---:|\n| 1 | 2.5 |")}
    assert "| 1 | 2.5 |" in report.render("# T\n\n{{ results a }}\n", results)
    with pytest.raises(KeyError, match="b"):
        report.render("{{ results a }}\n{{ results b }}\n", results)
    with pytest.raises(ValueError, match="not shown.*a"):
        report.render("# nothing\n", results)


def test_parse_and_render_round_trip():
    text = ("Caption line.\n\n| a | max \\|\\|q\\| - 1\\| | c |\n|---|---:|:---:|\n| 1 | 2e-9 | x |\n"
            "| 3 | 4 | y |\n\nA closing note.")
    blocks = cli.parse_markdown(text)
    assert [list(b) for b in blocks] == [["text"], ["columns", "align", "rows"], ["text"]]
    assert blocks[1]["columns"] == ["a", "max \\|\\|q\\| - 1\\|", "c"]
    assert blocks[1]["align"] == ["", "right", "center"]
    assert blocks[1]["rows"] == [["1", "2e-9", "x"], ["3", "4", "y"]]
    assert cli.render_blocks(blocks) == text


def test_emit_writes_results_with_the_options_that_changed_the_run(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["benchmarks/demo.py", "--quick", "--json", str(tmp_path / "r.json")])
    _, output = cli.repeats_and_output("Demo.", 5)
    assert output.argv == ["--quick"]
    cli.emit("| n | t [ms] |\n|---|---:|\n| 3 | 1.25 |\n", output)
    record = json.loads((tmp_path / "r.json").read_text())
    assert record["command"] == "python benchmarks/demo.py --quick"
    assert record["source"] == "measured" and "cores" in record["machine"]
    assert record["blocks"] == [{"columns": ["n", "t [ms]"], "align": ["", "right"], "rows": [["3", "1.25"]]}]
    assert "| 3 | 1.25 |" in capsys.readouterr().out


def _record(text):
    return {"format": cli.FORMAT, "script": "x.py", "command": "python benchmarks/x.py", "date": "2026-01-01",
            "machine": "m", "source": "measured", "blocks": cli.parse_markdown(text)}
