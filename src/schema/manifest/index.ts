/**
 * @module The manifest dialect: Radius-style resource type manifests.
 *
 * ```yaml
 * namespace: Radius.Data            # or `name:`, the older spelling
 * types:
 *   postgreSqlDatabases:
 *     description: A PostgreSQL database.
 *     capabilities: [SupportsRecipes]
 *     apiVersions:
 *       '2025-08-01-preview':
 *         schema: { type: object, properties: { ... } }
 * ```
 *
 * Every problem in the document is collected in one pass; a document without errors becomes one
 * `ResourceType` per type and API version (see `to-model.ts`).
 */
import { escapePointerToken, hasErrors } from '../diagnostics.js';
import type { Finding } from '../finding.js';
import type { DialectResult } from '../resource-schema/index.js';
import { closestKeyword } from './keywords.js';
import {
  CAPABILITY_PATTERN,
  MAX_NAMESPACE_LENGTH,
  NAMESPACE_PATTERN,
  TYPE_NAME_PATTERN,
  apiVersionProblem,
} from './names.js';
import {
  checkManifestSchema,
  clip,
  describeValue,
  isRecord,
  kindOf,
  reporter,
  type Report,
} from './schema.js';
import { manifestToModel } from './to-model.js';
import { REFERENCED_TYPE_PATTERN, REFERENCE_TARGET_PATTERN } from '../resource-schema/meta-schema.js';

/** Keys of the manifest itself (`location` is Radius's map of provider addresses, accepted and unused). */
const MANIFEST_KEYS = ['namespace', 'name', 'types', 'location'] as const;
/** Keys of one type (`defaultApiVersion` names the version clients use when they give none). */
const TYPE_KEYS = [
  'description',
  'capabilities',
  'apiVersions',
  'defaultApiVersion',
  'x-typeplane-noReplace',
  'x-typeplane-references',
] as const;
const VERSION_KEYS = ['schema'] as const;
const REFERENCE_TARGET = new RegExp(REFERENCE_TARGET_PATTERN);

/**
 * Check a parsed manifest and, when it has no error, normalise it.
 *
 * @example
 * const { findings, types } = checkManifest(parseYaml(text), 'postgres.yaml');
 */
export function checkManifest(document: unknown, source?: string): DialectResult {
  const findings = checkDocument(document);
  if (hasErrors(findings)) return { findings, types: [] };
  return { findings, types: manifestToModel(document as Record<string, unknown>, source) };
}

function checkDocument(document: unknown): Finding[] {
  const findings: Finding[] = [];
  const report = reporter(findings);

  if (!isRecord(document)) {
    report(
      'TP1010',
      '',
      `a manifest must be a mapping with 'namespace' and 'types', not ${kindOf(document)}`,
    );
    return findings;
  }
  unknownKeys(document, '', MANIFEST_KEYS, 'the manifest', report);

  // namespace (or name, the older spelling): exactly one.
  const hasNamespace = Object.hasOwn(document, 'namespace');
  const hasName = Object.hasOwn(document, 'name');
  if (!hasNamespace && !hasName) {
    report(
      'TP3002',
      '',
      "the manifest must have 'namespace': the namespace of its types, like 'Radius.Data'",
    );
  } else if (hasNamespace && hasName) {
    report(
      'TP3001',
      '/name',
      "give either 'namespace' or 'name' (its older spelling), not both; remove 'name'",
      'key',
    );
  }
  for (const key of ['namespace', 'name'] as const) {
    if (!Object.hasOwn(document, key)) continue;
    const value = document[key];
    if (typeof value !== 'string' || value.length > MAX_NAMESPACE_LENGTH || !NAMESPACE_PATTERN.test(value)) {
      const got =
        typeof value === 'string' && value.length > MAX_NAMESPACE_LENGTH
          ? `a ${value.length}-character string`
          : describeValue(value);
      report(
        'TP3001',
        `/${key}`,
        `'${key}' must be two PascalCase names of letters and digits joined by a dot, like 'Radius.Data' or 'MyCompany.Resources' (at most ${MAX_NAMESPACE_LENGTH} characters), not ${got}`,
      );
    }
  }

  const location = document.location;
  if (location !== undefined) {
    if (!isRecord(location)) {
      report(
        'TP1010',
        '/location',
        `'location' must be a mapping from location names to addresses, not ${describeValue(location)}`,
      );
    } else {
      for (const [name, address] of Object.entries(location)) {
        if (typeof address !== 'string') {
          report(
            'TP1010',
            `/location/${escapePointerToken(name)}`,
            `the address of location '${clip(name)}' must be a string, not ${describeValue(address)}`,
          );
        }
      }
    }
  }

  // Radius registers a namespace without types; Typeplane has nothing to register for it.
  const types = document.types;
  if (types === undefined) {
    report(
      'TP3020',
      '',
      "the manifest has no 'types', so it registers nothing; add a mapping from type names to their definitions",
    );
  } else if (types === null || (isRecord(types) && Object.keys(types).length === 0)) {
    report(
      'TP3020',
      '/types',
      "'types' defines no type, so the manifest registers nothing; add one, like 'postgreSqlDatabases: { description: ..., apiVersions: ... }'",
    );
  } else if (!isRecord(types)) {
    report(
      'TP1010',
      '/types',
      `'types' must be a mapping from type names to their definitions, not ${describeValue(types)}`,
    );
  } else {
    for (const [name, definition] of Object.entries(types)) checkType(name, definition, findings);
  }
  return findings;
}

function checkType(name: string, definition: unknown, findings: Finding[]): void {
  const report = reporter(findings);
  const at = `/types/${escapePointerToken(name)}`;
  if (!TYPE_NAME_PATTERN.test(name)) {
    report(
      'TP3004',
      at,
      `type name '${clip(name)}' is not allowed: use camelCase, 2 to 63 letters and digits starting with a lowercase letter, like 'postgreSqlDatabases'`,
      'key',
    );
  }
  if (definition === null) {
    report(
      'TP3002',
      at,
      `type '${clip(name)}' is empty; give it 'description' and 'apiVersions', like { description: ..., apiVersions: { '2025-08-01-preview': { schema: ... } } }`,
    );
    return;
  }
  if (!isRecord(definition)) {
    report(
      'TP1010',
      at,
      `type '${clip(name)}' must be a mapping with 'description' and 'apiVersions', not ${describeValue(definition)}`,
    );
    return;
  }
  const type = definition;
  unknownKeys(type, at, TYPE_KEYS, `type '${clip(name)}'`, report);

  // Radius makes 'description' optional; Typeplane asks for one, as a warning.
  const description = type.description;
  if (description === undefined || description === null) {
    report(
      'TP3021',
      at,
      `type '${clip(name)}' has no 'description'; add one sentence that says what the resource is, for its users and its generated documentation`,
    );
  } else if (typeof description !== 'string') {
    report(
      'TP1010',
      `${at}/description`,
      `'description' must be a string, not ${describeValue(description)}`,
    );
  } else if (description.trim() === '') {
    report(
      'TP3021',
      `${at}/description`,
      `'description' of type '${clip(name)}' is empty; say what the resource is`,
    );
  }

  checkTraits(type, at, report);

  const capabilities = type.capabilities;
  if (capabilities !== undefined && capabilities !== null) {
    if (!Array.isArray(capabilities)) {
      report(
        'TP3012',
        `${at}/capabilities`,
        `'capabilities' must be a list of capability names, like [SupportsRecipes], not ${describeValue(capabilities)}`,
      );
    } else {
      const seen = new Set<string>();
      capabilities.forEach((capability, i) => {
        const where = `${at}/capabilities/${i}`;
        if (typeof capability !== 'string' || !CAPABILITY_PATTERN.test(capability)) {
          report(
            'TP3012',
            where,
            `capability ${describeValue(capability)} is not a capability name: use PascalCase letters and digits, like 'SupportsRecipes'`,
          );
        } else if (seen.has(capability)) {
          report('TP3023', where, `capability '${capability}' is listed twice; remove the repeat`);
        } else {
          seen.add(capability);
        }
      });
    }
  }

  const versions = type.apiVersions;
  const declared = isRecord(versions) ? Object.keys(versions) : [];
  // Radius registers a type without versions; Typeplane registers types by version, so nothing.
  if (versions === undefined) {
    report(
      'TP3020',
      at,
      `type '${clip(name)}' has no 'apiVersions', so it registers nothing; add a mapping from API versions (like '2025-08-01-preview') to their schemas`,
    );
  } else if (versions === null || (isRecord(versions) && declared.length === 0)) {
    report(
      'TP3020',
      `${at}/apiVersions`,
      "'apiVersions' declares no version, so the type registers nothing; add one, like '2025-08-01-preview': { schema: ... }",
    );
  } else if (!isRecord(versions)) {
    report(
      'TP1010',
      `${at}/apiVersions`,
      `'apiVersions' must be a mapping from API versions to their schemas, not ${describeValue(versions)}`,
    );
  } else {
    for (const [version, entry] of Object.entries(versions))
      checkVersion(`${at}/apiVersions`, version, entry, findings);
  }

  const defaultVersion = type.defaultApiVersion;
  if (defaultVersion !== undefined) {
    if (typeof defaultVersion !== 'string' || !declared.includes(defaultVersion)) {
      const choices =
        declared.length > 0
          ? `one of ${declared.map((v) => `'${clip(v)}'`).join(', ')}`
          : 'one of its apiVersions';
      report(
        'TP3005',
        `${at}/defaultApiVersion`,
        `'defaultApiVersion' must be ${choices}, not ${describeValue(defaultVersion)}`,
      );
    }
  }
}

function checkVersion(parent: string, version: string, entry: unknown, findings: Finding[]): void {
  const report = reporter(findings);
  const at = `${parent}/${escapePointerToken(version)}`;
  const problem = apiVersionProblem(version);
  if (problem) report('TP3005', at, `API version '${clip(version)}' is not valid: ${problem}`, 'key');
  if (entry !== null && !isRecord(entry)) {
    report(
      'TP1010',
      at,
      `API version '${clip(version)}' must be a mapping with 'schema', not ${describeValue(entry)}`,
    );
    return;
  }
  const definition = entry ?? {};
  unknownKeys(definition, at, VERSION_KEYS, `API version '${clip(version)}'`, report);
  const schema = definition.schema;
  if (schema === undefined || schema === null) {
    report(
      'TP3002',
      at,
      `API version '${clip(version)}' must have 'schema': the OpenAPI schema of the resource, type: object with its properties`,
    );
    return;
  }
  checkManifestSchema(schema, `${at}/schema`, findings);
}

function unknownKeys(
  value: Record<string, unknown>,
  at: string,
  known: readonly string[],
  where: string,
  report: Report,
): void {
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    const suggestion = closestKeyword(key, known);
    report(
      'TP3003',
      `${at}/${escapePointerToken(key)}`,
      `unknown key '${clip(key)}' in ${where}; ${suggestion ? `did you mean '${suggestion}'?` : `it may have ${known.join(', ')}`}`,
      'key',
    );
  }
}

/**
 * `x-typeplane-noReplace: true` and `x-typeplane-references: [{ typeName, ids: { <target>: /properties/<member> } }]`:
 * the same traits as a resource schema's `traits`. `ids` keys name the referenced type's properties
 * (`name` or `/properties/name`); every member must be a top-level property of each API version's
 * schema (or `name`). Without `ids` the referenced type's identifiers are matched by name.
 */
function checkTraits(type: Record<string, unknown>, at: string, report: ReturnType<typeof reporter>): void {
  const noReplace = type['x-typeplane-noReplace'];
  if (noReplace !== undefined && typeof noReplace !== 'boolean') {
    report(
      'TP3018',
      `${at}/x-typeplane-noReplace`,
      `'x-typeplane-noReplace' must be true or false, not ${describeValue(noReplace)}`,
    );
  }
  const references = type['x-typeplane-references'];
  if (references === undefined) return;
  if (!Array.isArray(references)) {
    report(
      'TP3018',
      `${at}/x-typeplane-references`,
      `'x-typeplane-references' must be a list of { typeName, ids }, not ${describeValue(references)}`,
    );
    return;
  }
  const versions = isRecord(type.apiVersions) ? Object.values(type.apiVersions) : [];
  const declared = (member: string): boolean => {
    const m = /^\/properties\/([^/]+)$/.exec(member);
    if (!m) return false;
    if (m[1] === 'name') return true;
    return versions.every((v) => {
      const props =
        isRecord(v) && isRecord(v.schema) && isRecord(v.schema.properties) ? v.schema.properties : {};
      return Object.hasOwn(props, m[1]!);
    });
  };
  references.forEach((ref, i) => {
    const where = `${at}/x-typeplane-references/${i}`;
    if (
      !isRecord(ref) ||
      typeof ref.typeName !== 'string' ||
      !new RegExp(REFERENCED_TYPE_PATTERN).test(ref.typeName)
    ) {
      report(
        'TP3018',
        where,
        "each reference needs a 'typeName' like 'Typeplane.Data/postgresDatabases' or 'Org::Service::Resource'",
      );
      return;
    }
    for (const key of Object.keys(ref)) {
      if (key !== 'typeName' && key !== 'ids')
        report(
          'TP3018',
          `${where}/${escapePointerToken(key)}`,
          `unknown key '${key}' in a reference (known: typeName, ids)`,
          'key',
        );
    }
    if (ref.ids === undefined) return;
    if (!isRecord(ref.ids) || Object.keys(ref.ids).length === 0) {
      report(
        'TP3018',
        `${where}/ids`,
        "'ids' must map the referenced type's identifier properties to members, like { name: /properties/database }",
      );
      return;
    }
    for (const [target, member] of Object.entries(ref.ids)) {
      if (!REFERENCE_TARGET.test(target)) {
        report(
          'TP3018',
          `${where}/ids/${escapePointerToken(target)}`,
          `'${clip(target)}' must name a property of the referenced type: a name like 'name' or a pointer like '/properties/name'`,
          'key',
        );
      }
      if (typeof member !== 'string' || !declared(member)) {
        report(
          'TP3019',
          `${where}/ids/${escapePointerToken(target)}`,
          `member ${describeValue(member)} is not a property of this type; write '/properties/<name>' of a declared property`,
        );
      }
    }
  });
}
