"""`python -m tidemq.bench`: the same as `tidemq bench`."""

import sys

from tidemq.bench.cli import main

sys.exit(main())
