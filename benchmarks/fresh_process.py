"""The one way the benchmarks time a command as a fresh process, from outside.

``python -c WRAPPER CMD...`` runs CMD and prints one JSON line: ``s`` (wall seconds),
``cpu`` (user + system seconds of CMD and its children), ``mb`` (peak RSS of the largest of
them, ``RUSAGE_CHILDREN``) and ``out`` (the end of CMD's standard output). A failing CMD exits
with the end of its standard error instead.
"""

WRAPPER = (
    "import json, resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "out = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)\n"
    "wall = time.perf_counter() - t\n"
    "if out.returncode:\n"
    "    sys.exit(out.stderr.decode()[-2000:])\n"
    "use = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(json.dumps({'s': wall, 'cpu': use.ru_utime + use.ru_stime,"
    " 'mb': use.ru_maxrss / 1024, 'out': out.stdout.decode(errors='replace')[-200:]}))\n"
)
