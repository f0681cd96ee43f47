#!/bin/sh
# Prints the sm_XY target of the first GPU that nvidia-smi reports, or sm_75 when there is none:
# the oldest target nvcc 13 accepts, built with PTX so that any newer GPU can run it.
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .')
case "$cap" in
  [0-9][0-9]|[0-9][0-9][0-9]) echo "sm_$cap" ;;
  *) echo "sm_75" ;;
esac
