// Block until every index is ONLINE, or fail after the timeout.
// Parameters: $timeout_s (int seconds). Returns: nothing.
CALL db.awaitIndexes($timeout_s);
