import type { RpcCaller } from '../../../api/operations.js';
import { ApiError, UserError } from '../../../errors.js';
import type { Connection } from '../../../model/api.js';
import { renderGrants, renderTools } from '../../../render/ops/connections.js';
import type { GlobalOptions } from '../../global-options.js';
import { withConnection } from '../../../connect/project.js';
import type { OpsOptions } from '../../ops-options.js';
import { printJson } from '../../terminal.js';
import type { GrantsOptions } from './options.js';

/** NAME → connection, by listing (connections.list is an assumed operation: say so if it is missing). */
export async function findConnection(client: RpcCaller, name: string): Promise<Connection> {
  let connections: Connection[];
  try {
    connections = await client.call('connections.list', {});
  } catch (error) {
    if (error instanceof ApiError && error.isUnimplemented) {
      throw new UserError(
        `cannot find connection ${name}: the server does not offer connections.list (an assumed operation)`,
        'see "Assumptions about the API" in README',
      );
    }
    throw error;
  }
  const found = connections.find((connection) => connection.name === name);
  if (!found) {
    const names = connections.map((connection) => connection.name).sort();
    throw new UserError(
      `no connection named ${name} in this environment`,
      names.length > 0 ? `the environment has: ${names.join(', ')}` : 'the environment has no connections',
    );
  }
  return found;
}

export async function runTest(name: string, options: OpsOptions, globals: GlobalOptions): Promise<void> {
  await withConnection(options, globals, async ({ client }) => {
    const connection = await findConnection(client, name);
    const answer = await client.call('connections.test', { id: connection.id });
    if (options.json) printJson(answer);
    else process.stdout.write(`${renderTools(name, answer.tools ?? [])}\n`);
  });
}

export async function runGrants(options: GrantsOptions, globals: GlobalOptions): Promise<void> {
  await withConnection(options, globals, async ({ client }) => {
    let grants = await client.call('connections.grants.list', {});
    if (options.connection) {
      const connection = await findConnection(client, options.connection);
      grants = grants.filter((grant) => grant.connectionId === connection.id);
    }
    if (options.json) printJson(grants);
    else process.stdout.write(`${renderGrants(grants, new Date())}\n`);
  });
}
