// A job's state and progress, as its runner saw them after a batch (service/jobs.py); a cancel
// asked in between is kept.
// Parameters: $id, $progress (the properties to set: state, error, the counts, refusals, skips).
// Returns: cancel (whether a cancel was asked); no row for no such job.
MATCH (job:IngestJob {id: $id})
SET job += $progress, job.updated = datetime()
RETURN coalesce(job.cancel, false) AS cancel;
