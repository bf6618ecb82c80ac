#!/bin/sh
# End to end on a tiny suite: run -> lr-find -> report -> plots/plot.py, then compare's figures.
# Every image must exist, be non-empty, and the PNGs must be PNGs. Exit 77 (skipped) when the
# python has no matplotlib.
# Usage: end_to_end_plots.sh SPEEDBENCH PYTHON SOURCE_DIR
set -eu
speedbench=$1 python=$2 source=$3
"$python" -c "import matplotlib" 2>/dev/null || { echo "no matplotlib in $python"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tiny='"data": {"train_samples": 512, "test_samples": 128}, "model": {"widths": [8, 16, 32]},
      "batch_size": 64, "warmup_steps": 1, "progress_every_s": 0'
cat > "$work/suite.json" <<JSON
{"name": "plots", "design": "grid", "repetitions": 2,
 "base": {$tiny, "epochs": 2, "eval_every_steps": 2, "target_accuracy": 0.3},
 "workloads": [{"name": "tiny"}],
 "variants": [{"name": "constant"},
              {"name": "one_cycle", "config": {"techniques": {"lr_schedule": {"kind": "one_cycle", "max_lr": 0.2}}}}]}
JSON
echo "{$tiny}" > "$work/tiny.json"

"$speedbench" run --suite "$work/suite.json" --out "$work/results"
dir=$(ls -d "$work"/results/plots/*)
"$speedbench" lr-find --config "$work/tiny.json" --steps 16 --out "$dir/lr_find.json"
"$speedbench" report "$dir" --claims "$source/suites/claims.json"
"$python" "$source/plots/plot.py" "$dir"

for name in speedup memory time_to_accuracy lr_schedule lr_find; do
  for ext in png svg; do
    [ -s "$dir/plots/$name.$ext" ] || { echo "missing or empty: $dir/plots/$name.$ext"; exit 1; }
  done
  [ "$(head -c 4 "$dir/plots/$name.png" | tail -c 3)" = "PNG" ] || { echo "not a PNG: $name.png"; exit 1; }
done
# compare's figures, of the folder against itself
"$speedbench" compare "$dir" "$dir" --json "$work/compare.json"
"$python" "$source/plots/plot.py" --compare "$work/compare.json"
for name in compare-variants compare-effects; do
  for ext in png svg; do
    [ -s "$work/$name.$ext" ] || { echo "missing or empty: $work/$name.$ext"; exit 1; }
  done
  [ "$(head -c 4 "$work/$name.png" | tail -c 3)" = "PNG" ] || { echo "not a PNG: $name.png"; exit 1; }
done
echo "all plots written"
