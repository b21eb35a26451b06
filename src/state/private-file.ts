// The tool's own files (owner memory, saved targets) live in directories others may have written
// to before us. A symbolic link planted under one of our names is never followed: not to read
// someone else's file as ours, and above all not to write our data (passwords included) into it.

import { closeSync, constants, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';

/** The file's text; ELOOP if it is a symbolic link, ENOENT if it is not there. */
export function readPrivate(file: string): string {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces `file` atomically with `text`, mode 0600: a temporary file is created anew (whatever
 * had its name, a leftover or a link, is removed first, and O_EXCL refuses one that reappears),
 * then renamed over the file, which replaces a link rather than writing through it.
 */
export function writePrivate(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  rmSync(tmp, { force: true });
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeFileSync(fd, text);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file); // atomic: a concurrent reader never sees half a file
}
