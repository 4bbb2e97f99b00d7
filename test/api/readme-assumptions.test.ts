// README's "Assumptions about the API" must list every assumption in the operation table, so a
// deployment that differs can see at a glance what this project guessed. Adding an assumed operation
// to OPERATIONS without a README row fails here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPERATIONS, RPC_NAMES, isRpc } from '../../src/api/operations.js';
import { REPO } from '../helpers/cli.js';

const README = readFileSync(join(REPO, 'README.md'), 'utf8');

function section(title: string): string {
  const start = README.indexOf(`\n## ${title}\n`);
  expect(start, `README has no "## ${title}" section`).toBeGreaterThanOrEqual(0);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end === -1 ? undefined : end);
}

interface Row {
  rpc: string;
  status: string;
  scope: string;
  retry: string;
  assumption: string;
}

/** Rows of the form | `rpc` | status | scope | retry | assumption |. */
function tableRows(text: string): Row[] {
  const rows: Row[] = [];
  for (const line of text.split('\n')) {
    const match = /^\|\s*`([A-Za-z.]+)`\s*\|([^|]*)\|([^|]*)\|([^|]*)\|(.*)\|\s*$/.exec(line);
    if (!match) continue;
    const [, rpc, status, scope, retry, assumption] = match.map((cell) => cell.trim());
    rows.push({ rpc: rpc!, status: status!, scope: scope!, retry: retry!, assumption: assumption! });
  }
  return rows;
}

const rows = tableRows(section('Assumptions about the API'));
const byRpc = new Map(rows.map((row) => [row.rpc, row]));

describe('README: Assumptions about the API', () => {
  it('has a table', () => {
    expect(rows.length).toBeGreaterThan(0);
  });

  it.each(RPC_NAMES.filter((rpc) => OPERATIONS[rpc].status === 'assumed' || OPERATIONS[rpc].assumption).map((rpc) => [rpc]))(
    '%s has a row that matches OPERATIONS',
    (rpc) => {
      const row = byRpc.get(rpc);
      expect(row, `README "Assumptions about the API" has no row for ${rpc}`).toBeDefined();
      const info = OPERATIONS[rpc];
      expect(row).toMatchObject({ status: info.status, scope: info.scope, retry: info.retry });
      if (info.assumption) expect(row!.assumption).toBe(info.assumption);
    },
  );

  it('lists no operation that is not in OPERATIONS, and none twice', () => {
    for (const row of rows) expect(isRpc(row.rpc), `${row.rpc} is not an operation`).toBe(true);
    expect(byRpc.size).toBe(rows.length);
  });

  it('states the right counts', () => {
    const assumed = RPC_NAMES.filter((rpc) => OPERATIONS[rpc].status === 'assumed').length;
    expect(section('Assumptions about the API')).toContain(`${RPC_NAMES.length} operations in all, ${assumed} of them assumed`);
  });

  it('states the transport assumptions: error body, statuses, retries, key format', () => {
    const text = section('Assumptions about the API') + section('Talking to the API');
    for (const needle of ['{"error": {"code", "message", "details"?}}', 'retry-after', '429', '502, 503, 504', 'svc_<env>_<secret>', 'unimplemented']) {
      expect(text).toContain(needle);
    }
  });
});
