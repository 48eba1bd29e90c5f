#!/usr/bin/env bash
# The array API on an NVIDIA GPU: the CUDA test cases, then bench_array_api.py.
#
# Run from anywhere, in an environment where skcalib is installed with its test extra
# (pip install -e ".[test]") and PyTorch is a CUDA build:
#
#     benchmarks/run_gpu_array_api.sh              # the full benchmark sizes
#     benchmarks/run_gpu_array_api.sh --quick      # small benchmark sizes (minutes less)
#     benchmarks/run_gpu_array_api.sh --repeat 2   # options go to bench_array_api.py
#
# Installs nothing: it stops with a message where nvidia-smi, PyTorch or a CUDA device
# is missing.  SKCALIB_REQUIRE_CUDA=1 makes the PyTorch CUDA cases of the tests
# mandatory (tests/utils/array_api_cases.py fails the collection without them), so they
# cannot silently skip; the CPU cases of the same tests run too.  Exits non-zero when a
# test fails, a CUDA case does not pass, or the benchmark fails.
set -uo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python}"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT

echo "== machine"
if ! command -v nvidia-smi >/dev/null; then
    echo "nvidia-smi not found: this script needs a machine with an NVIDIA GPU" >&2
    exit 2
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
if ! "$PYTHON" - <<'EOF'
import sys

import numpy
import sklearn

import skcalib

try:
    import torch
except ImportError:
    sys.exit("PyTorch is not installed: install a CUDA build of torch first")
if not torch.cuda.is_available():
    sys.exit(f"PyTorch {torch.__version__} sees no CUDA device (built for CUDA {torch.version.cuda})")
print(
    f"skcalib {skcalib.__version__}, numpy {numpy.__version__}, scikit-learn "
    f"{sklearn.__version__}, PyTorch {torch.__version__} (CUDA {torch.version.cuda}), "
    f"GPU: {torch.cuda.get_device_name(0)}"
)
EOF
then
    exit 2
fi

echo "== array API tests (SKCALIB_REQUIRE_CUDA=1)"
export SKCALIB_REQUIRE_CUDA=1
TESTS_START=$SECONDS
# the three array API test files in full; the metrics' array API tests of
# test_common.py and test_scoring_rules.py on their CUDA cases
"$PYTHON" -m pytest -q -p no:cacheprovider -rfEs --junitxml="$OUT/array_api.xml" \
    tests/metrics/test_array_api.py tests/recalibration/test_array_api.py \
    tests/utils/test_array_api.py
TESTS_RC=$?
"$PYTHON" -m pytest -q -p no:cacheprovider -rfEs --junitxml="$OUT/metrics.xml" \
    tests/metrics/test_common.py tests/metrics/test_scoring_rules.py -k cuda
METRICS_RC=$?
TESTS_S=$((SECONDS - TESTS_START))

echo "== bench_array_api.py $*"
BENCH_START=$SECONDS
(cd benchmarks && "$PYTHON" bench_array_api.py "$@")
BENCH_RC=$?
BENCH_S=$((SECONDS - BENCH_START))

echo "== summary"
"$PYTHON" - "$OUT/array_api.xml" "$OUT/metrics.xml" "$TESTS_S" <<'EOF'
import sys
import xml.etree.ElementTree as ET

counts = {}
for path in sys.argv[1:3]:
    try:
        cases = ET.parse(path).getroot().iter("testcase")
    except (OSError, ET.ParseError):
        print(f"{path}: no test report")
        continue
    for case in cases:
        cuda = "cuda" in case.get("name", "")
        outcome = "passed"
        for tag in ("failure", "error", "skipped"):
            if case.find(tag) is not None:
                outcome = tag
        key = ("CUDA cases" if cuda else "other tests", outcome)
        counts[key] = counts.get(key, 0) + 1
for group in ("CUDA cases", "other tests"):
    parts = [f"{n} {o}" for (g, o), n in sorted(counts.items()) if g == group]
    print(f"{group}: {', '.join(parts) or 'none'}")
print(f"tests took {sys.argv[3]} s")
cuda_ok = counts.get(("CUDA cases", "passed"), 0) > 0 and not any(
    g == "CUDA cases" and o != "passed" for g, o in counts
)
sys.exit(0 if cuda_ok else 1)
EOF
SUMMARY_RC=$?
echo "benchmark took ${BENCH_S} s (exit status ${BENCH_RC})"
if [ "$TESTS_RC" -ne 0 ] || [ "$METRICS_RC" -ne 0 ] || [ "$SUMMARY_RC" -ne 0 ] \
    || [ "$BENCH_RC" -ne 0 ]; then
    echo "FAILED: tests $TESTS_RC, metric tests $METRICS_RC, CUDA cases $SUMMARY_RC, benchmark $BENCH_RC"
    exit 1
fi
echo "OK: every CUDA case passed and the benchmark ran"
