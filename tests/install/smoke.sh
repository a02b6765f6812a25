#!/usr/bin/env bash
# Install smoke test (issue 33): evokernel installed under a prefix, the prefix MOVED, then run
# from there: --version, doctor, a CPU and an Ascend C verify, a short sim run. Then the same
# from the Debian package extracted with dpkg-deb -x (when MODE=deb), and the one-line error of
# an installation whose share/ is missing.
#   tests/install/smoke.sh BUILD_DIR SOURCE_DIR install|deb
set -euo pipefail
BUILD=$(cd "$1" && pwd); SRC=$(cd "$2" && pwd); MODE=${3:-install}
T=$(mktemp -d /tmp/evk-install-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "install smoke ($MODE): FAIL: $*" >&2; exit 1; }

if [ "$MODE" = deb ]; then
  (cd "$BUILD" && cpack -G DEB -B "$T/pkg" >/dev/null) || fail "cpack could not build the package"
  deb=$(ls "$T"/pkg/evokernel_*_amd64.deb) || fail "no evokernel_<version>_amd64.deb"
  dpkg-deb -f "$deb" Depends | grep -q "python3-torch" || fail "Depends lacks python3-torch"
  dpkg-deb -f "$deb" Depends | grep -q "libopenblas0-pthread" || fail "Depends lacks OpenBLAS"
  dpkg-deb -x "$deb" "$T/root"
  mv "$T/root" "$T/moved"
  P="$T/moved/usr"
else
  cmake --install "$BUILD" --prefix "$T/first" >/dev/null
  mv "$T/first" "$T/moved"
  P="$T/moved"
fi
EVK="$P/bin/evokernel"
unset EVK_HOME EVK_RUNNER
WS="$T/ws"
for f in bin/evokernel libexec/evokernel/evk-runner libexec/evokernel/evk-runner-ascendc \
         libexec/evokernel/evk-ascendc-replay \
         share/evokernel/oracle/evk_oracle.py share/evokernel/knowledge/cpu/guide.md \
         share/evokernel/suites share/evokernel/prompts/draft.md; do
  [ -e "$P/$f" ] || fail "$f is not installed"
done
# The kernel ABI headers a candidate includes: the knowledge bundles' copies of abi/'s.
for b in cpu cuda opencl ascendc; do
  cmp -s "$SRC/abi/evokernel/kernel_abi.h" "$P/share/evokernel/knowledge/$b/evokernel/kernel_abi.h" ||
    fail "knowledge/$b/evokernel/kernel_abi.h is not installed as abi/evokernel/kernel_abi.h"
done
cmp -s "$SRC/abi/evokernel/ascendc_emu.h" "$P/share/evokernel/knowledge/ascendc/evokernel/ascendc_emu.h" ||
  fail "knowledge/ascendc/evokernel/ascendc_emu.h is not installed as abi/evokernel/ascendc_emu.h"

"$EVK" --version | grep -Eq '^evokernel [0-9]+\.[0-9]+\.[0-9]+ \(' || fail "--version"
doctor=$("$EVK" --workspace "$WS" doctor) || fail "doctor exited non-zero"
echo "$doctor" | grep -E '^OK +installation' | grep -q "data $P/share/evokernel" ||
  fail "doctor does not find the data in the moved prefix: $(echo "$doctor" | head -3)"
echo "$doctor" | grep -q "runners $P/libexec/evokernel" || fail "doctor: runners not in the prefix"

"$EVK" --workspace "$WS" verify builtin:level1 relu \
  --source "$SRC/tests/corpus/cpu/solutions/relu.cpp" --json >"$T/cpu.json" ||
  fail "cpu verify: $(cat "$T/cpu.json")"
grep -q '"feasible": true' "$T/cpu.json" || fail "cpu verify not feasible: $(cat "$T/cpu.json")"
"$EVK" --workspace "$WS" verify builtin:level1 relu --backend ascendc \
  --source "$SRC/tests/corpus/ascendc/solutions/relu.cpp" --json >"$T/npu.json" ||
  fail "ascendc verify: $(cat "$T/npu.json")"
grep -q '"feasible": true' "$T/npu.json" || fail "ascendc verify not feasible: $(cat "$T/npu.json")"
"$EVK" --workspace "$WS" run --suite builtin:level1 --tasks relu --model sim --budget 2 \
  --seed 1 --quiet >"$T/run.txt" 2>&1 || fail "sim run: $(tail -5 "$T/run.txt")"
"$EVK" --workspace "$WS" results --json | grep -q "$("$EVK" --version | cut -d' ' -f2)" ||
  fail "results --json does not name the build"

# share/ gone: one line naming where it looked and EVK_HOME, non-zero exit.
mv "$P/share/evokernel" "$P/share/evokernel.away"
if "$EVK" --workspace "$WS" tasks list builtin:level1 >"$T/err.txt" 2>&1; then
  fail "ran without its data"
fi
[ "$(wc -l <"$T/err.txt")" -eq 1 ] || fail "more than one line: $(cat "$T/err.txt")"
grep -q "$P/share/evokernel" "$T/err.txt" && grep -q EVK_HOME "$T/err.txt" ||
  fail "the error does not name the path and EVK_HOME: $(cat "$T/err.txt")"
# EVK_HOME still overrides.
EVK_HOME="$P/share/evokernel.away" "$EVK" --workspace "$WS" tasks list builtin:level1 >/dev/null ||
  fail "EVK_HOME does not override"
echo "install smoke ($MODE): ok"
