#!/usr/bin/env bash
# Packages only the tests use, installed into build/test-deps instead of node_modules, so a
# newcomer's `npm install` does not carry them: @kubernetes/client-node (58 MB with its
# dependencies) for the compatibility tests with the official JavaScript client. The versions
# are pinned by scripts/test-deps/package-lock.json; the tests load the package through
# test/e2e/client-node-package.ts. Runs in `npm test`'s pretest step; does nothing when the
# installed tree already matches the lock file.
#
#   bash scripts/fetch-test-deps.sh [DIR]     # DIR: where to install (default: build/test-deps)
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-build/test-deps}"
if cmp -s scripts/test-deps/package-lock.json "$dir/package-lock.json" \
  && [ -f "$dir/node_modules/@kubernetes/client-node/package.json" ]; then
  exit 0
fi
mkdir -p "$dir"
cp scripts/test-deps/package.json scripts/test-deps/package-lock.json "$dir/"
# --prefix makes $dir the project: npm ci replaces $dir/node_modules and nothing else.
npm ci --prefix "$dir" --ignore-scripts --no-audit --no-fund --loglevel=error
echo "test dependencies in $dir: $(cd "$dir" && node -p 'Object.entries(require("./package.json").dependencies).map(([n, v]) => `${n}@${v}`).join(" ")')"
