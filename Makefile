PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
STAMP := $(VENV)/.installed-stamp
TORCH_CPU := https://download.pytorch.org/whl/cpu
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export ANONYMIZED_TELEMETRY := False

.PHONY: setup postgres-binaries browser demo serve test lint bench bench-quality chroma postgres reindex clean

setup: $(STAMP)

# torch only for the [huggingface] extra (the tests exercise it): its CPU build, not the CUDA one
# that PyPI's Linux wheel pulls in; where that index is unreachable, from pip's other sources
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || { echo "set-up 1/4: creating $(VENV)"; $(PY) -m venv $(VENV); }
	@echo "set-up 2/4: upgrading pip"
	@$(BIN)/pip install --quiet --upgrade pip
	@echo "set-up 3/4: torch 2.13.0, CPU build (only the huggingface extra needs it)"
	@if $(BIN)/python -c "import urllib.request as u; u.urlopen('$(TORCH_CPU)/torch/', timeout=5)" 2>/dev/null; \
	then $(BIN)/pip install --quiet --index-url $(TORCH_CPU) torch==2.13.0; \
	else echo "  PyTorch's CPU index is unreachable: torch from pip's configured sources"; \
		$(BIN)/pip install --quiet torch==2.13.0; fi
	@echo "set-up 4/4: persona-memory and its extras (dev, postgres, langgraph, server, huggingface)"
	@$(BIN)/pip install --quiet -e '.[dev,postgres,langgraph,server,huggingface]'
	@touch $(STAMP)
	@echo "set-up done"

# the tests start their own PostgreSQL servers from Debian's binaries
postgres-binaries:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null || \
		{ echo "installing Debian's postgresql (server binaries for the tests)"; \
		  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq postgresql; }

# the browser tests drive Debian's headless Chromium (nothing is downloaded by Playwright);
# a CJK font so the inspector's screenshot shows Chinese
browser:
	@{ command -v chromium >/dev/null && ls /usr/share/fonts/truetype/wqy/wqy-microhei.ttc >/dev/null 2>&1; } || \
		{ echo "installing Debian's chromium and a CJK font (for the inspector's browser tests)"; \
		  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq \
		  chromium fonts-wqy-microhei; }

demo: setup
	$(BIN)/python -m memory demo --persona karin

serve: setup
	$(BIN)/python -m memory serve --persona karin

test: setup postgres-binaries browser
	$(BIN)/python -m pytest -q
	@echo "== the same suite against a PostgreSQL record =="
	PERSONA_MEMORY_TEST_RECORD=postgres $(BIN)/python -m pytest -q -rs

lint: setup
	$(BIN)/ruff format --check memory tests bench
	$(BIN)/ruff check memory tests bench
	$(BIN)/mypy memory bench

bench: setup
	$(BIN)/python -m bench
	$(BIN)/python -m bench cold
	$(BIN)/python -m bench users
	$(BIN)/python -m bench record
	$(BIN)/python -m bench server
	@echo "== the cheap-only profile (embedding.provider = use-multilingual), for comparison =="
	$(BIN)/python -m bench --provider use-multilingual --no-mem0
	$(BIN)/python -m bench cold --provider use-multilingual

bench-quality: setup
	$(BIN)/python -m bench quality --dataset ../shared/bench/locomo-dev.json --out data/bench-quality.json
	$(BIN)/python -m bench quality --protocol chat --dataset ../shared/bench/locomo-dev.json --out data/bench-quality-chat.json
	$(BIN)/python -m bench madial --data ../shared/bench/madial-zh-dev --out data/bench-madial.json
	$(BIN)/python -m bench slots
	@echo "== the same, right after the import: no memory enriched yet (cheap vectors and keywords) =="
	$(BIN)/python -m bench quality --before-enrichment --dataset ../shared/bench/locomo-dev.json --out data/bench-quality-cheap.json
	$(BIN)/python -m bench madial --before-enrichment --data ../shared/bench/madial-zh-dev --out data/bench-madial-cheap.json

chroma: setup
	$(BIN)/chroma run --path data/chroma-server --host 127.0.0.1 --port 8000

postgres: setup postgres-binaries
	$(BIN)/python -m bench.pg_server --port 5433 --folder data/postgres

clean:
	rm -rf data/demo data/bench-* .pytest_cache .mypy_cache .ruff_cache
