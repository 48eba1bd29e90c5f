"""Benchmark of ``skcalib report`` on a Parquet dataset too large to hold in memory.

Binary predictions (float32 probability of class 1, int8 label) are written to a Parquet
file on disk in row groups of 1,000,000 rows; the streamed report
(``skcalib.report._stream.stream_report``, what ``skcalib report FILE.parquet`` runs) is
timed against the "floor": reading the same two columns of the same file the way the
report reads them (``ParquetFile.iter_batches`` of one row group at a time, batches of
``batch_rows`` rows -- 1,048,576 for these 5-byte rows --, ``to_numpy`` of each column)
and touching every value once (their sums).  Each run is a fresh subprocess, so that its
peak resident memory is its own; the memory must stay flat when the data grows 10x.  The
report runs twice: as the command does and with the classes given (``--labels 0,1``,
which only checks the labels: the report reads each file once either way).

Fairness: all the timed runs see the same cache state.  One untimed read of the file
(after writing it) puts it in the page cache, then the floor and the two reports run
interleaved, ``--repeat`` rounds of the three, and each reports its best round.  The
printed rows per second are absolute; the ratio is the one number that compares.  The
report reads exactly as the floor does, and computes the statistics of each batch before
reading the next.

With ``--groups G`` another round writes a third column, ``g``, of G groups mixed in
every row group (each row's group drawn at random), and times ``skcalib report --by g``
(one row of the table per group and the overall row) against the floor reading the three
columns and against the ungrouped report of the same file, on a tenth of the rows (target:
within 2x of the ungrouped report, peak RSS below 1 GiB): every batch then fills the
tables of G groups (a fine histogram each), which the ungrouped report does not.

With ``--dask N`` a second round times the same report computed on a local Dask cluster
of N worker processes of one thread each (``skcalib report --scheduler ADDRESS``: one
task per row group, merged on the client), started and warmed up before any clock
starts, as a cluster that is already running, against the floor measured with the
cluster up; it runs in this process, so it has no peak RSS of its own.  On a machine
with as many free cores as workers, this is the row that scales.

Run: python benchmarks/bench_scale.py [--quick] [--repeat N] [--dask N] [--groups G]
(full: 10 and 100 million rows, 1 and 10 million with groups; --quick: 0.2 and 2 million,
20,000 and 200,000 with groups)
"""

import contextlib
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa
from _common import local_cluster, parse_args

from skcalib.report._io import BATCH_ROWS

ROW_GROUP = 1_000_000
SCHEMA = pa.schema([("y", pa.int8()), ("1", pa.float32())])
GROUPED_SCHEMA = SCHEMA.append(pa.field("g", pa.int32()))

# peak RSS: VmHWM of /proc/self/status, which exec resets (ru_maxrss keeps the parent's
# peak across fork and exec); both scripts read the first row group into numpy once
# before the clock starts, so that neither pays pyarrow's one-time start-up inside the
# timing: pyarrow's first ``to_numpy`` of a process imports pandas (0.25-0.35 s on the
# machine of the README, whatever the size of the file)
PROLOGUE = f"""
import sys, time
import numpy as np
import pyarrow.parquet as pq
def peak_rss():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
pf = pq.ParquetFile(sys.argv[1], pre_buffer=False)
for b in pf.iter_batches(batch_size={BATCH_ROWS}, row_groups=[0], columns=["y", "1"]):
    b.column(0).to_numpy(), b.column(1).to_numpy()  # the first to_numpy imports pandas
del pf, b
"""

FLOOR = (
    PROLOGUE
    + f"""
t0 = time.perf_counter()
pf = pq.ParquetFile(sys.argv[1], pre_buffer=False)
total = 0.0
columns = sys.argv[2].split(",")
for rg in range(pf.num_row_groups):
    for b in pf.iter_batches(batch_size={BATCH_ROWS}, row_groups=[rg], columns=columns):
        total += sum(float(np.sum(b.column(c).to_numpy())) for c in columns)
print(time.perf_counter() - t0, peak_rss())
"""
)

REPORT = (
    PROLOGUE
    + """
import pyarrow.compute, pyarrow.dataset  # imported by the report: not timed
from skcalib.report._stream import stream_report
labels = sys.argv[2].split(",") if sys.argv[2] else None
by = sys.argv[3].split(",") if sys.argv[3] else ()
t0 = time.perf_counter()
r = stream_report(sys.argv[1], labels=labels, by=by, proba_cols=["1"])
assert sum(r.n_samples.values()) > 0
print(time.perf_counter() - t0, peak_rss())
"""
)


def write_dataset(path, n_rows, seed=0, groups=0):
    """Binary predictions, and with ``groups`` a column ``g`` of that many groups."""
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    schema = GROUPED_SCHEMA if groups else SCHEMA
    with pq.ParquetWriter(path, schema) as w:
        for start in range(0, n_rows, ROW_GROUP):
            n = min(ROW_GROUP, n_rows - start)
            p = rng.random(n, dtype=np.float32)
            columns = {"y": (rng.random(n, dtype=np.float32) < p).astype(np.int8), "1": p}
            if groups:
                columns["g"] = rng.integers(0, groups, n, dtype=np.int32)
            w.write_table(pa.table(columns, schema=schema), row_group_size=ROW_GROUP)


def run(script, *argv):
    out = subprocess.run(
        [sys.executable, "-c", script, *argv], capture_output=True, text=True, check=True
    ).stdout.split()
    return float(out[0]), int(out[1]) * 1024  # KiB


def _options(parser):
    parser.add_argument(
        "--dask",
        type=int,
        default=0,
        metavar="N",
        help="also time the report on a local Dask cluster of N worker processes",
    )
    parser.add_argument(
        "--groups",
        type=int,
        default=0,
        metavar="G",
        help="also time the report --by a column of G groups mixed in every row group",
    )


def main():
    args = parse_args(__doc__, extra=_options)
    repeat = args.repeat or (1 if args.quick else 5)
    sizes = (200_000, 2_000_000) if args.quick else (10_000_000, 100_000_000)
    runs = {
        "pyarrow floor": (FLOOR, ["y,1"]),
        "skcalib report": (REPORT, ["", ""]),
        "skcalib report --labels 0,1": (REPORT, ["0,1", ""]),
    }
    _measure(args, runs, sizes, repeat)
    if args.groups:
        print(f"With a column g of {args.groups:,} groups, mixed in every row group:")
        runs = {
            "pyarrow floor": (FLOOR, ["y,1,g"]),
            "skcalib report": (REPORT, ["", ""]),
            f"report --by g ({args.groups:,} groups)": (REPORT, ["", "g"]),
        }
        _measure(args, runs, [n // 10 for n in sizes], repeat, groups=args.groups)
    if args.dask:  # a second round, with the cluster up (its idle processes cost CPU too)
        print(f"With a local cluster of {args.dask} Dask worker processes running:")
        with contextlib.ExitStack() as stack:
            runs = {
                "pyarrow floor": (FLOOR, ["y,1"]),
                f"report on {args.dask} Dask workers": (_dask_runner(stack, args.dask), []),
            }
            _measure(args, runs, sizes, repeat)


def _dask_runner(stack, n_workers):
    """A run of the report on a local cluster, timed in this process: (seconds, None)."""
    from distributed import Client

    from skcalib.report._dask import dask_report

    cluster = stack.enter_context(local_cluster(n_workers))
    stack.enter_context(Client(cluster))

    def run_on_cluster(path):
        t0 = time.perf_counter()
        r = dask_report(path, scheduler=cluster.scheduler_address)
        assert r.n_samples["model"] > 0
        return time.perf_counter() - t0, None

    return run_on_cluster


def _measure(args, runs, sizes, repeat, groups=0):
    """Interleaved rounds of ``runs`` on datasets of ``sizes`` rows; the 2x target of the
    report applies without groups."""
    rss = {}
    with tempfile.TemporaryDirectory(prefix="skcalib-bench-") as tmp:
        for n in sizes:
            path = os.path.join(tmp, f"preds_{n}.parquet")
            t0 = time.perf_counter()
            write_dataset(path, n, groups=groups)
            size = os.path.getsize(path)
            print(
                f"{n:,} rows: {size / 2**20:.0f} MiB on disk (written in "
                f"{time.perf_counter() - t0:.1f} s)"
            )
            floor_script, floor_args = runs["pyarrow floor"]
            run(floor_script, path, *floor_args)  # untimed: the file is then in the page cache
            for script, _ in runs.values():
                if callable(script):
                    script(path)  # untimed: the workers import what the report needs
            times = {name: [] for name in runs}
            mems = {name: [] for name in runs}
            for _ in range(repeat):  # interleaved rounds
                for name, (script, extra) in runs.items():
                    t, m = script(path) if callable(script) else run(script, path, *extra)
                    times[name].append(t)
                    mems[name].append(m)
            t_floor = min(times["pyarrow floor"])
            if groups:  # the grouped report against the ungrouped one on the same file
                ratio = min(times[list(runs)[-1]]) / min(times["skcalib report"])
                ok = "" if args.quick else f"  {'OK' if ratio <= 2 else 'MISS'}"
                print(f"  report --by g / report: {ratio:.2f}x (target <= 2.0x){ok}")
            for name in runs:
                t = min(times[name])
                m = None if None in mems[name] else max(mems[name])
                if name != "pyarrow floor" and m is not None:
                    rss.setdefault(name, []).append(m)
                target = (
                    ""
                    if args.quick or name == "pyarrow floor" or groups
                    else f"  target <= 3.5x  {'OK' if t <= 3.5 * t_floor else 'MISS'}"
                )
                memory = "" if m is None else f"  peak RSS {m / 2**20:6.0f} MiB"
                print(
                    f"  {name:<30s} {t:8.3f} s  ratio {t / t_floor:5.2f}x  "
                    f"{n / t / 1e6:7.1f} M rows/s{memory}  "
                    f"(best of {repeat}; all {', '.join(f'{x:.3f}' for x in times[name])}){target}"
                )
            os.remove(path)
    for name, (small, big) in rss.items():
        ok = "" if args.quick else f"  {'OK' if big < 2**30 and big < 1.25 * small else 'MISS'}"
        print(
            f"{name}: peak RSS {small / 2**20:.0f} MiB -> {big / 2**20:.0f} MiB for 10x the rows "
            f"(ratio {big / small:.2f}x; target < 1 GiB and flat){ok}"
        )


if __name__ == "__main__":
    main()
