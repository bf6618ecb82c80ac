#!/bin/sh
# The two references of bench/race.py on a tiny config: the Python loop and the minimal LibTorch
# loop each train and print their JSON line, and both refuse a technique they do not implement.
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
echo "ok"
