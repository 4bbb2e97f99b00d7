// Operations commands take a name or an id: people remember names, the API wants ids. An argument
// that looks like an id (its prefix) is used as it is, without a request; a name is looked up in
// the kind's list.
import { UserError } from '../errors.js';
import { didYouMean } from '../config/suggest.js';

export interface Named {
  id: string;
  name: string;
}

export interface Resolved {
  id: string;
  /** Set when the argument was a name. */
  name?: string;
}

export async function resolveNameOrId<T extends Named>(
  what: string,
  given: string,
  idPrefix: string,
  list: () => Promise<T[]>,
  /** Items a name may refer to (e.g. not revoked). */
  eligible: (item: T) => boolean = () => true,
): Promise<Resolved> {
  if (given.startsWith(`${idPrefix}_`)) return { id: given };
  const candidates = (await list()).filter(eligible);
  const matches = candidates.filter((item) => item.name === given);
  if (matches.length === 1) return { id: (matches[0] as T).id, name: given };
  if (matches.length > 1) {
    throw new UserError(`${matches.length} ${what}s are named ${given}: ${matches.map((item) => item.id).join(', ')}`, 'pass the id of the one you mean');
  }
  throw new UserError(
    `no ${what} named ${given}${didYouMean(
      given,
      candidates.map((item) => item.name),
    )}`,
    `pass a name or an id (${idPrefix}_…)`,
  );
}
