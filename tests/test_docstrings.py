"""Every public docstring is valid numpydoc: its sections parse, and the parsed sections say what
the text means.

numpydoc's own parser (``numpydoc.docscrape``, the one its Sphinx extension and ``numpydoc
validate`` use) reads the docstring of every public name (``nonholo.__all__`` and each public
namespace's ``__all__``) and of the public methods and properties of each public class. A
docstring fails on:

- a section numpydoc does not know (it would be dropped or rendered as text);
- a parameter listed under Parameters that the signature does not have (a typo, or prose at the
  indentation of an entry: numpydoc reads each such line as a parameter);
- an entry of Parameters, Returns, Yields, Raises or Attributes whose name is a sentence: text at
  the entry's indentation after the entries, which numpydoc parses as more entries, each cut where
  its line ends (the reference page then shows made-up return values).
"""

from __future__ import annotations

import inspect
import re
import warnings

import pytest
from numpydoc.docscrape import NumpyDocString

import nonholo as nh

NAMESPACES = ["systems", "contact", "bodies", "surfaces", "multibody", "frames", "laws", "stability", "studies", "plot",
              "drawing"]
# a name as Parameters lists it: identifiers separated by commas, optionally starred
PARAMETER = re.compile(r"^\**\w+(\s*,\s*\**\w+)*$")
ENTRY_SECTIONS = ("Parameters", "Other Parameters", "Returns", "Yields", "Receives", "Raises", "Warns",
                  "Attributes")


def public_objects() -> dict[str, object]:
    found = {}
    for name in nh.__all__:
        if name != "__version__" and name not in NAMESPACES:
            found[f"nonholo.{name}"] = getattr(nh, name)
    for ns in NAMESPACES:
        module = getattr(nh, ns)
        found[f"nonholo.{ns}"] = module
        for name in module.__all__:
            found[f"nonholo.{ns}.{name}"] = getattr(module, name)
    for qualname, obj in list(found.items()):
        if inspect.isclass(obj) and obj.__module__.startswith("nonholo"):
            for attr, member in vars(obj).items():
                if attr.startswith("_") and attr != "__call__":
                    continue
                if isinstance(member, (staticmethod, classmethod)):
                    member = member.__func__
                if isinstance(member, property):
                    member = member.fget
                if callable(member) and getattr(member, "__doc__", None):
                    found[f"{qualname}.{attr}"] = member
    return found


def docstring(obj) -> str:
    return (obj.__doc__ if inspect.ismodule(obj) else inspect.getdoc(obj)) or ""


OBJECTS = {name: obj for name, obj in public_objects().items() if docstring(obj)}


def parse(doc: str) -> tuple[NumpyDocString, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parsed = NumpyDocString(inspect.cleandoc(doc))
    return parsed, [str(w.message) for w in caught]


def signature_names(obj) -> set[str] | None:
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        params = inspect.signature(target).parameters
    except (TypeError, ValueError):  # a pybind11 function without a Python signature
        return None
    return {p for p in params if p not in ("self", "cls")} | {f"*{p}" for p in params} | {f"**{p}" for p in params}


def problems(obj, doc: str) -> list[str]:
    parsed, warned = parse(doc)
    found = [f"numpydoc: {w}" for w in warned]
    names = signature_names(obj) if callable(obj) else None
    for section in ENTRY_SECTIONS:
        for entry in parsed[section]:
            name, kind = entry.name.strip(), entry.type.strip()
            if section in ("Parameters", "Other Parameters"):
                if not PARAMETER.match(name):
                    found.append(f"{section}: {name!r} is not a parameter name (prose at an entry's indentation?)")
                elif names is not None:
                    unknown = [n.strip() for n in name.split(",") if n.strip() not in names]
                    if unknown:
                        found.append(f"{section}: {unknown} not in the signature")
            else:
                # an entry is "name : type" or a type; a sentence there is prose parsed as an entry
                text = kind if name == "" else name
                words = len(re.sub(r"\[.*?\]|\(.*?\)|\{.*?\}", "", f"{name} {kind}").split())
                if (not entry.desc and words > 6) or re.search(r"[a-z]\.\s+[A-Z]", f"{name} {kind}"):
                    found.append(f"{section}: entry {text!r} reads as a sentence (prose after the entries "
                                 "must be indented under one, or moved out of the section)")
    return found


@pytest.mark.parametrize("qualname", sorted(OBJECTS))
def test_public_docstring_is_valid_numpydoc(qualname):
    obj = OBJECTS[qualname]
    wrong = problems(obj, docstring(obj))
    assert not wrong, f"{qualname}:\n  " + "\n  ".join(wrong)


def test_the_checker_catches_prose_after_returns_and_unknown_sections():
    """The defects this file exists for, on a made-up docstring: the simulate page's old Returns."""

    def f(x):
        pass

    bad = """Do it.

    Parameters
    ----------
    x : float
        The input.
    y : int
        Not a parameter.

    Returns
    -------
    Result
        What it holds.

    A reduced model run outside the range where its expansion in eps is valid warns, and a
    complex y0 with a non-zero imaginary part is a TypeError. Ctrl-C stops the run.

    Remarks
    -------
    Not a numpydoc section.
    """
    wrong = problems(f, bad)
    assert any("not in the signature" in w and "'y'" in w for w in wrong)
    assert any("reads as a sentence" in w for w in wrong)
    assert any("Unknown section Remarks" in w for w in wrong)
    good = bad.split("    A reduced")[0] + "    Notes\n    -----\n    A note.\n"
    assert problems(f, good.replace("    y : int\n        Not a parameter.\n", "")) == []
