// Put a collection written before shards into $shard, in place: its chunks and documents get the
// shard's labels (dynamic labels; the shard's vector indexes then hold them), in batches, and the
// (:Collection) its shard last, so that an upgrade cut short is done again by the next one and no
// search meanwhile reads a shard index that lacks some of the collection's nodes.
// Parameters: $collection, $shard, $chunk_labels, $document_labels (the shard's labels,
// service/graph/shards.py). Returns: nothing. Statements end with ';'.
MATCH (c:Chunk {collection: $collection})
CALL (c) {
  SET c:$($chunk_labels)
} IN TRANSACTIONS OF 5000 ROWS;
MATCH (d:Document {collection: $collection})
CALL (d) {
  SET d:$($document_labels)
} IN TRANSACTIONS OF 5000 ROWS;
MATCH (c:Collection {name: $collection})
SET c.shard = $shard;
