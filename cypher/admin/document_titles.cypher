// Every document's title, for the title linker (loaders/title_links.py) at incremental ingests.
// Parameters: none. Returns: id, title (documents with a title only).
MATCH (d:Document)
WHERE coalesce(d.title, '') <> ''
RETURN d.id AS id, d.title AS title;
