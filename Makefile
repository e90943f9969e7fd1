# Two commands do all set-up on a fresh machine:  `make book`  and  `make test`.
# Both create .venv/ from the pinned requirements.txt (and install this package in editable mode)
# when it is missing or older than requirements.txt / pyproject.toml.

PYTHON ?= python3
# Extra pip options for `make venv`, e.g. the CPU-only torch build (PyPI's Linux torch is the CUDA one):
#   make venv PIP_ARGS="--extra-index-url https://download.pytorch.org/whl/cpu"
PIP_ARGS ?=
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
NBVAL  := --nbval --nbval-current-env --nbval-sanitize-with notebooks/sanitize.cfg
# CHAPTERS=05 (or a list) limits `make notebooks` to some chapters.
CHAPTERS ?=
# `make compat` tests the oldest versions pyproject.toml allows; COMPAT=newest the newest.
COMPAT ?= oldest
# pytest-xdist workers for `make test` and `make unit` (JOBS=0: one process). A test file, and a notebook
# with its one kernel, stays on one worker; the book is built once per run and shared (tests/conftest.py).
JOBS ?= 2
# Tests marked `nightly` (the seed sweep) run in .github/workflows/seeds.yml, not in `make test`.
PYTEST := $(BIN)/pytest -q -p no:cacheprovider -n $(JOBS) --dist loadfile -m "not nightly"
# `make bench REV=ca8978a`: this checkout's chapter, book (and with BENCH_ARGS=--suite, suite) times
# beside those of the revision REV, on this machine, in one run (tools/bench.py).
REV ?=
BENCH_ARGS ?=

.PHONY: all venv test unit nbval nightly lint book notebooks editions info compat bench clean
all: test

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet $(PIP_ARGS) -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

venv: $(STAMP)

# ruff, then the type checker (configured in pyproject.toml [tool.mypy]; offline, with its cache in
# .mypy_cache/ a second run re-checks only what changed).
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

unit: $(STAMP)
	$(PYTEST) tests

nbval: $(STAMP)
	$(BIN)/pytest -q -p no:cacheprovider $(NBVAL) notebooks/[0-9][0-9]_*.ipynb  # not the scratch copies execute writes

# Everything CI checks: lint (ruff and mypy), then one pytest run over two workers of the unit, notebook-structure,
# book and browser tests and nbval over the notebooks (README: "What runs where").
test: lint
	$(PYTEST) $(NBVAL) tests notebooks/[0-9][0-9]_*.ipynb

# What the scheduled workflows add (seeds.yml runs it per chapter, with ten new seeds a night).
nightly: $(STAMP)
	$(BIN)/pytest -q -p no:cacheprovider -m nightly tests

# Build the bilingual book (never executes a notebook) and open it where there is a display.
book: $(STAMP)
	$(BIN)/cs336-lec2 book --open

# The one-language notebooks (editions/en, editions/zh) to run in a local Jupyter; never replaces a changed one.
editions: $(STAMP)
	$(BIN)/cs336-lec2 notebooks --output editions

# Re-execute the committed reference notebooks in place on the CPU.
notebooks: $(STAMP)
	$(BIN)/cs336-lec2 execute --in-place $(if $(CHAPTERS),--chapters $(CHAPTERS))

# A throwaway venv (.venv-compat-$(COMPAT)/) at the edge of the version ranges: unit tests + nbval there.
# Not part of `make test` (it downloads a torch of its own); CI runs it in .github/workflows/compat.yml.
compat:
	bash tools/compat.sh $(COMPAT)

info: $(STAMP)
	$(BIN)/cs336-lec2 info

bench: $(STAMP)
	@test -n "$(REV)" || { echo "make bench REV=<git revision to compare with>"; exit 2; }
	$(BIN)/python tools/bench.py $(REV) $(BENCH_ARGS)

clean:
	rm -rf _build .pytest_cache .ruff_cache .mypy_cache .hypothesis .venv-compat-oldest .venv-compat-newest
