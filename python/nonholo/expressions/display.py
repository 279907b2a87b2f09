r"""LaTeX display of a :class:`nonholo.System` (Jupyter's ``_repr_latex_``).

``system_latex(system)`` writes the coordinates, the Lagrangian L = 1/2 q'^T G(q) q' - V(q),
the metric, the potential, each constraint row A(q) q' = b(q, t), the friction coefficients
(when not the identity), the generalized force (when not zero) and the parameter values, in
one ``aligned`` block. Velocities print as dotted coordinates. A block longer than
``max_chars`` is replaced by a note naming the attribute that holds it.
"""

from __future__ import annotations

import sympy as sp

__all__ = ["system_latex"]


def _names(system) -> dict:
    names = {v: r"\dot{" + sp.latex(q) + "}" for q, v in zip(system.coordinates, system.velocities)}
    return names


def system_latex(system, max_chars: int = 6000) -> str:
    """The equations of ``system`` as a LaTeX string ``$$\\begin{aligned} ... \\end{aligned}$$``."""
    names = _names(system)

    def tex(expr) -> str:
        return sp.latex(expr, symbol_names=names)

    def block(label: str, expr, attribute: str) -> str:
        body = tex(expr)
        if len(body) > max_chars:
            body = r"\text{(" + str(len(body)) + r" characters: see system." + attribute + ")}"
        return f"{label} &= {body}"

    q = system.coordinates
    qdot = sp.Matrix(system.velocities)
    G = sp.Matrix(system.metric)
    lines = [r"&\textbf{" + _escape(system.name) + r"}\quad q = \left(" + ", ".join(tex(s) for s in q) + r"\right)"]
    lagrangian = (qdot.T * G * qdot)[0] / 2 - system.potential
    if sp.count_ops(lagrangian) < 400:  # expanded reads better, when it stays small
        lagrangian = sp.expand(lagrangian)
    lines.append(block(r"L = \tfrac{1}{2}\dot q^{T} G(q)\,\dot q - V(q)", lagrangian, "metric"))
    lines.append(block("G(q)", G, "metric"))
    if system.potential != 0:
        lines.append(block("V(q)", system.potential, "potential"))
    A, b = sp.Matrix(system.constraints), sp.Matrix(system.affine)
    for i in range(system.k):
        lhs = sum((A[i, j] * qdot[j] for j in range(system.n)), sp.S.Zero)
        body = tex(lhs)
        label = r"\text{constraint " + str(i + 1) + r":}\quad " + (body if len(body) <= max_chars
                                                                 else r"\text{(see system.constraints)}")
        lines.append(f"{label} &= {tex(b[i])}")
    mu = sp.Matrix(system.friction_coefficients)
    if system.k and mu != sp.eye(system.k):
        lines.append(block(r"\mu(q)", mu, "friction_coefficients"))
    F = sp.Matrix(system.force)
    if any(f != 0 for f in F):
        lines.append(block(r"F(q, \dot q, t)", F, "force"))
    if system.parameters:
        values = r",\ ".join(f"{tex(s)} = {v:g}" for s, v in system.parameters.items())
        lines.append(r"&\text{parameters: }" + values)
    return "$$\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}$$"


def _escape(text: str) -> str:
    """The name as safe \\text{} content for both MathJax and LaTeX (other characters become spaces)."""
    safe = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ()-,.:;'+=/!?")
    return "".join(ch if ch in safe else " " for ch in str(text))
