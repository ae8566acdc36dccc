"""``python -m timelineview``."""

import sys

from timelineview.app import main

sys.exit(main())
