"""LangChain and LangGraph faces: the runnable and ``BaseRetriever``, the chat chain, tools, the
LangGraph store.
"""
