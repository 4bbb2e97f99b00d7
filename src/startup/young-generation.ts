// V8's young generation kept at its first size. V8 lets it grow (each semi-space up to 16 MB),
// which suits a long-running server with a high allocation rate; a CLI run allocates in one burst,
// and the grown spaces were most of its memory and, scavenged out of the CPU's caches, much of its
// time. The figures are in docs/performance.md.
//
// The growth factor is read whenever the space would grow, so it can be set at run time, unlike the
// spaces' maximum size. V8 hashes its flags into every code cache it makes and reads: the bundle's
// caches are made under this setting (the build's training runs start here too), and Node's own
// built-ins loaded from now on are compiled without their cache, a cost the benchmarks do not resolve.
import { setFlagsFromString } from 'node:v8';

export function keepYoungGenerationSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}
