// The writer port of promote and rollback (src/promotion/promote.ts AgentWriter): agents.upsert.
import type { RpcCaller } from '../api/operations.js';
import { agentDefinitionOf } from '../model/specs.js';
import type { AgentWriter } from '../promotion/promote.js';

export function agentWriter(caller: RpcCaller): AgentWriter {
  return {
    upsert: (slug, definition, promotedFrom) =>
      caller.call('agents.upsert', { slug, definition: agentDefinitionOf(definition), ...(promotedFrom ? { promotedFrom } : {}) }),
  };
}
