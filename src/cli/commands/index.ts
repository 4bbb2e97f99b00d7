// The command list. Each folder's index.ts exports `register(program, outcome)`, which only declares
// options; its run module (and every heavy layer) is imported inside the action.
import type { Command } from 'commander';
import type { CommandOutcome } from './outcome.js';
import { register as apply } from './apply/index.js';
import { register as graph } from './graph/index.js';
import { register as plan } from './plan/index.js';
import { register as schema } from './schema/index.js';
import { register as server } from './server/index.js';
import { register as validate } from './validate/index.js';
import { register as whoami } from './whoami/index.js';
import { register as hooks } from './hooks/index.js';
import { register as sessions } from './sessions/index.js';
import { register as usage } from './usage/index.js';
import { register as sandboxes } from './sandboxes/index.js';
import { register as connections } from './connections/index.js';
import { register as providers } from './providers/index.js';
import { register as keys } from './keys/index.js';
import { register as secrets } from './secrets/index.js';
import { register as org } from './org/index.js';
import { register as env } from './env/index.js';
import { register as exportCommand } from './export/index.js';
import { register as diffEnvs } from './diff-envs/index.js';
import { register as promote } from './promote/index.js';
import { register as history } from './history/index.js';
import { register as rollback } from './rollback/index.js';
import { register as init } from './init/index.js';
import { register as lock } from './lock/index.js';
import { register as check } from './check/index.js';
import { register as mcp } from './mcp/index.js';
import { registerComplete, registerCompletion } from './completion/index.js';
import { register as drift } from './drift/index.js';
import { register as test } from './test/index.js';

type Register = (program: Command, outcome: CommandOutcome) => void;

/** Every command by the name it is invoked with, in the order `--help` lists them. */
export const COMMANDS: Readonly<Record<string, Register>> = {
  init,
  plan,
  apply,
  drift,
  graph,
  validate,
  check,
  test,
  schema,
  whoami,
  hooks,
  sessions,
  usage,
  sandboxes,
  connections,
  providers,
  keys,
  secrets,
  org,
  env,
  server,
  export: exportCommand,
  'diff-envs': diffEnvs,
  promote,
  history,
  rollback,
  lock,
  mcp,
  completion: registerCompletion,
};

/**
 * The commands a run needs: the one named on the line, none for `--version` alone, or all of them
 * (no command, a typo, `help`: commander lists or suggests from what is registered). Declaring every command's options was a
 * few ms of every run.
 */
export function commandsFor(argv: readonly string[]): Register[] {
  const args = argv.slice(2);
  // The completion scripts' hidden helper reads the commands and options of the whole program
  // (and the words it completes may name any command).
  if (args[0] === '__complete') return [...Object.values(COMMANDS), registerComplete];
  const named = args.find((argument) => Object.hasOwn(COMMANDS, argument));
  if (named !== undefined) return [COMMANDS[named]!];
  // `agentform --version` prints the version and ends: no command is needed.
  return args.length === 1 && (args[0] === '--version' || args[0] === '-V') ? [] : Object.values(COMMANDS);
}
