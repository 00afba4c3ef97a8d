/**
 * @module re2js, loaded the first time a pattern needs it. The native engine's screen vouches for
 * most patterns (regex.ts: every one of the AWS corpus's), and loading re2js was ~10 ms of every
 * `typeplane validate`; it is read, through its CommonJS build, only when wanted, and once for the
 * whole process (the registry's engine takes it from here too).
 */
import { createRequire } from 'node:module';

type Re2js = typeof import('re2js');
let loaded: Re2js | undefined;

export function re2js(): Re2js {
  return (loaded ??= createRequire(import.meta.url)('re2js') as Re2js);
}
