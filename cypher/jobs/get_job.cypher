// One ingest job with its state and progress (service/jobs.py reads it into ``Job``).
// Parameters: $id. Returns: id, collection, source, files, replace, state, error, listed, read,
// written, unchanged, refused, skipped, chunks, seconds, refusals (each a JSON object), skips,
// created, updated; no row for no such job.
MATCH (job:IngestJob {id: $id})
RETURN job.id AS id, job.collection AS collection, job.source AS source, job.files AS files,
       job.replace AS replace, job.state AS state, job.error AS error, job.listed AS listed,
       job.read AS read, job.written AS written, job.unchanged AS unchanged,
       job.refused AS refused, job.skipped AS skipped, job.chunks AS chunks,
       job.seconds AS seconds, job.refusals AS refusals, job.skips AS skips,
       job.created AS created, job.updated AS updated;
