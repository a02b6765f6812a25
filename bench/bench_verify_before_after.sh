#!/bin/sh
# The verifier's cost before and after a change, in one run: bench_verify of a build of the
# code before (BEFORE_BUILD, a CMake build folder with bench/bench_verify, evokernel and the
# runners) and of this build, alternated (before, after, after, before) so that the machine's
# load drifts on both alike. Each run prints its load average beside its figures. Both use
# one workspace (references and peaks made once; no verdict is cached: bench_verify asks none).
# Usage: bench/bench_verify_before_after.sh BEFORE_BUILD [AFTER_BUILD=build] [bench_verify args]
set -eu
before=${1:?usage: bench_verify_before_after.sh BEFORE_BUILD [AFTER_BUILD] [args]}
after=${2:-build}
shift $(( $# >= 2 ? 2 : 1 ))
for side in before after after before; do
  dir=$before
  [ "$side" = after ] && dir=$after
  echo "== $side ($dir) at $(date -u +%H:%M:%S), load average $(cut -d' ' -f1-3 /proc/loadavg)"
  "$dir/bench/bench_verify" "$@"
done
