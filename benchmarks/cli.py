"""The command line shared by the benchmark scripts: --quick, --markdown PATH, --json PATH.

``--json PATH`` saves what the script printed as machine-readable results (the format that
``benchmarks/report.py`` turns into the tables of benchmarks/README.md): the Markdown tables as
columns and rows of cells, the lines around them as text, with the command, the date and the
machine that produced them.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

FORMAT = 1  # version of the results file's layout
_CELL_SPLIT = re.compile(r"(?<!\\)\|")  # a cell boundary; "\|" is a bar inside a cell


@dataclass
class Output:
    """Where a script writes its table besides stdout: a Markdown file and/or a results file."""

    markdown: str | None = None
    json: str | None = None
    argv: list = field(default_factory=list)  # the script's own options, without these two


def add_output_options(parser: argparse.ArgumentParser) -> None:
    """Add --markdown PATH and --json PATH to a script's own parser."""
    parser.add_argument("--markdown", help="write the table to this file")
    parser.add_argument("--json", help="write the results (tables, command, date, machine) to this JSON file")


def output_of(args: argparse.Namespace, argv=None) -> Output:
    """The Output of parsed options; ``argv`` (default sys.argv[1:]) is recorded without them."""
    return Output(args.markdown, args.json, script_options(sys.argv[1:] if argv is None else argv))


def script_options(argv) -> list:
    """``argv`` without --markdown/--json and their values: the options that changed the measurement."""
    kept, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg in ("--markdown", "--json"):
            skip = True
        elif not arg.startswith(("--markdown=", "--json=")):
            kept.append(arg)
    return kept


def repeats_and_output(doc: str, full_repeats: int, argv=None) -> tuple:
    """(repeats, Output) from the command line; --quick runs 2 repeats."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    add_output_options(parser)
    args = parser.parse_args(argv)
    return (2 if args.quick else full_repeats), output_of(args, argv)


def emit(text: str, output: Output | str | None) -> None:
    """Print the table; write it to the Markdown file and the results file that ``output`` names.

    ``output`` may also be a plain Markdown path (or None), as the scripts with their own parsers pass.
    """
    print(text)
    if isinstance(output, (str, type(None))):
        output = Output(markdown=output)
    if output.markdown:
        Path(output.markdown).write_text(text)
    if output.json:
        script = Path(sys.argv[0]).name
        record = results_record(text, script, output.argv)
        Path(output.json).parent.mkdir(parents=True, exist_ok=True)
        Path(output.json).write_text(json.dumps(record, indent=1) + "\n")


def cpu_model() -> str:
    """The CPU's model name (from /proc/cpuinfo where there is one)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> str:
    """A one-line description of this machine: CPU model, cores, load average, OS and Python."""
    cpu = cpu_model()
    load = f", load average {os.getloadavg()[0]:.1f} at the end" if hasattr(os, "getloadavg") else ""
    return (f"{cpu}, {os.cpu_count()} cores{load}; {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}")


def results_record(text: str, script: str, argv: list) -> dict:
    """The results of one run: its command, date and machine, and its output parsed into blocks."""
    return {
        "format": FORMAT,
        "script": script,
        "command": shlex.join(["python", f"benchmarks/{script}", *argv]),
        "date": datetime.date.today().isoformat(),
        "machine": machine(),
        "source": "measured",
        "blocks": parse_markdown(text),
    }


def parse_markdown(text: str) -> list:
    """Blocks of a script's output: ``{"text": ...}`` for prose, ``{"columns", "align", "rows"}`` for a table.

    A table is a run of lines starting with "|" whose second line is the alignment row (|---|---:|).
    Cells stay the strings the script formatted (its rounding is part of the result).
    """
    blocks, prose = [], []
    lines = text.strip("\n").splitlines()
    i = 0
    while i < len(lines):
        if _is_table_start(lines, i):
            _flush(prose, blocks)
            header, align = _cells(lines[i]), [_alignment(c) for c in _cells(lines[i + 1])]
            rows, i = [], i + 2
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                rows.append(_cells(lines[i]))
                i += 1
            blocks.append({"columns": header, "align": align, "rows": rows})
        else:
            prose.append(lines[i])
            i += 1
    _flush(prose, blocks)
    return blocks


def render_blocks(blocks: list) -> str:
    """The Markdown of parsed blocks (the inverse of parse_markdown, up to blank lines)."""
    marks = {"left": ":---", "right": "---:", "center": ":---:", "": "---"}
    parts = []
    for block in blocks:
        if "text" in block:
            parts.append(block["text"])
            continue
        lines = [_row(block["columns"]), "|" + "|".join(marks[a] for a in block["align"]) + "|"]
        lines += [_row(row) for row in block["rows"]]
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def _is_table_start(lines: list, i: int) -> bool:
    return (lines[i].lstrip().startswith("|") and i + 1 < len(lines)
            and re.fullmatch(r"\s*\|(\s*:?-+:?\s*\|)+\s*", lines[i + 1]) is not None)


def _cells(line: str) -> list:
    return [c.strip() for c in _CELL_SPLIT.split(line.strip())[1:-1]]


def _alignment(cell: str) -> str:
    left, right = cell.startswith(":"), cell.endswith(":")
    return "center" if left and right else "left" if left else "right" if right else ""


def _row(cells: list) -> str:
    return "| " + " | ".join(cells) + " |"


def _flush(prose: list, blocks: list) -> None:
    text = "\n".join(prose).strip("\n")
    if text.strip():
        blocks.append({"text": text})
    prose.clear()
