"""Progress bars in a Jupyter kernel without ipywidgets: tqdm.auto warned "IProgress not found" (a
TqdmWarning) on the first bar of every kernel before falling back to text (an outside probe's sweep and
studies.convergence, both with progress on by default). The text bar is taken directly where ipywidgets
is missing; tqdm.auto's where it is installed."""

import sys
import types


from nonholo.progress import bar, tqdm_class


def test_without_ipywidgets_the_text_bar(monkeypatch):
    import tqdm
    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # import fails
    assert tqdm_class() is tqdm.std.tqdm
    with bar(3, "work") as b:
        b.update(3)


def test_with_ipywidgets_tqdm_auto(monkeypatch):
    import tqdm.auto

    monkeypatch.setitem(sys.modules, "ipywidgets", types.ModuleType("ipywidgets"))
    assert tqdm_class() is tqdm.auto.tqdm
