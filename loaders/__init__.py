"""Ingestion: read documents, normalise them, chunk them, and find their links and entities.

The modules are independent steps (``read`` → ``normalise`` → ``chunking`` → ``links`` →
``entities``); import the one you need. Nothing heavy (spaCy, BeautifulSoup) is imported here.
"""
