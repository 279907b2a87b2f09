"""One IPOPT solve at a time in a process. Its linear solver (Debian's sequential MUMPS) keeps global
state: two solves in threads at once (a sweep's default, or the caller's own pool) crashed the
interpreter in ``dmumps_load_update``. The solves of ``_core.solve_collocation`` and
``_core.solve_interval_nlp`` hold this lock; solves in separate processes need none."""

from __future__ import annotations

import threading

IPOPT_LOCK = threading.Lock()
