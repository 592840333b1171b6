#!/usr/bin/env bash
# What a newcomer's `npm install` costs on a fresh clone, phase by phase, and what it leaves in
# node_modules. Writes the `install` section of bench/RESULTS.md.
#
#   bash bench/install.sh [REPO]      # REPO: what to clone (default: this checkout's HEAD)
#
# The three phases add up to `npm install` (npm ci is the same work from the lock file):
#   1. fetch and unpack the packages           npm ci --ignore-scripts
#   2. the dependencies' install scripts        npm rebuild   (better-sqlite3's native addon:
#      a prebuilt download from GitHub, or a compile of SQLite with node-gyp when that fails)
#   3. this package's `prepare`                 npm run prepare   (gen-openapi, tsc, bundles)
# Wall time depends on the machine's load, so each phase's CPU (user+sys of it and its
# children) is given beside it, and the load average before and after.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
repo="${1:-$here}"
work="$(mktemp -d /tmp/k8ts-install-bench.XXXXXX)"
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/k8ts"
cd "$work/k8ts"
rev="$(git rev-parse --short HEAD)"
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"

phase() { # name, command...: appends "name | wall s | cpu s" to $work/phases
  local name="$1"; shift
  /usr/bin/time -f '%e %U %S' -o "$work/t" "$@" >"$work/$name.log" 2>&1 || { cat "$work/$name.log" >&2; exit 1; }
  read -r wall user sys <"$work/t"
  printf '| %s | %.0f s | %.0f s |\n' "$name" "$wall" "$(echo "$user + $sys" | bc)" >>"$work/phases"
  echo "$wall" >>"$work/walls"
}
phase 'fetch and unpack (npm ci --ignore-scripts)' npm ci --ignore-scripts --no-audit --no-fund
phase 'install scripts (npm rebuild)' npm rebuild
phase 'prepare: the build (npm run prepare)' npm run prepare
total="$(paste -sd+ "$work/walls" | bc)"
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"
size="$(du -sh --apparent-size node_modules | cut -f1)"
sqlite_how="prebuilt download"
[ -d node_modules/better-sqlite3/build/Release/obj ] && sqlite_how="compiled from source (no prebuilt reachable)"
# Scoped packages one by one (du counts a directory once, so not their scope as well).
top="$(cd node_modules && du -s --apparent-size -- $(ls -d -- * | grep -v '^@') @*/* 2>/dev/null | sort -rn | head -8 \
  | awk '{printf "%s%s %.0f MB", (NR>1?", ":""), $2, $1/1024}')"

section="$(cat <<EOF
<!-- BEGIN install -->
## A fresh clone's npm install (bench/install.sh)

\`bash bench/install.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'), revision $rev, $(nproc) cores,
load average $load_before before and $load_after after; npm's cache as the machine had it.

| phase | wall | CPU (user+sys) |
|---|---|---|
$(cat "$work/phases")
| total | $(printf '%.0f' "$total") s | |

node_modules: $size (\`du -sh --apparent-size\`); better-sqlite3 was $sqlite_how.
Largest: $top.
<!-- END install -->
EOF
)"
results="$here/bench/RESULTS.md"
node -e '
  const fs = require("fs"); const [file, section] = process.argv.slice(1);
  const text = fs.readFileSync(file, "utf8");
  const re = /<!-- BEGIN install -->[\s\S]*?<!-- END install -->/;
  fs.writeFileSync(file, re.test(text) ? text.replace(re, section) : `${text.trimEnd()}\n\n${section}\n`);
' "$results" "$section"
echo "$section"
