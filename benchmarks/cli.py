"""The command line shared by the benchmark scripts: --quick, --markdown PATH."""

from __future__ import annotations

import argparse
from pathlib import Path


def repeats_and_output(doc: str, full_repeats: int, argv=None) -> tuple:
    """(repeats, markdown path or None) from the command line; --quick runs 2 repeats."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--markdown", help="write the table to this file")
    args = parser.parse_args(argv)
    return (2 if args.quick else full_repeats), args.markdown


def emit(text: str, path: str | None) -> None:
    """Print the table, and write it to ``path`` when given."""
    print(text)
    if path:
        Path(path).write_text(text)
