#!/bin/sh
# cmake/GitCommit.cmake, the build step that names a binary's commit: on a scratch repository it
# must write the commit, "+dirty" for a changed tracked file (not for an untracked one; printed
# the same without OUTPUT), the given commit marked "(given)" where there is no .git, else
# "unknown"; and leave the header untouched (same mtime) when its text would not change, so that
# a build recompiles nothing.
# Usage: git_commit_script.sh CMAKE SOURCE_DIR
set -eu
cmake=$1 script=$2/cmake/GitCommit.cmake
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
commit_in() { sed -n 's/^#define SPEEDBENCH_GIT_COMMIT "\(.*\)"$/\1/p' "$1"; }

repo=$work/repo header=$work/out/speedbench_git_commit.h
mkdir -p "$repo"
git -C "$repo" init -q
echo one > "$repo/tracked"
git -C "$repo" add tracked
git -C "$repo" -c user.name=t -c user.email=t@t commit -q -m one
head=$(git -C "$repo" rev-parse HEAD)

"$cmake" -DSOURCE_DIR="$repo" -DOUTPUT="$header" -DFALLBACK=given -P "$script"
[ "$(commit_in "$header")" = "$head" ] || fail "clean tree: got '$(commit_in "$header")', expected $head"

touch -d '2000-01-01' "$header"
echo new > "$repo/untracked"
"$cmake" -DSOURCE_DIR="$repo" -DOUTPUT="$header" -P "$script"
[ "$(commit_in "$header")" = "$head" ] || fail "an untracked file made it '$(commit_in "$header")'"
[ "$(date -r "$header" +%Y)" = 2000 ] || fail "the header was rewritten with the same text"

echo two > "$repo/tracked"
"$cmake" -DSOURCE_DIR="$repo" -DOUTPUT="$header" -P "$script"
[ "$(commit_in "$header")" = "$head+dirty" ] || fail "changed tree: got '$(commit_in "$header")'"
printed=$("$cmake" -DSOURCE_DIR="$repo" -P "$script")  # no OUTPUT: gpu-check --prepare's form
[ "$printed" = "$head+dirty" ] || fail "printed '$printed', expected $head+dirty"

rm -rf "$repo/.git"
"$cmake" -DSOURCE_DIR="$repo" -DOUTPUT="$header" -DFALLBACK=abc123 -P "$script"
[ "$(commit_in "$header")" = "abc123 (given)" ] || fail "no .git, given: got '$(commit_in "$header")'"
"$cmake" -DSOURCE_DIR="$repo" -DOUTPUT="$header" -P "$script"
[ "$(commit_in "$header")" = unknown ] || fail "no .git, none given: got '$(commit_in "$header")'"
echo "GitCommit.cmake: commit, +dirty (written and printed), (given), unknown; an unchanged header is left alone"
