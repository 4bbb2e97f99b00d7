// The completion scripts. Each hands the words typed so far to `agentform __complete` and offers
// what it prints; when it prints nothing (a directory, a file), the shell completes file names.
export const COMPLETION_SHELLS = ['bash', 'zsh', 'fish'] as const;
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

const BASH = `# agentform completion for bash. Load it with: source <(agentform completion bash)
_agentform_complete() {
  local IFS=$'\\n'
  COMPREPLY=($(agentform __complete -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -o default -F _agentform_complete agentform
`;

const ZSH = `#compdef agentform
# agentform completion for zsh. Load it (after compinit) with: source <(agentform completion zsh)
_agentform_complete() {
  local -a candidates
  candidates=("\${(@f)$(agentform __complete -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  candidates=("\${(@)candidates:#}")
  if (( \${#candidates} )); then
    compadd -Q -- "\${(@)candidates}"
  else
    _files
  fi
}
if (( $+functions[compdef] )); then
  compdef _agentform_complete agentform
fi
`;

const FISH = `# agentform completion for fish. Load it with: agentform completion fish | source
function __agentform_complete
    set -l words (commandline -opc) (commandline -ct)
    agentform __complete -- $words[2..-1] 2>/dev/null
end
complete -c agentform -a '(__agentform_complete)'
`;

const SCRIPTS: Readonly<Record<CompletionShell, string>> = { bash: BASH, zsh: ZSH, fish: FISH };

export function completionScript(shell: CompletionShell): string {
  return SCRIPTS[shell];
}
