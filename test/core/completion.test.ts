import { describe, expect, it } from 'vitest';
import { completeWords, forBash, joinBashWords, type CommandNode, type OptionNode, type Sources } from '../../src/core/completion.js';

const opt = (flags: string[], value: OptionNode['value'] = 'none', extra: Partial<OptionNode> = {}): OptionNode => ({ flags, description: flags.join(' '), value, ...extra });
const cmd = (name: string, extra: Partial<CommandNode> = {}): CommandNode => ({
  name, aliases: [], description: `${name} things`, hidden: false, options: [opt(['-h', '--help'])], args: [], subcommands: [], ...extra,
});

// A tree shaped like the real one, with a scenario command the way its author may spell it.
const root = cmd('redlock-cli', {
  options: [opt(['--debug']), opt(['-V', '--version'])],
  subcommands: [
    cmd('scenario', {
      subcommands: [
        cmd('run', { args: [{ name: 'name-or-path', variadic: false }].map((a) => ({ ...a, source: 'scenario' as const })), options: [opt(['--variant'], 'required'), opt(['--json'])] }),
        cmd('show', { args: [{ name: 'scenario', variadic: false, source: 'scenario' }] }),
      ],
    }),
    cmd('hold', { args: [{ name: 'key', variadic: false }, { name: 'command', variadic: true }], options: [opt(['--target'], 'required', { source: 'target' }), opt(['--color'], 'optional', { choices: ['on', 'off'] })] }),
    cmd('__complete', { hidden: true }),
    cmd('target', { aliases: ['t'], subcommands: [cmd('show', { args: [{ name: 'name', variadic: false, source: 'target' }] })] }),
  ],
});

const sources: Sources = {
  target: () => [{ value: 'prod', description: 'rediss://app:***@h:6380' }, { value: 'staging' }],
  scenario: () => [{ value: 'expired-lease-misdeletion' }, { value: 'failover-lost-lock' }],
};
const values = (...words: string[]): string[] => completeWords(root, words, sources).map((c) => c.value);

describe('completeWords', () => {
  it('offers visible subcommands with their descriptions, through aliases too', () => {
    expect(completeWords(root, [''], sources)).toEqual([
      { value: 'scenario', description: 'scenario things' },
      { value: 'hold', description: 'hold things' },
      { value: 'target', description: 'target things' },
    ]);
    expect(values('t', 'sh')).toEqual(['show']);
    expect(values('t', 'show', '')).toEqual(['prod', 'staging']);
  });

  it('completes scenario names for arguments and options that name scenarios', () => {
    expect(values('scenario', 'run', 'f')).toEqual(['failover-lost-lock']);
    expect(values('scenario', 'show', '')).toEqual(['expired-lease-misdeletion', 'failover-lost-lock']);
    expect(values('scenario', 'run', 'x', '')).toEqual([]); // one name only
  });

  it('offers the leaf options, then the global ones, minus those given', () => {
    expect(values('scenario', 'run', '--')).toEqual(['--variant', '--json', '--help', '--debug', '--version']);
    expect(values('scenario', 'run', '--json', '--j')).toEqual([]);
    expect(values('--debug', 'hold', '--d')).toEqual([]);
  });

  it('an option value is never taken for a subcommand or positional', () => {
    expect(values('scenario', 'run', '--variant', 'x', '')).toEqual(['expired-lease-misdeletion', 'failover-lost-lock']);
    expect(values('hold', '--target', 'prod', 'k', '--')).toContain('--color');
  });

  it('an optional value is taken only when it does not look like an option', () => {
    expect(values('hold', '--color', '')).toEqual(['on', 'off']);
    expect(values('hold', '--color', '--target', '')).toEqual(['prod', 'staging']);
  });

  it('--flag=value completes as one word', () => {
    expect(values('hold', '--target=p')).toEqual(['--target=prod']);
    expect(values('hold', '--help=')).toEqual([]);
  });

  it('completes nothing past -- (the held command belongs to the shell)', () => {
    expect(values('hold', 'k', '--', '')).toEqual([]);
    expect(values('hold', 'k', '--', '--t')).toEqual([]);
  });
});

describe('bash word breaks', () => {
  const breaks = ' \t\n"\'><=;|&(:';
  it('rejoins what bash split at = and :', () => {
    expect(joinBashWords(['-u', 'redis', ':', '//h', ':', '1', '--kind', '=', 'f'], breaks)).toEqual(['-u', 'redis://h:1', '--kind=f']);
    expect(joinBashWords(['--kind', '='], breaks)).toEqual(['--kind=']);
    expect(joinBashWords(['a', ''], breaks)).toEqual(['a', '']);
    expect(joinBashWords(['--kind', '=', 'f'], ' \t\n')).toEqual(['--kind', '=', 'f']);
  });

  it('hands bash only the text after the last break in the word', () => {
    expect(forBash([{ value: '--kind=fair' }], '--kind=f', breaks)).toEqual(['fair']);
    expect(forBash([{ value: 'redis://h:1' }], 'redis://h:', breaks)).toEqual(['1']);
    expect(forBash([{ value: 'prod' }], 'p', breaks)).toEqual(['prod']);
  });
});
