#!/usr/bin/env bash
# The command line: answers, persistence between invocations, exit statuses
# and messages for bad input. $1 is the kvstore binary.
set -uo pipefail

kv="$1"
dir="$TEST_TMPDIR/store"
failures=0

# fail MESSAGE: counts one failed check.
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# expect STATUS STDOUT -- ARGS...: runs kvstore, checks its exit status and
# its whole standard output.
expect() {
  local want_status="$1" want_out="$2"
  shift 3
  local out status
  out=$("$kv" "$@" 2>"$TEST_TMPDIR/stderr")
  status=$?
  if [[ $status -ne $want_status || "$out" != "$want_out" ]]; then
    fail "kvstore $*: status $status (want $want_status), stdout '$out'" \
         "(want '$want_out'), stderr '$(cat "$TEST_TMPDIR/stderr")'"
  fi
}

# expect_error PATTERN -- ARGS...: exit status 2 and PATTERN on stderr.
expect_error() {
  local pattern="$1"
  shift 2
  expect 2 "" -- "$@"
  grep -q -- "$pattern" "$TEST_TMPDIR/stderr" ||
    fail "kvstore $*: stderr '$(cat "$TEST_TMPDIR/stderr")' lacks '$pattern'"
}

expect_error "no such directory" -- --dir="$dir" get k  # Reading creates nothing.
mkdir -p "$dir"
expect_error "no store here" -- --dir="$dir" get k
[[ -z "$(ls -A "$dir")" ]] || fail "get left files in $dir"
expect 0 "" -- --dir="$dir" put k v1
expect 0 "v1" -- --dir="$dir" get k
expect 0 "" -- --dir="$dir" put k v2
expect 0 "v2" -- --dir="$dir" get k
expect 0 "" -- --dir="$dir" delete k
expect 1 "" -- --dir="$dir" get k
grep -q "not found" "$TEST_TMPDIR/stderr" || fail "get of a deleted key printed no 'not found'"
expect 0 "" -- --dir="$dir" -- put dash -1
expect 0 "-1" -- --dir="$dir" get dash

expect 0 "" -- --dir="$dir" bulk-load 250000
expect 0 "value000000249999" -- --dir="$dir" get key000000249999
expect 1 "" -- --dir="$dir" get key000000250000
expect 0 "-1" -- --dir="$dir" get dash
"$kv" --dir="$dir" stats >"$TEST_TMPDIR/stats" || fail "stats exited with $?"
for word in "observed FPR" "predicted FPR" "filter KiB" "^L1 " "^total "; do
  grep -q "$word" "$TEST_TMPDIR/stats" || fail "stats lacks '$word': $(cat "$TEST_TMPDIR/stats")"
done
# False positives observed over the 10000 probes against what the filters
# they checked predict: within four standard deviations of a Poisson count,
# plus 10% for the model.
fp_line=$(grep "^false-positive reads per absent lookup:" "$TEST_TMPDIR/stats")
awk '{ observed = $6; predicted = $8; sigma = sqrt(predicted / 10000)
       d = observed - predicted; if (d < 0) d = -d
       exit !(predicted > 0 && d <= 4 * sigma + 0.1 * predicted) }' <<<"$fp_line" ||
  fail "false positives far from the prediction: '$fp_line'"

expect 0 "$(printf 'key000000000010\tvalue000000000010\nkey000000000011\tvalue000000000011')" \
  -- --dir="$dir" scan --from=key000000000010 --to=key000000000012
expect 0 "$(printf 'key000000249999\tvalue000000249999')" -- --dir="$dir" scan --from=key000000249999 --limit=5
expect 0 "" -- --dir="$dir" delete key000000000011
expect 0 "$(printf 'key000000000010\tvalue000000000010\nkey000000000012\tvalue000000000012')" \
  -- --dir="$dir" scan --from=key000000000010 --limit=2
expect 0 "" -- --dir="$dir" compact
grep -q "compact: files: L[1-6] [0-9]*$" "$TEST_TMPDIR/stderr" ||
  fail "compact did not leave one level: $(cat "$TEST_TMPDIR/stderr")"
expect 0 "value000000249999" -- --dir="$dir" get key000000249999
expect 1 "" -- --dir="$dir" get key000000000011
expect_error "--level must be" -- --dir="$dir" compact --level=9

# shell: one process, one answer per line; what it wrote persists.
printf 'put s1 one\nput s2 two two\nget s1\nget nope\ndelete s1\nscan s - 5\nquit\nput s9 x\n' |
  "$kv" --dir="$dir" shell >"$TEST_TMPDIR/shell" 2>"$TEST_TMPDIR/stderr" || fail "shell exited with $?"
want_shell=$(printf 'OK\nOK\nVALUE one\nNOT_FOUND\nOK\ns2\ttwo two\nOK 1\nBYE')
[[ "$(cat "$TEST_TMPDIR/shell")" == "$want_shell" ]] || fail "shell answered '$(cat "$TEST_TMPDIR/shell")'"
expect 0 "two two" -- --dir="$dir" get s2
expect 1 "" -- --dir="$dir" get s9

# load: a TSV file, progress on stderr; a bad line is named and writes nothing.
printf 'l1\tv1\nl2\tv 2\n' >"$TEST_TMPDIR/good.tsv"
expect 0 "" -- --dir="$dir" load "$TEST_TMPDIR/good.tsv"
grep -q "load: 2/2 keys" "$TEST_TMPDIR/stderr" || fail "load printed no progress: $(cat "$TEST_TMPDIR/stderr")"
expect 0 "v 2" -- --dir="$dir" get l2
printf 'l3\tv3\nbad line\n' >"$TEST_TMPDIR/bad.tsv"
expect_error "bad.tsv:2: no tab" -- --dir="$dir" put-file "$TEST_TMPDIR/bad.tsv"
expect 1 "" -- --dir="$dir" get l3
expect_error "sync policy must be" -- --dir="$dir" --sync=sometimes put k v

for help in --help -h help; do
  "$kv" $help >"$TEST_TMPDIR/help" 2>&1 || fail "kvstore $help exited with $?"
  for word in "put KEY VALUE" "scan" "compact" "shell" "load FILE" "1 key not found" \
      "--memtable_bytes" "--sync"; do
    grep -q -- "$word" "$TEST_TMPDIR/help" || fail "kvstore $help lacks '$word'"
  done
done

expect_error "no command given" -- --dir="$dir"
expect_error "unknown command 'frob'" -- --dir="$dir" frob
expect_error "usage: kvstore --dir=DIR put KEY VALUE" -- --dir="$dir" put k
expect_error "usage: kvstore --dir=DIR stats" -- --dir="$dir" stats extra
expect_error "--dir is required" -- get k
expect_error "N must be a whole number" -- --dir="$dir" bulk-load lots
expect_error "N must be a whole number" -- --dir="$dir" bulk-load -- -5
touch "$TEST_TMPDIR/plain"
expect_error "not a directory" -- --dir="$TEST_TMPDIR/plain" put k v
expect_error "cannot create" -- --dir="$TEST_TMPDIR/no/such/parent" put k v

if ((failures > 0)); then
  echo "$failures checks failed" >&2
  exit 1
fi
echo "all checks passed"
