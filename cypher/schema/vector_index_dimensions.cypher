// The configured dimension of each vector index, to catch a model change against an old graph.
// Parameters: none. Returns: name, dimensions.
SHOW VECTOR INDEXES YIELD name, options
RETURN name, options.indexConfig.`vector.dimensions` AS dimensions
ORDER BY name;
