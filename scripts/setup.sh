#!/usr/bin/env bash
# From a fresh Debian/Ubuntu checkout to a working redlock-cli, in one command:
#   1. scripts/install-deps.sh: what the tool and its tests need (redis-server, Node >= 20, the test
#      tools, Java for the Redisson interop tests, Valkey 8.1 and Redis 8.0 for the server matrix);
#   2. npm ci, the build, and `npm link`, which puts redlock-cli in the global prefix's bin;
#   3. the main job end to end on a sandbox of its own (never a Redis of yours): start a
#      redis-server on a free port, take a lock on it, inspect it, ask doctor, release, stop.
# As root it needs no sudo; otherwise it asks sudo for apt-get and the global npm install.
# NPM_CONFIG_PREFIX=<dir> links into <dir>/bin instead of the global prefix (no sudo needed for it);
# the demo runs the linked command from there, and the last line says how to put it on the PATH.
#   scripts/setup.sh --check   print what would be installed, built and run; change nothing
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
  '' | --check) ;;
  *) echo "usage: scripts/setup.sh [--check]" >&2; exit 2 ;;
esac
started=$SECONDS
scripts/install-deps.sh "$@"

# Node@20 and the link both land in the global prefix's bin, which a clean PATH may lack.
user_path="$PATH"
prefix_bin="$(npm prefix -g 2>/dev/null || echo /usr/local)/bin"
PATH="$prefix_bin:$PATH"
hash -r
if [ "${1:-}" = --check ]; then
  echo "setup: would run npm ci, npm run build, npm link (into $prefix_bin), then the demo on a sandbox"
  exit 0
fi

sudo=()
[ "$(id -u)" -eq 0 ] || [ -n "${NPM_CONFIG_PREFIX:-}" ] || sudo=(sudo)
npm ci --no-audit --no-fund
npm run build
"${sudo[@]}" npm link --no-audit --no-fund
cli="$prefix_bin/redlock-cli"
[ -x "$cli" ] || { echo "setup: npm link did not create $cli" >&2; exit 1; }

# The main job, end to end, through the linked command, on a private sandbox and state dir.
export XDG_STATE_HOME
XDG_STATE_HOME="$(mktemp -d)"
trap '"$cli" sandbox down setup-demo >/dev/null 2>&1 || true; rm -rf "$XDG_STATE_HOME"' EXIT
url="$("$cli" sandbox up --name setup-demo --json | node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>console.log(JSON.parse(s).urls.primary))')"
set -x
"$cli" acquire orders --lease 1m30s --url "$url"
"$cli" inspect orders --url "$url"
"$cli" doctor --url "$url"
"$cli" release orders --url "$url"
"$cli" sandbox down setup-demo
{ set +x; } 2>/dev/null

echo "setup: done in $((SECONDS - started)) s"
if [ "$(env PATH="$user_path" sh -c "command -v redlock-cli" || true)" != "$cli" ]; then
  echo "setup: redlock-cli is at $cli, which your PATH does not find first; add its directory:"
  echo "  export PATH=\"$prefix_bin:\$PATH\"   # e.g. in ~/.bashrc or ~/.profile"
fi
