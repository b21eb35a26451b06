// The awk program the completion scripts run on each Tab, so that commands, options and their
// fixed values complete without starting node (node alone takes 75-130 ms on a busy machine; awk
// takes a few). It is the walk of src/core/completion.ts, over the table of
// core/completion-table.ts (read from stdin), and prints what `redlock-cli __complete --shell
// <sh> --files-line` prints: candidates (bash: bare, cut after the last word break; zsh and fish:
// value<TAB>description), then `:files` or `:`. Where a lock key goes it answers from the key
// cache when it is warm (completion-walk-keys.ts); otherwise it prints `:keys`, then `=` and the
// word being typed, then the connection options of the line, one word a line: the script hands
// those to `redlock-cli __complete --keys`, which answers from its key cache without reading the
// command tree. Where only redlock-cli can answer otherwise (saved targets) it
// prints the single line `:ask`, and the script asks `redlock-cli __complete` the whole line.
// test/commands/completion-walk.test.ts runs both walks over the whole tree and compares them.
//
// POSIX awk only (mawk, gawk, BSD awk, busybox): no single quote anywhere, since the scripts
// quote the program in single quotes. Usage: awk -- PROGRAM <shell> <words...> < table

import { COMPLETION_WALK_KEYS } from './completion-walk-keys.js';

export const COMPLETION_WALK = String.raw`
function load(line,   f, key, n, ids, flags, i, j) {
  split(line, f, "\t")
  if (f[1] == "o") {
    oflags[f[2]] = f[3]; otakes[f[2]] = f[4]; oconn[f[2]] = f[5]; odesc[f[2]] = f[9]
    vfiles["o" f[2]] = f[6]; vask["o" f[2]] = f[7]; vchoices["o" f[2]] = f[8]
  } else if (f[1] == "r") {
    useopts("", f[2])
  } else if (f[1] == "c") {
    key = f[2] == "" ? f[3] : f[2] " " f[3]
    kid[f[2], ++nkids[f[2]]] = f[3]; hidden[key] = f[5]; cdesc[key] = f[7]
    child[f[2], f[3]] = key
    n = split(f[4], ids, " ")
    for (i = 1; i <= n; i++) if (!((f[2], ids[i]) in child)) child[f[2], ids[i]] = key
    useopts(key, f[6])
  } else if (f[1] == "a") {
    i = ++nargs[f[2]]
    avariadic[f[2], i] = f[3]
    vfiles["a" f[2] SUBSEP i] = f[4]; vask["a" f[2] SUBSEP i] = f[5]; vchoices["a" f[2] SUBSEP i] = f[6]
  }
}

# The command at <path> takes these options: each flag finds its option (the first one wins).
function useopts(path, list,   ids, flags, n, m, i, j) {
  copts[path] = list
  n = split(list, ids, " ")
  for (i = 1; i <= n; i++) {
    m = split(oflags[ids[i]], flags, " ")
    for (j = 1; j <= m; j++) if (!((path, flags[j]) in optof)) optof[path, flags[j]] = ids[i]
  }
}

function isoption(w) { return substr(w, 1, 1) == "-" && length(w) > 1 && w != "--" }

# The leaf command first, then its parents (commander takes program options anywhere).
function findoption(flag,   d) {
  for (d = depth; d >= 0; d--) if ((path[d], flag) in optof) return optof[path[d], flag]
  return ""
}

function give(id,   flags, n, i) {
  n = split(oflags[id], flags, " ")
  for (i = 1; i <= n; i++) given[flags[i]] = 1
}

function longflag(id,   flags, n, i) {
  n = split(oflags[id], flags, " ")
  for (i = 1; i <= n; i++) if (substr(flags[i], 1, 2) == "--") return flags[i]
  return flags[1]
}

# The connection options as argv, as core/completion.ts records them: long flag, then value.
function connect(word, id) { if (oconn[id] == "1") conn[++nconn] = word }

# Follows words[1..last-1] as commander would: subcommands, options and their values, positionals.
function walk(last,   i, w, flag, eq, id) {
  depth = 0; path[0] = ""; positionals = 0; pending = ""; passthrough = 0; nconn = 0
  for (i = 1; i < last; i++) {
    w = words[i]
    if (w == "--") { passthrough = 1; return }
    if (isoption(w)) {
      eq = index(w, "=")
      flag = eq ? substr(w, 1, eq - 1) : w
      id = findoption(flag)
      if (id != "") give(id)
      if (id != "" && !eq && otakes[id] != "none" && i + 1 >= last) { pending = id; return }
      if (id != "") connect(longflag(id), id)
      if (id != "" && eq) connect(substr(w, eq + 1), id)
      if (id == "" || eq || otakes[id] == "none") continue
      if (otakes[id] == "required" || !isoption(words[i + 1])) connect(words[++i], id)
      continue
    }
    if (positionals == 0 && ((path[depth], w) in child)) {
      path[depth + 1] = child[path[depth], w]
      depth++
    } else positionals++
  }
}

function offer(value, description) {
  if (substr(value, 1, length(current)) != current || value in offered) return
  offered[value] = 1
  out[++nout] = value; outdesc[nout] = description
}

# The candidates, then whether file names fit; bash gets each value cut after the last word
# break of the current word, since readline replaces only the text after it.
function finish(files,   i, cut, c) {
  cut = 0
  if (shell == "bash") for (i = 1; i <= length(current); i++) if (substr(current, i, 1) in breaks) cut = i
  for (i = 1; i <= nout; i++) {
    if (shell == "bash") print substr(out[i], cut + 1)
    else if (outdesc[i] != "") print out[i] "\t" outdesc[i]
    else print out[i]
  }
  print (files == "1" ? ":files" : ":")
  exit
}

function values(spec, prefix,   list, n, i) {
  if (vask[spec] == "key" && prefix == "") {
    cachedkeys()
    print ":keys"
    print "=" current
    for (i = 1; i <= nconn; i++) print conn[i]
    exit
  }
  if (vask[spec] != "-") { print ":ask"; exit }
  n = split(vchoices[spec], list, " ")
  for (i = 1; i <= n; i++) offer(prefix list[i], "")
  finish(vfiles[spec])
}

function complete(   leaf, eq, flag, id, d, ids, n, i, flags, m, j, used, visible) {
  current = words[nwords]
  walk(nwords)
  if (passthrough) finish(1)
  if (pending != "") values("o" pending, "")
  if (isoption(current) && index(current, "=")) {
    eq = index(current, "=")
    flag = substr(current, 1, eq - 1)
    id = findoption(flag)
    if (id == "" || otakes[id] == "none") finish(0)
    values("o" id, flag "=")
  }
  leaf = path[depth]
  if (substr(current, 1, 1) == "-") {
    for (d = depth; d >= 0; d--) {
      n = split(copts[path[d]], ids, " ")
      for (i = 1; i <= n; i++) {
        m = split(oflags[ids[i]], flags, " ")
        used = 0
        for (j = 1; j <= m; j++) if (flags[j] in given) used = 1
        if (!used) offer(longflag(ids[i]), odesc[ids[i]])
      }
    }
    finish(0)
  }
  visible = 0
  for (i = 1; i <= nkids[leaf]; i++) if (hidden[child[leaf, kid[leaf, i]]] == "0") visible++
  if (positionals == 0 && visible > 0) {
    for (i = 1; i <= nkids[leaf]; i++) {
      id = child[leaf, kid[leaf, i]]
      if (hidden[id] == "0") offer(kid[leaf, i], cdesc[id])
    }
    finish(0)
  }
  n = nargs[leaf] + 0
  if (n == 0) finish(0)
  i = positionals + 1 > n ? n : positionals + 1
  if (positionals >= n && avariadic[leaf, n] != "1") finish(0)
  values("a" leaf SUBSEP i, "")
}

# bash splits --kind=fair and redis://h:1 at COMP_WORDBREAKS: glue a word made only of break
# characters to its neighbours again, so the walk sees what was typed.
function joinbash(   wb, i, c, n, w, isbreak, glue, joined) {
  wb = "COMP_WORDBREAKS" in ENVIRON ? ENVIRON["COMP_WORDBREAKS"] : " \t\n\"\047><=;|&(:"
  for (i = 1; i <= length(wb); i++) {
    c = substr(wb, i, 1)
    if (c !~ /[ \t\n]/ && index("\"\047|&;()<>", c) == 0) breaks[c] = 1
  }
  n = 0; glue = 0
  for (i = 1; i <= nwords; i++) {
    w = words[i]
    isbreak = w != ""
    for (c = 1; c <= length(w); c++) if (!(substr(w, c, 1) in breaks)) isbreak = 0
    if ((isbreak || glue) && n > 0) joined[n] = joined[n] w
    else joined[++n] = w
    glue = isbreak
  }
  for (i = 1; i <= n; i++) words[i] = joined[i]
  nwords = n
}

BEGIN {
  FS = "\t"
  shell = ARGV[1]
  nwords = 0
  for (i = 2; i < ARGC; i++) words[++nwords] = ARGV[i]
  ARGC = 1
  while ((getline line) > 0) load(line)
  if (shell == "bash") joinbash()
  if (nwords == 0) words[++nwords] = ""
  complete()
}
${COMPLETION_WALK_KEYS}`;
