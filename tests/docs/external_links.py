"""The external links of the documentation and their allow-list, docs/external_links.txt.

CI has no network, so Sphinx's ``linkcheck`` builder cannot run there. Instead every external URL
that the documentation shows (README.md, docs/, the notebooks rendered as tutorials, the docstrings
rendered in the reference, benchmarks/README.md) must be listed in docs/external_links.txt with the
date it was last checked to resolve ("never" for a link added offline);
tests/test_external_links.py fails on a link missing from the list and on an entry no page uses.
Internal links and anchors are checked by the Sphinx build itself (``-W``).

    python tests/docs/external_links.py             # list the links found, and where
    python tests/docs/external_links.py --online    # (needs network) check every listed link and
                                                    # set its date to today where it resolves
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ALLOW_LIST = ROOT / "docs" / "external_links.txt"
URL = re.compile(r"https?://[^\s<>\"'`()\[\]{}|\\]+")
_TRAILING = ".,;:!?*_"  # sentence punctuation and Markdown emphasis after a URL
_SKIP_DIRS = {"_build", "generated", "tutorials", ".ipynb_checkpoints"}  # build output; tutorials copy notebooks/


def sources() -> list[Path]:
    """The files whose text the documentation site or the README shows."""
    docs = [p for p in (ROOT / "docs").rglob("*") if p.is_file() and p.suffix in {".md", ".rst", ".py", ".txt"}
            and not _SKIP_DIRS & set(p.relative_to(ROOT / "docs").parts) and p != ALLOW_LIST]
    return sorted([ROOT / "README.md", ROOT / "benchmarks" / "README.md", ROOT / "benchmarks" / "README.template.md",
                   *docs, *(ROOT / "notebooks").glob("*.ipynb"), *(ROOT / "python" / "nonholo").rglob("*.py")])


def _text(path: Path) -> str:
    """The shown text: a notebook's Markdown cells (its code's outputs are not links), else the file."""
    if path.suffix != ".ipynb":
        return path.read_text(encoding="utf-8")
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def found_links() -> dict[str, list[str]]:
    """URL -> the places ("path:line") that show it."""
    links: dict[str, list[str]] = {}
    for path in sources():
        for number, line in enumerate(_text(path).splitlines(), 1):
            for match in URL.finditer(line):
                url = match.group().rstrip(_TRAILING)
                links.setdefault(url, []).append(f"{path.relative_to(ROOT)}:{number}")
    return links


def read_allow_list(path: Path = ALLOW_LIST) -> dict[str, dict]:
    """URL -> {"checked": date or None, "note": str, "line": int}; raises ValueError naming a bad line."""
    entries: dict[str, dict] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split(None, 2)
        if len(fields) < 2 or not URL.fullmatch(fields[0]):
            raise ValueError(f"{path.name}:{number}: expected 'URL  YYYY-MM-DD|never  note', got {line!r}")
        url, checked = fields[0], fields[1]
        if url in entries:
            raise ValueError(f"{path.name}:{number}: {url} is listed twice")
        entries[url] = {"checked": None if checked == "never" else _date(checked, path.name, number),
                        "note": fields[2] if len(fields) > 2 else "", "line": number}
    return entries


def _date(text: str, name: str, number: int) -> datetime.date:
    try:
        date = datetime.date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{name}:{number}: the date last checked must be YYYY-MM-DD or 'never', "
                         f"got {text!r}") from None
    if date > datetime.date.today():
        raise ValueError(f"{name}:{number}: the date last checked, {date}, is in the future")
    return date


def check_online(timeout: float = 20.0) -> int:
    """Request every listed URL; write today's date for those that resolve. Returns the failures."""
    today, failures = datetime.date.today().isoformat(), 0
    lines = ALLOW_LIST.read_text(encoding="utf-8").splitlines()
    for url, entry in read_allow_list().items():
        try:
            request = urllib.request.Request(url, method="HEAD", headers={"User-Agent": "nonholo-linkcheck"})
            try:
                urllib.request.urlopen(request, timeout=timeout).close()
            except urllib.error.HTTPError as exc:  # some servers refuse HEAD: try GET once
                if exc.code not in (403, 405):
                    raise
                urllib.request.urlopen(url, timeout=timeout).close()
        except (urllib.error.URLError, OSError) as exc:
            failures += 1
            print(f"FAILED {url}: {exc}")
            continue
        fields = lines[entry["line"] - 1].split(None, 2)
        lines[entry["line"] - 1] = "  ".join([fields[0], today, *fields[2:]])
        print(f"ok     {url}")
    ALLOW_LIST.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return failures


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--online", action="store_true", help="request every listed link and update its date")
    args = parser.parse_args(argv)
    if args.online:
        return 1 if check_online() else 0
    for url, places in sorted(found_links().items()):
        print(url, " ".join(places))
    return 0


if __name__ == "__main__":
    sys.exit(main())
