"""``python -m gradlib.scan``: see ``gradlib.scan._cli`` (and ``--help``)."""

import sys

from ._cli import main

if __name__ == "__main__":
    sys.exit(main())
