// The options of the repeat scripts (scenario-repeat.mjs, scenario-replay-repeat.mjs): -n runs,
// --hogs per core, -h, scenario names, and any option of the script's own (`extra`). A bad value
// or an unknown option is one line and the usage, exit 2.

const RUNS = { key: 'runs', initial: 10, valid: (v) => Number.isInteger(v) && v >= 1 && v <= 100, says: '-n takes a whole number of runs, 1 to 100' };
const HOGS = { key: 'hogs', initial: 0, valid: (v) => v >= 0 && v <= 8, says: '--hogs takes 0 to 8 CPU hogs per core' };

/** `extra`: `{ '--flag': { key, initial, valid(value), says } }`, numeric options only. */
export function parseRepeatArgs(argv, usage, extra = {}) {
  const options = { '-n': RUNS, '--runs': RUNS, '--hogs': HOGS, ...extra };
  const parsed = { names: [] };
  for (const o of Object.values(options)) parsed[o.key] = o.initial;
  const fail = (message) => {
    console.error(`${message}\n${usage}`);
    process.exit(2);
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const option = options[arg];
    if (option) {
      const value = Number(argv[++i]);
      if (!option.valid(value)) fail(option.says);
      parsed[option.key] = value;
    } else if (arg === '-h' || arg === '--help') {
      console.log(usage);
      process.exit(0);
    } else if (arg.startsWith('-')) fail(`unknown option ${arg}`);
    else parsed.names.push(arg);
  }
  return parsed;
}
