"""Write the reference pages: every public name of ``nonholo``, grouped by the package's layers.

Run by ``docs/conf.py`` before each build (and by ``tests/test_docs.py``). Each page is a list of
``autosummary`` entries; Sphinx's autosummary then writes one page per name from its docstring.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import nonholo

# (page, title, introduction, top-level names of nonholo.__all__, public namespaces documented whole)
LAYERS = [
    ("system", "Systems and models",
     "A :class:`~nonholo.System` holds G(q), V(q), the constraints A(q) v = b(q, t), friction and "
     "forces; its methods build the models (nonholonomic, vakonomic, friction, reduced, discrete). "
     "Anholonomic frames give the same dynamics in quasi-velocities.",
     ["System", "Model", "ModelProtocol", "ReducedModel", "FrameModel", "DiscreteModel", "Margin"],
     ["frames", "laws"]),
    ("integrate", "Integration",
     "Simulate a model with CVODES (BDF, Adams) or DOP853; batches run on C++ threads.",
     ["simulate", "simulate_many", "simulate_discrete", "Event", "SimulationResult", "DiscreteResult"], []),
    ("analysis", "Analysis: stability, fitting, studies",
     "Linear stability of steady motions, parameter fitting, vakonomic two-point problems, "
     "parameter sweeps, convergence studies and the car's shortest paths (Reeds-Shepp, Dubins).",
     ["linearize", "Linearization", "steady_motions", "SteadyMotion", "SteadyMotionError", "eigenvalue_path",
      "EigenvaluePath", "critical_values", "CriticalValue", "fit", "FitResult", "vakonomic_bvp", "ShootingError",
      "sweep", "SweepResult"], ["stability", "studies", "analysis"]),
    ("control", "Optimal control",
     "Optimal control problems of kinematic control systems (q' = X_D(q) w) and of Systems with forces as "
     "controls, transcribed by direct collocation (trapezoid, Hermite-Simpson) or by the discrete "
     "Lagrange-d'Alembert equations (DMOC) and solved by IPOPT in C++.",
     ["OptimalControlProblem", "OptimalControlSolution", "KinematicSystem", "TrackingResult"], []),
    ("builders", "Builders: bodies, surfaces, contacts, mechanisms",
     "Rigid bodies rolling on a plane and mechanisms of bodies on revolute joints, each an ordinary "
     ":class:`~nonholo.System`.",
     [], ["bodies", "surfaces", "contact", "multibody"]),
    ("viz", "Plots and drawings", "Plots of results and drawings for animations.", [], ["plot", "drawing"]),
    ("systems", "Built-in systems",
     "Each built-in system is a function returning an ordinary :class:`~nonholo.System` (the kinematic "
     "cars: a :class:`~nonholo.KinematicSystem`).", [], ["systems"]),
    ("errors", "Errors and warnings",
     "Every exception of nonholo derives from :class:`~nonholo.NonholoError`.",
     ["NonholoError", "ModelError", "IntegrationError", "SimulationWarning", "SweepError", "SweepWarning",
      "OptimalControlError"], []),
]


def _entries(title: str, names: list[str], intro: str = "") -> list[str]:
    lines = [title, "-" * len(title), ""] + ([intro, ""] if intro else [])
    lines += [".. autosummary::", "   :toctree: generated", ""]
    return lines + [f"   {name}" for name in names] + [""]


def page(slug: str, title: str, intro: str, names: list[str], namespaces: list[str], seen: dict) -> str:
    """The reST source of one layer's page.

    An object exported under several names (``nh.Linearization`` is ``nh.stability.Linearization``)
    gets its page once, under the first name; the later names link to it (``seen`` maps the ids of
    the objects documented so far to their full names).
    """
    lines = [f".. _api-{slug}:", "", title, "=" * len(title), "", intro, ""]
    if names:
        lines += [".. currentmodule:: nonholo", ""] + _entries("In ``nonholo``", names)
        seen.update({id(getattr(nonholo, name)): f"nonholo.{name}" for name in names})
    for ns in namespaces:
        module = getattr(nonholo, ns)
        doc = (module.__doc__ or "").strip().split("\n\n")[0]
        new, again = [], []
        for name in module.__all__:
            obj = getattr(module, name)
            if isinstance(obj, ModuleType):  # a namespace of its own, with its own entries
                continue
            if id(obj) in seen and not isinstance(obj, (int, float, str, tuple, dict)):
                again.append(f":obj:`{ns}.{name} <{seen[id(obj)]}>`")
            else:
                new.append(name)
                seen[id(obj)] = f"nonholo.{ns}.{name}"
        lines += [f".. currentmodule:: nonholo.{ns}", ""]
        lines += _entries(f"``nonholo.{ns}``", new, doc)
        if again:
            lines += ["Also in ``nonholo." + ns + "``, documented above: " + ", ".join(again) + ".", ""]
    return "\n".join(lines)


def documented_names() -> dict[str, list[str]]:
    """Top-level names and namespaces each page documents (the test compares them with ``__all__``)."""
    return {slug: names + namespaces for slug, _, _, names, namespaces in LAYERS}


def write(directory: Path) -> list[Path]:
    """Write ``api_<layer>.rst`` for every layer into ``directory``; return the paths."""
    directory.mkdir(parents=True, exist_ok=True)
    paths, seen = [], {}
    for slug, title, intro, names, namespaces in LAYERS:
        path = directory / f"api_{slug}.rst"
        text = page(slug, title, intro, names, namespaces, seen)
        if not path.exists() or path.read_text() != text:  # unchanged sources keep Sphinx's cache valid
            path.write_text(text)
        paths.append(path)
    return paths


if __name__ == "__main__":
    print(*write(Path(__file__).parent / "reference"), sep="\n")
