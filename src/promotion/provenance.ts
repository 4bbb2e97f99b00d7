// Provenance of promoted versions (`promotedFrom`) and the no-op rule.
import type { PromotedFrom } from '../model/api.js';

export function samePromotedFrom(a: PromotedFrom | null | undefined, b: PromotedFrom | null | undefined): boolean {
  if (!a || !b) return false;
  return a.environmentId === b.environmentId && a.agentId === b.agentId && a.version === b.version;
}

export type PromotionOutcome =
  /** The target's latest version already came from this source version and nothing differs. */
  | 'no-op'
  /** Definition differs (or the agent is missing): a new version with promotedFrom. */
  | 'promote'
  /**
   * The definition already matches but the latest version has other (or no) provenance. The server
   * creates no version for an identical definition, so there is nothing to write: reported only.
   */
  | 'matches-without-provenance';

export function promotionOutcome(
  targetLatest: { promotedFrom?: PromotedFrom | null } | undefined,
  source: PromotedFrom,
  definitionDiffers: boolean,
): PromotionOutcome {
  if (!targetLatest || definitionDiffers) return 'promote';
  return samePromotedFrom(targetLatest.promotedFrom, source) ? 'no-op' : 'matches-without-provenance';
}

/** `staging/support v7`, or `(env abc123)/… ` when the environment id is not known by name. */
export function describePromotedFrom(from: PromotedFrom, environmentNames: ReadonlyMap<string, string>, agentSlugs?: ReadonlyMap<string, string>): string {
  const environment = environmentNames.get(from.environmentId) ?? from.environmentId;
  const agent = agentSlugs?.get(from.agentId) ?? from.agentId;
  return `${environment}/${agent} v${from.version}`;
}
