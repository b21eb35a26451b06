"""The real redis-py client (Debian's python3-redis) as a peer for test/interop/redis-py.test.ts.

usage: redis-py-peer.py PORT NAME OP [ARGS]
  hold TIMEOUT_S BLOCKING_TIMEOUT_S   Lock.acquire(); then waits for a line on stdin and releases
  release TOKEN                       Lock.release() with another holder's token
  extend TOKEN ADD_S                  Lock.extend() with another holder's token
Prints one JSON line per event: acquired / refused / released / not-owned / extended.
"""
import json
import sys
import time

import redis
from redis.exceptions import LockNotOwnedError


def say(event, **fields):
    print(json.dumps({"event": event, **fields}), flush=True)


def main():
    port, name, op = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    client = redis.Redis(host="127.0.0.1", port=port, client_name="redis-py-peer")
    if op == "hold":
        lock = client.lock(name, timeout=float(sys.argv[4]), blocking_timeout=float(sys.argv[5]))
        started = time.monotonic()
        if not lock.acquire():
            say("refused")
            return
        say("acquired", token=lock.local.token.decode(), waitedMs=round((time.monotonic() - started) * 1000))
        sys.stdin.readline()
        try:
            lock.release()
            say("released")
        except LockNotOwnedError:
            say("not-owned")
        return
    lock = client.lock(name, timeout=30)
    lock.local.token = sys.argv[4].encode()
    try:
        if op == "release":
            lock.release()
            say("released")
        elif op == "extend":
            lock.extend(float(sys.argv[5]))
            say("extended")
    except LockNotOwnedError:
        say("not-owned")


main()
