// The preflight lists everything that would stop an apply halfway, before its first write.
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_REQUEST_BYTES, preflight, type PreflightFacts } from '../../src/apply/preflight.js';
import type { DesiredResource, Plan, ResourceChange } from '../../src/model/resources.js';
import { addressOf } from '../../src/model/resources.js';
import { actualState, agentSpec, desired, desiredState } from '../engine/builders.js';

const facts = (extra: Partial<PreflightFacts> = {}): PreflightFacts => ({ maxRequestBytes: DEFAULT_MAX_REQUEST_BYTES, tokenFileProblems: new Map(), ...extra });

function planOf(changes: Array<[DesiredResource | { kind: DesiredResource['kind']; name: string }, ResourceChange['action']]>): Plan {
  return {
    formatVersion: 1,
    environment: 'staging',
    changes: changes.map(([resource, action]) => ({
      address: addressOf(resource.kind, resource.name),
      kind: resource.kind,
      name: resource.name,
      action,
      fields: [],
      dependsOn: [],
    })),
    order: [],
    summary: { add: 0, change: 0, adopt: 0, replace: 0, destroy: 0, unmanaged: 0 },
    warnings: [],
  };
}

const provider = desired('provider', 'openai', { type: 'openai' }, { writeOnly: { secret: { source: '${env:OPENAI_API_KEY}' } } });
const secret = desired('secret', 'npm', {}, { writeOnly: { value: { source: '${file:secrets/npm.txt}' } } });
const fine = desired('secret', 'fine', {}, { writeOnly: { value: { source: '${env:SET}', value: 'v' } } });

describe('preflight', () => {
  it('lists every missing write-only value of every change that sends one, and nothing for a clean plan', () => {
    const resources = [provider, secret, fine];
    const problems = preflight(
      planOf([
        [fine, 'create'],
        [provider, 'update'],
        [secret, 'create'],
      ]),
      desiredState(resources),
      actualState([]),
      facts(),
    );
    expect(problems).toEqual([
      'provider/openai: the write-only secret is not available: environment variable OPENAI_API_KEY is not set',
      'secret/npm: the write-only value is not available: file secrets/npm.txt not found (relative to the YAML file that names it)',
    ]);
    expect(
      preflight(
        planOf([
          [fine, 'create'],
          [provider, 'delete'],
          [secret, 'no-op'],
        ]),
        desiredState(resources),
        actualState([]),
        facts(),
      ),
    ).toEqual([]);
  });

  it('refuses a request over the limit, naming the largest field, at any limit', () => {
    const big = desired('agent', 'bot', { ...agentSpec(), system: 'x'.repeat(5 * 1024 * 1024) });
    const [problem] = preflight(planOf([[big, 'update']]), desiredState([big]), actualState([]), facts());
    expect(problem).toMatch(/^agent\/bot: the request would be about 5\.0 MiB, over the limit of 1\.0 MiB \(largest field: system, 5\.0 MiB\)/);
    const small = desired('agent', 'bot', agentSpec());
    expect(preflight(planOf([[small, 'create']]), desiredState([small]), actualState([]), facts())).toEqual([]);
    expect(preflight(planOf([[small, 'create']]), desiredState([small]), actualState([]), facts({ maxRequestBytes: 256 }))).toHaveLength(1);
  });

  it('counts write-only values in the request size', () => {
    const huge = desired('secret', 'blob', {}, { writeOnly: { value: { source: '${file:blob}', value: 'y'.repeat(2 * 1024 * 1024) } } });
    expect(preflight(planOf([[huge, 'create']]), desiredState([huge]), actualState([]), facts())[0]).toContain('largest field: value');
  });

  it('refuses when the key in use is known to lack the control scope; says nothing when scopes are unknown', () => {
    const plan = planOf([[fine, 'create']]);
    expect(preflight(plan, desiredState([fine]), actualState([]), facts({ credentialScopes: ['read'] }))).toEqual([
      'the API key in use has the scopes read: the 1 change(s) need the control scope',
    ]);
    expect(preflight(plan, desiredState([fine]), actualState([]), facts({ credentialScopes: ['read', 'control'] }))).toEqual([]);
    expect(preflight(plan, desiredState([fine]), actualState([]), facts())).toEqual([]);
    expect(preflight(planOf([[fine, 'no-op']]), desiredState([fine]), actualState([]), facts({ credentialScopes: ['read'] }))).toEqual([]);
  });

  it('an adoption with nothing to write needs neither the control scope nor write-only values; one that writes needs both', () => {
    const quiet = planOf([[provider, 'adopt']]);
    expect(preflight(quiet, desiredState([provider]), actualState([]), facts({ credentialScopes: ['read'] }))).toEqual([]);
    const writing = planOf([[provider, 'adopt']]);
    writing.changes[0]!.fields.push({ path: 'secret', writeOnly: true });
    expect(preflight(writing, desiredState([provider]), actualState([]), facts({ credentialScopes: ['read'] }))).toEqual([
      'the API key in use has the scopes read: the 1 change(s) need the control scope',
      'provider/openai: the write-only secret is not available: environment variable OPENAI_API_KEY is not set',
    ]);
  });

  it("never overwrites another key's token file, and reports token files it cannot write", () => {
    const foreign = desired('apiKey', 'ci', { scopes: ['read'] }, { options: { tokenFile: 'ci.token', tokenFileState: 'foreign' } });
    const blocked = desired('apiKey', 'deploy', { scopes: ['read'] }, { options: { tokenFile: 'ro/deploy.token', tokenFileState: 'missing' } });
    const problems = preflight(
      planOf([
        [foreign, 'replace'],
        [blocked, 'create'],
      ]),
      desiredState([foreign, blocked]),
      actualState([]),
      facts({ tokenFileProblems: new Map([['deploy', 'the directory ro is not writable']]) }),
    );
    expect(problems).toEqual([
      "apiKey/ci: tokenFile ci.token holds another key's token (or something that is not a token of this environment): refusing to overwrite it; point tokenFile elsewhere, or remove the file if nothing needs it",
      'apiKey/deploy: cannot write tokenFile ro/deploy.token: the directory ro is not writable',
    ]);
  });
});
