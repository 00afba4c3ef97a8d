/**
 * @module A recipe's own settings, read from its template's `Metadata: Typeplane::Recipe`, and the
 * map from its outputs to the type's properties. Pure.
 *
 * ```yaml
 * Metadata:
 *   Typeplane::Recipe:
 *     GeneratedSecrets: [Password]        # NoEcho parameters made once per instance (Bicep's newGuid())
 *     Outputs:                            # output name → the property it fills (dots for nesting)
 *       Hostname: status.binding.hostname
 * ```
 * Without `Outputs`, an output called `result` fills properties as a Radius recipe's does
 * (`{ values: {…}, secrets: {…} }`, keys naming properties), and any other output fills the top-level
 * read-only or write-only property of its own name.
 */
import type { ResourceType } from '../schema/index.js';
import { escapePointerToken } from '../schema/diagnostics.js';
import { recipeDiagnostic } from './rules.js';
import type { Diagnostic } from '../schema/index.js';

export const RECIPE_METADATA = 'Typeplane::Recipe';
/** The Radius convention's output. */
export const RESULT = 'result';

export interface RecipeSpec {
  generated: string[];
  /** Output name → property path, when the template says. */
  outputs?: Record<string, string[]>;
}

/** Where one output's value (or a part of `result`) lands. */
export interface OutputTarget {
  output: string;
  /** For `result`: `values` or `secrets`, and the key. */
  part?: { section: 'values' | 'secrets'; key: string };
  path: string[];
  /** Pointer of the expression in the template. */
  pointer: string;
  expression: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Specs of recipe documents (each read once per text, frozen: parsed.ts), read once each. */
const specs = new WeakMap<object, Readonly<RecipeSpec>>();

/**
 * The spec of a recipe document as {@link readSpec} reads it, read once per document: every
 * instance's create reads its recipe's twice. Frozen, as the documents are.
 */
export function specOf(doc: Record<string, unknown>): Readonly<RecipeSpec> {
  let spec = specs.get(doc);
  if (!spec) {
    const read = readSpec(doc).spec;
    Object.freeze(read.generated);
    if (read.outputs) Object.freeze(read.outputs);
    specs.set(doc, (spec = Object.freeze(read)));
  }
  return spec;
}

export function readSpec(doc: Record<string, unknown>): { spec: RecipeSpec; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const spec: RecipeSpec = { generated: [] };
  const metadata = isObject(doc.Metadata) ? doc.Metadata[RECIPE_METADATA] : undefined;
  if (metadata === undefined) return { spec, diagnostics };
  const at = `/Metadata/${escapePointerToken(RECIPE_METADATA)}`;
  if (!isObject(metadata)) {
    diagnostics.push(
      recipeDiagnostic('TP7007', at, `${RECIPE_METADATA} must be a mapping (GeneratedSecrets, Outputs)`),
    );
    return { spec, diagnostics };
  }
  for (const key of Object.keys(metadata))
    if (key !== 'GeneratedSecrets' && key !== 'Outputs')
      diagnostics.push(
        recipeDiagnostic(
          'TP7007',
          `${at}/${escapePointerToken(key)}`,
          `unknown key '${key}': ${RECIPE_METADATA} takes GeneratedSecrets and Outputs`,
        ),
      );
  const generated = metadata.GeneratedSecrets;
  if (generated !== undefined) {
    if (!Array.isArray(generated) || !generated.every((g) => typeof g === 'string'))
      diagnostics.push(
        recipeDiagnostic(
          'TP7007',
          `${at}/GeneratedSecrets`,
          'GeneratedSecrets must be a list of parameter names',
        ),
      );
    else spec.generated = [...new Set(generated as string[])];
  }
  const outputs = metadata.Outputs;
  if (outputs !== undefined) {
    if (!isObject(outputs))
      diagnostics.push(
        recipeDiagnostic(
          'TP7007',
          `${at}/Outputs`,
          'Outputs must map output names to property paths (status.binding.hostname)',
        ),
      );
    else {
      spec.outputs = {};
      for (const [name, path] of Object.entries(outputs)) {
        if (typeof path !== 'string' || !/^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$/.test(path))
          diagnostics.push(
            recipeDiagnostic(
              'TP7007',
              `${at}/Outputs/${escapePointerToken(name)}`,
              `the property '${String(path)}' of output ${name} must be a dotted property path, like status.binding.hostname`,
            ),
          );
        else spec.outputs[name] = path.split('.');
      }
    }
  }
  return { spec, diagnostics };
}

/** Where each output lands, as the spec (or the conventions) say; outputs that land nowhere aside. */
export function outputTargets(
  type: ResourceType,
  doc: Record<string, unknown>,
  spec: RecipeSpec,
): { targets: OutputTarget[]; unmapped: string[]; malformed: Diagnostic[] } {
  const outputs = isObject(doc.Outputs) ? doc.Outputs : {};
  const targets: OutputTarget[] = [];
  const unmapped: string[] = [];
  const malformed: Diagnostic[] = [];
  const topLevel = new Set(
    [...type.readOnlyProperties, ...type.writeOnlyProperties]
      .map((p) => p.split('/'))
      .filter((t) => t.length === 3)
      .map((t) => t[2]!),
  );
  for (const [name, declaration] of Object.entries(outputs)) {
    const pointer = `/Outputs/${escapePointerToken(name)}/Value`;
    const expression = isObject(declaration) ? declaration.Value : undefined;
    const mapped = spec.outputs?.[name];
    if (mapped) {
      targets.push({ output: name, path: mapped, pointer, expression });
    } else if (spec.outputs === undefined && name === RESULT) {
      if (!isObject(expression)) {
        malformed.push(
          recipeDiagnostic(
            'TP7007',
            pointer,
            `the output ${RESULT} is read as a Radius recipe's result: a mapping with 'values' and 'secrets', each mapping property names to values`,
          ),
        );
        continue;
      }
      for (const [section, entries] of Object.entries(expression)) {
        // Radius recipes list the resources they made, for Radius to delete them; here the
        // instance's stack knows them already, so the list is accepted as written and not needed.
        if (section === 'resources') continue;
        if ((section !== 'values' && section !== 'secrets') || !isObject(entries)) {
          malformed.push(
            recipeDiagnostic(
              'TP7007',
              `${pointer}/${escapePointerToken(section)}`,
              `${RESULT} takes 'values' and 'secrets', each a mapping of property names to values (and Radius's 'resources', not needed here)`,
            ),
          );
          continue;
        }
        for (const [key, value] of Object.entries(entries))
          targets.push({
            output: name,
            part: { section, key },
            path: key.split('.'),
            pointer: `${pointer}/${section}/${escapePointerToken(key)}`,
            expression: value,
          });
      }
    } else if (spec.outputs === undefined && topLevel.has(name)) {
      targets.push({ output: name, path: [name], pointer, expression });
    } else unmapped.push(name);
  }
  return { targets, unmapped, malformed };
}
