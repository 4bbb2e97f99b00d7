// What of Node's CommonJS loader the CLI's start-up uses (bundle-code-cache.ts): deprecated
// for users, still what `require` runs on. Types only.
export type ModuleLoader = (module: NodeJS.Module, filename: string) => void;

export interface NodeModuleInternals {
  /** Loaders by file extension. */
  _extensions: Record<string, ModuleLoader>;
  /** require.cache. */
  _cache: Record<string, NodeJS.Module | undefined>;
  _nodeModulePaths(dir: string): string[];
  /** Where every CommonJS require goes, built-ins included. */
  _load(request: string, parent: unknown, isMain: boolean): unknown;
  new (id: string): NodeJS.Module;
}
