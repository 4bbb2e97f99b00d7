// The operations tables, each checked in full on a small input: what a person sees is the contract.
import { describe, expect, it } from 'vitest';
import type { ConnectionGrant, PendingToolCall, Sandbox, SessionEvent, ToolDescriptor } from '../../../src/model/api.js';
import { renderEnvironment, renderOrganization } from '../../../src/render/ops/account.js';
import { annotationWords, renderGrants, renderTools } from '../../../src/render/ops/connections.js';
import { renderDelivery, renderRedeliverAll } from '../../../src/render/ops/hooks.js';
import { renderCreatedKey, renderRevokedKey } from '../../../src/render/ops/keys.js';
import { renderModels } from '../../../src/render/ops/providers.js';
import { renderSandboxes } from '../../../src/render/ops/sandboxes.js';
import { filterEvents, renderEventLine, renderEvents, renderPending } from '../../../src/render/ops/sessions.js';

const NOW = new Date('2026-05-17T09:30:00.000Z');

const events: SessionEvent[] = [
  { seq: 2, sessionId: 's1', at: '2026-05-17T09:00:01.123Z', type: 'tool.called', agentVersion: 3, identity: { scope: 'user', id: 'u1', display: 'Ada' } },
  { seq: 1, sessionId: 's1', at: '2026-05-17T09:00:00.000Z', type: 'session.started', agentVersion: 3, identity: { scope: 'user', id: 'u1' } },
  { seq: 3, sessionId: 's1', at: '2026-05-17T09:00:02.000Z', type: 'session.ended' },
];

describe('sessions', () => {
  it('renders events in seq order', () => {
    expect(renderEvents(events)).toBe(
      [
        'SEQ  TIME                  TYPE             AGENT VERSION  IDENTITY',
        '  1  2026-05-17T09:00:00Z  session.started             v3  user:u1',
        '  2  2026-05-17T09:00:01Z  tool.called                 v3  user:u1 (Ada)',
        '  3  2026-05-17T09:00:02Z  session.ended                -  -',
      ].join('\n'),
    );
    expect(renderEvents([])).toBe('No events.');
    expect(renderEventLine(events[0] as SessionEvent)).toBe('#2  2026-05-17T09:00:01Z  tool.called  v3  user:u1 (Ada)');
  });

  it.each([
    [[], [2, 1, 3]],
    [['session.started'], [1]],
    [['session.*'], [1, 3]],
    [
      ['tool.called', 'session.ended'],
      [2, 3],
    ],
    [['nothing'], []],
  ])('filterEvents(%j)', (types, seqs) => {
    expect(filterEvents(events, types).map((event) => event.seq)).toEqual(seqs);
  });

  it('renders pending calls with who asked and when they expire', () => {
    const calls: PendingToolCall[] = [
      {
        toolCallId: 'tc_1',
        name: 'delete_repo',
        connection: 'github',
        requestedBy: 'hook',
        requestedAt: '2026-05-17T09:29:00Z',
        expiresAt: '2026-05-17T09:34:12Z',
      },
      { toolCallId: 'tc_2', name: 'send_mail', requestedAt: '2026-05-17T09:00:00Z', expiresAt: '2026-05-17T09:20:00Z' },
    ];
    expect(renderPending(calls, NOW)).toBe(
      [
        'TOOL CALL  TOOL         CONNECTION  REQUESTED BY  REQUESTED             EXPIRES',
        'tc_1       delete_repo  github      hook          2026-05-17T09:29:00Z  in 4m 12s',
        'tc_2       send_mail    -           -             2026-05-17T09:00:00Z  10m ago (expired)',
      ].join('\n'),
    );
    expect(renderPending([], NOW)).toBe('No pending tool calls.');
  });
});

describe('hooks', () => {
  it('renders one redelivered delivery', () => {
    expect(
      renderDelivery(
        {
          id: 'hd_1',
          sessionId: 's1',
          connectionId: 'c1',
          connectionName: 'audit',
          eventSeq: 4,
          eventType: 'session.started',
          status: 'pending',
          attempts: 3,
          nextAttemptAt: '2026-05-17T09:30:05Z',
          lastError: 'HTTP 500\nfrom receiver',
        },
        NOW,
      ),
    ).toBe(
      [
        'Delivery:      hd_1',
        'Status:        pending',
        'Session:       s1',
        'Connection:    audit (c1)',
        'Event:         #4 session.started',
        'Attempts:      3',
        'Next attempt:  2026-05-17T09:30:05Z (in 5s)',
        'Last error:    HTTP 500 from receiver',
      ].join('\n'),
    );
  });

  it('sums bulk redelivery', () => {
    expect(renderRedeliverAll({ requeued: 1, calls: 1, more: false })).toBe('Requeued 1 delivery in 1 call.');
    expect(renderRedeliverAll({ requeued: 250, calls: 3, more: true })).toBe('Requeued 250 deliveries in 3 calls. More remain.');
  });
});

describe('sandboxes', () => {
  it('renders state, provider, owner, idle time and snapshot count', () => {
    const sandboxes: Sandbox[] = [
      {
        id: 'sb_1',
        state: 'idle',
        provider: 'docker',
        ownerSessionId: 's1',
        idleSince: '2026-05-17T09:18:00Z',
        snapshots: [
          { id: 'sn1', sandboxId: 'sb_1' },
          { id: 'sn2', sandboxId: 'sb_1' },
        ],
      },
      { id: 'sb_2', state: 'error', error: 'image pull failed' },
    ];
    expect(renderSandboxes(sandboxes, NOW)).toBe(
      [
        'SANDBOX  STATE                      PROVIDER  OWNER SESSION  IDLE SINCE  SNAPSHOTS',
        'sb_1     idle                       docker    s1             12m ago             2',
        'sb_2     error (image pull failed)  -         -              -                   0',
      ].join('\n'),
    );
    expect(renderSandboxes([], NOW)).toBe('No sandboxes.');
  });
});

describe('connections', () => {
  it('renders tools sorted by name with their annotations', () => {
    const tools: ToolDescriptor[] = [
      { name: 'write', description: 'Writes a file', annotations: { destructiveHint: true, idempotentHint: true } },
      { name: 'echo', description: 'Echoes', annotations: { title: 'Echo', readOnlyHint: true, openWorldHint: false } },
      { name: 'bare' },
    ];
    expect(renderTools('github', tools)).toBe(
      [
        'Connection github answered with 3 tools.',
        '',
        'TOOL   TITLE  ANNOTATIONS              DESCRIPTION',
        'bare   -      -                        -',
        'echo   Echo   read-only                Echoes',
        'write  -      destructive, idempotent  Writes a file',
      ].join('\n'),
    );
    expect(annotationWords({ readOnlyHint: true, destructiveHint: true, idempotentHint: true, openWorldHint: true })).toBe(
      'read-only, destructive, idempotent, open-world',
    );
  });

  it('renders grants without any token', () => {
    const grants: ConnectionGrant[] = [
      {
        id: 'g1',
        connectionId: 'c1',
        connection: 'github',
        identity: { scope: 'user', id: 'u1' },
        status: 'active',
        scopes: ['repo', 'read:org'],
        hasRefreshToken: true,
        expiresAt: '2026-05-18T09:30:00Z',
      },
      { id: 'g2', connectionId: 'c2', identity: { scope: 'team', id: 't1', display: 'Ops' }, status: 'error', error: 'refresh failed', hasRefreshToken: false },
    ];
    expect(renderGrants(grants, NOW)).toBe(
      [
        'GRANT  CONNECTION  IDENTITY       STATUS                  SCOPES         REFRESH  EXPIRES',
        'g1     github      user:u1        active                  repo read:org  yes      in 1d',
        'g2     c2          team:t1 (Ops)  error (refresh failed)  -              no       -',
      ].join('\n'),
    );
  });
});

describe('providers', () => {
  it('renders models with their limits', () => {
    expect(renderModels('openai', [{ id: 'gpt-4o', ownedBy: 'openai', contextWindow: 128000, maxOutputTokens: 16384 }, { id: 'custom' }])).toBe(
      [
        'Provider openai offers 2 models.',
        '',
        'MODEL   OWNED BY  CONTEXT WINDOW  MAX OUTPUT',
        'custom  -                      -           -',
        'gpt-4o  openai           128,000      16,384',
      ].join('\n'),
    );
  });
});

describe('keys', () => {
  const key = { id: 'key_1', name: 'ci', prefix: 'svc_dev_ab', scopes: ['read', 'control'], createdAt: '2026-05-17T09:30:00.000Z', expiresAt: null };
  it('says where the token went without the token', () => {
    expect(renderCreatedKey(key, 'ci.token')).toBe(
      [
        'Created API key ci.',
        '',
        'Key:      key_1',
        'Name:     ci',
        'Prefix:   svc_dev_ab',
        'Scopes:   read, control',
        'Created:  2026-05-17T09:30:00Z',
        'Expires:  never',
        '',
        'The token was written to ci.token (mode 0600). It is shown nowhere else and cannot be read again.',
      ].join('\n'),
    );
    expect(renderRevokedKey({ ...key, revokedAt: '2026-05-17T10:00:00Z' })).toContain('Revoked:  2026-05-17T10:00:00Z');
  });
});

describe('organization and environment', () => {
  it('renders the fields that are present', () => {
    expect(renderOrganization({ id: 'org_1', slug: 'acme', name: 'Acme', idpOrganizationId: null })).toBe(
      ['Organization:  Acme', 'Slug:          acme', 'Id:            org_1'].join('\n'),
    );
    const text = renderEnvironment({
      id: 'env_1',
      slug: 'dev',
      kind: 'development',
      spend: { dailyUsd: 5 },
      retention: { sessionEventsDays: 1, spansDays: 7 },
    });
    expect(text).toContain('Daily USD:');
    expect(text).toMatch(/Session events kept: +1 day$/m);
    expect(text).toMatch(/Spans kept: +7 days$/m);
    expect(text).not.toContain('Archived');
  });
});
