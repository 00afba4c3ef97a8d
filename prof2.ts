import { readdirSync, readFileSync } from 'node:fs';
import { validateDocument } from './src/schema/validate.js';
const corpus = '/work/shared/corpus/aws-resource-schemas/';
const names = readdirSync(corpus);
const bufs = names.map((n) => readFileSync(corpus + n));
for (let r = 0; r < 8; r++) for (let i = 0; i < names.length; i++) validateDocument(bufs[i]!, { file: names[i] });
