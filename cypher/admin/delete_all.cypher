// Delete every node and relationship; constraints and indexes stay.
// Parameters: none. Returns: nothing. For `anchorgraph db reset` and test isolation.
MATCH (n) DETACH DELETE n;
