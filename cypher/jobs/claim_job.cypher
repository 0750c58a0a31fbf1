// Claim a job for one runner (service/jobs.py), so that of the API processes that would resume
// it exactly one runs it. The first SET takes the job node's write lock for the rest of the
// transaction (its value is never read); Neo4j reads committed data, so what follows sees every
// claim committed before and none can commit meanwhile: two runners never both find it free. A
// job is free when it is queued or running and no runner owns it (it was released), or its
// owner has not renewed its claim for longer than the lease that owner declared (it crashed),
// or the runner claiming it is its owner (it created the job).
// Parameters: $id, $owner (the runner's token), $lease_s (the seconds within which it renews).
// Returns: claimed (whether it is this runner's now), silent_s (seconds the owner it took over
// from had been silent; null: there was none, or it was this runner).
MATCH (job:IngestJob {id: $id})
SET job.locked = true
WITH job,
     job.state IN ['queued', 'running'] AND
     (job.owner IS NULL OR job.owner = $owner OR
      coalesce(job.heartbeat < datetime() - duration({seconds: job.lease_s}), true)) AS free,
     CASE WHEN job.owner <> $owner
          THEN duration.inSeconds(job.heartbeat, datetime()).milliseconds / 1000.0 END
       AS silent_s
CALL (job, free) {
  WITH *
  WHERE free
  SET job.owner = $owner, job.lease_s = $lease_s, job.heartbeat = datetime(),
      job.claimed = datetime()
}
RETURN free AS claimed, CASE WHEN free THEN silent_s END AS silent_s;
