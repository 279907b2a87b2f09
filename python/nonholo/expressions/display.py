r"""LaTeX display of a :class:`nonholo.System` (Jupyter's ``_repr_latex_``).

``system_latex(system)`` writes the coordinates, the Lagrangian L = 1/2 q'^T G(q) q' - V(q),
the metric, the potential, each constraint row A(q) q' = b(q, t), each holonomic constraint
h(q) = 0, each unit-norm group |q_g| = 1, the friction coefficients (when not the identity,
compared numerically: mu = 1.0 I is the identity), the generalized force (when not zero) and the
parameter values, in one ``aligned`` block. Velocities print as dotted coordinates. A block longer
than ``max_chars`` is replaced by a note naming the attribute that holds it; one whose expression
has more than ``max_chars`` nodes is replaced before it is typeset (typesetting it would take
seconds only to be dropped). The system's name is escaped (``my_sleigh`` shows its underscore).
"""

from __future__ import annotations

import sympy as sp

from ..numerics import number_text

__all__ = ["system_latex"]


def _safe(tex: str) -> str:
    """A symbol's LaTeX with the characters that break an aligned block escaped: SymPy keeps a name's
    ``&`` (a column separator: G(q) of a parameter k&1 showed a fourth column), ``%``, ``#``, ``$``."""
    for ch in "&%#$":
        tex = tex.replace(ch, "\\" + ch)
    return tex


def _names(system) -> dict:
    names = {v: r"\dot{" + _safe(sp.latex(q)) + "}" for q, v in zip(system.coordinates, system.velocities)}
    exprs = [system.metric, system.constraints, system.affine, system.potential, system.force, *system.coordinates,
             *system.parameters, *(system.holonomic or ())]
    for s in set().union(*(sp.sympify(e).free_symbols for e in exprs if e is not None)):
        if s not in names and any(ch in s.name for ch in "&%#$"):
            names[s] = _safe(sp.latex(s))
        elif s not in names and _word(s):
            names[s] = r"\mathrm{" + s.name + "}"  # a word: SymPy's "mass" read as m a s s (an outside probe)
    for q, v in zip(system.coordinates, system.velocities):
        if _word(q):
            names[v] = r"\dot{\mathrm{" + q.name + "}}"
    return names


def _word(s) -> bool:
    """A name of several letters that SymPy writes as they are (``mass``; not ``alpha``, not ``I1``)."""
    return len(s.name) > 1 and s.name.isalpha() and sp.latex(s) == s.name


def _size(expr, limit: int) -> int:
    """The number of nodes of ``expr`` (a matrix: of all its entries), counted up to ``limit + 1``."""
    count = 0
    for item in (list(expr) if isinstance(expr, sp.MatrixBase) else [expr]):
        for _ in sp.preorder_traversal(sp.sympify(item)):
            count += 1
            if count > limit:
                return count
    return count


def _identity(mu) -> bool:
    """True when every entry of the square matrix ``mu`` equals the identity's numerically (1.0 too)."""
    return mu.rows == mu.cols and all(
        (sp.sympify(mu[i, j]) - (1 if i == j else 0)).is_zero is True for i in range(mu.rows) for j in range(mu.cols))


def system_latex(system, max_chars: int = 6000) -> str:
    """The equations of ``system`` as a LaTeX string ``$$\\begin{aligned} ... \\end{aligned}$$``."""
    names = _names(system)

    def tex(expr) -> str:
        return sp.latex(expr, symbol_names=names)

    def note(attribute: str, chars: int | None = None) -> str:
        what = f"{chars} characters" if chars is not None else "too large to show"
        return r"\text{(" + what + r": see system." + attribute + ")}"

    def shown(expr, attribute: str) -> str:
        if _size(expr, max_chars) > max_chars:  # measured before typesetting
            return note(attribute)
        body = tex(expr)
        return body if len(body) <= max_chars else note(attribute, len(body))

    def block(label: str, expr, attribute: str) -> str:
        return f"{label} &= {shown(expr, attribute)}"

    q = system.coordinates
    qdot = sp.Matrix(system.velocities)
    G = sp.Matrix(system.metric)
    lines = ["&" + _escape(system.name) + r"\quad q = \left(" + ", ".join(tex(s) for s in q) + r"\right)"]
    label = r"L = \tfrac{1}{2}\dot q^{T} G(q)\,\dot q - V(q)"
    if _size(G, max_chars) > max_chars:  # L holds every entry of G
        lines.append(f"{label} &= {note('metric')}")
    else:
        lagrangian = (qdot.T * G * qdot)[0] / 2 - system.potential
        if _size(lagrangian, 1000) <= 1000:  # expanded reads better, when it stays small
            lagrangian = sp.expand(lagrangian)
        lines.append(block(label, lagrangian, "metric"))
    lines.append(block("G(q)", G, "metric"))
    if system.potential != 0:
        lines.append(block("V(q)", system.potential, "potential"))
    A, b = sp.Matrix(system.constraints), sp.Matrix(system.affine)
    for i in range(system.k):
        lhs = sum((A[i, j] * qdot[j] for j in range(system.n)), sp.S.Zero)
        body = shown(lhs, "constraints")
        lines.append(r"\text{constraint " + str(i + 1) + r":}\quad " + f"{body} &= {shown(b[i], 'affine')}")
    for i, h in enumerate(system.holonomic or ()):
        lines.append(r"\text{holonomic " + str(i + 1) + r":}\quad " + f"{shown(h, 'holonomic')} &= 0")
    for group in system.unit_norm or ():
        entries = ", ".join(tex(q[i]) for i in group)
        lines.append(r"\text{unit norm:}\quad \left\lVert \left(" + entries + r"\right) \right\rVert &= 1")
    mu = sp.Matrix(system.friction_coefficients)
    if system.k and not _identity(mu):
        lines.append(block(r"\mu(q)", mu, "friction_coefficients"))
    F = sp.Matrix(system.force)
    if any(f != 0 for f in F):
        lines.append(block(r"F(q, \dot q, t)", F, "force"))
    if system.parameters:
        values = r",\ ".join(f"{tex(s)} = {number_text(v)}" for s, v in system.parameters.items())
        lines.append(r"&\text{parameters: }" + values)
    return "$$\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}$$"


#: Characters of a name typeset as math-mode commands (valid in LaTeX and MathJax alike)
_SPECIAL = {"_": r"\_", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "{": r"\{", "}": r"\}",
            "\\": r"\backslash{}", "^": r"\hat{}", "~": r"\sim{}", "<": "<", ">": ">"}


def _escape(text: str) -> str:
    """The name in bold for both MathJax and LaTeX, every character kept: runs of ordinary characters
    as ``\\textbf{...}``, the characters LaTeX reserves (``_ & % $ # { } \\ ^ ~``, and ``< >``) as
    math-mode symbols between them (``my_sleigh``: ``\\textbf{my}\\_\\textbf{sleigh}``)."""
    out, run = [], []
    for ch in str(text):
        if ch in _SPECIAL:
            if run:
                out.append(r"\textbf{" + "".join(run) + "}")
                run = []
            out.append(_SPECIAL[ch])
        else:
            run.append(ch)
    if run:
        out.append(r"\textbf{" + "".join(run) + "}")
    return "".join(out)
