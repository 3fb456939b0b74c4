"""The system of record: SQLite or PostgreSQL, the journal, the entries table, profile facts, keyword
indexes, erasure tombstones, the archive file.
"""
