import { Argument, type Command } from 'commander';
import { COMPLETION_SHELLS, type CompletionShell, completionScript } from './scripts.js';

/** `agentform completion SHELL`: prints the script that completes agentform in that shell. */
export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .description('print a shell completion script: source <(agentform completion bash)')
    .addArgument(new Argument('<shell>', 'the shell').choices(COMPLETION_SHELLS))
    .action((shell: CompletionShell) => {
      process.stdout.write(completionScript(shell));
    });
}

/**
 * `agentform __complete -- WORDS...` (hidden): what the scripts call on TAB, with the words after
 * `agentform`, the last being the one completed; prints the candidates, one a line. The whole
 * program is registered for it (commandsFor), so commands and options come from commander.
 */
export function registerComplete(program: Command): void {
  program
    .command('__complete', { hidden: true })
    .argument('[words...]')
    .allowUnknownOption()
    .helpOption(false)
    .action(async (words: string[] | undefined) => {
      const { completionCandidates } = await import('./complete.js');
      const candidates = await completionCandidates(program, words ?? []);
      process.stdout.write(candidates.map((candidate) => `${candidate}\n`).join(''));
    });
}
