/**
 * A type's validation rules (CEL) in what consumers get: the type's JSON Schema and the OpenAPI
 * document carry each node's rules under `x-kubernetes-validations` (and `x-typeplane-validations`
 * as written); Bicep types tell them in descriptions (a rule's message, or its text), read back with
 * `@azure/bicep-types`, and TypeScript declarations in their TSDoc; the editor schemas offer and check the entries' keys in both dialects.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import type { ObjectType } from '@azure/bicep-types';
import {
  generateBicep,
  generateOpenApi,
  generateTypeScript,
  manifestEditorSchema,
  resourceSchemaEditorSchema,
  typePropertiesSchema,
} from '../../src/codegen/index.js';
import { validateDocument, type ResourceType } from '../../src/schema/index.js';
import { readBack } from './bicep-helpers.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SCALER = readFileSync(join(root, 'test/contract/state-scaler.json'), 'utf8');
const ajv = () => new Ajv({ strict: false, allErrors: true, validateFormats: false });

const MANIFEST = `namespace: Acme.Compute
types:
  scalers:
    description: A scaler.
    apiVersions:
      '2025-01-01-preview':
        schema:
          type: object
          x-kubernetes-validations:
            - rule: self.minReplicas <= self.maxReplicas
              message: minReplicas must not exceed maxReplicas
          properties:
            minReplicas: { type: integer }
            maxReplicas: { type: integer }
            size:
              type: integer
              x-typeplane-validations:
                - rule: self >= oldSelf
                  messageExpression: "'size may only grow, not to ' + string(self)"
          required: [minReplicas, maxReplicas]
`;

function typeOf(text: string, file: string): ResourceType {
  const result = validateDocument(text, { file });
  assert.equal(result.valid, true, JSON.stringify(result.diagnostics));
  return result.types[0]!;
}

const rootRule = {
  rule: '!has(self.MinReplicas) || !has(self.MaxReplicas) || self.MinReplicas <= self.MaxReplicas',
  message: 'MinReplicas must not exceed MaxReplicas',
  fieldPath: '.MinReplicas',
};

test("a type's JSON Schema carries its rules under x-kubernetes-validations, and x-typeplane-validations as written", () => {
  const schema = typePropertiesSchema(typeOf(SCALER, 'scaler.json')) as any;
  assert.deepEqual(schema['x-kubernetes-validations'], [rootRule]);
  assert.deepEqual(schema['x-typeplane-validations'], [rootRule]);
  assert.equal(schema.properties.Size['x-kubernetes-validations'][0].rule, 'self >= oldSelf');
  assert.deepEqual(schema.properties.Labels.items['x-kubernetes-validations'], [
    { rule: "self != 'default'", reason: 'FieldValueForbidden' },
  ]);
  assert.deepEqual(schema.definitions.Window['x-kubernetes-validations'], [
    { rule: 'self.From < self.To', message: 'a window ends after it starts' },
  ]);
  // Still a draft-07 schema a validator takes: the rules are annotations to it.
  const check = ajv().compile(schema);
  assert.equal(check({ Name: 'a', Size: 1, MinReplicas: 3, MaxReplicas: 2 }), true);

  // A rule written the Kubernetes way stays under that key alone.
  const manifest = typePropertiesSchema(typeOf(MANIFEST, 'scalers.yaml')) as any;
  assert.equal(manifest['x-kubernetes-validations'][0].message, 'minReplicas must not exceed maxReplicas');
  assert.equal(manifest['x-typeplane-validations'], undefined);
  assert.equal(manifest.properties.size['x-kubernetes-validations'][0].rule, 'self >= oldSelf');
});

test('the OpenAPI document carries the rules on the type, its properties and its definitions, and stays valid', async () => {
  const doc = generateOpenApi([typeOf(SCALER, 'scaler.json'), typeOf(MANIFEST, 'scalers.yaml')], {
    version: '0.1.0',
  }) as any;
  await SwaggerParser.validate(structuredClone(doc));
  const schemas = doc.components.schemas;
  const scaler = schemas['Test.State.Scaler'];
  assert.deepEqual(scaler['x-kubernetes-validations'], [rootRule]);
  assert.equal(scaler.properties.Size['x-kubernetes-validations'][0].rule, 'self >= oldSelf');
  assert.equal(scaler.properties.Window.$ref, '#/components/schemas/Test.State.Scaler_Window');
  assert.equal(
    schemas['Test.State.Scaler_Window']['x-kubernetes-validations'][0].message,
    'a window ends after it starts',
  );
  assert.equal(
    schemas['Acme.Compute.scalers']['x-kubernetes-validations'][0].rule,
    'self.minReplicas <= self.maxReplicas',
  );
});

test("Bicep descriptions tell each property's rules (the message, or the rule's text), the resource's on its properties", () => {
  const [extension] = generateBicep([typeOf(SCALER, 'scaler.json')]);
  const back = readBack(extension!);
  const body = back.bodies.get('Test.State/Scaler@default')!;
  assert.equal(
    body.properties.properties!.description,
    'properties of the resource Rules: MinReplicas must not exceed MaxReplicas.',
  );
  const properties = back.types[body.properties.properties!.type.index] as ObjectType;
  const described = (name: string) => properties.properties[name]!.description;
  // A messageExpression is evaluated only when the rule fails: the rule's own text is told.
  assert.equal(described('Size'), 'Rules: `self >= oldSelf`.');
  assert.equal(described('Labels'), "Rules on each item: `self != 'default'`.");
  assert.equal(described('Window'), 'Rules: a window ends after it starts.');
  assert.equal(described('MinReplicas'), undefined);

  const [radius] = generateBicep([typeOf(MANIFEST, 'scalers.yaml')]);
  const manifest = readBack(radius!);
  const envelope = [...manifest.bodies.values()][0]!;
  assert.equal(
    envelope.properties.properties!.description,
    'The resource properties. Rules: minReplicas must not exceed maxReplicas.',
  );
  const members = manifest.types[envelope.properties.properties!.type.index] as ObjectType;
  assert.equal(members.properties.size!.description, 'Rules: `self >= oldSelf`.');
});

test("TypeScript declarations tell each property's rules in its TSDoc, the resource's and a definition's on their interfaces", () => {
  const code = generateTypeScript([typeOf(SCALER, 'scaler.json')], ['scaler.json']);
  const docOf = (declaration: string) => {
    const at = code.indexOf(declaration);
    assert.ok(at > 0, declaration);
    const start = code.lastIndexOf('/**', at);
    return code.slice(start, code.indexOf('*/', start) + 2);
  };
  assert.match(
    docOf('export interface TestStateScaler {'),
    /Rules: MinReplicas must not exceed MaxReplicas\./,
  );
  assert.equal(docOf('  Size: number;'), '/** Rules: `self >= oldSelf`. */');
  assert.equal(docOf('  Labels?: string[];'), "/** Rules on each item: `self != 'default'`. */");
  assert.equal(docOf('  Window?: TestStateScalerWindow;'), '/** Rules: a window ends after it starts. */');
  assert.equal(
    docOf('export interface TestStateScalerWindow {'),
    '/** Rules: a window ends after it starts. */',
  );
});

test('the editor schemas offer the rule entries and refuse what validate refuses of their shape, in both dialects', () => {
  const resourceSchema = ajv().compile(resourceSchemaEditorSchema());
  const doc = JSON.parse(SCALER);
  assert.equal(resourceSchema(doc), true, JSON.stringify(resourceSchema.errors));
  const entry = resourceSchemaEditorSchema() as any;
  const rules = entry.definitions.property.properties['x-typeplane-validations'];
  assert.match(rules.description, /CEL/);
  assert.match(rules.items.properties.rule.description, /oldSelf/);
  assert.deepEqual(Object.keys(rules.items.properties).sort(), [
    'fieldPath',
    'message',
    'messageExpression',
    'optionalOldSelf',
    'reason',
    'rule',
  ]);
  for (const bad of [
    { message: 'no rule' },
    { rule: 'true', mesage: 'misspelt' },
    { rule: 'true', reason: 'Nope' },
  ]) {
    const changed = structuredClone(doc);
    changed.properties.Size['x-typeplane-validations'] = [bad];
    assert.equal(resourceSchema(changed), false, JSON.stringify(bad));
    changed.properties.Size['x-typeplane-validations'] = [];
    changed['x-kubernetes-validations'] = [bad];
    assert.equal(resourceSchema(changed), false, `root: ${JSON.stringify(bad)}`);
  }

  const manifest = ajv().compile(manifestEditorSchema());
  const written = parse(MANIFEST);
  assert.equal(manifest(written), true, JSON.stringify(manifest.errors));
  const schema = written.types.scalers.apiVersions['2025-01-01-preview'].schema;
  schema.properties.size['x-typeplane-validations'][0].mesage = 'misspelt';
  assert.equal(manifest(written), false);
});
