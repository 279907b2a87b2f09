"""Every external link the documentation shows is in docs/external_links.txt, with when it was last checked.

The machine that builds the docs has no network: Sphinx's linkcheck cannot run, so the links are
kept in an allow-list instead (tests/docs/external_links.py; ``--online`` re-checks it where there
is network). Internal links and anchors are checked by the Sphinx build, which runs with -W.
"""

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("external_links", ROOT / "tests" / "docs" / "external_links.py")
links = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = links
_spec.loader.exec_module(links)


def test_every_external_link_is_listed_with_the_date_it_was_checked():
    found, listed = links.found_links(), links.read_allow_list()
    missing = {url: places for url, places in found.items() if url not in listed}
    lines = [f"{url}  ({', '.join(places)})" for url, places in missing.items()]
    assert not missing, ("external links missing from docs/external_links.txt (add each with the date it was "
                         "last checked, or 'never'):\n" + "\n".join(lines))
    unused = sorted(set(listed) - set(found))
    assert not unused, f"docs/external_links.txt lists links no page shows any more: {unused}"


def test_the_scan_reads_the_shown_text(tmp_path, monkeypatch):
    """Markdown links, autolinks and bare URLs are found, without the punctuation after them."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text("See [the paper](https://arxiv.org/abs/1603.00369), <https://a.org/x?y=1#z>.\n"
                                        "Bare: https://b.org/path.")
    monkeypatch.setattr(links, "ROOT", tmp_path)
    monkeypatch.setattr(links, "sources", lambda: [tmp_path / "README.md"])
    assert links.found_links() == {"https://arxiv.org/abs/1603.00369": ["README.md:1"],
                                   "https://a.org/x?y=1#z": ["README.md:1"], "https://b.org/path": ["README.md:2"]}


@pytest.mark.parametrize("line, message", [
    ("https://a.org  2026-13-01  note", "YYYY-MM-DD or 'never'"),
    ("https://a.org  2999-01-01", "in the future"),
    ("https://a.org", "expected 'URL"),
    ("a.org  never", "expected 'URL"),
])
def test_bad_allow_list_lines_are_named(tmp_path, line, message):
    path = tmp_path / "links.txt"
    path.write_text("# comment\n" + line + "\n")
    with pytest.raises(ValueError, match=message) as info:
        links.read_allow_list(path)
    assert "links.txt:2" in str(info.value)


def test_allow_list_entries_are_parsed(tmp_path):
    path = tmp_path / "links.txt"
    path.write_text("https://a.org  2026-11-28  a note\nhttps://b.org  never\n")
    entries = links.read_allow_list(path)
    assert entries["https://a.org"]["checked"].isoformat() == "2026-11-28"
    assert entries["https://b.org"]["checked"] is None and entries["https://a.org"]["note"] == "a note"
    path.write_text("https://a.org  never\nhttps://a.org  never\n")
    with pytest.raises(ValueError, match="listed twice"):
        links.read_allow_list(path)
