"""The REST surface: routes, request/response models, dependencies and error mapping."""
