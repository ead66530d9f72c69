"""The comparison lab: nqcsp's backends, outside engines and native peers measured and judged on the same
instances. Not installed with nqcsp; it runs from a checkout's root as ``python -m benchmarks COMMAND``.

Laid out by job, each layer importing only those below it (import-linter's "lab" contract):

- ``benchmarks.cli``: the one way in (``run``, ``analyze``, ``list``, and a command per study);
- ``benchmarks.suites``: the studies, a folder each: ``field/`` (the field on one board), ``thresholds/``
  (OEIS A374013), ``peers/`` (native peers by path, CSPLib's generator), ``micro/`` (micro-benchmarks);
- ``benchmarks.judging``: the one judge (``truth``: an instance's truth and each run's verdict, never a
  claim), the strict record reader (``records``), the scores (``scores``: PAR-2, VBS, Borda), and the
  outputs (``summary`` tables, ``markdown`` escaping, ``html`` pages with ``static/``, ``plots``);
- ``benchmarks.harness``: what runs things: the runner and its worker processes, the instances, the
  suites as data (``catalog``), the outside peers the worker calls;
- ``nqcsp``, the library measured, which never imports the lab.

``benchmarks/results/`` holds the published tables, written only when asked (``--publish``).
"""
