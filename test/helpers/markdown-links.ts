import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, resolve } from 'node:path';

// The repository's markdown, read as GitHub renders it: which relative links each page has, and
// which `#anchors` each page offers (its headings, slugged as GitHub slugs them).

const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'test-results', 'coverage']);

/** Every .md file under `root`, skipping dependencies, build output and dot-directories. */
export function markdownFiles(root: string): string[] {
  return readdirSync(root, { withFileTypes: true }).flatMap((e) => {
    if (e.name.startsWith('.') || SKIPPED_DIRS.has(e.name)) return [];
    const path = join(root, e.name);
    if (e.isDirectory()) return markdownFiles(path);
    return e.name.endsWith('.md') ? [path] : [];
  });
}

/** The text with fenced code blocks blanked (line count kept), so nothing inside them counts. */
function withoutFences(text: string): string {
  let fence: string | undefined;
  return text
    .split('\n')
    .map((line) => {
      const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence === undefined && marker !== undefined) {
        fence = marker;
        return '';
      }
      if (fence !== undefined) {
        if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
        return '';
      }
      return line;
    })
    .join('\n');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a page offers: one per heading (repeats get -1, -2, ...) and explicit ids. */
export function anchors(text: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of withoutFences(text).matchAll(/^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    found.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of text.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) found.add(m[1]!);
  return found;
}

/** The link targets of a page outside code: inline links, images and reference definitions. */
export function linkTargets(text: string): string[] {
  const prose = withoutFences(text).replace(/`[^`\n]*`/g, '');
  const inline = [...prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  const references = [...prose.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1]!);
  return [...inline, ...references];
}

const isExternal = (target: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');

/**
 * Every relative link in `files` that points nowhere: a file or folder that does not exist, one
 * outside `root`, or an `#anchor` the target page does not have. Each as `file: target (why)`.
 */
export function brokenLinks(root: string, files: readonly string[]): string[] {
  const anchorsOf = new Map<string, Set<string>>();
  const pageAnchors = (file: string): Set<string> => {
    let set = anchorsOf.get(file);
    if (set === undefined) {
      set = anchors(readFileSync(file, 'utf8'));
      anchorsOf.set(file, set);
    }
    return set;
  };
  const broken: string[] = [];
  for (const file of files) {
    const where = relative(root, file);
    for (const target of linkTargets(readFileSync(file, 'utf8'))) {
      if (isExternal(target)) continue;
      const hash = target.indexOf('#');
      const pathPart = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
      const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
      const resolved = pathPart === '' ? file : resolve(dirname(file), pathPart);
      if (relative(root, resolved).startsWith('..')) broken.push(`${where}: ${target} (outside the repository)`);
      else if (!existsSync(resolved)) broken.push(`${where}: ${target} (no such file)`);
      else if (anchor !== undefined && anchor !== '') {
        if (statSync(resolved).isDirectory() || extname(resolved) !== '.md')
          broken.push(`${where}: ${target} (an anchor into a page that is not markdown)`);
        else if (!pageAnchors(resolved).has(anchor)) broken.push(`${where}: ${target} (no heading with that anchor)`);
      }
    }
  }
  return broken;
}
