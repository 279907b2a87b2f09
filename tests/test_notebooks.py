"""Every notebook in notebooks/ executes without error, in a real Jupyter kernel, and writes
its figures (into the directory given by NONHOLO_FIGURES)."""

import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.slow  # every notebook in a Jupyter kernel: about 10 minutes of CPU

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes(path, tmp_path, monkeypatch):
    monkeypatch.setenv("NONHOLO_FIGURES", str(tmp_path))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    errors = [out for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", [])
              if out.get("output_type") == "error"]
    assert not errors
    # every result.animate() shows as an HTML/JavaScript player with the frames asked for
    players = [out["data"]["text/html"] for cell in nb.cells if cell.cell_type == "code"
               for out in cell.get("outputs", []) if "animation" in out.get("data", {}).get("text/html", "").lower()]
    frames = [len(re.findall(r"frames\[\d+\] = ", html)) for html in players]
    assert frames == nb.metadata.get("nonholo", {}).get("animations", [])
    expected = nb.metadata.get("nonholo", {}).get("figures", [])
    for name in expected:
        png = tmp_path / name
        assert png.exists() and png.stat().st_size > 10_000, f"{name} was not written"
