// One ingest job with its state and progress (service/jobs.py).
// Parameters: $id. Returns: job (its properties as a map; created and updated as datetimes);
// no row for no such job.
MATCH (job:IngestJob {id: $id})
RETURN properties(job) AS job;
