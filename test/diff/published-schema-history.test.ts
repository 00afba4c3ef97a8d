/**
 * Consecutive revisions of published AWS schemas (fixtures from their public history; see
 * test/fixtures/aws-schema-history/README.md), compared with verdicts checked by hand against the
 * changes between the files.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { diffDocuments, type DiffResult } from '../../src/diff/index.js';
import { AWS_CORPUS, corpusSkip } from '../helpers/requirements.js';

const fixture = (name: string) => {
  const file = new URL(`../fixtures/aws-schema-history/${name}`, import.meta.url);
  return { text: readFileSync(file, 'utf8'), file: name };
};

const summary = (r: DiffResult) => r.changes.map((c) => `${c.verdict} ${c.rule} ${c.property ?? '-'}`);

test('SubscriptionFilter 2022-10 → 2023-01: FilterName goes from read-only to create-only, which breaks no one', () => {
  const result = diffDocuments(
    fixture('AWS_Logs_SubscriptionFilter.71bc9e1.json'),
    fixture('AWS_Logs_SubscriptionFilter.b6d1186.json'),
  );
  assert.deepEqual(result.problems, []);
  // Nobody could set or change a read-only property, so making it create-only takes nothing away.
  assert.deepEqual(summary(result), ['safe TP6105 /properties/FilterName']);
  assert.equal(result.changes[0]!.line, 13);
});

test('SubscriptionFilter 2023-01 → 2023-04: four properties become updatable, an update handler is added, the description changes (all safe)', () => {
  const result = diffDocuments(
    fixture('AWS_Logs_SubscriptionFilter.b6d1186.json'),
    fixture('AWS_Logs_SubscriptionFilter.ebc3a12.json'),
  );
  assert.deepEqual(summary(result).sort(), [
    'safe TP6104 -',
    'safe TP6105 /properties/DestinationArn',
    'safe TP6105 /properties/Distribution',
    'safe TP6105 /properties/FilterPattern',
    'safe TP6105 /properties/RoleArn',
    'safe TP6107 -',
  ]);
  assert.deepEqual(result.counts, { breaking: 0, dangerous: 0, safe: 6 });
  assert.equal(result.changes.find((c) => c.rule === 'TP6107')!.pointer, '/handlers/update');
});

test(
  'QueryDefinition 2021-03 → as published now: Name and QueryString became required (breaking), read and list need logs:DescribeQueryDefinitions (dangerous), the rest is safe',
  { skip: corpusSkip() },
  () => {
    const published = {
      text: readFileSync(`${AWS_CORPUS}AWS_Logs_QueryDefinition.json`, 'utf8'),
      file: 'AWS_Logs_QueryDefinition.json',
    };
    const result = diffDocuments(fixture('AWS_Logs_QueryDefinition.a0363cb.json'), published);
    assert.deepEqual(summary(result), [
      'breaking TP6006 /properties/Name',
      'breaking TP6006 /properties/QueryString',
      'dangerous TP6204 -',
      'dangerous TP6204 -',
      'safe TP6103 /properties/Name',
      'safe TP6101 /properties/QueryLanguage',
      'safe TP6101 /properties/Parameters',
      'safe TP6108 -',
      'safe TP6108 -',
      'safe TP6108 -',
    ]);
    // The singular logs:DescribeQueryDefinition was replaced by the API's real name, plural.
    assert.deepEqual(
      result.changes
        .filter((c) => c.rule === 'TP6204')
        .map((c) => [c.pointer, c.message.match(/\((.*)\)/)?.[1]]),
      [
        ['/handlers/read/permissions', 'logs:DescribeQueryDefinitions'],
        ['/handlers/list/permissions', 'logs:DescribeQueryDefinitions'],
      ],
    );
    // Located at the top-level "required" of the published document.
    const required = result.changes[0]!;
    assert.equal(published.text.split('\n')[required.line! - 1]!.trim(), '"required": [');
  },
);

test(
  'every published AWS schema compared with itself has no change, and none is refused',
  { skip: corpusSkip() },
  () => {
    const files = readdirSync(AWS_CORPUS).filter((f) => f.endsWith('.json'));
    assert.ok(files.length > 1000);
    const noisy: string[] = [];
    for (const file of files) {
      const text = readFileSync(`${AWS_CORPUS}${file}`, 'utf8');
      const result = diffDocuments({ text, file }, { text, file });
      if (result.problems.length > 0 || result.changes.length > 0) noisy.push(file);
    }
    assert.deepEqual(noisy, []);
  },
);
