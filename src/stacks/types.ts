/**
 * @module How a template names a type. A resource schema's type is its name (`AWS::S3::Bucket`); a
 * manifest's is `Namespace.Area/typeName`, optionally with the API version after `@`
 * (`Applications.Datastores/redisCaches@2023-10-01-preview`), as Bicep writes it. The engine serves
 * a type's default (latest registered) version, so a version, when written, must be that one.
 */
import { TypeplaneError } from '../errors.js';
import type { Registry } from '../registry/registry.js';
import type { TypeSource } from './analyze.js';
import { closestName, editsAllowed } from '../schema/similar-names.js';

export function parseTypeReference(written: string): { typeName: string; version?: string } {
  const at = written.lastIndexOf('@');
  if (at > 0 && written.includes('/'))
    return { typeName: written.slice(0, at), version: written.slice(at + 1) };
  return { typeName: written };
}

/**
 * The registered type a mistyped name is close to, if any. Type names share long prefixes
 * (`AWS::CloudFormation::`), so closeness is measured against the last part of the name: a few
 * edits for its length, not the whole name's (`AWS::CloudFormation::Macro` is not close to
 * `AWS::CloudFormation::Stack`; `AWS::S3::Buckett` is to `AWS::S3::Bucket`).
 */
export function closestTypeName(name: string, candidates: Iterable<string>): string | undefined {
  const last = name.slice(Math.max(name.lastIndexOf(':'), name.lastIndexOf('/')) + 1);
  return closestName(name, candidates, { maxEdits: editsAllowed(last, 3) });
}

/** The registry as a template sees it: unknown types are undefined, not errors. */
export function registryTypes(registry: Registry): TypeSource {
  return {
    get: (typeName) =>
      registry.get(typeName).catch((e: unknown) => {
        if (e instanceof TypeplaneError && e.code === 'NotFound') return undefined;
        throw e;
      }),
    now: (typeName) => registry.fresh(typeName),
    async names() {
      return (await registry.list()).map((t) => t.typeName);
    },
  };
}

/**
 * The registry as a caller sees it: a type outside its scope is refused by name (AccessDenied, as the
 * resource routes refuse it), and "did you mean" suggests only types it may reach.
 */
export function scopedTypes(types: TypeSource, authorize: (typeNames: string[]) => void): TypeSource {
  const visible = (typeName: string) => {
    try {
      authorize([typeName]);
      return true;
    } catch {
      return false;
    }
  };
  return {
    async get(typeName) {
      authorize([typeName]);
      return types.get(typeName);
    },
    async names() {
      return (await types.names()).filter(visible);
    },
  };
}
