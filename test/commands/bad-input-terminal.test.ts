// Issue 24, item 3 (and 2): more rows of the bad-input table (test/helpers/bad-input.ts checks
// each one the same way, and that its one line holds no raw control or format character).
// Counts take decimal digits within a range; what a user typed, in an option value or a scenario
// file, is escaped whole in the error (commander's own messages too); scenario files bound clients.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeBadInput, type Row } from '../helpers/bad-input.js';

const SGR = '\x1b[31m';
const scenario = (clients: string, extra = '') => `title: terminal
summary: bad input
narration: none
sandbox: { topology: single }
lock: { kind: token, key: orders }
clients: ${clients}
steps:
  - { at: 0ms, client: A, do: acquire, lease: 300ms }
expect: { unsafe: safe }
${extra}`;

const COUNTS: Row[] = [
  ...['0x10', '1e3', '+5', '-1', '1e20', '99999999999999999999', '2.5'].map(
    (n): Row => ({ name: `race --clients ${n}`, args: (s) => ['race', 'k', '--url', s.url, '--clients', n], code: 2, says: new RegExp(`invalid --clients "${n.replace(/[+.]/g, '\\$&')}": use a whole number from 1 to 10000`) }),
  ),
  { name: 'race --clients 10001', args: (s) => ['race', 'k', '--url', s.url, '--clients', '10001'], code: 2, says: /invalid --clients "10001": at most 10000$/ },
  // Item 2: 10,000 workers is more than any machine here runs; refused before anything is forked.
  { name: 'race --procs 10000', args: (s) => ['race', 'k', '--url', s.url, '--clients', '10000', '--procs', '10000'], code: 2, says: /invalid --procs "10000": at most \d+ \(\d+ CPUs? here, 4 workers each|MB of free memory here/ },
  { name: 'race --procs 0x2', args: (s) => ['race', 'k', '--url', s.url, '--procs', '0x2'], code: 2, says: /invalid --procs "0x2": use a whole number from 1 to/ },
  { name: 'ls --limit 1e3', args: () => ['ls', '--limit', '1e3'], code: 2, says: /invalid --limit "1e3": use a whole number from 1 to 1000000000/ },
  { name: 'ls --limit +5', args: () => ['ls', '--limit', '+5'], code: 2, says: /invalid --limit "\+5"/ },
  { name: 'ls --scan-count 0x10', args: () => ['ls', '--scan-count', '0x10'], code: 2, says: /invalid --scan-count "0x10": use a whole number from 1 to 100000/ },
  { name: 'ls --scan-count 1e20', args: () => ['ls', '--scan-count', '100000000000000000000'], code: 2, says: /invalid --scan-count "1{1}0{20}": use a whole number/ },
  { name: 'doctor --scan-count 1000000', args: () => ['doctor', '--scan-count', '1000000'], code: 2, says: /invalid --scan-count "1000000": at most 100000/ },
  // Under --json the one line is the error object (docs/json/error.schema.json).
  { name: 'inspect --watch --json --count 1e2', args: () => ['inspect', 'k', '--watch', '--json', '--count', '1e2'], code: 2, says: /^\{"error":\{"code":"usage","exit":2,"message":"invalid --count \\"1e2\\": use a whole number from 1 to/ },
  { name: 'sandbox up --nodes 1e1', args: () => ['sandbox', 'up', '--topology', 'redlock', '--nodes', '1e1', '--name', 'bad-input-1e1'], code: 2, says: /invalid --nodes "1e1": use a whole number from 1 to 15/ },
  { name: 'sandbox up --replicas 0x1', args: () => ['sandbox', 'up', '--topology', 'cluster', '--replicas', '0x1', '--name', 'bad-input-0x1'], code: 2, says: /invalid --replicas "0x1": use a whole number from 0 to 1/ },
];

const ESCAPED: Row[] = [
  // Our own kind parser and commander's messages quote the value as typed, escaped whole.
  { name: 'a --kind with a newline and a colour', args: () => ['acquire', 'k', '--kind', `x\n${SGR}FAKE`], code: 2, says: /unknown lock kind "x\\n\\x1b\[31mFAKE"/ },
  { name: 'an unknown option with a colour', args: () => ['acquire', 'k', `--bogus${SGR}`], code: 2, says: /unknown option '--bogus\\x1b\[31m'/ },
  { name: 'an unknown command with a newline, and its suggestion', args: () => ['aq\nuire', 'k'], code: 2, says: /unknown command 'aq\\nuire' \(Did you mean acquire\?\)$/ },
  { name: 'too many arguments with a colour', args: () => ['acquire', 'k', `${SGR}extra`], code: 2, says: /too many arguments|unknown/ },
  // Our own messages: the value escaped whole, format characters too.
  { name: 'a --lease with a clear-screen and a zero-width space', args: () => ['acquire', 'k', '--lease', '5\x1b[2J\u200b'], code: 2, says: /invalid --lease duration "5\\x1b\[2J\\u200b"/ },
  { name: 'an --owner with a zero-width space', args: () => ['acquire', 'k', '--owner', 'bob\u200b'], code: 2, says: /invalid owner "bob\\u200b"/ },
  { name: 'a --wait with a right-to-left override', args: () => ['acquire', 'k', '--wait', '\u202e5s'], code: 2, says: /invalid --wait duration "\\u202e5s"/ },
  { name: 'a --url with a colour', args: () => ['acquire', 'k', '--url', `ftp${SGR}://127.0.0.1`], code: 2, says: /invalid Redis URL/ },
  // Scenario files: what the file says reaches the error escaped.
  { name: 'a scenario variant name with a colour', args: (s) => ['scenario', 'run', join(s.dir, 'variant-sgr.yaml')], code: 2, says: /invalid variant name "bad\\x1b\[31m"/ },
  { name: 'a scenario step client with a newline', args: (s) => ['scenario', 'run', join(s.dir, 'client-newline.yaml')], code: 2, says: /client/ },
  { name: 'a scenario with 33 clients', args: (s) => ['scenario', 'run', join(s.dir, 'many-clients.yaml')], code: 2, says: /clients: 33 clients, at most 32: .*use race --clients/ },
  { name: 'a scenario with 1000 clients', args: (s) => ['scenario', 'run', join(s.dir, 'huge-clients.yaml')], code: 2, says: /1000 clients, at most 32/ },
];

const names = (n: number) => `[${Array.from({ length: n }, (_, i) => (i === 0 ? 'A' : `C${i}`)).join(', ')}]`;

describeBadInput([...COUNTS, ...ESCAPED], {
  files: (dir) => {
    writeFileSync(join(dir, 'variant-sgr.yaml'), scenario('[A]').replace('expect: { unsafe: safe }', 'variants:\n  "bad\\e[31m": { description: x, expect: safe }'));
    writeFileSync(join(dir, 'client-newline.yaml'), scenario('[A]').replace('client: A', 'client: "Z\\nFAKE\\e[31m"'));
    writeFileSync(join(dir, 'many-clients.yaml'), scenario(names(33)));
    writeFileSync(join(dir, 'huge-clients.yaml'), scenario(names(1000)));
  },
});
