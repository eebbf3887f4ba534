# Two commands on a fresh machine: `make run` and `make test` (see README.md).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
HOST ?= 127.0.0.1
PORT ?= 8000
# Database and API tests run a second time on PostgreSQL when TEST_DATABASE_URL is set.
DB_TESTS := tests/api tests/db
# The browser tests (tests/browser) drive Debian's Chromium through its driver.
CHROMIUM ?= /usr/bin/chromium
CHROMEDRIVER ?= /usr/bin/chromedriver

.PHONY: install run migrate test lint typecheck browser bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

migrate: install
	$(BIN)/alembic upgrade head

run: migrate
	$(BIN)/uvicorn app.main:app --host $(HOST) --port $(PORT)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	$(BIN)/mypy

# Chromium for the browser tests: installed with apt-get when missing (as root), or a message
# saying how.
browser:
	@if [ -x "$(CHROMIUM)" ] && [ -x "$(CHROMEDRIVER)" ]; then \
		:; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "== installing chromium and chromium-driver for the browser tests =="; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; \
	else \
		echo "The browser tests need Chromium and its driver ($(CHROMIUM), $(CHROMEDRIVER))." >&2; \
		echo "Install them: sudo apt-get install -y chromium chromium-driver" >&2; \
		exit 1; \
	fi

test: lint typecheck browser
	env -u TEST_DATABASE_URL $(BIN)/pytest
	@if [ -n "$$TEST_DATABASE_URL" ]; then \
		echo "== database and API tests on $$TEST_DATABASE_URL =="; \
		$(BIN)/pytest $(DB_TESTS); \
	else \
		echo "TEST_DATABASE_URL is not set: PostgreSQL run skipped"; \
	fi

bench: install
	$(BIN)/python -m bench.run

clean:
	rm -rf $(VENV) nocturne.db nocturne.db-wal nocturne.db-shm
