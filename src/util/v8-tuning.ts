// V8 heap settings for a short-lived CLI process, applied before anything else is loaded (main.ts
// imports this module first).
//
// The young generation's semi-spaces grow to 16 MB each by default, sized for long-running servers
// with high allocation rates. A CLI run allocates in one burst, and the grown semi-spaces were most
// of its memory: plan of 1,000 agents, peak RSS 105 MB -> 80 MB with semi-spaces kept at 1 MB, and less CPU
// too (~0.70 -> ~0.50 s: the scavenges stay in cache). Measured side by side with decK (issue 17).
// The maximum size is fixed when the heap is set up, before any of our code runs, but the growth
// factor is read whenever the spaces would grow: a factor of 1 keeps them at their initial 1 MB.
import { setFlagsFromString } from 'node:v8';

// Not for `agentform server`, a long-running process that serves large lists for as long as it runs.
const command = process.argv.slice(2).find((argument) => !argument.startsWith('-'));
if (command !== 'server') setFlagsFromString('--semi-space-growth-factor=1');
