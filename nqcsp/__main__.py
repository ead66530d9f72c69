from nqcsp.cli import entry

entry()
