#!/usr/bin/env bash
# From a fresh Debian/Ubuntu checkout to a working redlock-cli, in one command:
#   1. redis-server and npm from apt if missing;
#   2. Node >= 20: Debian 12 and Ubuntu 22.04/24.04 ship Node 18 or older, so a Node older than 20
#      is replaced by the npm registry's `node@20` package (a Node 20 binary, installed globally);
#   3. npm ci, the build, and `npm link`, which puts redlock-cli on the PATH;
#   4. the main job end to end on a sandbox of its own (never a Redis of yours): start a
#      redis-server on a free port, take a lock on it, inspect it, ask doctor, release, stop.
# As root it needs no sudo; otherwise it asks sudo for apt-get and the global npm install.
# NPM_CONFIG_PREFIX=<dir> links into <dir>/bin instead of the global prefix (no sudo needed for it).
set -euo pipefail
cd "$(dirname "$0")/.."

sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)

need=()
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v npm >/dev/null 2>&1 || need+=(nodejs npm)
if [ ${#need[@]} -gt 0 ]; then
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
fi

if [ "$(node -p 'Number(process.versions.node.split(".")[0])')" -lt 20 ]; then
  echo "setup: Node $(node -v) is older than 20: installing node@20 from the npm registry"
  "${sudo[@]}" npm install -g --no-audit --no-fund node@20
  hash -r
fi
echo "setup: node $(node -v), $(redis-server --version | cut -d' ' -f1-3)"

npm ci --no-audit --no-fund
npm run build
if [ -n "${NPM_CONFIG_PREFIX:-}" ]; then npm link --no-audit --no-fund; else "${sudo[@]}" npm link --no-audit --no-fund; fi
hash -r
command -v redlock-cli >/dev/null 2>&1 || { echo "setup: redlock-cli is not on the PATH: add $(npm prefix -g)/bin to it" >&2; exit 1; }

# The main job, end to end, on a private sandbox and a private state dir.
export XDG_STATE_HOME
XDG_STATE_HOME="$(mktemp -d)"
trap 'redlock-cli sandbox down setup-demo >/dev/null 2>&1 || true; rm -rf "$XDG_STATE_HOME"' EXIT
url="$(redlock-cli sandbox up --name setup-demo --json | node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>console.log(JSON.parse(s).urls.primary))')"
set -x
redlock-cli acquire orders --lease 1m30s --url "$url"
redlock-cli inspect orders --url "$url"
redlock-cli doctor --url "$url"
redlock-cli release orders --url "$url"
redlock-cli sandbox down setup-demo
