// A new ingest job into a collection (service/jobs.py), unless another job is queued or running
// there: one job writes into a collection at a time. The caller holds the collection's write
// lock (load/lock_collection.cypher), so two requests cannot both see it free. The job is
// created claimed by the runner that creates it (claim_job.cypher), which starts it.
// Parameters: $collection, $job (the job's properties: id, collection, source, replace, state
// 'queued', the progress counts at 0, owner and lease_s: its runner's token and lease).
// Returns: busy (the id of the job already there; null: this one was created).
OPTIONAL MATCH (other:IngestJob {collection: $collection})
WHERE other.state IN ['queued', 'running']
WITH head(collect(other.id)) AS busy
CALL (busy) {
  WITH *
  WHERE busy IS NULL
  CREATE (job:IngestJob)
  SET job = $job, job.created = datetime(), job.updated = datetime(),
      job.heartbeat = datetime(), job.claimed = datetime()
}
RETURN busy;
