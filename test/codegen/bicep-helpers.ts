/**
 * Reading generated Bicep types back with `@azure/bicep-types`, as Bicep tooling would.
 */
import assert from 'node:assert/strict';
import {
  CrossFileTypeReference,
  readIndexJson,
  readTypesJson,
  TypeBaseKind,
  TypeReference,
  type BicepType,
  type ObjectType,
  type ResourceType as BicepResourceType,
  type TypeIndex,
} from '@azure/bicep-types';
import type { BicepExtension } from '../../src/codegen/index.js';

export interface ReadBack {
  types: BicepType[];
  index: TypeIndex;
  /** Each resource's body, by its index key. */
  bodies: Map<string, ObjectType>;
}

/**
 * Read an extension's files with the package's readers and check what Bicep relies on: every `$ref`
 * in types.json resolves, every index entry points at a ResourceType of the same name in types.json.
 */
export function readBack(extension: BicepExtension): ReadBack {
  const types = readTypesJson(extension.files['types.json']);
  const index = readIndexJson(extension.files['index.json']);
  const walk = (value: unknown, where: string): void => {
    if (value instanceof TypeReference) {
      assert.ok(
        Number.isInteger(value.index) && value.index >= 0 && value.index < types.length,
        `${where}: $ref #/${value.index} does not resolve (${types.length} types)`,
      );
      return;
    }
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${where}/${i}`));
    else if (typeof value === 'object' && value !== null)
      for (const [k, v] of Object.entries(value)) walk(v, `${where}/${k}`);
  };
  types.forEach((t, i) => walk(t, `types.json#/${i}`));
  const bodies = new Map<string, ObjectType>();
  for (const [key, ref] of Object.entries(index.resources)) {
    assert.ok(ref instanceof CrossFileTypeReference, `${key}: not a cross-file reference`);
    assert.equal(ref.relativePath, 'types.json');
    const resource = types[ref.index];
    assert.equal(resource?.type, TypeBaseKind.ResourceType, `${key} → #/${ref.index} is not a ResourceType`);
    assert.equal((resource as BicepResourceType).name, key, 'the index key is the resource type name');
    const body = types[(resource as BicepResourceType).body.index];
    assert.equal(body?.type, TypeBaseKind.ObjectType, `${key}: body is not an object`);
    bodies.set(key, body as ObjectType);
  }
  const resourceCount = types.filter((t) => t.type === TypeBaseKind.ResourceType).length;
  assert.equal(Object.keys(index.resources).length, resourceCount, 'every ResourceType is in the index');
  return { types, index, bodies };
}

/**
 * A comparable description of a type: its kind and, recursively (to `depth`), what matters to Bicep
 * — object members with flags, literals, union members (sorted), array items, map values, sensitivity.
 * Names of object types and constraints (which Radius drops) are left out.
 */
export function shape(types: BicepType[], ref: TypeReference, depth = 6, constraints = false): unknown {
  const t = types[ref.index]!;
  if (depth === 0) return t.type;
  switch (t.type) {
    case TypeBaseKind.StringType:
      return {
        kind: 'string',
        ...(t.sensitive ? { sensitive: true } : {}),
        ...(constraints ? { minLength: t.minLength, maxLength: t.maxLength, pattern: t.pattern } : {}),
      };
    case TypeBaseKind.StringLiteralType:
      return { literal: t.value, ...((t as { sensitive?: boolean }).sensitive ? { sensitive: true } : {}) };
    case TypeBaseKind.UnionType:
      return {
        union: t.elements
          .map((e) => shape(types, e, depth - 1, constraints))
          .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
      };
    case TypeBaseKind.ArrayType:
      return { array: shape(types, t.itemType, depth - 1, constraints) };
    case TypeBaseKind.ObjectType:
      return {
        object: Object.fromEntries(
          Object.entries(t.properties)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([name, p]) => [
              name,
              { flags: p.flags, type: shape(types, p.type, depth - 1, constraints) },
            ]),
        ),
        ...(t.additionalProperties
          ? { map: shape(types, t.additionalProperties, depth - 1, constraints) }
          : {}),
        ...(t.sensitive ? { sensitive: true } : {}),
      };
    case TypeBaseKind.IntegerType:
      return constraints ? { kind: 'int', minValue: t.minValue, maxValue: t.maxValue } : { kind: 'int' };
    default:
      return { kind: t.type };
  }
}
