import type { Command } from 'commander';
import type { RunContext } from './context.js';
import { prose } from './help-text.js';

// Examples for commands whose own help text has none; commands that carry an "Examples:" block
// in their help keep it. A test walks the whole command tree and checks every command ends up
// with at least two examples whose options exist on that command.
const EXAMPLES: Readonly<Record<string, readonly string[]>> = {
  acquire: [
    'redlock-cli acquire orders --lease 30s',
    'redlock-cli acquire orders --kind fair --wait 10s --lease 5s',
    'redlock-cli acquire orders --kind fenced --json',
    'redlock-cli acquire pay --kind redlock --nodes redis://10.0.0.1,redis://10.0.0.2,redis://10.0.0.3',
  ],
  renew: ['redlock-cli renew orders --lease 30s', 'redlock-cli renew orders --kind token --owner 3f9c...e1 --lease 10s'],
  release: ['redlock-cli release orders', 'redlock-cli release orders --kind read --owner 6f1c2a44-...:41'],
  'force-unlock': ['redlock-cli force-unlock orders', 'redlock-cli force-unlock orders --kind fair --yes'],
  inspect: ['redlock-cli inspect orders', 'redlock-cli inspect orders stock --json', 'redlock-cli inspect orders --watch --interval 500ms'],
  doctor: ['redlock-cli doctor', "redlock-cli doctor 'orders:*' --json", 'redlock-cli doctor --target prod'],
  'sandbox up': ['redlock-cli sandbox up', 'redlock-cli sandbox up --topology redlock --nodes 5 --fake-clock', 'redlock-cli sandbox up --topology sentinel --proxy --name chaos'],
  'sandbox status': ['redlock-cli sandbox status', 'redlock-cli sandbox status --name chaos --json'],
  'sandbox down': ['redlock-cli sandbox down', 'redlock-cli sandbox down --name chaos'],
  'sandbox kill': ['redlock-cli sandbox kill primary', 'redlock-cli sandbox kill n3 --name chaos'],
  'sandbox restart': ['redlock-cli sandbox restart n1', 'redlock-cli sandbox restart n3 --amnesia'],
  'sandbox pause': ['redlock-cli sandbox pause primary --for 3s', 'redlock-cli sandbox pause n2'],
  'sandbox resume': ['redlock-cli sandbox resume n2', 'redlock-cli sandbox resume primary --name chaos'],
  'sandbox failover': ['redlock-cli sandbox failover', 'redlock-cli sandbox failover --name chaos --json'],
  'sandbox latency': ['redlock-cli sandbox latency n1 200ms', 'redlock-cli sandbox latency primary 50ms --name chaos'],
  'sandbox partition': ['redlock-cli sandbox partition n1', 'redlock-cli sandbox partition n3 --name chaos'],
  'sandbox heal': ['redlock-cli sandbox heal n1', 'redlock-cli sandbox heal n2 --name chaos'],
  'sandbox clock': ['redlock-cli sandbox clock n3 +10s', 'redlock-cli sandbox clock n3 x10', 'redlock-cli sandbox clock n3 -- -2s'],
  'sandbox stall-replication': ['redlock-cli sandbox stall-replication n2', 'redlock-cli sandbox stall-replication n2 --for 10s'],
  'scenario list': ['redlock-cli scenario list', 'redlock-cli scenario list --json'],
  'scenario show': ['redlock-cli scenario show gc-pause-no-fencing', 'redlock-cli scenario show ./my-race.yaml', 'redlock-cli scenario show gc-pause-no-fencing --json'],
  'scenario run': [
    'redlock-cli scenario run expired-lease-misdeletion',
    'redlock-cli scenario run master-failover-lock-loss --variant fixed --speed 0.5',
    'redlock-cli scenario run ./my-race.yaml --json > history.json',
    'redlock-cli scenario run --all',
  ],
  'target add': ['redlock-cli target add local redis://127.0.0.1:6379', 'redlock-cli target add prod redis://10.0.0.5:6379 --sentinel 10.0.0.5:26379 --master-name main'],
  'target list': ['redlock-cli target list', 'redlock-cli target list --json'],
  'target show': ['redlock-cli target show prod', 'redlock-cli target show prod --json'],
  'target remove': ['redlock-cli target remove staging', 'redlock-cli target remove old-prod'],
  'target use': ['redlock-cli target use prod', 'redlock-cli target use --clear'],
};

/** `sandbox up` for a subcommand, `acquire` for a top-level one. */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** The examples the table holds for a command path (empty when its help brings its own). */
export function examplesFor(path: string): readonly string[] {
  return EXAMPLES[path] ?? [];
}

/** Adds an "Examples:" block to every command of the tree that has one in the table. */
export function addExamples(program: Command, ctx: RunContext): void {
  const visit = (cmd: Command): void => {
    for (const sub of cmd.commands) {
      const examples = examplesFor(commandPath(sub));
      if (examples.length > 0) sub.addHelpText('after', prose(ctx, `\nExamples:\n${examples.map((e) => `  ${e}`).join('\n')}`));
      visit(sub);
    }
  };
  visit(program);
}
