# Sourced by the MPI fault and restart scripts (mpi_rank_faults.sh, mpi_restart_rows.sh): heartsim on
# NP ranks with one rank's environment changed, and the check that such a run ended with one agreed
# message. The sourcing script sets mpiexec, HEARTSIM, tmp (its scratch folder, the log goes to
# $tmp/log), LAUNCH_TIMEOUT (seconds) and fail().

# launch NP RANK VAR=VALUE ARGS...: heartsim ARGS on NP ranks, VAR=VALUE in rank RANK's environment alone
launch() {
  local np=$1 r=$2 var=$3
  shift 3
  local cmd=()
  for ((k = 0; k < np; ++k)); do
    [ $k -gt 0 ] && cmd+=(:)
    if [ $k = "$r" ]; then cmd+=(-np 1 env "$var" "$HEARTSIM" "$@"); else cmd+=(-np 1 "$HEARTSIM" "$@"); fi
  done
  timeout "$LAUNCH_TIMEOUT" "$mpiexec" --oversubscribe --allow-run-as-root "${cmd[@]}" < /dev/null > "$tmp/log" 2>&1
}

# one_error RC REGEX: the last launch (its exit status in $rc) exited RC with one message, rank 0's
# agreed one matching REGEX, and no MPI_Abort
one_error() {
  [ "$rc" != 124 ] || fail "a rank still waited after $LAUNCH_TIMEOUT s (timeout)"
  [ "$rc" = "$1" ] || fail "exit $rc, $1 expected"
  [ "$(grep -c '^heartsim: error' "$tmp/log")" = 1 ] || fail "not one message"
  grep -q "^heartsim: error: $2" "$tmp/log" || fail "not rank 0's agreed message matching: $2"
  ! grep -q "MPI_ABORT" "$tmp/log" || fail "MPI_Abort"
}
