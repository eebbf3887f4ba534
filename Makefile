# Two commands on a fresh machine: `make run` and `make test` (see README.md).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
HOST ?= 127.0.0.1
PORT ?= 8000
# Database and API tests run a second time on PostgreSQL when TEST_DATABASE_URL is set.
DB_TESTS := tests/api tests/db

.PHONY: install run migrate test lint typecheck bench clean

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

test: lint typecheck
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
