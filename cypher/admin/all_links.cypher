// Every hyperlink edge, to compare graphs or audit link resolution.
// Parameters: none. Returns: source (chunk id), target_label, target (id or placeholder key),
// fragment, href; ordered.
MATCH (c:Chunk)-[l:LINKS_TO]->(t)
RETURN c.id AS source, head(labels(t)) AS target_label, coalesce(t.id, t.key) AS target,
       l.fragment AS fragment, l.href AS href
ORDER BY source, href, target;
