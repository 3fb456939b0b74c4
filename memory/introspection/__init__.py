"""What the engine holds, for people and tools: ``debug_state()`` and the read-only inspector."""
