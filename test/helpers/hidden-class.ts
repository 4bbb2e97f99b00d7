// Whether objects share a V8 hidden class (%HaveSameMap). An object with a class of its own costs
// the class too (~250-400 bytes, kept until a full collection): for objects made by the thousand
// per run (findings, parsed documents) that was megabytes, and a run's time spent making classes.
import { setFlagsFromString } from 'node:v8';

let haveSameMap: ((a: object, b: object) => boolean) | undefined;

/** How many objects of `objects` share the first one's hidden class (all of them, ideally). */
export function sharingFirstClass(objects: readonly object[]): number {
  if (!haveSameMap) {
    // Natives syntax is checked when code is compiled: the function is compiled after the flag is set.
    setFlagsFromString('--allow-natives-syntax');
    haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
  }
  const [first] = objects;
  return first === undefined ? 0 : objects.filter((object) => haveSameMap!(first, object)).length;
}
