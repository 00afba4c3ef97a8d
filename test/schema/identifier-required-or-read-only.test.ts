/**
 * TP2047: a primary identifier a create may omit is a warning at its entry, because a create without
 * it relies on the provider to make one up (the built-in state provider refuses it, 400). Satisfied by
 * `required` at every level of the pointer (through `$ref` and `allOf`) or by `readOnlyProperties`;
 * not asked of additional identifiers, nor of manifests, whose identifier `name` is always required.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.js';
import {
  assertClean,
  assertDiagnostics,
  assertOnly,
  assertValid,
  manifestWithSchema,
  pretty,
  schemaWith,
  validate,
  type Json,
} from './helpers.js';

/** Line (1-based) of entry `i` of the pretty-printed `"primaryIdentifier"` list in `text`. */
function identifierLine(text: string, i: number): number {
  return text.split('\n').indexOf('  "primaryIdentifier": [') + 2 + i;
}

describe('TP2047 identifier neither required nor read-only', () => {
  it('warns at the identifier entry, says both fixes, and the type is kept', () => {
    const text = pretty(schemaWith({ required: undefined }));
    const result = validate(text);
    assert.equal(identifierLine(text, 0), 11);
    const d = assertOnly(result, { rule: 'TP2047', pointer: '/primaryIdentifier/0', line: 11, column: 5 });
    assert.equal(d.severity, 'warning');
    assert.match(d.message, /'\/properties\/Name' is neither required nor read-only/);
    assert.match(d.message, /add 'Name' to required, or add '\/properties\/Name' to readOnlyProperties/);
    assertValid(result);
  });

  it('is satisfied by required, or by readOnlyProperties', () => {
    assertClean(validate(pretty(schemaWith({}))));
    assertClean(
      validate(
        pretty(
          schemaWith({
            required: undefined,
            createOnlyProperties: undefined,
            readOnlyProperties: ['/properties/Name'],
          }),
        ),
      ),
    );
  });

  it('asks it of each part of a compound identifier, at that part', () => {
    const doc = schemaWith({
      properties: { Region: { type: 'string' }, Name: { type: 'string' }, Arn: { type: 'string' } },
      primaryIdentifier: ['/properties/Region', '/properties/Name', '/properties/Arn'],
      createOnlyProperties: ['/properties/Region', '/properties/Name'],
      readOnlyProperties: ['/properties/Arn'],
      required: ['Name'],
    });
    const text = pretty(doc);
    const result = validate(text);
    const d = assertOnly(result, {
      rule: 'TP2047',
      pointer: '/primaryIdentifier/0',
      line: identifierLine(text, 0),
      column: 5,
    });
    assert.match(d.message, /add 'Region' to required/);
  });

  describe('a nested identifier', () => {
    const nested = (config: { [key: string]: Json }, required: string[]) =>
      pretty(
        schemaWith({
          definitions: {
            Config: {
              type: 'object',
              additionalProperties: false,
              properties: { Id: { type: 'string' } },
              ...config,
            },
          },
          properties: { Name: { type: 'string' }, Config: { $ref: '#/definitions/Config' } },
          primaryIdentifier: ['/properties/Config/Id'],
          createOnlyProperties: ['/properties/Config/Id'],
          required,
        }),
      );

    it('needs its object required at the top', () => {
      const text = nested({ required: ['Id'] }, ['Name']);
      const d = assertOnly(validate(text), {
        rule: 'TP2047',
        pointer: '/primaryIdentifier/0',
        line: identifierLine(text, 0),
        column: 5,
      });
      assert.match(d.message, /add 'Config' to required,/);
    });

    it('needs its member required where the $ref leads, and names that place', () => {
      const text = nested({}, ['Config']);
      const d = assertOnly(validate(text), {
        rule: 'TP2047',
        pointer: '/primaryIdentifier/0',
        line: identifierLine(text, 0),
        column: 5,
      });
      assert.match(d.message, /add 'Id' to the required list at \/definitions\/Config,/);
    });

    it('says nothing past a member declared only in a oneOf branch, where it may not apply', () => {
      const text = pretty(
        schemaWith({
          properties: {
            Name: { type: 'string' },
            Target: {
              type: 'object',
              required: ['Bucket'],
              oneOf: [
                {
                  type: 'object',
                  additionalProperties: false,
                  properties: {
                    Bucket: {
                      type: 'object',
                      additionalProperties: false,
                      properties: { Id: { type: 'string' } },
                    },
                  },
                },
              ],
            },
          },
          primaryIdentifier: ['/properties/Target/Bucket/Id'],
          createOnlyProperties: ['/properties/Target/Bucket/Id'],
          required: ['Target'],
        }),
      );
      assertClean(validate(text));
    });

    it('is satisfied when every level is required, here through an allOf branch', () => {
      assertClean(validate(nested({ allOf: [{ required: ['Id'] }] }, ['Config'])));
    });
  });

  it('does not ask it of additional identifiers: they are other keys to read by, never needed to create', () => {
    assertClean(
      validate(
        pretty(
          schemaWith({
            properties: { Name: { type: 'string' }, Alias: { type: 'string' } },
            additionalIdentifiers: [['/properties/Alias']],
          }),
        ),
      ),
    );
  });

  it('never fires on a manifest: its identifier, name, is always required', () => {
    const result = validate(
      manifestWithSchema('type: object', 'properties:', '  size:', '    type: integer'),
      {
        file: 'm.yaml',
      },
    );
    assertDiagnostics(result, []);
    assert.deepEqual(result.types[0]!.primaryIdentifier, ['/properties/name']);
  });
});

describe('TP2047 says what the engine does', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  it('registration answers the warning, and a create without the identifier is refused at once, naming it', async () => {
    const text = pretty(schemaWith({ typeName: 'Test::Warn::Optional', required: undefined }));
    const registered = await svc.call('POST', '/v1/types', text);
    assert.equal(registered.status, 201, JSON.stringify(registered.body));
    assert.deepEqual(
      registered.body.warnings.map((w: { rule: string; pointer: string }) => `${w.rule} ${w.pointer}`),
      ['TP2047 /primaryIdentifier/0'],
    );
    const created = await svc.call(
      'POST',
      `/v1/resources/${encodeURIComponent('Test::Warn::Optional')}?wait=5`,
      {
        desiredState: {},
      },
    );
    assert.equal(created.status, 400, JSON.stringify(created.body));
    assert.equal(created.body.errorCode, 'InvalidRequest');
    assert.deepEqual(
      created.body.details.map((d: { pointer: string }) => d.pointer),
      ['/properties/Name'],
    );
  });
});
