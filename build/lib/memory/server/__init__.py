"""The memory server: REST (FastAPI), MCP tools and the web inspector over one set of managers.

``service`` holds the managers and says what each route and tool does; ``app`` is the HTTP
surface (the only FastAPI and uvicorn importer), ``mcp_tools`` the MCP one (the only ``mcp``
importer), ``page`` and ``svg`` render the inspector. Install the ``server`` extra.
"""
