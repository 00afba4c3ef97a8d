/**
 * @module The `yaml` package for the CLI's API commands, loaded on first use: most commands neither
 * read nor print YAML, and loading it is a sixth of such a command's start.
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

const require = createRequire(import.meta.url);
let loaded: typeof Yaml | undefined;

export const yaml = (): typeof Yaml => (loaded ??= require('yaml') as typeof Yaml);
