# nonholo: `make test` and `make figures` do all the set-up on a fresh Debian machine.
PYTHON ?= python3
PIP ?= $(PYTHON) -m pip
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
APT_PACKAGES := libsundials-dev libeigen3-dev g++ cmake
PYTEST_WORKERS ?= 2

.PHONY: all deps system-deps python-deps install test figures bench clean

all: install

# System libraries: SUNDIALS (CVODE) and Eigen, from Debian when missing.
system-deps:
	@if [ -f /usr/include/cvode/cvode.h ] && [ -f /usr/include/eigen3/Eigen/Core ] && command -v g++ >/dev/null; then \
	  echo "system dependencies present (SUNDIALS, Eigen, g++)"; \
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

test: install
	$(PYTHON) -m pytest -n $(PYTEST_WORKERS) tests

figures: install
	$(PYTHON) -m nonholo.figures --output figures

bench: install
	$(PYTHON) benchmarks/friction_sleigh.py

clean:
	rm -rf build figures benchmarks/_build .pytest_cache
