// Every hyperlink edge of a collection, to compare graphs or audit link resolution; ids are
// those within the collection (links never leave it).
// Parameters: $collection. Returns: source (chunk id), target_label, target (id, or the
// placeholder's key without its collection), fragment, href; ordered.
MATCH (c:Chunk)-[l:LINKS_TO]->(t)
WHERE c.collection = $collection
WITH c, l, t, size($collection) + 1 AS cut
RETURN substring(c.id, cut) AS source,
       CASE WHEN t:Document THEN 'Document' WHEN t:Chunk THEN 'Chunk' ELSE 'Unresolved' END
         AS target_label,
       substring(coalesce(t.id, t.key), cut) AS target, l.fragment AS fragment, l.href AS href
ORDER BY source, href, target;
