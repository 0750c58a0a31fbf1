// Every document's title in a collection, for the title linker (loaders/title_links.py) at
// incremental ingests: titles link documents of the same collection only.
// Parameters: $collection. Returns: id (key), title (documents with a title only).
MATCH (d:Document)
WHERE d.collection = $collection AND coalesce(d.title, '') <> ''
RETURN d.id AS id, d.title AS title;
