"""``python -m memory``: the command-line interface."""

from memory.cli import main

raise SystemExit(main())
