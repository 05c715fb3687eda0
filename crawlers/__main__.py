"""``python -m crawlers`` is the same as the ``crawlab`` console script."""

import sys

from crawlers.cli import main

sys.exit(main())
