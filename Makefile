# Two commands for users and CI: `make demo` and `make test`. Both create .venv on first use
# and are idempotent: the set-up step is skipped while its stamp is newer than the metadata.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.installed
# The CPU build of PyTorch that this machine keeps on disk. It is installed first, where pip can
# find it without the network, so that nothing later pulls the multi-GB CUDA build; the package
# metadata itself never pins torch.
TORCH_CPU := torch==2.13.0

.PHONY: demo test tests docs bench clean install

$(STAMP): pyproject.toml setup.py Makefile
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip setuptools wheel
	@if $(PIP) install --dry-run --no-deps --no-index --quiet "$(TORCH_CPU)" >/dev/null 2>&1; then \
		echo "Installing the local CPU build $(TORCH_CPU)"; \
		$(PIP) install --quiet "$(TORCH_CPU)"; \
	else \
		echo "No local CPU build of torch: the test extras will take torch from the index"; \
	fi
	$(PIP) install --quiet -e ".[test,docs,plot]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(PY) examples/quickstart.py

tests: $(STAMP)
	$(PY) -m pytest -q

docs: $(STAMP)
	$(MAKE) -C docs html SPHINXBUILD="$(abspath $(VENV))/bin/sphinx-build"

test: tests docs

bench: $(STAMP)
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) docs/_build docs/generated docs/auto_examples docs/gen_modules
