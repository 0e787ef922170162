"""``python -m kadmin.cli``: the same as the ``kadmin`` console script (for when it is not on PATH)."""

from kadmin.cli.main import main

raise SystemExit(main())
