"""``python -m doors.cli``: the ``palace`` command."""

import sys

from doors.cli.main import main

sys.exit(main())
