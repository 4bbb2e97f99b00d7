// Server profiles: how the local control plane fills the gaps of the API description.
// - `default`: the choices documented in docs/local-control-plane.md (the reference for humans).
// - `pessimistic`: other choices everywhere the description says "not shown" (pessimistic.ts), so
//   the test suites prove the client does not depend on the default profile's choices.
// The profile is chosen per server: `startLocalControlPlane({profile})`, `agentform server --profile`,
// or AGENTFORM_SERVER_PROFILE for every embedded plane (what `url: local` starts, and tests).
import type { Rpc } from '../api/operations.js';
import { UserError } from '../errors.js';
import { DEFAULTS, type ServerDefaults } from './defaults.js';
import { PESSIMISTIC_DEFAULTS, pessimisticPresenter } from './pessimistic.js';

export const SERVER_PROFILE_NAMES = ['default', 'pessimistic'] as const;
export type ServerProfileName = (typeof SERVER_PROFILE_NAMES)[number];
export const SERVER_PROFILE_ENV = 'AGENTFORM_SERVER_PROFILE';

export interface ServerProfile {
  readonly name: ServerProfileName;
  /** What a request that leaves a field out gets. */
  readonly defaults: ServerDefaults;
  /** Whether agents.upsert of a definition equal to the latest version's still makes a new version. */
  readonly versionEveryUpsert: boolean;
  /** Whether session events become hook deliveries for a connection without a hooksUrl. */
  readonly deliverWithoutHooksUrl: boolean;
  /** The body of a `/v1` success answer as sent on the wire (key order, extra fields, list order). */
  present(rpc: Rpc, body: unknown): unknown;
}

export function isServerProfileName(value: string): value is ServerProfileName {
  return (SERVER_PROFILE_NAMES as readonly string[]).includes(value);
}

/** A profile name given by the user (`where` names the flag or variable), or a UserError naming the choices. */
export function parseServerProfileName(value: string, where: string): ServerProfileName {
  if (isServerProfileName(value)) return value;
  throw new UserError(`${where}: unknown server profile ${JSON.stringify(value)}`, `use one of: ${SERVER_PROFILE_NAMES.join(', ')}`);
}

/** The profile AGENTFORM_SERVER_PROFILE names; `default` when it is unset or empty. */
export function serverProfileFromEnv(env: NodeJS.ProcessEnv = process.env): ServerProfileName {
  const value = env[SERVER_PROFILE_ENV];
  return value === undefined || value === '' ? 'default' : parseServerProfileName(value, SERVER_PROFILE_ENV);
}

/** A fresh profile for one server (the pessimistic one keeps a clock for its volatile field). */
export function createServerProfile(name: ServerProfileName): ServerProfile {
  if (name === 'pessimistic') {
    const presenter = pessimisticPresenter();
    return {
      name,
      defaults: PESSIMISTIC_DEFAULTS,
      versionEveryUpsert: true,
      // Its connections get hookEvents by default; without a hooksUrl there is nowhere to deliver.
      deliverWithoutHooksUrl: false,
      present: (rpc, body) => presenter.present(rpc, body),
    };
  }
  return { name, defaults: DEFAULTS, versionEveryUpsert: false, deliverWithoutHooksUrl: true, present: (_rpc, body) => body };
}
