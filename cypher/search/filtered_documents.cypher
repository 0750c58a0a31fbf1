// The documents of the searched collections that a search's filters allow; every path then
// keeps only their chunks.
// Parameters: $collections (names, or null for every one), $sources, $source_types, $folders (a
// folder and all below it), $tags (any of), $document_ids (keys) — each a list, or null for
// "no restriction" — and $metadata (a list of {key, values}: the document's metadata property
// meta_<key> is one of the values, for every entry; or null).
// Returns: id (the document's key; one row per allowed document).
MATCH (d:Document)
WHERE ($collections IS NULL OR d.collection IN $collections)
  AND ($sources IS NULL OR d.source IN $sources)
  AND ($source_types IS NULL OR d.source_type IN $source_types)
  AND ($folders IS NULL OR any(folder IN $folders
        WHERE folder = '' OR d.folder = folder OR d.folder STARTS WITH folder + '/'))
  AND ($tags IS NULL OR any(tag IN d.tags WHERE tag IN $tags))
  AND ($document_ids IS NULL OR d.id IN $document_ids)
  AND ($metadata IS NULL OR all(entry IN $metadata WHERE d['meta_' + entry.key] IN entry.values))
RETURN d.id AS id;
