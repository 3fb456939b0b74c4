"""Domain types and pure rules: what an interaction, a memory and a query are; tokens, importance,
slots, times, validation. No I/O.
"""
