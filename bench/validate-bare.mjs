/**
 * The bare side of bench/validate-corpus.ts, as a bare ajv user writes it: plain JavaScript run by
 * node, which loads ajv, compiles Typeplane's meta-schema (from dist, as built) with the same options
 * and checks every file of one folder (JSON.parse + validate, nothing else). Prints how many failed.
 *
 *   node bench/validate-bare.mjs <folder>
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import {
  META_SCHEMA_AJV_OPTIONS,
  resourceSchemaMetaSchema,
} from '../dist/schema/resource-schema/meta-schema.js';

const folder = process.argv[2];
const validate = new Ajv(META_SCHEMA_AJV_OPTIONS).compile(resourceSchemaMetaSchema);
let invalid = 0;
for (const name of readdirSync(folder).sort())
  if (name.endsWith('.json') && !validate(JSON.parse(readFileSync(join(folder, name), 'utf8')))) invalid++;
process.stdout.write(`${invalid}\n`);
