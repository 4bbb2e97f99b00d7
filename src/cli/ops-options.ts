// The flags every operations command takes (-e/--env, --dir, --json); the connection they select is
// opened by src/connect/project.ts.
import { Option, type Command } from 'commander';
import { dirOption } from './project-dir.js';

export interface OpsOptions {
  env?: string;
  dir?: string;
  json?: boolean;
}

/** -e/--env and --dir (plus --json unless the command says otherwise) on an operations command. */
export function addOpsOptions(command: Command, options: { json?: boolean } = {}): Command {
  command.addOption(new Option('-e, --env <name>', "an environment of the project's agentform.yaml (its url and token)")).addOption(dirOption());
  if (options.json !== false) command.addOption(new Option('--json', 'print the API answer as JSON, for scripts'));
  return command;
}
