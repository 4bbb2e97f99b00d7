// Parsing a large project on two threads: YAML parsing is most of validate's time (the yaml
// package reads about 1-2 MB/s), and it splits cleanly by file. Small projects stay on the main
// thread, where starting a worker would cost more than it saves. When the compiled worker is
// not there (running from TypeScript sources) or fails, everything is parsed here.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type ParsedFile, parseYamlText } from './yaml-source.js';

/** Below this many bytes of YAML a worker does not pay for its start (~50 ms). */
const WORKER_THRESHOLD_BYTES = 256 * 1024;

export interface SourceText {
  file: string;
  text: string;
}

function parseInWorker(url: URL, files: SourceText[]): Promise<ParsedFile[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(url, { workerData: { files } });
    worker.once('message', (parsed: ParsedFile[]) => {
      resolve(parsed);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`parse worker exited with ${code}`)));
  });
}

/**
 * Parses every file. `meanwhile` runs on this thread while a worker (if any) starts, e.g. to
 * compile the schemas; the worker takes a bit more than half of the text to make up for it.
 */
export async function parseAll(files: SourceText[], meanwhile: () => void = () => {}): Promise<ParsedFile[]> {
  const bytes = files.reduce((sum, { text }) => sum + text.length, 0);
  const workerUrl = new URL('./parse-worker.js', import.meta.url);
  const useWorker = bytes >= WORKER_THRESHOLD_BYTES && files.length > 1 && availableParallelism() > 1 && existsSync(fileURLToPath(workerUrl));
  if (!useWorker) {
    meanwhile();
    return files.map(({ file, text }) => parseYamlText(file, text));
  }
  // The worker takes the last ~55 % by size; this thread runs `meanwhile`, then parses the rest.
  let split = 0;
  for (let taken = 0; split < files.length && taken < bytes * 0.45; split++) taken += (files[split] as SourceText).text.length;
  const mine = files.slice(0, split);
  const theirs = files.slice(split);
  const pending = parseInWorker(workerUrl, theirs).catch(() => undefined);
  meanwhile();
  const here = mine.map(({ file, text }) => parseYamlText(file, text));
  const there = (await pending) ?? theirs.map(({ file, text }) => parseYamlText(file, text));
  return [...here, ...there];
}
