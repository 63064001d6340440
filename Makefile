# The two commands: `make demo` (main job) and `make test` (the test suite).
# Each creates .venv from pyproject.toml on first use.
PY ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-tpu
N ?= 1000

.PHONY: demo test fuzz clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[test]"
	touch $(STAMP)

# The tests also build TPU executables on this CPU machine (libtpu's
# compile-only topologies): the `tpu` extra, installed for `make test` only.
$(TEST_STAMP): $(STAMP)
	$(BIN)/python -m pip install -q -e ".[test,tpu]"
	touch $(TEST_STAMP)

demo: $(STAMP)
	$(BIN)/python models/demo.py

# One worker per core (pytest-xdist), each test file on one worker: its
# module-level compiled functions are compiled once.  The slowest tests are
# listed at the end, to keep the suite within its ten minutes.
test: $(TEST_STAMP)
	JAX_PLATFORMS=cpu $(BIN)/python -m pytest tests -p no:cacheprovider --timeout 600 \
		-n auto --dist loadfile --durations=15

fuzz: $(STAMP)
	JAX_PLATFORMS=cpu $(BIN)/python -m tests.fuzz.run --count $(N)

clean:
	rm -rf $(VENV)
