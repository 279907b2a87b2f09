"""What a run warned about stays on its displays: a reduced model used outside the range of its
expansion (a sleigh at eps = 2) succeeds with a SimulationWarning, and repr, the HTML of a notebook
and a DataFrame's attrs say so once the warning has scrolled away; a run without warnings shows
none. A shown eps is the model's, never a rounded one."""

import warnings

import pytest

import nonholo as nh

SLEIGH = nh.systems.chaplygin_sleigh()  # m = I = 1, a = 0.2
Y0 = [0, 0, 0, 1, 0, 1]


def test_a_warned_success_shows_its_warning():
    with pytest.warns(nh.SimulationWarning, match="left the range where its expansion"):
        run = nh.simulate(SLEIGH.reduced(2.0, order=2), (0, 10), Y0)
    assert run.success and len(run.warnings) == 1
    assert "warnings: 1, the first: the reduced model (eps = 2, order 2) left the range" in repr(run)
    assert "<b>warning</b>: the reduced model (eps = 2, order 2) left the range" in run._repr_html_()
    assert run.to_dataframe().attrs["warnings"] == run.warnings[0]


def test_a_run_without_warnings_shows_none():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run = nh.simulate(SLEIGH.reduced(0.01, order=2), (0, 1), Y0)
    assert run.success and run.warnings == []
    assert "warnings" not in repr(run) and "warning" not in run._repr_html_()
    assert "warnings" not in run.to_dataframe().attrs


def test_a_shown_eps_is_not_rounded():
    eps = 0.0012345678
    assert "eps=0.0012345678" in repr(SLEIGH.friction(eps))
    assert "eps=0.0012345678" in repr(SLEIGH.reduced(eps, order=2))
    assert "eps=0.0012345678" in repr(SLEIGH.reduced(eps))  # the default order, "auto"


def test_discrete_and_stick_slip_models_show_their_numbers_unrounded():
    assert "h=0.0123456789>" in repr(SLEIGH.discrete(0.0123456789))
    disc = nh.contact.roll_on_plane(nh.bodies.RigidBody(1, (1 / 16, 1 / 8, 1 / 16)), nh.contact.Disc(0.5))
    assert "mu_s=0.1234567, mu_k=0.1234567" in repr(disc.stick_slip(0.1234567, normal=9.81))


def test_a_stick_slip_run_shows_its_warning_and_many_warnings_stay_short():
    """A disc that tips flat under stick-slip stops at its surface's domain with a warning, which its repr
    did not show (its HTML did); a display with many warnings shows three and counts the rest, where the
    notebook's HTML grew by every warning in full (77 kB for 201)."""
    disc = nh.contact.roll_on_plane(nh.bodies.RigidBody(1, (1 / 16, 1 / 8, 1 / 16)), nh.contact.Disc(0.5))
    y0 = nh.contact.rolling_state(disc, nh.bodies.quaternion_from_euler(0, 0, 0.5), [0, 0, 0])
    with pytest.warns(nh.SimulationWarning):
        run = nh.simulate(disc.stick_slip(0.8123456, normal=9.81), (0, 2), y0)
    assert run.status == 1 and len(run.warnings) == 1
    assert "warnings: 1, the first: " in repr(run) and "mu_s=0.8123456" in run._repr_html_()
    run.warnings.extend(f"warning {i}" for i in range(200))
    html = run._repr_html_()
    assert "... and 198 more (result.warnings)" in html and "warning 199" not in html and len(html) < 5000
    with pytest.warns(nh.SimulationWarning):
        plain = nh.simulate(SLEIGH.reduced(2.0, order=2), (0, 10), Y0)
    plain.warnings.extend(f"warning {i}" for i in range(200))
    assert "... and 198 more (result.warnings)" in plain._repr_html_() and len(repr(plain)) < 2000
