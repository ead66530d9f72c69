import os
import sys

# The naive references live beside the tests; make them importable as `naive` from every test module.
sys.path.insert(0, os.path.dirname(__file__))
