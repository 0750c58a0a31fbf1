// Delete every node and relationship in transactions of 5,000 nodes, so that emptying a graph
// of another dataset does not hold it all in one transaction's memory; constraints and indexes
// stay. CALL ... IN TRANSACTIONS runs only as an auto-commit statement (Graph.run).
// Parameters: none. Returns: nothing.
MATCH (n)
CALL (n) {
  DETACH DELETE n
} IN TRANSACTIONS OF 5000 ROWS;
