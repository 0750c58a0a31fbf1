"""Text rules that ingestion and query analysis must share: normalisation (NFC, whitespace),
index terms of the TF-IDF path, identifier patterns and entity ids. Import the submodules."""
