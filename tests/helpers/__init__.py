"""What the tests share: helpers (``store``, ``paths``), servers started for a test
(``chroma_server``, ``http_server``) and the scripts tests run as child processes."""
