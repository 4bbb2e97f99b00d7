// The command-line edge of change windows: `--break-glass "REASON"` with who breaks it (from the CI
// environment), and the clock. AGENTFORM_NOW sets "now" for tests and for rehearsing a freeze
// ("would this apply be refused on 24 December?"); it is read here only, never in the core.
import { appendFileSync } from 'node:fs';
import { Option } from 'commander';
import { UserError } from '../errors.js';
import type { BreakGlassRequest } from '../safety/change-windows.js';
import { type BreakGlass, parseInstant } from '../engine/change-windows.js';
import { breakGlassMarkdown } from '../render/change-windows.js';

export function breakGlassOption(): Option {
  return new Option('--break-glass <reason>', 'write even inside a change window of agentform.yaml; the reason is recorded with who and when');
}

/** Who is acting: AGENTFORM_ACTOR, else the CI's user (GitHub, GitLab), else the login name. */
export function actorOf(env: NodeJS.ProcessEnv): string {
  for (const name of ['AGENTFORM_ACTOR', 'GITHUB_ACTOR', 'GITLAB_USER_LOGIN', 'USER', 'USERNAME']) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return 'unknown';
}

/** The --break-glass request, if given; an empty reason is a usage error. */
export function breakGlassRequest(reason: string | undefined, env: NodeJS.ProcessEnv): BreakGlassRequest | undefined {
  if (reason === undefined) return undefined;
  if (reason.trim() === '') throw new UserError('--break-glass needs a reason: --break-glass "hotfix for incident 4711"');
  return { reason: reason.trim(), actor: actorOf(env) };
}

/** Now, or AGENTFORM_NOW (an ISO 8601 instant with its offset) when set. */
export function nowOf(env: NodeJS.ProcessEnv): Date {
  const text = env.AGENTFORM_NOW;
  if (text === undefined || text === '') return new Date();
  const now = parseInstant(text);
  if (!now) throw new UserError(`AGENTFORM_NOW must be an ISO 8601 date and time with its offset (2026-12-24T10:00:00+01:00), not ${text}`);
  return now;
}

/**
 * In GitHub Actions, the break-glass record also goes to the job's Markdown summary
 * ($GITHUB_STEP_SUMMARY), where reviewers of the run see it beside the plan's.
 */
export function recordBreakGlassSummary(command: string, environment: string, record: BreakGlass, env: NodeJS.ProcessEnv): void {
  const file = env.GITHUB_STEP_SUMMARY;
  if (file) appendFileSync(file, `${breakGlassMarkdown(command, environment, record)}\n`);
}
