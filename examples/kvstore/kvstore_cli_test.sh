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
expect_error "no such directory" -- --dir="$dir" compact  # Nor does compacting.
expect_error "no such directory" -- --dir="$dir" manifest
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

# Every command has its own --help (exit 0), in either place.
for c in put get delete scan compact load put-file shell bulk-load stats manifest wal lookup; do
  for form in "$c --help" "--help $c" "help $c"; do
    "$kv" --dir="$dir" $form >"$TEST_TMPDIR/help" 2>&1 || fail "kvstore $form exited with $?"
    grep -q -- "^usage: kvstore --dir=DIR $c" "$TEST_TMPDIR/help" ||
      fail "kvstore $form: $(head -3 "$TEST_TMPDIR/help")"
  done
done
grep -q -- "--skip_damaged" <("$kv" scan --help) || fail "scan --help lacks --skip_damaged"

# Usage errors are status 2, never 1 ("not found"), flags included.
expect_error "unknown flag '--frob'" -- --dir="$dir" --frob get k
expect_error "unknown flag '--nolimit'" -- --dir="$dir" scan --nolimit
expect_error "--limit='many'" -- --dir="$dir" scan --limit=many
expect_error "flag '--from' needs a value" -- --dir="$dir" scan --from
expect_error "is after --to" -- --dir="$dir" scan --from=b --to=a
expect 0 "" -- --dir="$dir" scan --from=b --to=b
expect_error "a key may not be empty" -- --dir="$dir" put "" v
expect_error "a key may not be empty" -- --dir="$dir" get ""
expect_error "bad escape at byte 1" -- --dir="$dir" put 'a\b' v
expect 0 "" -- --dir="$dir" put empty ""
expect 0 "" -- --dir="$dir" get empty
expect 0 "" -- --dir="$dir" scan --skip-damaged --from=empty --to=empty

# Escaping: every byte value goes through load, scan, load, scan unchanged.
for i in $(seq 0 255); do printf 'b\\x%02x\\x5c\tv\\x%02x\\x0a\n' "$i" "$i"; done >"$TEST_TMPDIR/bytes.tsv"
bdir="$TEST_TMPDIR/bytes"
expect 0 "" -- --dir="$bdir" load "$TEST_TMPDIR/bytes.tsv"
"$kv" --dir="$bdir" scan >"$TEST_TMPDIR/scan1" || fail "scan of bytes exited with $?"
[[ $(wc -l <"$TEST_TMPDIR/scan1") -eq 256 ]] || fail "scan of 256 keys gave $(wc -l <"$TEST_TMPDIR/scan1") lines"
expect 0 'vA\x0a' -- --dir="$bdir" get 'b\x41\x5c'
expect 0 "" -- --dir="$bdir.2" load "$TEST_TMPDIR/scan1"
"$kv" --dir="$bdir.2" scan >"$TEST_TMPDIR/scan2"
cmp -s "$TEST_TMPDIR/scan1" "$TEST_TMPDIR/scan2" || fail "load of a scan did not give back the same scan"
expect 0 'v\x0a\x0a' -- --dir="$bdir" get 'b\x0a\x5c'

# Read-only: reading commands change nothing in the directory; writes refused.
snapshot() { (cd "$1" && for f in *; do echo "$f $(md5sum <"$f")"; done); }
before=$(snapshot "$dir")
"$kv" --dir="$dir" get key000000000010 >/dev/null || fail "get exited with $?"
"$kv" --dir="$dir" scan --limit=3 >/dev/null || fail "scan exited with $?"
"$kv" --dir="$dir" stats >/dev/null || fail "stats exited with $?"
"$kv" --dir="$dir" lookup key000000000010 >/dev/null || fail "lookup exited with $?"
[[ "$(snapshot "$dir")" == "$before" ]] || fail "reading commands changed the directory"
expect_error "open read-only" -- --dir="$dir" --read_only put k v
if [[ $(id -u) -ne 0 ]]; then  # Root ignores the permissions.
  chmod a-w "$dir"
  expect 0 "value000000000010" -- --dir="$dir" get key000000000010
  expect_error "Permission denied" -- --dir="$dir" put k v
  chmod u+w "$dir"
fi

# manifest, wal, lookup: ldb's views of this store.
"$kv" --dir="$dir" manifest >"$TEST_TMPDIR/manifest" || fail "manifest exited with $?"
for word in "MANIFEST: version 2" "^last_sequence " "^level 1: " "size [0-9]*  id [0-9a-f]\{16\}" \
    "keys \"key0" "sequence [0-9]*\.\.[0-9]*"; do
  grep -q -- "$word" "$TEST_TMPDIR/manifest" || fail "manifest lacks '$word': $(cat "$TEST_TMPDIR/manifest")"
done
"$kv" --dir="$dir" lookup key000000000010 >"$TEST_TMPDIR/lookup" || fail "lookup exited with $?"
grep -q '^level 1: .*file' "$TEST_TMPDIR/lookup" || fail "lookup: $(cat "$TEST_TMPDIR/lookup")"
grep -q '^answer: found "value000000000010"' "$TEST_TMPDIR/lookup" || fail "lookup: $(cat "$TEST_TMPDIR/lookup")"
"$kv" --dir="$dir" lookup key000000000011 >"$TEST_TMPDIR/lookup" || fail "lookup exited with $?"
grep -q '^answer: not found' "$TEST_TMPDIR/lookup" || fail "lookup of a deleted key: $(cat "$TEST_TMPDIR/lookup")"
grep -q 'range rules it out\|filter rules it out\|no file.s range holds' "$TEST_TMPDIR/lookup" ||
  fail "lookup shows no file ruled out: $(cat "$TEST_TMPDIR/lookup")"

# A shell killed after four writes leaves them in the log: wal lists them,
# a read-only get replays them without touching the log.
wdir="$TEST_TMPDIR/wal"
mkfifo "$TEST_TMPDIR/fifo"
"$kv" --dir="$wdir" shell <"$TEST_TMPDIR/fifo" >"$TEST_TMPDIR/shell_out" 2>&1 &
shell_pid=$!
exec 3>"$TEST_TMPDIR/fifo"
printf 'put w1 one\nput w\\x0a2 two\\x09\ndelete w1\nput w3 x\n' >&3
for _ in $(seq 100); do
  [[ $(wc -l <"$TEST_TMPDIR/shell_out") -ge 4 ]] && break
  sleep 0.1
done
kill -9 "$shell_pid"
wait "$shell_pid" 2>/dev/null
exec 3>&-
"$kv" --dir="$wdir" wal >"$TEST_TMPDIR/wal_out" || fail "wal exited with $?"
for line in $'    put\tw\\x0a2\ttwo\\x09' $'    delete\tw1' '  @0 sequence 1, 1 op' '  4 records, 4 ops, sequences 1..4'; do
  grep -qxF -- "$line" "$TEST_TMPDIR/wal_out" || fail "wal lacks '$line': $(cat "$TEST_TMPDIR/wal_out")"
done
before=$(snapshot "$wdir")
expect 0 'two\x09' -- --dir="$wdir" get 'w\x0a2'
[[ "$(snapshot "$wdir")" == "$before" ]] || fail "a read-only get changed the store"
expect 1 "" -- --dir="$wdir" get w1
log=$(ls "$wdir"/*.log | head -1)
"$kv" --dir="$wdir" wal "$log" >"$TEST_TMPDIR/wal_one" || fail "wal FILE exited with $?"
cmp -s "$TEST_TMPDIR/wal_one" "$TEST_TMPDIR/wal_out" || fail "wal FILE differs from wal"

# A live table replaced by another valid table: refused, naming the file.
expect 0 "" -- --dir="$wdir" put w4 y  # Folds the log into a table.
expect 0 "" -- --dir="$wdir" compact
tables=("$wdir"/*.sst)
cp "$bdir"/*.sst "${tables[0]}"
expect_error "$(basename "${tables[0]}") is not the table the MANIFEST lists" -- --dir="$wdir" get w3
"$kv" --dir="$wdir" manifest >"$TEST_TMPDIR/manifest" 2>"$TEST_TMPDIR/stderr"
[[ $? -eq 2 ]] || fail "manifest of a replaced table did not exit 2"
grep -q "not the table the MANIFEST lists" "$TEST_TMPDIR/stderr" || fail "manifest: $(cat "$TEST_TMPDIR/stderr")"
grep -q "replaced?" "$TEST_TMPDIR/manifest" || fail "manifest does not show the replaced file"

# A damaged data block: scan stops there naming file and offset; with
# --skip_damaged it reports the block, lists the rest, and still fails.
ddir="$TEST_TMPDIR/damaged"
cp -r "$dir" "$ddir"
victim=$(ls -S "$ddir"/*.sst | head -1)
printf '\xff\xff\xff\xff' | dd of="$victim" bs=1 seek=2000 conv=notrunc status=none
"$kv" --dir="$ddir" scan >"$TEST_TMPDIR/stopped" 2>"$TEST_TMPDIR/stderr"
[[ $? -eq 2 ]] || fail "scan over a damaged block did not exit 2"
grep -q "scan stopped: $victim: data block at offset [0-9]*" "$TEST_TMPDIR/stderr" ||
  fail "scan's error: $(cat "$TEST_TMPDIR/stderr")"
"$kv" --dir="$ddir" scan --skip_damaged >"$TEST_TMPDIR/skipped" 2>"$TEST_TMPDIR/stderr"
[[ $? -eq 2 ]] || fail "scan --skip_damaged over a damaged block did not exit 2"
grep -q "skipped a damaged block: $victim: data block at offset [0-9]*" "$TEST_TMPDIR/stderr" ||
  fail "scan --skip_damaged: $(cat "$TEST_TMPDIR/stderr")"
grep -q "skipped 1 damaged data block" "$TEST_TMPDIR/stderr" || fail "no count: $(cat "$TEST_TMPDIR/stderr")"
"$kv" --dir="$dir" scan >"$TEST_TMPDIR/whole"
stopped=$(wc -l <"$TEST_TMPDIR/stopped") skipped=$(wc -l <"$TEST_TMPDIR/skipped") whole=$(wc -l <"$TEST_TMPDIR/whole")
((stopped < skipped && skipped < whole)) || fail "lines: stopped $stopped, skipped $skipped, whole $whole"
cmp -s "$TEST_TMPDIR/stopped" <(head -n "$stopped" "$TEST_TMPDIR/whole") ||
  fail "what scan listed before the damage is not the start of the right answer"

# --filter=ribbon is recorded: later commands without it keep writing
# Ribbon filters, and every table's filter is read and used.
rdir="$TEST_TMPDIR/ribbon"
"$kv" --dir="$rdir" --filter=ribbon --memtable_bytes=20000 bulk-load 5000 >/dev/null ||
  fail "bulk-load --filter=ribbon exited with $?"
"$kv" --dir="$rdir" --memtable_bytes=20000 bulk-load 5000 >/dev/null || fail "bulk-load exited with $?"
"$kv" --dir="$rdir" manifest >"$TEST_TMPDIR/manifest" || fail "manifest exited with $?"
grep -q "^ribbon_from_level 0 " "$TEST_TMPDIR/manifest" ||
  fail "--filter=ribbon not recorded: $(cat "$TEST_TMPDIR/manifest")"
"$kv" --dir="$rdir" stats >"$TEST_TMPDIR/stats" || fail "stats exited with $?"
grep -q "no usable filter" "$TEST_TMPDIR/stats" && fail "Ribbon filters unused: $(cat "$TEST_TMPDIR/stats")"
"$kv" help put | grep -q -- "--ribbon_from_level" || fail "put --help lacks --ribbon_from_level"
expect_error "--filter must be bloom or ribbon, got 'cuckoo'" -- --dir="$rdir" --filter=cuckoo put k v
expect_error "ribbon_from_level must be in \[-1, 6\], got 9" -- --dir="$rdir" --ribbon_from_level=9 put k v
expect_error "not both" -- --dir="$rdir" --filter=bloom --ribbon_from_level=2 put k v

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
