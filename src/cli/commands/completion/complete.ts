// What TAB offers after the words typed so far: commands and options from the commander program
// itself (never a list kept by hand), the choices of an option or argument, environment names after
// -e/--env and resource addresses after --target and --exclude, read from the project's files (project-names.ts).
import type { Command, Option } from 'commander';
import { projectAddresses, projectEnvironments } from './project-names.js';

/** Where the words leave the line: the command, an option waiting for its value, the project. */
interface LineState {
  command?: Command;
  /** The option whose value the current word is. */
  awaiting?: Option;
  positionals: string[];
  values: Map<string, string>;
}

function optionsOf(program: Command, command: Command | undefined): Option[] {
  return [...(command?.options ?? []), ...program.options].filter((option) => !option.hidden);
}

function findOption(options: readonly Option[], flag: string): Option | undefined {
  return options.find((option) => option.long === flag || option.short === flag);
}

function readLine(program: Command, typed: readonly string[]): LineState {
  const state: LineState = { positionals: [], values: new Map() };
  for (const word of typed) {
    if (state.awaiting && !(state.awaiting.variadic && word.startsWith('-') && state.values.has(state.awaiting.attributeName()))) {
      state.values.set(state.awaiting.attributeName(), word);
      if (!state.awaiting.variadic) state.awaiting = undefined;
      continue;
    }
    state.awaiting = undefined;
    if (word.startsWith('-')) {
      const [flag, inline] = word.split('=', 2) as [string, string | undefined];
      const option = findOption(optionsOf(program, state.command), flag);
      if (option && inline !== undefined) state.values.set(option.attributeName(), inline);
      else if (option && (option.required || option.optional)) state.awaiting = option;
    } else if (state.command === undefined) {
      state.command = program.commands.find((command) => command.name() === word || command.aliases().includes(word));
    } else {
      state.positionals.push(word);
    }
  }
  return state;
}

/** The project directory the line names: -C/--dir, else the command's directory argument, else `.`. */
function projectDirOf(state: LineState): string {
  const first = state.command?.registeredArguments[0]?.name();
  const positional = first === 'dir' || first === 'dir-or-plan' ? state.positionals[0] : undefined;
  return state.values.get('dir') ?? positional ?? '.';
}

async function valuesOf(option: Option, state: LineState, current: string): Promise<string[]> {
  if (option.argChoices) return option.argChoices;
  if (option.attributeName() === 'env') return projectEnvironments(projectDirOf(state));
  if (option.attributeName() === 'envs') {
    // A comma-separated list: complete its last name after the ones already typed.
    const typed = current.slice(0, current.lastIndexOf(',') + 1);
    const named = typed.split(',');
    return (await projectEnvironments(projectDirOf(state))).filter((name) => !named.includes(name)).map((name) => `${typed}${name}`);
  }
  // --exclude takes globs, but the addresses are what one usually narrows to.
  if (option.attributeName() === 'target' || option.attributeName() === 'exclude') return projectAddresses(projectDirOf(state), state.values.get('env'));
  return [];
}

export async function completionCandidates(program: Command, words: readonly string[]): Promise<string[]> {
  const current = words.at(-1) ?? '';
  const state = readLine(program, words.slice(0, -1));
  let candidates: string[];
  if (state.awaiting && !(current.startsWith('-') && state.values.has(state.awaiting.attributeName()))) {
    candidates = await valuesOf(state.awaiting, state, current);
  } else if (current.startsWith('-')) {
    candidates = optionsOf(program, state.command).flatMap((option) => [option.long, option.short].filter((flag): flag is string => flag !== undefined));
  } else if (state.command === undefined) {
    candidates = program
      .createHelp()
      .visibleCommands(program)
      .map((command) => command.name());
  } else {
    candidates = state.command.registeredArguments[state.positionals.length]?.argChoices ?? [];
  }
  return [...new Set(candidates)].filter((candidate) => candidate.startsWith(current));
}
