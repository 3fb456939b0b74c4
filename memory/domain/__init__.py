"""Domain types and pure rules: what an interaction, a memory, a query and a persona are; tokens,
importance, slots, times, validation. No I/O but the read-only data files of jieba and of the slot
model that tokens.py and slot_model.py load.
"""
