import sys

from nqcsp.cli import main

sys.exit(main())
