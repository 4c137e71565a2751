"""`python -m tankrl ...`: the `tankrl` command line."""

import sys

from tankrl.deploy.cli import main

sys.exit(main())
