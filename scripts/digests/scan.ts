// Reads every script body of one library, release by release, and folds them into catalogue
// entries: a body's SHA1, what it means to do (scriptIntent, the decoder's own rule, applied to the
// body), the first and last release that sends it, and where it was read. Releases come from a git
// directory (the tags given, or every tag the library's pattern accepts) or a plain directory (an
// installed package, with its version).

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { DigestEntry } from '../../src/core/trace/digest-catalogue.js';
import { scriptIntent } from '../../src/core/trace/script-intent.js';
import type { LibrarySource } from './libraries.js';
import { type LiteralChain, literalChains, type SourceLanguage } from './literals.js';

/** One release's files: path -> text. */
export interface Release {
  readonly name: string;
  readonly commit?: string;
  readonly files: ReadonlyMap<string, string>;
}

/** What a scan found: entries, and the releases after which the set of bodies changed. */
export interface LibraryScan {
  readonly summary: LibrarySummary;
  readonly digests: DigestEntry[];
  /** Script-looking chains whose value is not known at compile time (skipped, named for the record). */
  readonly dynamic: string[];
}

export interface LibrarySummary {
  readonly repo: string;
  readonly extraction: string;
  readonly releasesScanned: number;
  /** Each release whose bodies differ from the release scanned before it (the first one included). */
  readonly scriptsChangedAt: readonly ScriptsChange[];
}

export interface ScriptsChange {
  readonly release: string;
  readonly commit?: string;
}

const sha1 = (text: string): string => createHash('sha1').update(text, 'utf8').digest('hex');
const git = (gitDir: string, args: readonly string[]): string =>
  execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });

/** Release tags of `gitDir` that `pattern` accepts, oldest version first. */
export function releaseTags(gitDir: string, pattern: RegExp): string[] {
  return git(gitDir, ['tag'])
    .split('\n')
    .filter((t) => t !== '' && pattern.test(t))
    .sort(compareVersions);
}

/** One tag's files of the library, read from the git directory. */
export function gitRelease(gitDir: string, tag: string, files: RegExp): Release {
  const commit = git(gitDir, ['rev-parse', `${tag}^{commit}`]).trim();
  const paths = git(gitDir, ['ls-tree', '-r', '--name-only', commit])
    .split('\n')
    .filter((p) => files.test(p));
  return { name: tag, commit, files: new Map(paths.map((p) => [p, git(gitDir, ['show', `${commit}:${p}`])])) };
}

/** An installed package or a plain source tree as one release. */
export function directoryRelease(dir: string, name: string, files: RegExp): Release {
  const all = readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((p) => p.split('\\').join('/'));
  const paths = all.filter((p) => files.test(p)).sort();
  return { name, files: new Map(paths.map((p) => [relative(dir, join(dir, p)), readFileSync(join(dir, p), 'utf8')])) };
}

interface Found {
  readonly body: string;
  readonly file: string;
  readonly line: number;
  readonly near: string | undefined;
}

/** Every script body of one release: literal chains that call Redis. */
export function scriptsOf(release: Release, language: LibrarySource['language'], dynamic: string[] = []): Found[] {
  const found: Found[] = [];
  for (const [file, text] of release.files) {
    // A .lua file is one whole script: ours, or one a Go library embeds (`//go:embed obtain.lua`).
    if (language === 'lua' || file.endsWith('.lua')) {
      found.push({ body: text, file, line: 1, near: /([\w-]+)\.lua$/.exec(file)?.[1] });
      continue;
    }
    for (const chain of literalChains(text, language)) {
      if (!/redis\.p?call\s*\(/.test(chain.value)) continue;
      if (chain.dynamic) dynamic.push(`${release.name} ${file}:${chain.line}`);
      else found.push({ body: chain.value, file, line: chain.line, near: nameNear(text, chain, language) });
    }
  }
  return found;
}

/** Folds releases (oldest first) into one library's entries. */
export function scanReleases(source: LibrarySource, releases: readonly Release[]): LibraryScan {
  const entries = new Map<string, DigestEntry>();
  const dynamic: string[] = [];
  const changes: ScriptsChange[] = [];
  let previous = '';
  for (const release of releases) {
    const scripts = scriptsOf(release, source.language, dynamic);
    const shas = [...new Set(scripts.map((s) => sha1(s.body)))].sort().join(',');
    if (shas !== previous)
      changes.push({ release: release.name, ...(release.commit ? { commit: release.commit } : {}) });
    previous = shas;
    for (const s of scripts) {
      const sha = sha1(s.body);
      const first = entries.get(sha)?.first ?? release.name;
      entries.set(sha, {
        sha1: sha,
        library: source.library,
        intent: scriptIntent(s.body),
        first,
        last: release.name,
        file: s.file,
        line: s.line,
        ...(s.near ? { near: s.near } : {}),
      });
    }
  }
  const digests = [...entries.values()].sort((a, b) => a.sha1.localeCompare(b.sha1));
  const summary = {
    repo: source.repo,
    extraction: source.extraction,
    releasesScanned: releases.length,
    scriptsChangedAt: changes,
  };
  return { summary, digests, dynamic };
}

/** The method (Java) or the name a script is assigned to (the others), searched backwards from the literal. */
function nameNear(text: string, chain: LiteralChain, language: SourceLanguage): string | undefined {
  const before = text.slice(Math.max(0, chain.offset - 4000), chain.offset);
  const pattern = language === 'java' ? /^ {4}(?:[\w<>?,[\]]+ )+(\w+)\(/gm : /(\w+)\s*(?::|=(?!=))/g;
  const names = [...before.matchAll(pattern)];
  return names.at(-1)?.[1];
}

/** Orders `redisson-3.9.0` before `redisson-3.10.0`, `v5.0.0-beta.1` and `v4.0.0b1` before their release. */
export function compareVersions(a: string, b: string): number {
  const parts = (t: string) => [...t.matchAll(/\d+/g)].map((m) => Number(m[0]));
  const pre = (t: string) => /\d(?:-|[ab]|rc|alpha|beta)[\w.]*$/i.test(t.replace(/^[^\d]*/, ''));
  const [pa, pb] = [parts(a), parts(b)];
  const core = (p: number[]) => p.slice(0, 3);
  for (let i = 0; i < 3; i++) {
    const d = (core(pa)[i] ?? 0) - (core(pb)[i] ?? 0);
    if (d !== 0) return d;
  }
  if (pre(a) !== pre(b)) return pre(a) ? -1 : 1;
  for (let i = 3; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return a.localeCompare(b);
}
