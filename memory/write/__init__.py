"""The write path: recording interactions, bulk import, keeping the index and archive in step with the
record, erasure.
"""
