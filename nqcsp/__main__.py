from nqcsp.cli import run

run()
