#!/usr/bin/env bash
# `make bench`: runs every tests/bench/*.sh (except this one) in turn and
# prints their figures.  Benchmarks measure, they do not pass or fail; a
# benchmark that cannot run at all (a missing binary, a crash) makes the
# exit status non-zero.
set -u
cd "$(dirname "$0")/../.."
OUTPUT=${OUTPUT:-.output}
export OUTPUT
ONLY=${1:-}
status=0
for b in tests/bench/*.sh; do
	[ "$(basename "$b")" = run.sh ] && continue
	case "$(basename "$b")" in *"$ONLY"*) ;; *) continue ;; esac
	echo "### $(basename "$b" .sh)"
	if ! bash "$b"; then
		echo "### $(basename "$b" .sh) FAILED"
		status=1
	fi
	echo
done
exit $status
