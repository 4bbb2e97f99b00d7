#!/usr/bin/env bash
# Side-by-side benchmark of a peer, Kong's decK 1.4 (against an in-memory Kong Admin API mock), and
# agentform (against `agentform server`), on the same shape of work: N objects, sync/apply from
# empty at --parallelism 16, diff/plan with no changes and with 10 % changed, at 0 and 20 ms of
# per-request latency added inside each server. Runs alternate between the tools.
#   bench/peer-deck/run.sh                      # from the project root, after npm run build
#   SIZES=1000 LATENCIES=20 REPS=3 bench/peer-deck/run.sh
# `npm run bench` runs the same (bench/scenarios/peer-deck.ts) when deck is installed.
# Needs: deck (apt-get install -y deck), /usr/bin/time (apt-get install -y time), a built agentform
# (AF, default: the git top level of the current directory) whose dist/bench/lib/generate.js
# exports writeProject and changeAgents (or AF_GENERATE=path to such a module).
# Binds only 127.0.0.1 ports 18001/18002 (servers) and 18101/18102 (request counters).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
export AF="${AF:-$(git rev-parse --show-toplevel)}"
export PEER_OUT="${PEER_OUT:-$(mktemp -d -t peer-deck.XXXXXX)}"
export DECK_ANALYTICS=off
SIZES="${SIZES:-1000,5000}"
LATENCIES="${LATENCIES:-0,20}"
REPS="${REPS:-5}"
command -v deck >/dev/null || { echo "deck not installed: apt-get update && apt-get install -y deck" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time missing: apt-get install -y time" >&2; exit 1; }
[ -f "$AF/dist/cli/agentform.js" ] || { echo "no built agentform at $AF (npm run build)" >&2; exit 1; }
deck version
node "$AF/dist/cli/agentform.js" --version
node "$HERE/gen.mjs" ${SIZES//,/ }
node "$HERE/runner.mjs" --sizes "$SIZES" --latencies "$LATENCIES" --reps "$REPS" --out "$PEER_OUT/results.json" | tee "$PEER_OUT/results.txt"
node "$HERE/table.mjs" "$PEER_OUT/results.json" > "$PEER_OUT/table.md"
cat "$PEER_OUT/table.md"
echo "results in $PEER_OUT"
