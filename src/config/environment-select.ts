// Which environment a command acts on: -e/--env, else the project's default, else its only one.
import { UserError } from '../errors.js';
import type { ProjectRoot } from './project.js';

export function pickEnvironment(project: Pick<ProjectRoot, 'environments' | 'defaultEnvironment'>, requested: string | undefined): string {
  const names = Object.keys(project.environments);
  if (requested) {
    if (!project.environments[requested]) {
      throw new UserError(`unknown environment ${requested}`, `the project declares: ${names.join(', ') || '(none)'}`).withCode('unknown_environment');
    }
    return requested;
  }
  if (project.defaultEnvironment) return project.defaultEnvironment;
  if (names.length === 1) return names[0] as string;
  throw new UserError('which environment? pass -e/--env', `the project declares: ${names.join(', ')}`).withCode('environment_required');
}
