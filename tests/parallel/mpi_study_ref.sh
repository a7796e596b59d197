# Sourced by the study scripts (mpi_box_study.sh, mpi_read.sh): the serial run of a study and its ECG
# bounds. The sourcing script sets HEARTSIM, n (the steps of the bound) and fail().

study_ref() { # CFG OUT [sets...]: the serial run, its ECG bounds in $OUT.tols
  local c=$1 o=$2; shift 2
  "$HEARTSIM" run "$c" "$@" --out "$o" -v > "$o.log" 2>&1 || { cat "$o.log"; fail "serial $c"; }
  local t=() w
  for e in E_right E_left; do
    w=$(sed -n "s/^electrode $e: weights' 1-norm \([^ ]*\) mV.*/\1/p" "$o.log")
    [ -n "$w" ] || fail "no weight norm for $e in the serial log"
    t+=("$e:$(python3 -c "print($w * $n * 1e-8)")")
  done
  t+=("E_right-E_left:$(python3 -c "print(${t[0]#*:} + ${t[1]#*:})")")
  echo "${t[@]}" > "$o.tols"
}
