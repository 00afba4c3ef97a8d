/**
 * @module Packages the schema toolkit needs for some documents only, loaded on first use: `yaml` for
 * YAML documents (and for telling what a file that is no type document is), `jsonc-parser` for the
 * places of JSON syntax errors and for a JSON manifest's duplicate keys. A folder of valid JSON
 * resource schemas loads neither: they were a tenth of `typeplane validate`'s start.
 *
 * Both are CommonJS packages, so `require` gives the very instance an `import` elsewhere gives.
 */
import { createRequire } from 'node:module';
import type * as Jsonc from 'jsonc-parser';
import type * as Yaml from 'yaml';

const require = createRequire(import.meta.url);
let yamlPackage: typeof Yaml | undefined;
let jsoncPackage: typeof Jsonc | undefined;

export const yaml = (): typeof Yaml => (yamlPackage ??= require('yaml') as typeof Yaml);
export const jsonc = (): typeof Jsonc => (jsoncPackage ??= require('jsonc-parser') as typeof Jsonc);
