// A property worked out when first read and kept, for objects made by the thousand (remote resources,
// findings): its value is not always needed, and costs something to compute.

/**
 * The descriptor of such a property (`Object.defineProperty(object, name, descriptor)`), sharing one
 * getter among every object given it: V8 keeps an object's accessors in its hidden class, so a
 * getter closing over each object's own values gave every object a class of its own, and more
 * memory each. The value, `undefined` included, is kept under a symbol key, not enumerable: JSON,
 * spreads and Object.keys see the property alone, as if it were a plain one.
 */
export function lazyProperty<T extends object, V>(compute: (object: T) => V): PropertyDescriptor {
  const kept = Symbol('kept');
  return {
    enumerable: true,
    configurable: true,
    get(this: T): V {
      const self = this as T & Record<symbol, V>;
      if (kept in self) return self[kept] as V;
      const value = compute(this);
      Object.defineProperty(self, kept, { value });
      return value;
    },
  };
}
