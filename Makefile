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

# CI's second job: the oldest releases pyproject.toml accepts (pinned in OLDEST), in a venv of
# their own, running a quick subset of the tests (compatibility, sklearn's common checks, the
# main estimators).
VENV_OLDEST := .venv-oldest
PY_OLDEST := $(VENV_OLDEST)/bin/python
STAMP_OLDEST := $(VENV_OLDEST)/.installed
OLDEST := .ci/oldest-constraints.txt
OLDEST_TESTS := tests/utils tests/test_common.py tests/test_base.py \
	tests/accounting/test_sgm.py tests/linear_model tests/pate tests/gems/test_combiner.py \
	tests/dropout/test_dp_estimators.py tests/model_selection/test_search.py

.PHONY: demo test tests test-oldest docs bench clean install

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

$(STAMP_OLDEST): pyproject.toml setup.py Makefile $(OLDEST)
	$(PYTHON) -m venv $(VENV_OLDEST)
	$(PY_OLDEST) -m pip install --quiet --upgrade pip setuptools wheel
	@if $(PY_OLDEST) -m pip install --dry-run --no-deps --no-index --quiet "$(TORCH_CPU)" >/dev/null 2>&1; then \
		$(PY_OLDEST) -m pip install --quiet "$(TORCH_CPU)"; \
	fi
	$(PY_OLDEST) -m pip install --quiet --constraint $(OLDEST) -e ".[test]"
	touch $(STAMP_OLDEST)

install: $(STAMP)

demo: $(STAMP)
	$(PY) examples/quickstart.py

tests: $(STAMP)
	$(PY) -m pytest -q

docs: $(STAMP)
	$(MAKE) -C docs html SPHINXBUILD="$(abspath $(VENV))/bin/sphinx-build"

test: tests docs

test-oldest: $(STAMP_OLDEST)
	$(PY_OLDEST) -m pip list --format=freeze | grep -iE '^(numpy|scipy|scikit-learn|dp-accounting|joblib|threadpoolctl|skorch|torch|randomgen)=='
	$(PY_OLDEST) -m pytest -q $(OLDEST_TESTS)

bench: $(STAMP)
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) $(VENV_OLDEST) docs/_build docs/generated docs/auto_examples docs/gen_modules
