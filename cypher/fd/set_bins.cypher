// Give chunks and documents the FD* length bins the refit computed (loaders/fd_stats.py).
// Parameters: $chunks, $documents (lists of {id, bin}). Returns: nothing.
CALL () {
  UNWIND $chunks AS row
  MATCH (c:Chunk {id: row.id})
  SET c.length_bin = row.bin
}
CALL () {
  UNWIND $documents AS row
  MATCH (d:Document {id: row.id})
  SET d.length_bin = row.bin
};
