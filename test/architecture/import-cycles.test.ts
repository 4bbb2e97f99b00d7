// No import cycle between files in src/: a cycle makes load order matter (a module sees another's
// exports before they exist) and ties layers together that the architecture keeps apart. Every
// import counts: type-only imports, re-exports and lazy `import()` alike. Imports are read with the
// TypeScript parser, so comments and strings that look like imports do not count.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every module specifier the file imports or re-exports, statically or with import(). */
export function importsOf(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push(node.arguments[0].text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** file → the files of src/ it imports. */
function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = importsOf(file, readFileSync(file, 'utf8'))
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => resolve(dirname(file), specifier.replace(/\.js$/, '.ts')))
      .filter((target) => known.has(target));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
export function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const connect = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) out.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) connect(node);
  return out;
}

/** src/<folder> → the folders its files import (a file directly in src/ is its own folder). */
function folderGraph(files: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
  const folderOf = (file: string) => relative(SRC, file).split('/')[0] as string;
  const graph = new Map<string, Set<string>>();
  for (const [file, targets] of files) {
    const from = folderOf(file);
    const edges = graph.get(from) ?? new Set<string>();
    for (const target of targets) if (folderOf(target) !== from) edges.add(folderOf(target));
    graph.set(from, edges);
  }
  return new Map([...graph].map(([folder, edges]) => [folder, [...edges]]));
}

describe('imports between files in src/', () => {
  const graph = importGraph(sourceFiles(SRC));

  it('form no cycle', () => {
    const cycles = cyclesOf(graph).map((component) => component.map((file) => relative(SRC, file)));
    expect(cycles).toEqual([]);
  });

  // A folder is a layer or an edge: two that import each other are one in all but name.
  it('form no cycle between the folders of src/', () => {
    expect(cyclesOf(folderGraph(graph))).toEqual([]);
  });

  // Start-up speed (src/startup) is removable: deleting the folder and its one import leaves a working CLI.
  it('reach src/startup only from the entry point', () => {
    const importers = [...graph]
      .filter(([file, targets]) => !relative(SRC, file).startsWith('startup/') && targets.some((target) => relative(SRC, target).startsWith('startup/')))
      .map(([file]) => relative(SRC, file));
    expect(importers).toEqual(['cli/bin.ts']);
  });
});

describe('the checker itself', () => {
  it('reads static, type-only, re-exported and lazy imports, not comments or strings', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from './b.js';",
      "export { c } from './c.js';",
      "export type * from './d.js';",
      "const e = await import('./e.js');",
      "type F = import('./f.js').F;",
      "// import { g } from './g.js';",
      'const h = "import { h } from \'./h.js\'";',
    ].join('\n');
    expect(importsOf('x.ts', text)).toEqual(['./a.js', './b.js', './c.js', './d.js', './e.js', './f.js']);
  });

  it('finds a cycle of two, of three, and a self-import; not a diamond', () => {
    expect(
      cyclesOf(
        new Map([
          ['a', ['b']],
          ['b', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b']]);
    expect(
      cyclesOf(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b', 'c']]);
    expect(cyclesOf(new Map([['a', ['a']]]))).toEqual([['a']]);
    expect(
      cyclesOf(
        new Map([
          ['a', ['b', 'c']],
          ['b', ['d']],
          ['c', ['d']],
          ['d', []],
        ]),
      ),
    ).toEqual([]);
  });
});
