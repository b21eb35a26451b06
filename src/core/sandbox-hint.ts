// Every command the tool prints about a sandbox names that sandbox, always in one form: `--name`,
// which `up`, `status`, `down` and every fault verb parse (`status` and `down` also take the name
// as an argument, but a hint never uses it). A hint copied later, when a second sandbox is up, must
// still act on the sandbox it was printed for, never on whichever one a bare verb resolves to.

/** `redlock-cli sandbox <verb> [args...] --name <sandbox>`: a hint that acts on that sandbox only. */
export function sandboxCommand(sandbox: string, verb: string, ...args: readonly string[]): string {
  return ['redlock-cli sandbox', verb, ...args, '--name', sandbox].join(' ');
}
