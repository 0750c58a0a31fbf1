// The jobs a runner looks for at its start and every lease after (service/jobs.py): queued or
// running, and owned by no runner (the last API stopped and released them) or by one silent for
// longer than its lease (it crashed). A read: the runner claims each (claim_job.cypher), which
// decides.
// Parameters: none. Returns: id; oldest first.
MATCH (job:IngestJob)
WHERE job.state IN ['queued', 'running']
  AND (job.owner IS NULL OR
       coalesce(job.heartbeat < datetime() - duration({seconds: job.lease_s}), true))
RETURN job.id AS id
ORDER BY job.created;
