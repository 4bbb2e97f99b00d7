// hooks.*: put deliveries back in the queue. Attempts are kept (history stays honest).
import { environmentOf } from '../context.js';
import { writeTx } from '../store/db.js';
import { notFound } from '../service-error.js';
import { deliveryRow, requeue, requeueDead, toDelivery } from '../hooks/queue.js';
import type { GroupHandlers } from './types.js';

export const hooks: GroupHandlers<'hooks'> = {
  'hooks.redeliver': (ctx, body) => {
    const environmentId = environmentOf(ctx);
    const row = writeTx(ctx.db, () => {
      if (!deliveryRow(ctx.db, environmentId, body.id)) throw notFound(`hook delivery ${body.id}`);
      requeue(ctx.db, body.id);
      return deliveryRow(ctx.db, environmentId, body.id)!;
    });
    ctx.services.wakeHooks();
    return toDelivery(row);
  },
  'hooks.redeliverAll': (ctx) => {
    const result = requeueDead(ctx.db, environmentOf(ctx));
    if (result.requeued > 0) ctx.services.wakeHooks();
    return result;
  },
};
