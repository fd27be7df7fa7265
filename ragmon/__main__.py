"""`python -m ragmon`, for environments where the `ragmon` script is not on PATH."""

import sys

from ragmon.cli import main

sys.exit(main())
