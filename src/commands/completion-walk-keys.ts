import { FRESH_MS, KEY_CACHE_HEADER, LINE_INDEX } from '../core/completion-cache.js';

// The part of the completion's awk walk (completion-walk.ts) that answers a Tab where a lock key
// goes without node, when the key cache is warm: the index in the cache directory names the file
// for what awk sees of the line (REDIS_URL and the connection options, passwords masked as
// core/completion-cache.ts's lineKey masks them), and that file's scans answer as
// completion-cached-keys.ts's do (the longest prefix of the word that is complete or read for the
// word itself). A scan FRESH_MS old still answers, and starts `redlock-cli __complete --keys`
// detached (through sh, so no shell reports a job): it refreshes the file and puts the line's index
// entry right. Where the file cannot answer (no entry, no scan, an escaped field), cachedkeys
// returns and the walk prints `:keys`, so node answers as before. The command is REDLOCK_CLI_BIN,
// set by the scripts. POSIX awk: `srand()` returns the previous seed, the time of the first call,
// in whole seconds: a scan is taken for stale up to a second late.

export const COMPLETION_WALK_KEYS = String.raw`
# A URL without its password, as withoutPassword does: scheme://user:pw@host -> scheme://user@host.
function unsecret(w,   head, p, rest) {
  if (!match(w, /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^:@\/]*:[^@\/]*@/)) return w
  p = index(w, "://")
  rest = substr(w, p + 3)
  return substr(w, 1, p + 2) substr(rest, 1, index(rest, ":") - 1) "@" substr(w, RSTART + RLENGTH)
}

# A word in sh single quotes.
function shq(s,   out, q) {
  out = ""
  while ((q = index(s, "\047")) > 0) { out = out substr(s, 1, q - 1) "\047\\\047\047"; s = substr(s, q + 1) }
  return "\047" out s "\047"
}

function refresh(   bin, cmd, i) {
  bin = ENVIRON["REDLOCK_CLI_BIN"] == "" ? "redlock-cli" : ENVIRON["REDLOCK_CLI_BIN"]
  cmd = shq(bin) " __complete --keys " shell " " shq("=" current)
  for (i = 1; i <= nconn; i++) cmd = cmd " " shq(conn[i])
  system(cmd " </dev/null >/dev/null 2>&1 &")
}

# The line key, or a line break (never in the index) when the line is not indexed.
function linekey(   key, i) {
  key = unsecret(ENVIRON["REDIS_URL"])
  if (key ~ /[\t\n\r]/) return "\n"
  for (i = 1; i <= nconn; i++) {
    if (conn[i] == "--pass") { i++; continue }
    if (conn[i] ~ /[\t\n\r]/) return "\n"
    key = key "\t" unsecret(conn[i])
  }
  return key
}

function cachedkeys(   dir, key, line, t, name, file, n, lines, escaped, i, f, best, bestlen, at, now) {
  dir = ENVIRON["XDG_STATE_HOME"]
  if (dir == "" && ENVIRON["HOME"] != "") dir = ENVIRON["HOME"] "/.local/state"
  key = linekey()
  if (dir == "" || key == "\n") return
  dir = dir "/redlock-cli/completion"
  while ((getline line < (dir "/${LINE_INDEX}")) > 0) {
    t = index(line, "\t")
    if (t > 0 && substr(line, t + 1) == key) { name = substr(line, 1, t - 1); break }
  }
  close(dir "/${LINE_INDEX}")
  if (name !~ /^keys-[0-9a-f]+\.txt$/) return
  file = dir "/" name
  n = 0; escaped = 0
  while ((getline line < file) > 0) { lines[++n] = line; if (index(line, "\\")) escaped = 1 }
  close(file)
  if (escaped || lines[1] != "${KEY_CACHE_HEADER}") return
  best = 0; bestlen = -1
  for (i = 2; i <= n; i++) {
    if (split(lines[i], f, "\t") != 4 || f[1] != "scan") continue
    if (substr(current, 1, length(f[2])) != f[2] || (f[3] != "1" && current != f[2]) || length(f[2]) <= bestlen) continue
    best = i; bestlen = length(f[2]); at = f[4]
  }
  if (!best) return
  for (i = best + 1; i <= n && split(lines[i], f, "\t") == 3 && f[1] == "key"; i++) offer(f[2], f[3])
  srand(); now = srand()
  if (now * 1000 - at >= ${FRESH_MS}) refresh()
  finish(0)
}
`;
