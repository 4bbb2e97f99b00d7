// The config/API boundary: promotedFrom travels through DesiredResource.options and is checked.
import { describe, expect, it } from 'vitest';
import { promotedFromOf } from '../../src/model/specs.js';

describe('promotedFromOf', () => {
  it.each([
    [
      { environmentId: 'env_s', agentId: 'agt_1', version: 3 },
      { environmentId: 'env_s', agentId: 'agt_1', version: 3 },
    ],
    [{ environmentId: 'env_s', agentId: 'agt_1', version: '3' }, undefined],
    [{ environmentId: 'env_s', version: 3 }, undefined],
    [['env_s', 'agt_1', 3], undefined],
    [null, undefined],
    [undefined, undefined],
  ])('%j → %j', (value, expected) => {
    expect(promotedFromOf(value as never)).toEqual(expected);
  });
});
