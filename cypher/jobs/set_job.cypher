// A job's state and progress, as its runner saw them after a batch (service/jobs.py); a cancel
// asked in between is kept. Only the job's owner writes it: the SET first takes the node's
// write lock, so a runner that another took the job over from (it was silent past its lease,
// claim_job.cypher) writes nothing and learns that it lost it. Each write renews the claim;
// with $release the runner lets the job go (it ended, or its API stops), so that the next
// runner may claim it at once.
// Parameters: $id, $owner (the runner's token), $release, $progress (the properties to set:
// state, error, the counts, refusals, skips).
// Returns: owned (whether the job was this runner's, and so written), cancel (whether a cancel
// was asked); no row for no such job.
MATCH (job:IngestJob {id: $id})
SET job.locked = true
WITH job, coalesce(job.owner = $owner, false) AS owned
CALL (job, owned) {
  WITH *
  WHERE owned
  SET job += $progress, job.updated = datetime(),
      job.heartbeat = CASE WHEN $release THEN null ELSE datetime() END,
      job.owner = CASE WHEN $release THEN null ELSE $owner END
}
RETURN owned, coalesce(job.cancel, false) AS cancel;
