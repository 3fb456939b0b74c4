"""The read path: candidates from every layer, ranking and selection, the relevance floor, the keyword
bridge, profile facts.
"""
