// The `require` the precompiled validators are given (schemas.ts): ajv's standalone code calls
// `require("ajv/dist/runtime/<helper>").default` for a couple of helpers. Resolving and compiling
// those files from node_modules on every run cost a small plan time, finding them as much as loading
// them; imported here, the bundle carries them, from its code cache.
// Any other module the code names is still required from the package.
import * as ajvEqual from 'ajv/dist/runtime/equal.js';
import * as ajvUcs2length from 'ajv/dist/runtime/ucs2length.js';

/**
 * A CommonJS module's `exports.default`. Node's ES loader presents the whole exports object as
 * `default`; the bundler, seeing `__esModule`, presents `exports.default` itself.
 */
function exportsDefault(namespace: { default: unknown }): unknown {
  const value = namespace.default;
  return typeof value === 'function' ? value : (value as { default: unknown }).default;
}

const CARRIED: Readonly<Record<string, { default: unknown }>> = {
  'ajv/dist/runtime/equal': { default: exportsDefault(ajvEqual) },
  'ajv/dist/runtime/ucs2length': { default: exportsDefault(ajvUcs2length) },
};

/** `require` for the precompiled validators: the helpers this module carries, anything else through `fallback`. */
export function requireForValidators(fallback: NodeJS.Require): NodeJS.Require {
  const carried = (id: string): unknown => CARRIED[id] ?? fallback(id);
  return Object.assign(carried, { resolve: fallback.resolve, cache: fallback.cache, main: fallback.main, extensions: fallback.extensions }) as NodeJS.Require;
}
