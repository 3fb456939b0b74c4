"""The vector index: Chroma behind a circuit breaker and deadlines, collections per scope, and the
embedding models.
"""
