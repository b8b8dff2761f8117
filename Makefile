# Two commands that work from nothing but Python 3.11+:
#   make run   - set up, migrate, load demo data, serve on http://127.0.0.1:8000/ (SQLite)
#                with one background job worker beside the server; Ctrl-C stops both
#   make test  - set up and run the whole test suite (DATABASE_URL picks the database)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
PYTEST_ARGS ?=
# pytest-xdist workers: one per core. `make test PYTEST_WORKERS=0` runs everything in one process.
PYTEST_WORKERS ?= auto

.PHONY: run test lint format setup setup-dev migrate demo messages screenshots clean

$(BIN)/python:
	$(PYTHON) -c 'import sys; sys.exit("Python 3.11+ is needed, found " + sys.version.split()[0]) if sys.version_info < (3, 11) else None'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Stamp files: reinstall only when a requirements file changes.
$(VENV)/.runtime: requirements.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@ $(VENV)/.runtime

setup: $(VENV)/.runtime
setup-dev: $(VENV)/.dev

migrate: setup
	$(BIN)/python manage.py migrate --noinput

# The translations: the .po files are committed, the .mo files built here (GNU gettext's msgfmt;
# Debian: apt-get install gettext). README, "Languages".
# GNU gettext's msgfmt when the machine has it; otherwise Babel, in the virtual environment
# (config/messages.py): the two write the same catalogues, and nothing else is needed.
messages: setup
	@if command -v msgfmt >/dev/null; then \
		$(BIN)/python manage.py compilemessages --ignore=.venv --ignore=staticfiles > /dev/null; \
	else $(BIN)/python -m config.messages; fi

# DEMO_LANG=zh loads the Chinese demo campaign instead of the English one.
DEMO_LANG ?= en
demo: migrate messages
	$(BIN)/python manage.py demo --lang $(DEMO_LANG)

# The worker runs beside the server; whichever way the server stops (Ctrl-C reaches both),
# the trap stops the worker too. It does not reload on code changes: Ctrl-C and run again.
run: demo
	@echo "Open http://$(HOST):$(PORT)/ and log in as manager, rater1 or rater2 (password: demo)."
	@$(BIN)/python manage.py jobs_worker --no-reload & worker=$$!; \
	trap 'kill $$worker 2>/dev/null; wait $$worker 2>/dev/null' EXIT INT TERM; \
	$(BIN)/python manage.py runserver $(HOST):$(PORT)

lint: setup-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: setup-dev
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

test: setup-dev messages
	$(BIN)/ruff check .
	$(BIN)/ruff format --check . > /dev/null || (echo "Unformatted code: run make format" && exit 1)
	$(BIN)/python manage.py makemigrations --check --dry-run > /dev/null || (echo "Missing migrations: run manage.py makemigrations" && exit 1)
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)

# Every screen, both languages, laptop and phone, into the git-ignored screenshots/ (README,
# "Screenshots of every screen"); its own throwaway databases, whatever DATABASE_URL says.
screenshots: setup-dev messages
	$(BIN)/python scripts/screenshots.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache staticfiles var/numba
