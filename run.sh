#!/usr/bin/env bash
# One command per job, on a fresh machine (README):
#   bash run.sh main   set up .venv, then run the main job: a short training run (configs/default.yaml)
#                      that ends with a duplicate evaluation against the heuristic
#   bash run.sh test   set up .venv, then run the test suite
set -euo pipefail
cd "$(dirname "$0")"

PY=${PYTHON:-python3}

setup() {  # $1: the extras to install
  if [ ! -x .venv/bin/python ]; then
    "$PY" -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11+ is required"'
    "$PY" -m venv .venv
  fi
  .venv/bin/python -m pip install -q --upgrade pip "setuptools>=77"   # the wheel test builds without isolation
  # torch first, pinned: this takes the CPU build; an unpinned torch pulls a multi-GB CUDA build.
  .venv/bin/python -m pip install -q "torch==2.13.0"
  .venv/bin/python -m pip install -q -e ".[$1]"
}

case "${1:-}" in
  main)
    setup train,eval,dev,table
    shift
    .venv/bin/python -m train --config configs/default.yaml "$@"
    ;;
  test)
    # scale (Ray RLlib) and openspiel (OpenSpiel) too: the suite runs a short RLlib training, a --ray
    # evaluation and the OpenSpiel game's tests. The tests marked slow (minutes: the docs' commands,
    # RLlib's kill-and-resume runs) are left to `bash run.sh test -m slow`; extra args come last
    # and win, so `-m ""` runs every test
    setup train,eval,dev,table,scale,openspiel
    shift
    .venv/bin/python -m pytest -q -n 2 -m "not slow" "$@"
    ;;
  *)
    echo "usage: bash run.sh main|test [extra args]" >&2
    exit 2
    ;;
esac
