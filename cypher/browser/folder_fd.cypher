// Guide: FD* of a folder's documents
// Every document in a folder of a collection and the folders below it (the folder "" is the
// whole collection), with its factual density as every search hit shows it
// (service/factual_density.py): FD_raw = Σ prob_fact / n_tokens, the mean μ and population σ of
// FD_raw in its length bin ((:FdStats) of its collection), z = (FD_raw − μ) / σ and FD* =
// z × a_source, the authority of its source type (1.0 unless a (:SourceAuthority) says
// otherwise); z and FD* are null while the bins are not fitted, and 0.0 in a bin whose values
// are all equal. Densest first.
// Parameters: $collection (the collection), $folder (a folder path, e.g. "climate"; "" for the
// whole collection).
// Returns: document, title, source_type, n_tokens, n_claims, length_bin, fd_raw, bin_mean,
// bin_sd, z, a_source, fd_star; a row per document, highest FD* first.
// Example: {"collection": "sample", "folder": "climate"}
MATCH (top)
WHERE (top:Collection AND top.name = $collection AND $folder = '')
   OR (top:Folder AND top.collection = $collection AND top.path = $folder)
MATCH (top)-[:CONTAINS*]->(d:Document)
// A node's length bin is not stored: it is the bin its n_tokens falls in under its level's
// bounds, which every (:FdStats) of the level holds (cypher/fd/count_documents.cypher).
OPTIONAL MATCH (binb:FdStats {collection: $collection, id: 'document:short'})
OPTIONAL MATCH (bin:FdStats {collection: $collection, id: 'document:' + CASE
    WHEN d.n_tokens <= binb.lower THEN 'short'
    WHEN d.n_tokens <= binb.upper THEN 'medium' ELSE 'long' END})
  WHERE d.n_tokens IS NOT NULL
OPTIONAL MATCH (authority:SourceAuthority {source_type: d.source_type})
WITH d, bin.bin AS length_bin, coalesce(authority.a_source, 1.0) AS a_source,
     CASE WHEN bin.n > 0 THEN bin.total / bin.n END AS mean,
     CASE WHEN bin.n > 0 THEN bin.total_sq / bin.n END AS mean_sq
WITH d, length_bin, a_source, mean,
     CASE WHEN mean_sq - mean ^ 2 > 0 THEN sqrt(mean_sq - mean ^ 2) ELSE 0.0 END AS sd
WITH d, length_bin, a_source, mean, sd,
     CASE WHEN mean IS NULL THEN null
          WHEN sd <= 1e-12 * CASE WHEN abs(mean) > 1.0 THEN abs(mean) ELSE 1.0 END THEN 0.0
          ELSE (coalesce(d.fd_raw, 0.0) - mean) / sd END AS z
RETURN d.id AS document, d.title AS title, d.source_type AS source_type,
       d.n_tokens AS n_tokens, d.n_claims AS n_claims, length_bin,
       round(coalesce(d.fd_raw, 0.0), 5) AS fd_raw, round(mean, 5) AS bin_mean,
       round(sd, 5) AS bin_sd, round(z, 3) AS z, a_source, round(z * a_source, 3) AS fd_star
ORDER BY fd_star DESC, document;
