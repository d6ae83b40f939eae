"""``python -m shopsim.cli``: the same as the ``shopsim`` console script."""

import sys

from shopsim.cli import main

sys.exit(main())
