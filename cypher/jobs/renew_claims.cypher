// A runner renews its claim on the jobs it runs (service/jobs.py), every third of its lease, so
// that no other runner takes them over (claim_job.cypher). The SET takes each job node's write
// lock before its owner is read, so a job another runner has taken over since is left as that
// runner holds it.
// Parameters: $ids (the jobs this runner runs), $owner (its token).
// Returns: id (each job that is still this runner's).
UNWIND $ids AS id
MATCH (job:IngestJob {id: id})
SET job.locked = true
WITH job
WHERE job.owner = $owner
SET job.heartbeat = datetime()
RETURN job.id AS id;
