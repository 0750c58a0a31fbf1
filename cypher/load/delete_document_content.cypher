// Remove what a document owns: its chunks with their mentions, index terms, outgoing links and
// NEXT edges, the triples read from those chunks and the claims they assert (a claim belongs to
// its one chunk), and its folder and tag edges. The Document node stays.
// Parameters: $ids (list of document keys).
// Returns: documents (how many of $ids exist), chunks (how many chunks were removed),
// languages (the ISO 639-1 code of each of those documents; 'en' when written before languages),
// entity_ids (ids of entities its chunks mentioned, to check for orphans afterwards),
// placeholder_keys (keys of the (:Unresolved) placeholders its chunks linked to, likewise),
// term_texts (texts of the (:Term) nodes its chunks had, likewise).
UNWIND $ids AS id
MATCH (d:Document {id: id})
OPTIONAL MATCH (d)<-[filed:CONTAINS]-()
OPTIONAL MATCH (d)-[tagged:TAGGED]->(:Tag)
DELETE filed, tagged
WITH DISTINCT d
WITH collect(d) AS documents
CALL (documents) {
  UNWIND documents AS d
  MATCH (d)-[:HAS_CHUNK]->(c:Chunk)
  WITH c, COLLECT { MATCH (c)-[:MENTIONS]->(e:Entity) RETURN e.id } AS mentioned,
    COLLECT { MATCH (c)-[:LINKS_TO]->(u:Unresolved) RETURN u.key } AS waiting,
    COLLECT { MATCH (c)-[:HAS_TERM]->(t:Term) RETURN t.text } AS terms
  CALL (c) {
    MATCH ()-[r:RELATES {chunk_id: c.id}]->()
    DELETE r
  }
  CALL (c) {
    MATCH (c)-[:ASSERTS]->(claim:Claim)
    DETACH DELETE claim
  }
  DETACH DELETE c
  RETURN count(*) AS chunks, collect(mentioned) AS mentioned, collect(waiting) AS waiting,
         collect(terms) AS terms
}
RETURN size(documents) AS documents, chunks,
  [d IN documents | coalesce(d.language, 'en')] AS languages,
  COLLECT { UNWIND mentioned AS ids UNWIND ids AS id RETURN DISTINCT id } AS entity_ids,
  COLLECT { UNWIND waiting AS keys UNWIND keys AS key RETURN DISTINCT key } AS placeholder_keys,
  COLLECT { UNWIND terms AS texts UNWIND texts AS text RETURN DISTINCT text } AS term_texts;
