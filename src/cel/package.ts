/**
 * @module @bufbuild/cel, loaded on first use: it takes longer to load than the rest of
 * `typeplane validate` (most documents carry no rule), and a server without rules or policies never
 * needs it. Its CommonJS build, so every part of src/cel gets the one instance.
 */
import { createRequire } from 'node:module';
import type * as Cel from '@bufbuild/cel';
import type * as CelExt from '@bufbuild/cel/ext';

const require = createRequire(import.meta.url);
let celPackage: typeof Cel | undefined;
let extPackage: typeof CelExt | undefined;

export const cel = (): typeof Cel => (celPackage ??= require('@bufbuild/cel') as typeof Cel);
export const celExt = (): typeof CelExt => (extPackage ??= require('@bufbuild/cel/ext') as typeof CelExt);
