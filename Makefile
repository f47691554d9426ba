# Two commands do everything: `make test` and `make demo`. Each bootstraps .venv from
# pyproject.toml first; the stamp file makes a second run skip the install.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# Python writes and reuses bytecode (and pytest its rewritten test modules) so that the
# hundreds of Python processes a test run starts do not each compile Django and the arena
# from source again: a machine-wide PYTHONDONTWRITEBYTECODE would cost `make test` minutes.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: test test-long demo lint typecheck pytest bench clean sandbox-tools browser-tools \
	database-tools proxy-tools

# uv installs the same packages as pip would (from PyPI), several times faster (a fresh
# clone's set-up is part of `make test`'s time); where uv cannot be had or fails, pip does it.
# The checkout is installed as a plain path (setuptools' "compat" editable mode) rather than
# through an import hook: every Python process the venv starts (bots, referees, sites,
# hundreds in a test run) would import the hook first, 17 ms each (measured: a bare
# interpreter 41 ms against 23 ms).
EDITABLE := editable_mode=compat
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip uv 2>/dev/null || true
	# (setuptools warns about every editable install of a flat layout; nothing to act on)
	{ test -x $(BIN)/uv && PYTHONWARNINGS=ignore $(BIN)/uv pip install --quiet --compile-bytecode \
	    --python $(BIN)/python -C $(EDITABLE) -e '.[dev]'; } \
	  || PYTHONWARNINGS=ignore $(BIN)/python -m pip install --quiet \
	    --config-settings $(EDITABLE) -e '.[dev]'
	touch $(STAMP)

# The strict sandbox runs bots in bubblewrap. Install it when it is missing and this
# machine can (root with apt-get), quietly and only once; elsewhere say so and go on: the
# strict layer's tests are then skipped with the reason, and matches use the limits layer.
sandbox-tools:
	@command -v bwrap >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing bubblewrap (apt-get) for the strict sandbox"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get install -y -qq bubblewrap >/dev/null 2>&1 \
	      || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq bubblewrap >/dev/null 2>&1; } \
	      || echo "note: could not install bubblewrap; the strict sandbox tests will be skipped"; \
	  else \
	    echo "note: bubblewrap is not installed (apt-get install bubblewrap as root);" \
	      "the strict sandbox tests will be skipped"; \
	  fi; }

# The browser tests (the report, the site's journeys and pages) render in headless Chromium:
# its own headless build (chromium-headless-shell, the one Playwright runs headless; less than
# half the CPU of the full browser's headless mode), else the full browser. Install them the
# same way: quietly, once, where we can; elsewhere those tests are skipped with the reason.
browser-tools:
	@command -v chromium-headless-shell >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing chromium-headless-shell (apt-get) for the browser tests"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get install -y -qq chromium-headless-shell >/dev/null 2>&1 \
	      || { apt-get update -qq >/dev/null 2>&1 \
	           && apt-get install -y -qq chromium-headless-shell >/dev/null 2>&1; } \
	      || apt-get install -y -qq chromium >/dev/null 2>&1 \
	      || echo "note: could not install chromium; the browser tests will be skipped"; \
	  elif ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then \
	    echo "note: chromium is not installed (apt-get install chromium-headless-shell as root);" \
	      "the browser tests will be skipped"; \
	  fi; }

# The server's tests also run against a real PostgreSQL, which they start themselves in a
# temporary folder (tests/postgres.py). Install its server the same way: quietly, once,
# where we can; elsewhere those tests are skipped with the reason.
database-tools:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing postgresql (apt-get) for the server's PostgreSQL tests"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get install -y -qq postgresql >/dev/null 2>&1 \
	      || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq postgresql >/dev/null 2>&1; } \
	      || echo "note: could not install postgresql; the PostgreSQL tests will be skipped"; \
	  else \
	    echo "note: PostgreSQL is not installed (apt-get install postgresql as root);" \
	      "the PostgreSQL tests will be skipped"; \
	  fi; }

# The TLS deployment test runs the site behind nginx (tests/arena/server/test_tls_proxy.py,
# make test-long). Install it the same way: quietly, once, where we can; elsewhere that test
# is skipped with the reason.
proxy-tools:
	@command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing nginx (apt-get) for the TLS deployment test"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get install -y -qq nginx-light >/dev/null 2>&1 \
	      || apt-get install -y -qq nginx >/dev/null 2>&1 \
	      || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq nginx >/dev/null 2>&1; } \
	      || echo "note: could not install nginx; the TLS deployment test will be skipped"; \
	  else \
	    echo "note: nginx is not installed (apt-get install nginx as root);" \
	      "the TLS deployment test will be skipped"; \
	  fi; }

# mypy (about 15 s of one core on a fresh clone, no cache) runs beside the parallel pass
# of the tests rather than before it (it ends long before the serial pass begins); make
# waits for both and fails if either does.
test: $(STAMP) sandbox-tools browser-tools database-tools lint
	@$(MAKE) --no-print-directory -j2 typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

# Two passes. First every test that may share the machine, on every core (pytest-xdist,
# each idle worker taking tests from a busy one's queue); then the tests marked serial
# (kernel limits, a bot going after the machine's resources, CPU or memory measured)
# alone, one at a time. Coverage adds up over both passes, and its gate (fail_under in
# pyproject.toml) is checked once, at the end of the second (which collects only the
# serial modules, tests/serial.py); then the dealer and the wire
# contract (engine/, protocol/) must be covered whole. The second pass runs even
# when the first failed, so that one run shows every failure.
# One worker more than the machine has cores: many tests spend part of their time waiting
# for the processes they start (bots, sites, browsers), and a third worker on two cores
# fills those waits (measured: the parallel pass 277 s with 3 workers on 2 cores against
# 311 s with 2, the same tree on an idle machine).
PYTEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
pytest: $(STAMP) sandbox-tools browser-tools database-tools
	rm -f .coverage .coverage.*
	# pytest keeps each test module with its asserts rewritten as bytecode; from cold (a fresh
	# clone) every parallel worker would rewrite them all (collection: 15.2 s of CPU cold
	# against 5.2 s warm, per process). One process does it first, beside mypy; a collection
	# error shows in the run itself.
	$(BIN)/pytest --collect-only -q -m "not slow and not serial" >/dev/null 2>&1 || true
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist worksteal --cov --cov-report= \
	  --cov-fail-under=0 -q -m "not slow and not serial"; first=$$?; \
	$(BIN)/pytest --cov --cov-append --cov-report=term -q -m "serial and not slow" \
	  $$($(BIN)/python -m tests.serial) \
	  && $(BIN)/coverage report --include='engine/*,protocol/*' --fail-under=100 \
	    --skip-covered --precision=1 \
	  && exit $$first

# The long runs that do not fit `make test`'s ten minutes (tests marked slow): those that may
# share the machine on every core, then the serial ones alone, as `make test` runs them.
test-long: $(STAMP) sandbox-tools browser-tools database-tools proxy-tools
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist worksteal -q -m "slow and not serial"; first=$$?; \
	$(BIN)/pytest -q -m "slow and serial" -p no:xdist $$($(BIN)/python -m tests.serial); second=$$?; \
	if [ $$second -eq 5 ]; then second=0; fi; \
	[ $$first -eq 0 ] && [ $$second -eq 0 ]

demo: $(STAMP) sandbox-tools
	$(BIN)/arena demo

bench: $(STAMP)
	for b in bench/bench_*.py; do $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info .coverage
