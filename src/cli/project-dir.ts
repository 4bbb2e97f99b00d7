// One way to name the project directory on every command: `-C, --dir DIR`, and the positional
// argument where a command has one (plan, apply, validate, graph, init). Both at once must agree.
import { Option } from 'commander';
import { UserError } from '../errors.js';

export function dirOption(): Option {
  return new Option('-C, --dir <dir>', 'project directory, holding agentform.yaml (default: the current directory)');
}

/** The directory named by the positional argument or -C/--dir (default "."). */
export function projectDirFrom(positional: string | undefined, dir: string | undefined): string {
  if (positional !== undefined && dir !== undefined && positional !== dir) {
    throw new UserError(`two project directories: ${positional} and -C ${dir}`, 'name it once, as the argument or with -C/--dir');
  }
  return positional ?? dir ?? '.';
}
