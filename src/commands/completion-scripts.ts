import { COMPLETION_WALK } from './completion-walk.js';

// The scripts `redlock-cli completion <shell>` prints. Each carries the command tree as a table
// (core/completion-table.ts) and an awk program that walks it (completion-walk.ts), so a Tab on
// a command, an option or a fixed value (kinds, shells, scenario names) starts no node at all.
// Where a lock key goes the walk prints `:keys` and what the key cache needs (the word, the
// line's connection options), and the script runs `redlock-cli __complete --keys` on them; where
// saved targets go it prints `:ask`, and the script runs `redlock-cli __complete` on the line.
// The table is this install's: a saved script is saved again after an upgrade. REDLOCK_CLI_BIN
// tells awk the command the line runs, for the key cache's background refresh.

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

// Every answer ends with a directive line, `:files` or `:`: file names are offered only when it
// says they fit (a path, the command hold runs), never where a key, a kind or a name goes.

const TABLE_END = 'REDLOCK_CLI_TABLE';

/** bash and zsh share the function that runs the walk: the program in single quotes, the table as a quoted here-document. */
function answerFunction(table: string): string {
  if (COMPLETION_WALK.includes("'")) throw new Error('the completion walk must hold no single quote: the scripts quote it in them');
  if (table.split('\n').includes(TABLE_END)) throw new Error(`a completion table line reads ${TABLE_END}`);
  return `# awk walks the table below: it prints what __complete --files-line would, or :keys or :ask.
_redlock_cli_answer() {
  awk -- '${COMPLETION_WALK}' "$@" <<'${TABLE_END}'
${table}${TABLE_END}
}`;
}

const HEADER = (shell: string, lines: string): string => `# ${shell} completion for redlock-cli
${lines}
# Commands, options and fixed values are answered by awk over the table in this script, without
# starting redlock-cli: save the script again after upgrading redlock-cli. Lock keys and saved
# targets come from \`redlock-cli __complete\` (keys from a cache it refreshes in the background).`;

// COMP_WORDBREAKS is a shell variable: pass it along so `--kind=fa` and `host:port` are rejoined.
const bash = (table: string): string => `${HEADER(
  'bash',
  `# this shell:  source <(redlock-cli completion bash)     (add that line to ~/.bashrc to keep it)
# or save it:  redlock-cli completion bash > ~/.local/share/bash-completion/completions/redlock-cli`,
)}
${answerFunction(table)}
_redlock_cli_lines() {
  local line
  lines=()
  while IFS= read -r line; do
    lines+=("$line")
  done
}
_redlock_cli_complete() {
  local directive
  local -a lines words=("\${COMP_WORDS[@]:1:COMP_CWORD}")
  COMPREPLY=()
  _redlock_cli_lines < <(COMP_WORDBREAKS="$COMP_WORDBREAKS" REDLOCK_CLI_BIN="\${COMP_WORDS[0]}" _redlock_cli_answer bash "\${words[@]}" 2>/dev/null)
  if [[ \${lines[0]} == :keys ]]; then
    _redlock_cli_lines < <(COMP_WORDBREAKS="$COMP_WORDBREAKS" "\${COMP_WORDS[0]}" __complete --keys bash "\${lines[@]:1}" 2>/dev/null)
  elif [[ \${lines[0]} == :ask ]]; then
    _redlock_cli_lines < <(COMP_WORDBREAKS="$COMP_WORDBREAKS" "\${COMP_WORDS[0]}" __complete --shell bash --files-line -- "\${words[@]}" 2>/dev/null)
  fi
  (( \${#lines[@]} > 0 )) || return 0
  directive=\${lines[\${#lines[@]}-1]}
  unset "lines[\${#lines[@]}-1]"
  COMPREPLY=("\${lines[@]}")
  if [[ $directive == :files ]]; then compopt -o default 2>/dev/null; fi
  return 0
}
complete -F _redlock_cli_complete redlock-cli
`;

// Named _redlock-cli so the file works both sourced and autoloaded from $fpath (where the file
// body is the function: then it completes, otherwise it registers itself).
const zsh = (table: string): string => `#compdef redlock-cli
${HEADER(
  'zsh',
  `# this shell:  source <(redlock-cli completion zsh)       (after compinit)
# or save it:  redlock-cli completion zsh > "\${fpath[1]}/_redlock-cli"`,
)}
${answerFunction(table)}
_redlock-cli() {
  local -a lines values displays
  local line directive
  lines=("\${(@f)$(REDLOCK_CLI_BIN=\${words[1]} _redlock_cli_answer zsh "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  if [[ $lines[1] == :keys ]]; then
    lines=("\${(@f)$("\${words[1]}" __complete --keys zsh "\${(@)lines[2,-1]}" 2>/dev/null)}")
  elif [[ $lines[1] == :ask ]]; then
    lines=("\${(@f)$("\${words[1]}" __complete --shell zsh --files-line -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  fi
  directive=\${lines[-1]}
  for line in "\${(@)lines[1,-2]}"; do
    [[ -n $line ]] || continue
    values+=("\${line%%$'\\t'*}")
    if [[ $line == *$'\\t'* ]]; then
      displays+=("\${line%%$'\\t'*}  -- \${line#*$'\\t'}")
    else
      displays+=("$line")
    fi
  done
  if (( \${#values} == 0 )); then
    [[ $directive == :files ]] && _files
    return
  fi
  compadd -l -d displays -- "\${values[@]}"
}
if [[ "\${funcstack[1]}" == "_redlock-cli" ]]; then
  _redlock-cli "$@"
else
  compdef _redlock-cli redlock-cli
fi
`;

/** fish single quotes: only \\ and \\' are special. */
const fishQuoted = (text: string): string => `'${text.replace(/[\\']/g, '\\$&')}'`;

const fish = (table: string): string => `${HEADER(
  'fish',
  `# this shell:  redlock-cli completion fish | source
# or save it:  redlock-cli completion fish > ~/.config/fish/completions/redlock-cli.fish`,
)}
set -g __redlock_cli_walk ${fishQuoted(COMPLETION_WALK)}
set -g __redlock_cli_table ${fishQuoted(table)}
function __redlock_cli_complete
    set -l tokens (commandline -opc)
    set -l words $tokens[2..-1] (commandline -ct)
    set -lx REDLOCK_CLI_BIN $tokens[1]
    set -l out (printf '%s' $__redlock_cli_table | awk -- $__redlock_cli_walk fish $words 2>/dev/null)
    if test "$out[1]" = :keys
        set out ($tokens[1] __complete --keys fish $out[2..-1] 2>/dev/null)
    else if test "$out[1]" = :ask
        set out ($tokens[1] __complete --shell fish --files-line -- $words 2>/dev/null)
    end
    test (count $out) -gt 0; or return
    set -l directive $out[-1]
    set -e out[-1]
    if test (count $out) -gt 0
        printf '%s\\n' $out
    else if test "$directive" = :files
        __fish_complete_path (commandline -ct)
    end
end
complete -c redlock-cli -f -a '(__redlock_cli_complete)'
`;

/** The completion script for one shell, carrying `table` (core/completion-table.ts). */
export function completionScript(shell: Shell, table: string): string {
  return shell === 'bash' ? bash(table) : shell === 'zsh' ? zsh(table) : fish(table);
}
