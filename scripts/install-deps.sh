#!/usr/bin/env bash
# Everything redlock-cli and its tests need on a fresh Debian 12 (or Ubuntu), installed only where
# missing; scripts/setup.sh runs it first, and so does CI (through setup.sh), so CI proves it:
#   - from apt: redis-server (Redis 7.0), openssl (the TLS test's self-signed certificate), faketime
#     and a C compiler (clock faults preload libfaketime after a malloc shim built with cc), tmux (the
#     README screens and the REPL test run in a real terminal), fish and zsh (the completion tests
#     run the real shells), python3-redis (redis-py, the Python client interop is checked against), make and
#     xz-utils (to build the extra servers), chromium (the HTML reports are opened in a real headless browser),
#     prometheus (its server and promtool: the exporter's tests scrape with a real Prometheus and check
#     the shipped alerting rules);
#   - without recommends (no desktop Java): a Java 17 runtime and the Debian jars the real Redisson
#     client is built against (../shared/redisson-java/README.md), for the Redisson interop tests;
#   - Node >= 20: Debian 12 and Ubuntu 22.04/24.04 ship Node 18 or older, so an older Node is
#     replaced by the npm registry's `node@20` package (a Node 20 binary, installed globally);
#   - Valkey 8.1 and Redis 8.0 for the server matrix, built from Debian 13's sources into a cache
#     outside the checkout (scripts/extra-servers.sh).
# --check prints what would be installed or built and changes nothing.
# As root it needs no sudo; otherwise it asks sudo for apt-get and the global npm install.
set -euo pipefail
cd "$(dirname "$0")/.."

check=false
[ "${1:-}" = --check ] && check=true
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)

has() { command -v "$1" >/dev/null 2>&1; }

apt_packages=()
has redis-server || apt_packages+=(redis-server)
has npm || apt_packages+=(nodejs npm)
has openssl || apt_packages+=(openssl)
has faketime || apt_packages+=(faketime)
has cc || has gcc || apt_packages+=(gcc)
[ -f /usr/include/stdio.h ] || apt_packages+=(libc6-dev)
has make || apt_packages+=(make)
has xz || apt_packages+=(xz-utils)
# Debian's archive key, to check Debian 13's source index (Ubuntu does not ship it by default)
[ -f /usr/share/keyrings/debian-archive-keyring.gpg ] || apt_packages+=(debian-archive-keyring)
has tmux || apt_packages+=(tmux)
has fish || apt_packages+=(fish)
has zsh || apt_packages+=(zsh)
has chromium || apt_packages+=(chromium)
has prometheus && has promtool || apt_packages+=(prometheus)
dpkg-query -W -f='${Status}' python3-redis 2>/dev/null | grep -q 'ok installed' || apt_packages+=(python3-redis)

java_packages=()
# REDLOCK_JAVA_DIR: where the jars are looked for (a test points it at an empty dir)
java_dir="${REDLOCK_JAVA_DIR:-/usr/share/java}"
java -version 2>&1 | grep -Eq 'version "(1[7-9]|[2-9][0-9])' || java_packages+=(openjdk-17-jdk-headless)
for jar_package in netty-common:libnetty-java jackson-databind:libjackson2-databind-java \
    jackson-dataformat-yaml:libjackson2-dataformat-yaml snakeyaml:libyaml-snake-java slf4j-simple:libslf4j-java \
    byte-buddy:libbyte-buddy-java reactive-streams:libreactive-streams-java spring3-beans:libspring-beans-java \
    caffeine:libcaffeine-java; do
  [ -f "$java_dir/${jar_package%%:*}.jar" ] || java_packages+=("${jar_package#*:}")
done

# The real Redisson client the interop tests drive is provided by the environment beside the
# checkout (test/helpers/redisson-peer.ts looks there, or at $REDISSON_PEER); nothing here installs it.
redisson_peer="${REDISSON_PEER:-../shared/redisson-java/redisson-peer}"
[ -e "$redisson_peer" ] ||
  echo "install-deps: the real Redisson peer $redisson_peer is missing (the environment provides it, not this script; REDISSON_PEER names another): the real-Redisson tests will skip (test/interop/redisson-java-*.test.ts, test/trace/who-redisson.test.ts, test/trace/preloaded-scripts.test.ts)"

if $check; then
  echo "install-deps: apt packages to install: ${apt_packages[*]:-none}"
  echo "install-deps: Java packages to install (no recommends): ${java_packages[*]:-none}"
elif [ ${#apt_packages[@]} -gt 0 ] || [ ${#java_packages[@]} -gt 0 ]; then
  echo "install-deps: installing ${apt_packages[*]} ${java_packages[*]}"
  "${sudo[@]}" apt-get update -qq
  if [ ${#apt_packages[@]} -gt 0 ]; then
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${apt_packages[@]}" >/dev/null
  fi
  if [ ${#java_packages[@]} -gt 0 ]; then
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${java_packages[@]}" >/dev/null
  fi
fi

node_major() { node -p 'Number(process.versions.node.split(".")[0])' 2>/dev/null || echo 0; }
if [ "$(node_major)" -lt 20 ]; then
  if $check; then
    echo "install-deps: would install node@20 from the npm registry (this Node: $(node -v 2>/dev/null || echo none))"
  else
    echo "install-deps: Node $(node -v) is older than 20: installing node@20 from the npm registry"
    if [ -n "${NPM_CONFIG_PREFIX:-}" ]; then npm install -g --no-audit --no-fund node@20; else "${sudo[@]}" npm install -g --no-audit --no-fund node@20; fi
    # The global prefix's bin may not be on the PATH (NPM_CONFIG_PREFIX): setup.sh puts it there.
    PATH="$(npm prefix -g)/bin:$PATH"
    hash -r
  fi
else
  echo "install-deps: node $(node -v) (>= 20)"
fi

if $check; then
  scripts/extra-servers.sh check
else
  # As this user: its cache is in this user's home, apt's files too. Only the server matrix needs
  # these servers, so the tool's set-up goes on without them (the matrix then says what is missing).
  scripts/extra-servers.sh install ||
    echo "install-deps: Valkey 8.1 / Redis 8.0 were not built (only the server matrix needs them): see above" >&2
  echo "install-deps: $(redis-server --version | cut -d' ' -f1-3), $(java -version 2>&1 | head -1)"
fi
