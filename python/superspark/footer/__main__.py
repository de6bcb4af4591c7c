"""``python -m superspark.footer``: the footer tools' command line (``superspark-footer``)."""

import sys

from superspark.footer._cli import main

sys.exit(main())
