#!/usr/bin/env bash
# The extra servers the test matrix runs on beside Debian 12's Redis 7.0: Valkey 8.1 and Redis 8.0.
# Debian 13 (trixie) packages both, but its binaries need a newer libc than Debian 12's, so this
# builds them from trixie's source packages: only the upstream `.orig` tarball is used, fetched with
# `apt-get source --download-only` through a private apt configuration (its own sources file, lists
# and cache under the cache dir: the system's sources are never read or touched), on the Debian
# mirror host the system's own sources name. apt checks the tarball against the signed index.
# Each build (`make MALLOC=libc`: no jemalloc to configure) is kept outside the checkout, in
#   ${REDLOCK_SERVER_CACHE:-${XDG_CACHE_HOME:-~/.cache}/redlock-cli/servers}/<name>-<version>/bin/
# and reused by any later run: a cached build of the wanted major.minor needs no network at all.
#
#   scripts/extra-servers.sh install   build what is missing, say what was built or reused
#   scripts/extra-servers.sh check     say what `install` would do, change nothing
#   scripts/extra-servers.sh path NAME print the cached NAME-server binary (exit 4 if not built)
set -euo pipefail

# HOME may be unset in a bare CI environment: the user's home from the password database then.
home="${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}"
cache_root="${REDLOCK_SERVER_CACHE:-${XDG_CACHE_HOME:-$home/.cache}/redlock-cli/servers}"
# name:major.minor of every extra server (the source package and the binaries share the name)
servers=(valkey:8.1 redis:8.0)

# The newest cached build of name at major.minor, as its directory; nothing if none.
cached_dir() {
  local name="$1" series="$2" dir found=""
  for dir in "$cache_root/$name-$series".*; do
    [ -x "$dir/bin/$name-server" ] && found="$dir"
  done
  [ -n "$found" ] && echo "$found"
}

# The Debian mirror host the system's own apt sources use (deb822 `URIs:` or one-line `deb`).
debian_mirror() {
  local mirror
  mirror="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null |
    grep -oE '(https?|ftp)://[^ ]+/debian/?( |$)' | grep -v -- '-security' | head -1 | tr -d ' ')" || true
  echo "${mirror:-http://deb.debian.org/debian}"
}

# Fetches name's trixie source into $work and prints the .orig tarball's path.
fetch_source() {
  local name="$1" work="$2" apt_dir="$cache_root/.apt"
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $(debian_mirror) trixie main" \
    >"$apt_dir/sources.list"
  local private=(-o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o Dir::Etc::sourceparts=-
    -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o APT::Sandbox::User=root)
  if [ ! -f "$apt_dir/updated" ] || [ -n "$(find "$apt_dir/updated" -mmin +1440)" ]; then
    apt-get "${private[@]}" update -qq && touch "$apt_dir/updated"
  fi
  # The .dsc and .debian.tar.xz may be missing on the mirror (apt then exits non-zero): only the
  # upstream tarball is needed, so its presence decides, not apt's exit code.
  (cd "$work" && apt-get "${private[@]}" source --download-only -qq "$name" >/dev/null 2>&1) || true
  local tarball
  tarball="$(ls "$work/${name}_"*.orig.tar.* 2>/dev/null | head -1)"
  [ -n "$tarball" ] || { echo "extra-servers: trixie's $name source tarball could not be fetched" >&2; return 1; }
  echo "$tarball"
}

# Builds name at major.minor from trixie's source into the cache.
build() {
  local name="$1" series="$2" tarball version started
  work="$(mktemp -d)"
  tarball="$(fetch_source "$name" "$work")"
  version="$(basename "$tarball" | sed -E "s/^${name}_([0-9]+(\.[0-9]+)*).*/\1/")"
  case "$version" in
    "$series".*) ;;
    *) echo "extra-servers: trixie has $name $version, not $series.x: update servers= in $0" >&2; return 1 ;;
  esac
  echo "extra-servers: building $name $version from trixie's $(basename "$tarball") (about 100 s on 2 cores)"
  started=$SECONDS
  mkdir "$work/src"
  tar -xf "$tarball" -C "$work/src" --strip-components=1
  make -C "$work/src" -j2 MALLOC=libc BUILD_TLS=no >"$work/build.log" 2>&1 ||
    { tail -20 "$work/build.log" >&2; echo "extra-servers: building $name $version failed" >&2; return 1; }
  local dest="$cache_root/$name-$version"
  rm -rf "$dest.partial" && mkdir -p "$dest.partial/bin"
  local binary
  for binary in server cli sentinel; do
    cp -L "$work/src/src/$name-$binary" "$dest.partial/bin/"
  done
  rm -rf "$dest" && mv "$dest.partial" "$dest"
  rm -rf "$work"
  echo "extra-servers: built $name $version in $((SECONDS - started)) s: $dest/bin/$name-server"
}

work=""   # the build's scratch dir (source, objects): removed however the script ends
trap '[ -z "$work" ] || rm -rf "$work"' EXIT

command="${1:-}"
case "$command" in
  install | check)
    if [ "$command" = install ]; then
      # one build at a time per cache (two checkouts setting up at once wait for each other)
      mkdir -p "$cache_root" && exec 9>"$cache_root/.lock" && flock 9
    fi
    for entry in "${servers[@]}"; do
      name="${entry%%:*}" series="${entry#*:}"
      if dir="$(cached_dir "$name" "$series")"; then
        echo "extra-servers: reusing $name $series ($(basename "$dir")): $dir/bin/$name-server"
      elif [ "$command" = check ]; then
        echo "extra-servers: would build $name $series from trixie's source (mirror $(debian_mirror)) into $cache_root"
      else
        build "$name" "$series"
      fi
    done
    ;;
  path)
    for entry in "${servers[@]}"; do
      if [ "${entry%%:*}" = "${2:-}" ]; then
        dir="$(cached_dir "${entry%%:*}" "${entry#*:}")" || {
          echo "extra-servers: ${2} is not built yet: run scripts/extra-servers.sh install" >&2
          exit 4
        }
        echo "$dir/bin/${2}-server"
        exit 0
      fi
    done
    echo "extra-servers: unknown server '${2:-}': one of ${servers[*]%%:*}" >&2
    exit 2
    ;;
  *)
    echo "usage: scripts/extra-servers.sh install | check | path valkey|redis" >&2
    exit 2
    ;;
esac
