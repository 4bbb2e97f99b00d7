// The loops and checks inside the operations commands, without a server: a fake caller scripts
// the answers, so the bounds and the "each event once" rule are checked exactly.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RequestOf, ResponseOf, Rpc, RpcCaller } from '../../../src/api/operations.js';
import { redeliverAll } from '../../../src/cli/commands/hooks/run.js';
import { parseScopes } from '../../../src/cli/commands/keys/run.js';
import { followEvents } from '../../../src/cli/commands/sessions/run.js';
import { usesProject } from '../../../src/connect/project.js';
import { progressEnabled } from '../../../src/cli/terminal.js';
import type { SessionEvent } from '../../../src/model/api.js';

describe('redeliverAll', () => {
  function scripted(answers: Array<{ requeued: number; more: boolean }>) {
    let calls = 0;
    return {
      call: async () => answers[Math.min(calls++, answers.length - 1)] as { requeued: number; more: boolean },
      calls: () => calls,
    };
  }

  it.each([
    ['one call when nothing more', [{ requeued: 5, more: false }], 100, { requeued: 5, calls: 1, more: false }],
    [
      'again while more is true',
      [
        { requeued: 100, more: true },
        { requeued: 100, more: true },
        { requeued: 7, more: false },
      ],
      100,
      { requeued: 207, calls: 3, more: false },
    ],
    ['stops at the bound', [{ requeued: 100, more: true }], 4, { requeued: 400, calls: 4, more: true }],
    [
      'stops when more stays true but nothing moves',
      [
        { requeued: 10, more: true },
        { requeued: 0, more: true },
      ],
      100,
      { requeued: 10, calls: 4, more: true },
    ],
    ['nothing to do', [{ requeued: 0, more: false }], 100, { requeued: 0, calls: 1, more: false }],
  ])('%s', async (_name, answers, maxCalls, expected) => {
    const server = scripted(answers);
    expect(await redeliverAll(server.call, maxCalls, false)).toEqual(expected);
    expect(server.calls()).toBe(expected.calls);
  });
});

describe('followEvents', () => {
  const event = (seq: number, type = 'tool.called'): SessionEvent => ({ seq, sessionId: 's', at: '2026-05-17T09:00:00Z', type });

  it('prints every event once, in seq order, across polls that repeat and reorder them', async () => {
    const polls: SessionEvent[][] = [
      [event(2), event(1, 'session.started')],
      [event(1, 'session.started'), event(3), event(2)],
      [event(4, 'session.completed'), event(3), event(2), event(1)],
    ];
    const stop = new AbortController();
    let calls = 0;
    const client: RpcCaller = {
      async call<R extends Rpc>(rpc: R, request: RequestOf<R>): Promise<ResponseOf<R>> {
        expect(rpc).toBe('sessions.events');
        expect(request).toEqual({ id: 's' });
        const answer = polls[Math.min(calls, polls.length - 1)];
        calls += 1;
        if (calls >= polls.length + 2) stop.abort();
        return answer as ResponseOf<R>;
      },
    };
    const printed: number[] = [];
    await followEvents(client, 's', [], 1, stop.signal, (item) => printed.push(item.seq));
    expect(printed).toEqual([1, 2, 3, 4]);
    expect(calls).toBe(polls.length + 2);
  });

  it('applies --type to what it prints, and never prints a filtered event later', async () => {
    const stop = new AbortController();
    let calls = 0;
    const client: RpcCaller = {
      async call<R extends Rpc>(): Promise<ResponseOf<R>> {
        calls += 1;
        if (calls === 3) stop.abort();
        return [event(1, 'session.started'), event(2), ...(calls > 1 ? [event(3, 'session.completed')] : [])] as ResponseOf<R>;
      },
    };
    const printed: string[] = [];
    await followEvents(client, 's', ['session.*'], 1, stop.signal, (item) => printed.push(`${item.seq}:${item.type}`));
    expect(printed).toEqual(['1:session.started', '3:session.completed']);
  });
});

describe('parseScopes', () => {
  it.each([
    ['read', ['read']],
    ['read,control', ['read', 'control']],
    [' control , read ,read', ['control', 'read']],
  ])('%j → %j', (value, scopes) => {
    expect(parseScopes(value)).toEqual(scopes);
  });

  it.each([
    [',', /--scopes is empty/],
    ['read,admin', /unknown scope admin: the API knows read and control/],
    ['write,admin', /unknown scopes write, admin/],
    ['reed', /unknown scope reed: the API knows read and control; did you mean "read"\?/],
  ])('refuses %j', (value, message) => {
    expect(() => parseScopes(value)).toThrow(message);
  });
});

describe('ops-client rules', () => {
  it('uses the project with -e, or when the directory holds agentform.yaml', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'agentform-ops-rule-'));
    const withProject = await mkdtemp(join(tmpdir(), 'agentform-ops-rule-'));
    await writeFile(join(withProject, 'agentform.yaml'), 'version: 1\n');
    expect(usesProject({}, empty)).toBe(false);
    expect(usesProject({ env: 'dev' }, empty)).toBe(true);
    expect(usesProject({}, withProject)).toBe(true);
    expect(usesProject({ dir: withProject }, empty)).toBe(true);
  });

  it.each([
    [true, {}, true],
    [true, { CI: 'true' }, false],
    [true, { CI: 'false' }, true],
    [false, {}, false],
  ])('progress on a TTY=%s with %j: %s', (isTTY, env, shown) => {
    expect(progressEnabled({ isTTY } as NodeJS.WriteStream, env)).toBe(shown);
  });
});
