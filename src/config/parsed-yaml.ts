// What parsing a YAML file yields (yaml-source.ts, yaml-plain.ts): plain, structured-clonable data
// that the parse cache stores as it is.
import type { Problem } from './problems.js';

/**
 * Where each node of a document is, as two flat values: a document's index lives as long as the
 * run (every problem and finding is located through it) and is read back from the parse cache, so
 * it is kept compact (one object per path was much of a large plan's heap, and of the garbage
 * collector's copying).
 * - `nodes`: NODE_FIELDS numbers per node, in document order (depth first, a node before its
 *   children): its parent's node number (-1: top level), where its segment ends in `segments`
 *   (it starts where the previous node's ends), the offset of its key (-1: none, e.g. a list item)
 *   and of its value (-1: written empty).
 * - `segments`: every node's path segment (a key, or a list position), one after another.
 */
export interface DocumentIndex {
  segments: string;
  nodes: number[];
}

/** Numbers per node in DocumentIndex.nodes. */
export const NODE_FIELDS = 4;

export interface ParsedDocument {
  value: unknown;
  /** Start offset of the document's content. */
  start: number;
  index: DocumentIndex;
  /**
   * No object in the value has a `null` field: worked out once when the text is parsed (and kept
   * in the parse cache), so the schema check of every run need not look for them again.
   */
  nullFree: boolean;
  /** Offsets where the file's lines start (shared by the documents of one file). */
  lineStarts: number[];
}

/** Everything parsing a file yields, as structured-clonable data. */
export interface ParsedFile {
  file: string;
  documents: ParsedDocument[];
  problems: Problem[];
}
