"""A cgroup with a CPU quota for the bench scripts (idle_core_load.py, cpu_quota.py): made under
cgroup v1's cpu controller or v2, which takes root; its processes join it by writing their pid
to its cgroup.procs."""
import os


def quota_cgroup(cores):
    """A new cgroup of `cores` cores' CPU quota over 100 ms periods: (the path of its
    cgroup.procs, None), or (None, why not). Remove it with os.rmdir(os.path.dirname(path)) once
    its processes have ended."""
    quota_us = str(int(cores * 100000))
    for folder, quota_files in (
            ("/sys/fs/cgroup/cpu", {"cpu.cfs_period_us": "100000", "cpu.cfs_quota_us": quota_us}),
            ("/sys/fs/cgroup", {"cpu.max": f"{quota_us} 100000"})):
        if not os.path.exists(os.path.join(folder, "cgroup.procs")):
            continue
        group = os.path.join(folder, f"speedbench-bench-{os.getpid()}")
        try:
            os.mkdir(group)
            for name, value in quota_files.items():
                with open(os.path.join(group, name), "w") as f:
                    f.write(value)
            return os.path.join(group, "cgroup.procs"), None
        except OSError as error:
            if os.path.isdir(group):
                os.rmdir(group)
            return None, f"cannot make a cgroup with a CPU quota under {folder}: {error.strerror}"
    return None, "no cgroup cpu hierarchy under /sys/fs/cgroup"


def in_cgroup(procs, command):
    """`command` run as a member of the cgroup whose cgroup.procs is `procs` (as it is, if None)."""
    return ["sh", "-c", 'echo $$ > "$0" && exec "$@"', procs] + command if procs else command
