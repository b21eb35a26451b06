// The scripts `redlock-cli completion <shell>` prints. They hold no command names: each Tab runs
// the hidden `redlock-cli __complete`, which walks the live command tree and reads saved targets
// and shipped scenarios, so completions follow upgrades without regenerating the script.

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

// With --files-line every answer ends with a directive line, `:files` or `:`: file names are
// offered only when it says they fit (a path, the command hold runs), never where a key, a kind or
// a name goes. A script saved before that flag existed asks without it and gets no such line.

// COMP_WORDBREAKS is a shell variable: pass it along so `--kind=fa` and `host:port` are rejoined.
const BASH = `# bash completion for redlock-cli
# this shell:  source <(redlock-cli completion bash)     (add that line to ~/.bashrc to keep it)
# or save it:  redlock-cli completion bash > ~/.local/share/bash-completion/completions/redlock-cli
_redlock_cli_complete() {
  local line directive
  local -a lines=()
  COMPREPLY=()
  while IFS= read -r line; do
    lines+=("$line")
  done < <(COMP_WORDBREAKS="$COMP_WORDBREAKS" "\${COMP_WORDS[0]}" __complete --shell bash --files-line -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
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
const ZSH = `#compdef redlock-cli
# zsh completion for redlock-cli
# this shell:  source <(redlock-cli completion zsh)       (after compinit)
# or save it:  redlock-cli completion zsh > "\${fpath[1]}/_redlock-cli"
_redlock-cli() {
  local -a lines values displays
  local line directive
  lines=("\${(@f)$("\${words[1]}" __complete --shell zsh --files-line -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
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

const FISH = `# fish completion for redlock-cli
# this shell:  redlock-cli completion fish | source
# or save it:  redlock-cli completion fish > ~/.config/fish/completions/redlock-cli.fish
function __redlock_cli_complete
    set -l tokens (commandline -opc)
    set -l out ($tokens[1] __complete --shell fish --files-line -- $tokens[2..-1] (commandline -ct) 2>/dev/null)
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

/** The completion script for one shell. */
export function completionScript(shell: Shell): string {
  return shell === 'bash' ? BASH : shell === 'zsh' ? ZSH : FISH;
}
