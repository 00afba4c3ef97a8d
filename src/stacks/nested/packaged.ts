/**
 * @module Nested stacks' templates handed over with the parent, packaged into the parent's text as
 * `aws cloudformation package` packages them into S3: each `AWS::CloudFormation::Stack` whose
 * `TemplateURL` names a template of the map gets that template (itself packaged, its own nested
 * templates with it) in a last top-level section, `Typeplane::NestedTemplates` (TemplateURL →
 * text). The section is appended after everything the author wrote, so every line and column of
 * the template as written stays where it was. Reading the template puts each one back as the
 * resource's `TemplateBody`: a changed child template is a change of its resource, planned, applied
 * and rolled back as any property is.
 */
import { TypeplaneError } from '../../errors.js';
import { escapePointerToken } from '../../schema/diagnostics.js';
import { MAX_TEMPLATE_BYTES, loadTemplate, type ResourceDeclaration } from '../template.js';
import { NESTED_STACK_TYPE, NESTED_TEMPLATES } from './names.js';

/** Most templates one stack request may hand over (the parent's, its children's and theirs). */
export const MAX_NESTED_TEMPLATES = 50;
/** Most levels of stacks under the root (the root's children are level 1). */
export const MAX_NESTING_DEPTH = 5;

/**
 * `text` with the nested templates it names (through its children too) appended as its
 * {@link NESTED_TEMPLATES} section. Unnamed entries of `templates` are left out. Refused
 * (InvalidRequest, naming the template at fault) past {@link MAX_NESTED_TEMPLATES} templates,
 * {@link MAX_NESTING_DEPTH} levels or {@link MAX_TEMPLATE_BYTES} in all.
 */
export function packageTemplate(text: string, templates: Record<string, unknown>): string {
  const entries = Object.entries(templates);
  if (entries.length === 0) return text;
  if (entries.length > MAX_NESTED_TEMPLATES)
    throw refused(
      `${entries.length} templates are handed over; a stack takes at most ${MAX_NESTED_TEMPLATES}`,
      '/templates',
    );
  for (const [url, child] of entries)
    if (typeof child !== 'string' || child.trim() === '')
      throw refused(
        `templates['${url.slice(0, 200)}'] must be the text of a template`,
        `/templates/${escapePointerToken(url)}`,
      );
  const texts = new Map(entries as [string, string][]);
  const packaged = new Map<string, string>();
  let size = Buffer.byteLength(text);
  const pack = (source: string, depth: number, path: string[]): string => {
    const section: Record<string, string> = {};
    for (const url of nestedUrls(source)) {
      const child = texts.get(url);
      if (child === undefined) continue; // reported where the template is checked: its TemplateURL
      if (path.includes(url))
        throw refused(
          `nested templates name each other in a cycle: ${[...path, url].join(' → ')}`,
          '/templates',
        );
      if (depth + 1 > MAX_NESTING_DEPTH)
        throw refused(
          `stacks nest at most ${MAX_NESTING_DEPTH} levels deep: ${[...path, url].join(' → ')} is ${depth + 1}`,
          `/templates/${escapePointerToken(url)}`,
        );
      let done = packaged.get(url);
      if (done === undefined) {
        done = pack(child, depth + 1, [...path, url]);
        packaged.set(url, done);
      }
      section[url] = done;
      size += Buffer.byteLength(done);
      if (size > MAX_TEMPLATE_BYTES)
        throw refused(
          `the template with its nested templates is over ${MAX_TEMPLATE_BYTES} bytes; make the nested templates smaller, or deploy some as stacks of their own (exports and Fn::ImportValue connect them)`,
          '/templates',
        );
    }
    return Object.keys(section).length === 0 ? source : appendSection(source, section);
  };
  return pack(text, 0, []);
}

/** The literal TemplateURLs of a template's nested stacks (a template that does not read has none). */
export function nestedUrls(text: string): string[] {
  const loaded = loadTemplate(text);
  if (!loaded.template) return [];
  const urls: string[] = [];
  for (const resource of loaded.template.resources.values())
    if (resource.type === NESTED_STACK_TYPE && typeof resource.properties.TemplateURL === 'string')
      urls.push(resource.properties.TemplateURL);
  return [...new Set(urls)];
}

/** The section appended after the text: in a JSON template before its closing brace, in YAML as a last key. */
function appendSection(text: string, section: Record<string, string>): string {
  const value = JSON.stringify(section);
  const trimmed = text.trimEnd();
  if (trimmed.startsWith('{') && trimmed.endsWith('}'))
    return `${trimmed.slice(0, -1)},${JSON.stringify(NESTED_TEMPLATES)}:${value}}\n`;
  return `${trimmed}\n${NESTED_TEMPLATES}: ${value}\n`;
}

/**
 * Reading a template: each nested stack whose TemplateURL the section holds gets that template as its
 * `TemplateBody`. `problem` is told of a section that is not a mapping of texts.
 */
export function withNestedTemplates(
  section: unknown,
  resources: Iterable<ResourceDeclaration>,
  problem: (pointer: string, message: string) => void,
): void {
  if (section === undefined) return;
  if (typeof section !== 'object' || section === null || Array.isArray(section)) {
    problem(`/${NESTED_TEMPLATES}`, `${NESTED_TEMPLATES} must map TemplateURLs to template texts`);
    return;
  }
  const texts = section as Record<string, unknown>;
  for (const resource of resources) {
    if (resource.type !== NESTED_STACK_TYPE) continue;
    const url = resource.properties.TemplateURL;
    if (typeof url === 'string' && typeof texts[url] === 'string')
      resource.properties = { ...resource.properties, TemplateBody: texts[url] };
  }
}

function refused(message: string, pointer: string): TypeplaneError {
  return new TypeplaneError('InvalidRequest', message, [{ pointer, message }]);
}
