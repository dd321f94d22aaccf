#!/usr/bin/env bash
# Runs the main job (tools/demo) on small sizes and checks what it promises:
# no present key missed, the FPR measured next to the predicted one and close
# to it, every level of the LSM tree reported, --help, and flags checked; the
# same with --filter=ribbon.
#
# Usage: demo_test.sh DEMO_BINARY
set -euo pipefail

demo=$1
out=$TEST_TMPDIR/demo.out
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

"$demo" --keys=20000 --absent=200000 --lsm_keys=30000 --lookups=2000 \
  --dir="$TEST_TMPDIR/tables" >"$out" 2>"$TEST_TMPDIR/demo.err" ||
  fail "demo exited with status $?: $(cat "$TEST_TMPDIR/demo.err")"

grep -q '^present keys missed  0 of 20000 ' "$out" || fail "a present key was missed"
grep -Eq '^kernels +.*(measured|pinned|widest)' "$out" || fail "no line naming each kernel's target"

# Measured FPR within 4 sigma (plus 10%) of the blocked model's prediction.
measured=$(sed -n 's/^false positives *\([0-9.]*\)% measured on 200000 absent keys.*/\1/p' "$out")
predicted=$(sed -n 's/^ *predicted *\([0-9.]*\)% blocked model.*/\1/p' "$out")
if [[ -z $measured || -z $predicted ]]; then
  fail "no measured or predicted FPR in the output"
elif ! awk -v m="$measured" -v p="$predicted" 'BEGIN {
       p /= 100; m /= 100; sigma = sqrt(p * (1 - p) / 200000);
       exit !(p > 0 && (m - p < 4 * sigma + 0.1 * p) && (p - m < 4 * sigma + 0.1 * p)) }'; then
  fail "measured FPR $measured% is far from the predicted $predicted%"
fi

# The build is timed three times; the steady state is shown with the others.
grep -Eq '^build +[0-9.]+ ns/key \(hashing included; the same build first took [0-9.]+$' "$out" ||
  fail "no build timing line"

for level in L0 L1 L2 L3; do
  grep -Eq "^$level +[0-9]+ " "$out" || fail "level $level missing from the LSM report"
done
grep -q '^file reads the filters saved: ' "$out" || fail "no count of saved reads"
# The storage part: the device's read time, and a present key read from the
# device about once (a filter false positive costs a little more).
grep -Eq '^one data-block read from the device: [0-9.]+ us' "$out" ||
  fail "no device read time in the storage part"
reads=$(sed -n 's/^Get, present keys  *[0-9.]* us *\([0-9.]*\) .*/\1/p' "$out")
if [[ -z $reads ]] || ! awk -v r="$reads" 'BEGIN { exit !(r >= 0.9 && r <= 1.2) }'; then
  fail "a present Get on storage should read about one block from the device, got '$reads'"
fi
grep -q '^MultiGet(32), present keys ' "$out" || fail "no MultiGet on storage"
ls "$TEST_TMPDIR"/tables/*.sst >/dev/null 2>&1 || fail "no table files written"

# --help: the usage and every flag, and a zero status.
if ! "$demo" --help >"$TEST_TMPDIR/help.out" 2>&1; then
  fail "--help exited with a failing status"
elif ! grep -q -- '--keys (default' "$TEST_TMPDIR/help.out" ||
  ! grep -q -- '--lsm_keys (default' "$TEST_TMPDIR/help.out"; then
  fail "--help does not list the flags: $(cat "$TEST_TMPDIR/help.out")"
fi

grep -q -- '--filter (default .bloom.)' "$TEST_TMPDIR/help.out" ||
  fail "--help does not list --filter"
grep -q 'Ribbon' "$out" && fail "the default run mentions Ribbon filters"

# Bad flags: an error that names the flag, and a failing status.
bad_flag() {  # bad_flag NAME ARGS...: the run must fail, naming NAME.
  local name=$1
  shift
  if "$demo" "$@" >"$TEST_TMPDIR/bad.out" 2>&1; then
    fail "$* was accepted"
  elif ! grep -q -- "$name" "$TEST_TMPDIR/bad.out"; then
    fail "$* rejected without naming $name: $(cat "$TEST_TMPDIR/bad.out")"
  fi
}
bad_flag --keys --keys=0
bad_flag --filter --filter=cuckoo
bad_flag --filter_budget --filter=ribbon --filter_budget
bad_flag --bits_per_key --filter=ribbon --bits_per_key=0.5

# --filter=ribbon: both demos on Ribbon filters, the measured FPR near the
# Ribbon model's, every level filtered at about --bits_per_key.
ribbon=$TEST_TMPDIR/ribbon.out
"$demo" --filter=ribbon --bits_per_key=7 --keys=20000 --absent=200000 --lsm_keys=30000 \
  --lookups=2000 >"$ribbon" 2>"$TEST_TMPDIR/ribbon.err" ||
  fail "demo --filter=ribbon exited with status $?: $(cat "$TEST_TMPDIR/ribbon.err")"
grep -q '^present keys missed  0 of 20000 ' "$ribbon" || fail "ribbon: a present key was missed"
measured=$(sed -n 's/^false positives *\([0-9.]*\)% measured on 200000 absent keys.*/\1/p' "$ribbon")
predicted=$(sed -n 's/^ *predicted *\([0-9.]*\)% Ribbon model.*/\1/p' "$ribbon")
if [[ -z $measured || -z $predicted ]]; then
  fail "ribbon: no measured or predicted FPR in the output"
elif ! awk -v m="$measured" -v p="$predicted" 'BEGIN {
       p /= 100; m /= 100; sigma = sqrt(p * (1 - p) / 200000);
       exit !(p > 0 && (m - p < 4 * sigma + 0.1 * p) && (p - m < 4 * sigma + 0.1 * p)) }'; then
  fail "ribbon: measured FPR $measured% is far from the predicted $predicted%"
fi
grep -q '^Ribbon filters at 7.0 bits/key in every level' "$ribbon" ||
  fail "ribbon: the LSM demo does not say its filters are Ribbon filters"
for level in L0 L1 L2 L3; do
  # Level, files, filter MB, bits/key: about 7, not the blocked filter's 10.
  awk -v l="$level" '$1 == l && $4 > 6.5 && $4 < 7.8 { found = 1 } END { exit !found }' \
    "$ribbon" || fail "ribbon: level $level missing or not at ~7 bits/key"
done

if ((failures > 0)); then
  echo "$failures check(s) failed; the demo printed:" >&2
  cat "$out" "${ribbon:-/dev/null}" >&2
  exit 1
fi
echo "PASS"
