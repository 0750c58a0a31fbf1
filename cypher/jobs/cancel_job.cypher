// Ask a job to stop (DELETE /ingest/jobs/{id}): its runner stops after the batch it is writing
// (service/jobs.py); a queued job is cancelled at once, a finished one is left as it is.
// Parameters: $id. Returns: state (after the request); no row for no such job.
MATCH (job:IngestJob {id: $id})
SET job.cancel = job.state IN ['queued', 'running'],
    job.state = CASE job.state WHEN 'queued' THEN 'cancelled' ELSE job.state END,
    job.updated = datetime()
RETURN job.state AS state;
