"""One `speedbench run-one` for the bench scripts: its record's metrics and the health flags its
summary line names."""
import json
import os
import subprocess
import sys


def run_one(speedbench, config_path, records, wrap=lambda command: command):
    """Runs `config_path` (its command passed through `wrap`: taskset, a cgroup) and appends its
    record to `records`; returns (its metrics, the report's health flags of it: run-one's summary
    line after "flagged: ", "" where none). Exits on a run that did not end ok."""
    summary = subprocess.run(wrap([speedbench, "run-one", "--config", config_path, "--records",
                                   records, "--quiet", "--brief"]),
                             check=True, capture_output=True, text=True).stdout
    with open(records) as f:
        record = json.loads(f.read().splitlines()[-1])
    if record["status"] != "ok":
        sys.exit(f"{os.path.basename(sys.argv[0])}: a run ended {record['status']}: "
                 f"{record['message']}")
    return record["metrics"], summary.split("flagged: ", 1)[1].strip() if "flagged: " in summary else ""
