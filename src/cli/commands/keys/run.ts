// keys create: the token is the one secret this CLI ever receives. It goes to exactly one place:
// a new file with mode 0600 (written atomically), or stdout when --show-token asks for it.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { UserError } from '../../../errors.js';
import { renderCreatedKey, renderRevokedKey } from '../../../render/ops/keys.js';
import { writeFileAtomic } from '../../../util/atomic-write.js';
import type { GlobalOptions } from '../../global-options.js';
import { withConnection } from '../../../connect/project.js';
import type { OpsOptions } from '../../ops-options.js';
import { printJson } from '../../terminal.js';
import { parseExpiry } from '../usage/period.js';
import type { CreateKeyOptions } from './options.js';
import { resolveNameOrId } from '../../../state/by-name.js';
import { didYouMean } from '../../../config/suggest.js';

const KNOWN_SCOPES = ['read', 'control'];

export function parseScopes(value: string): string[] {
  const scopes = [
    ...new Set(
      value
        .split(',')
        .map((scope) => scope.trim())
        .filter((scope) => scope !== ''),
    ),
  ];
  if (scopes.length === 0) throw new UserError('--scopes is empty: give read, control or both (comma-separated)');
  const unknown = scopes.filter((scope) => !KNOWN_SCOPES.includes(scope));
  if (unknown.length > 0) {
    const hint = unknown.length === 1 ? didYouMean(unknown[0] as string, KNOWN_SCOPES) : '';
    throw new UserError(`unknown scope${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')}: the API knows ${KNOWN_SCOPES.join(' and ')}${hint}`);
  }
  return scopes;
}

export async function runCreateKey(name: string, options: CreateKeyOptions, globals: GlobalOptions): Promise<void> {
  // Everything is checked before the key exists: a key whose token has nowhere to go is lost.
  const scopes = parseScopes(options.scopes);
  if (options.tokenFile && options.showToken) throw new UserError('choose one of --token-file and --show-token');
  if (!options.tokenFile && !options.showToken) {
    throw new UserError(
      'where should the token go? It is shown only once',
      'pass --token-file FILE (written with mode 0600) or --show-token (printed on stdout)',
    );
  }
  const tokenFile = options.tokenFile ? resolve(options.tokenFile) : undefined;
  if (tokenFile && existsSync(tokenFile))
    throw new UserError(
      `${options.tokenFile} already exists: refusing to overwrite what may be another key's token`,
      'choose a new file name, or remove the old file first',
    );
  const expiresAt = options.expires ? parseExpiry(options.expires, new Date()) : undefined;

  await withConnection(options, globals, async ({ client }) => {
    const { key, token } = await client.call('apiKeys.create', { key: { name, scopes, ...(expiresAt ? { expiresAt } : {}) } });
    if (tokenFile) {
      try {
        await writeFileAtomic(tokenFile, `${token}\n`, { mode: 0o600 });
      } catch (error) {
        throw new UserError(
          `key ${name} was created (id ${key.id}) but its token could not be written to ${options.tokenFile}: ${error instanceof Error ? error.message : String(error)}`,
          `the token is lost; revoke the key with: agentform keys revoke ${key.id}`,
        );
      }
      if (options.json) printJson({ key, tokenFile: options.tokenFile });
      else process.stdout.write(`${renderCreatedKey(key, options.tokenFile)}\n`);
      return;
    }
    if (options.json) printJson({ key, token });
    else process.stdout.write(`${renderCreatedKey(key, undefined)}\n${token}\n`);
  });
}

export async function runRevokeKey(given: string, options: OpsOptions, globals: GlobalOptions): Promise<void> {
  await withConnection(options, globals, async ({ client }) => {
    const { id } = await resolveNameOrId(
      'API key',
      given,
      'key',
      () => client.call('apiKeys.list', {}),
      (key) => !key.revokedAt,
    );
    const key = await client.call('apiKeys.revoke', { id });
    if (options.json) printJson(key);
    else process.stdout.write(`${renderRevokedKey(key)}\n`);
  });
}
