#!/bin/bash
# Captures a MONITOR log of real lock traffic on a throwaway redis-server (run from the repo root
# after a build): test/trace/golden/capture.sh <free port> <output file>
set -e
P=$1; OUT=$2; CLI="node bin/redlock-cli.js"
redis-server --port $P --bind 127.0.0.1 --save '' --appendonly no --daemonize no >/dev/null &
SRV=$!
sleep 0.5
export XDG_STATE_HOME=$(mktemp -d)
# Scripts loaded before the trace: the traced runs send EVALSHA of bodies the stream never shows.
$CLI race capture-preload -k reentrant -c 2 -d 300ms -u redis://127.0.0.1:$P >/dev/null 2>&1 || true
$CLI race capture-preload -k token -c 2 -d 300ms -u redis://127.0.0.1:$P >/dev/null 2>&1 || true
redis-cli -p $P del capture-preload >/dev/null
redis-cli -p $P monitor > $OUT &
MON=$!
sleep 0.3
$CLI race orders -k reentrant -c 3 -d 250ms --lease 60ms --hold 25ms --no-renew -u redis://127.0.0.1:$P >/dev/null 2>&1 || true
$CLI race jobs -k token -c 3 -d 200ms --lease 60ms --hold 20ms --release naive-del -u redis://127.0.0.1:$P >/dev/null 2>&1 || true
redis-cli -p $P script flush >/dev/null
$CLI race queue -k fair -c 3 -d 200ms --lease 200ms -u redis://127.0.0.1:$P >/dev/null 2>&1 || true
$CLI race rw -k write -c 2 -d 200ms -u redis://127.0.0.1:$P >/dev/null 2>&1 || true
$CLI race fenced -k fenced -c 2 -d 200ms -u redis://127.0.0.1:$P >/dev/null 2>&1 || true
node test/trace/golden/capture-libs.mjs $P
# Escaped arguments: quotes, backslashes, line breaks, UTF-8, bytes that are not UTF-8, NUL.
redis-cli -p $P client setname 'weird"client' >/dev/null
K1=$(printf 'caf\xc3\xa9:"lock"\\1')
K2=$(printf '\xe2\x80\xaeevil')
redis-cli -p $P set "$K1" 'tok\1' NX PX 5000 >/dev/null
printf 'bin\x00\xff\xfe\nline2\r\ttab' | redis-cli -p $P -x set "$(printf 'bin\xff\xfe')" >/dev/null
redis-cli -p $P set "$K2" "$(printf '\xf0\x9f\x94\x92')" NX PX 3000 >/dev/null
redis-cli -p $P eval "$(printf -- '-- two lines\nif redis.call("get", KEYS[1]) == ARGV[1] then\n  return redis.call("del", KEYS[1])\nend\nreturn 0')" 1 "$K1" 'tok\1' >/dev/null
redis-cli -p $P set "$(printf 'nx\xff')" "$(printf 'v\x01\x7f')" NX PX 3000 >/dev/null
redis-cli -p $P del "$(printf 'nx\xff')" >/dev/null
redis-cli -p $P set "$K2" "other" >/dev/null
redis-cli -p $P evalsha 0123456789abcdef0123456789abcdef01234567 1 orders x >/dev/null 2>&1 || true
redis-cli -p $P set plain-app-key value >/dev/null
redis-cli -p $P get plain-app-key >/dev/null
redis-cli -p $P flushall >/dev/null
sleep 0.3
kill $MON; kill $SRV; wait 2>/dev/null || true
