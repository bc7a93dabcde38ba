#!/usr/bin/env bash
# The soak (tests/soak/run.sh) for 30 seconds, sampling every 5 s: the same
# checks as the long run (uncounted loss, RSS growth, descriptors, the ring's
# bound, the analysis of the kept segments), at a length make test can afford.
cd "$(dirname "$0")/../.." || exit 1
SAMPLE_S=5 exec tests/soak/run.sh --minutes 0.5
