// Worker thread: parses a share of a large project's files (see parse-pool.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { parseYamlText } from './yaml-source.js';

const { files } = workerData as { files: Array<{ file: string; text: string }> };
parentPort?.postMessage(files.map(({ file, text }) => parseYamlText(file, text)));
