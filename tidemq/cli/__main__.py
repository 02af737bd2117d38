"""`python -m tidemq.cli`: the `tidemq` command."""

import sys

from tidemq.cli import main

sys.exit(main())
