/**
 * @module What an open document is, recognised as `typeplane validate` recognises files, and its
 * findings from the very validators the commands run: a type document (resource schema, manifest)
 * as `typeplane validate` checks it among its workspace's; a hook schema as its registration checks
 * it; a stack template as `typeplane stack validate` checks it, against the types the workspace and
 * the server have. Anything else (settings, generated files) has no findings.
 */
import {
  HOOK_SCHEMA,
  STACK_TEMPLATE,
  otherDocument,
  validateDocument,
  type Diagnostic,
  type ValidationResult,
} from '../schema/index.js';
import { DEFAULT_PSEUDO, validateTemplate } from '../stacks/index.js';
import type { Workspace } from './workspace.js';

export type DocumentKind = 'resource-schema' | 'manifest' | 'hook' | 'template' | 'other';

export interface Recognised {
  kind: DocumentKind;
  diagnostics: Diagnostic[];
  /** A type document's result as validateDocument gave it, for the workspace to hold. */
  result?: ValidationResult;
}

/** A manifest's top-level keys, as the dialect is told from a value (`types`, `namespace`). */
const MANIFEST_KEYS = /^["']?(types|namespace)["']?\s*:/m;

/** Syntax errors: a text that has them is no value yet, of either kind. */
const SYNTAX = new Set(['TP1005', 'TP1006']);

/**
 * Check `text` (the file `file`, as shown) as the commands would. `previous` is what the document
 * was at its last check: a template being typed stays a template while its text does not parse.
 */
export async function recognise(
  text: string,
  file: string,
  workspace: Workspace,
  previous?: DocumentKind,
): Promise<Recognised> {
  const result = validateDocument(text, { file, bicepWarnings: true });
  const broken = result.diagnostics.some((d) => SYNTAX.has(d.rule));
  if (previous === 'template' && broken) return checkTemplate(text, workspace);
  if (!result.diagnostics.some((d) => d.rule === 'TP1008')) {
    const raw = { ...result, diagnostics: [...result.diagnostics] };
    workspace.checkAmongOthers(file, result, text);
    return {
      // A text that does not parse keeps the dialect it had (or its top-level keys say): completion
      // goes on in it.
      kind:
        result.dialect ??
        (previous === 'manifest' || (!previous && MANIFEST_KEYS.test(text)) ? 'manifest' : 'resource-schema'),
      diagnostics: result.diagnostics,
      result: raw,
    };
  }
  const other = otherDocument(text);
  if (other === STACK_TEMPLATE) return checkTemplate(text, workspace);
  if (other === HOOK_SCHEMA) {
    const { checkHookSchema } = await import('../policy/hooks/index.js');
    return { kind: 'hook', diagnostics: checkHookSchema(text, { file }).diagnostics };
  }
  // Named on its own, such a file is validate's error; in an editor it is one of the many JSON and
  // YAML files a workspace holds, as a folder walk skips them.
  if (other !== undefined) return { kind: 'other', diagnostics: [] };
  return { kind: 'resource-schema', diagnostics: result.diagnostics };
}

async function checkTemplate(text: string, workspace: Workspace): Promise<Recognised> {
  const checked = await validateTemplate(text, { types: workspace.typeSource(), pseudo: DEFAULT_PSEUDO });
  return { kind: 'template', diagnostics: checked.diagnostics };
}
