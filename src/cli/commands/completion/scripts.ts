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
    compadd -- "\${(@)candidates}"
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
    set -l words (commandline -opc)
    # Quoted: an empty current word is still a word (after \`-e \`, the environment to complete).
    set -l current (commandline -ct)
    agentform __complete -- $words[2..-1] "$current" 2>/dev/null
end
# Asked once per TAB: with candidates, only they are offered; without, fish completes file names.
function __agentform_has_candidates
    set -g __agentform_candidates (__agentform_complete)
    test (count $__agentform_candidates) -gt 0
end
complete -c agentform -f -n __agentform_has_candidates -a '$__agentform_candidates'
`;

const SCRIPTS: Readonly<Record<CompletionShell, string>> = { bash: BASH, zsh: ZSH, fish: FISH };

export function completionScript(shell: CompletionShell): string {
  return SCRIPTS[shell];
}
