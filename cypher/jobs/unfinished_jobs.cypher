// The jobs an API start resumes (service/jobs.py): queued or running when the last one stopped.
// Parameters: none. Returns: id; oldest first.
MATCH (job:IngestJob)
WHERE job.state IN ['queued', 'running']
RETURN job.id AS id
ORDER BY job.created;
