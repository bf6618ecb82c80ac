#!/bin/sh
# The two references of bench/race.py on a tiny config: the Python loop and the minimal LibTorch
# loop each train and print their JSON line, and both refuse a technique they do not implement;
# race.py's paired ratio.
# Usage: race_tools.sh MINIMAL_LOOP PYTHON SOURCE_DIR   (exit 77 = skipped: no torch in PYTHON)
set -u
minimal=$1 python=$2 source=$3
"$python" -c 'import torch, numpy' 2>/dev/null || { echo "skipped: $python has no torch/numpy"; exit 77; }
dir=$(mktemp -d) && trap 'rm -rf "$dir"' EXIT
cat > "$dir/tiny.json" <<'JSON'
{"model": {"arch": "row_rnn", "hidden": 16}, "data": {"train_samples": 256, "test_samples": 100},
 "optimizer": {"name": "adam", "lr": 0.01}, "batch_size": 32, "max_steps": 6, "warmup_steps": 2, "threads": 1}
JSON
fail() { echo "FAIL: $*"; exit 1; }
check_line() {  # a JSON line with positive throughput and an accuracy in [0, 1]
  "$python" -c 'import json, sys; r = json.loads(sys.argv[1]); assert r["samples_per_s"] > 0 and 0 <= r["test_accuracy"] <= 1 and r["steps"] == 6, r' "$1" \
    || fail "$2 printed: $1"
}
out=$("$python" "$source/bench/python_parity/train.py" "$dir/tiny.json") || fail "train.py: $out"
check_line "$(echo "$out" | tail -1)" train.py
out=$("$minimal" "$dir/tiny.json") || fail "minimal loop: $out"
check_line "$(echo "$out" | tail -1)" minimal
sed 's/"threads": 1/"threads": 1, "techniques": {"grad_clipping": 1.0}/' "$dir/tiny.json" > "$dir/clip.json"
out=$("$python" "$source/bench/python_parity/train.py" "$dir/clip.json" 2>&1) && fail "train.py accepted grad_clipping"
echo "$out" | grep -q "techniques.grad_clipping" || fail "train.py error does not name the field: $out"
out=$("$minimal" "$dir/clip.json" 2>&1); [ $? -eq 2 ] || fail "minimal loop accepted grad_clipping: $out"
echo "$out" | grep -q "techniques.grad_clipping" || fail "minimal loop error does not name the field: $out"
# race.py's statistic: Student-t quantiles against the tables, a paired ratio by hand (logs
# log 2 + {0, 0.1, -0.1}: mean log 2, stddev 0.1, t = 4.302653 with 2 degrees of freedom), and
# --from, which makes the tables again from a race's JSON without running anything.
cat > "$dir/race-python.json" <<'JSON'
{"race": "python", "repetitions": 3, "rows": [{"case": "tiny", "techniques": "off",
 "speedbench_samples_per_s": [200, 221.03418361512952, 180.96748360719193],
 "python_samples_per_s": [100, 100, 100], "speedbench_accuracy_median": 0.5,
 "python_accuracy_median": 0.5}]}
JSON
"$python" - "$source/bench" "$dir" <<'PY' || fail "race.py statistics"
import json, math, os, subprocess, sys
sys.path.insert(0, sys.argv[1])
import race
for degrees, table in ((1, 12.7062), (2, 4.3027), (4, 2.7764), (30, 2.0423)):
    assert abs(race.student_t_quantile(0.95, degrees) - table) < 1e-4, degrees
ratio, low, high = race.paired_ratio([200, 200 * math.exp(0.1), 200 * math.exp(-0.1)], [100] * 3)
half = 4.302653 * 0.1 / math.sqrt(3)
assert abs(ratio - 2) < 1e-9 and abs(low - 2 * math.exp(-half)) < 1e-5 and abs(high - 2 * math.exp(half)) < 1e-5
subprocess.run([sys.executable, os.path.join(sys.argv[1], "race.py"), "--from",
                os.path.join(sys.argv[2], "race-python.json"), "--out", os.path.join(sys.argv[2], "out")],
               check=True, stdout=subprocess.DEVNULL)
markdown = open(os.path.join(sys.argv[2], "out", "race-python.md")).read()
assert f"| tiny | off | 200 | 100 | 2.000x [{2 * math.exp(-half):.3f}, {2 * math.exp(half):.3f}] |" in markdown, markdown
assert json.load(open(os.path.join(sys.argv[2], "out", "race-python.json")))["rows"][0]["pairs"] == 3
PY
echo "ok"
