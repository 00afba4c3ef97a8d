/**
 * @module Source documents: bytes → value, with a way back from a JSON pointer to line:column.
 *
 * JSON is parsed with the native `JSON.parse` (fast path); its source positions are computed only
 * when a diagnostic needs one, by reading just the containers on its path (json-locate.ts). YAML is parsed once with `yaml`, which keeps them.
 * Valid JSON loads neither `yaml` nor `jsonc-parser` (see packages.ts).
 */
import { isUtf8 } from 'node:buffer';
import type { CST, Document as YamlDocument, Node as YamlNode, Tags } from 'yaml';
import { formatBytes } from './bounded-file.js';
import { diagnostic, pointerTokens, type Diagnostic } from './diagnostics.js';
import { jsonLocator, type JsonOffsets } from './json-locate.js';
import { jsonc, yaml } from './packages.js';
import { finish, finishYielding, type Steps } from './steps.js';

export type SourceFormat = 'json' | 'yaml';

export interface Position {
  line: number;
  column: number;
}

export interface SourceDocument {
  file?: string;
  format: SourceFormat;
  text: string;
  value: unknown;
  /** Where the value (or, with `'key'`, the member name) at `pointer` starts; the nearest ancestor if absent. */
  locate(pointer: string, target?: 'value' | 'key'): Position | undefined;
}

export interface ParseResult {
  document?: SourceDocument;
  diagnostics: Diagnostic[];
}

/** Bounds on every document: large or deep input is refused with a diagnostic, never a crash. */
export const LIMITS = {
  maxBytes: 10 * 1024 * 1024,
  maxDepth: 64,
  /**
   * JSON values (objects, arrays, scalars) once YAML aliases are expanded: an alias is a copy of its
   * anchor wherever it is used, so a few aliases of a large anchor would otherwise be gigabytes. The
   * largest published schema has under 2,000.
   */
  maxValues: 100_000,
  /**
   * Tokens of a YAML text that make or mark nodes (keys and values; the indicators `-`, `?`, `:`
   * and `,`; brackets, anchors, tags, document markers and directives), counted from the lexer's
   * tokens before the parser runs. The parser costs ~5-15 µs a token on a busy machine (empty items,
   * anchors and tags that it refuses cost as much as scalars), so this holds a parse to ~100 ms.
   * The largest published schema, written as YAML, has 4,700; a Radius manifest, under 1,500. JSON
   * has no such cost.
   */
  maxYamlTokens: 10_000,
  /** Line breaks of a YAML text outside scalars, blank and comment lines included (~2-4 µs each to the parser). */
  maxYamlLines: 20_000,
  /** YAML anchors and aliases together (each alias is resolved by scanning those before it). */
  maxAnchors: 1_000,
  maxSyntaxErrors: 20,
} as const;

export interface ParseOptions {
  file?: string;
  format?: SourceFormat;
  /** YAML tags to resolve (a template's `!Ref`, `!Sub`, …); unknown tags stay plain values. */
  yamlTags?: Tags;
  /**
   * When given, a tag neither YAML's own nor among `yamlTags` is an error (TP1006) at the tag, with
   * this message, instead of being dropped: a template's `!Foo` means something to some tool.
   */
  unknownYamlTag?: (tag: string) => string;
}

export function detectFormat(file: string | undefined, text: string): SourceFormat {
  if (file) {
    if (/\.json$/i.test(file)) return 'json';
    if (/\.ya?ml$/i.test(file)) return 'yaml';
  }
  const first = /\S/.exec(text)?.[0];
  return first === '{' || first === '[' ? 'json' : 'yaml';
}

/** Parse bytes or text into a located document, or diagnostics saying why it cannot be. */
export function parseSource(input: string | Uint8Array, options: ParseOptions = {}): ParseResult {
  return finish(parseSourceSteps(input, options));
}

/**
 * As {@link parseSource}, giving the event loop a turn every few milliseconds of a YAML parse: what a
 * server calls, so that a large document does not hold its other requests while it is read.
 */
export function parseSourceYielding(
  input: string | Uint8Array,
  options: ParseOptions = {},
): Promise<ParseResult> {
  return finishYielding(parseSourceSteps(input, options));
}

/** Lexemes (and parser tokens) handled between two places where a YAML parse may pause. */
const LEXEMES_PER_STEP = 512;

function* parseSourceSteps(input: string | Uint8Array, options: ParseOptions): Steps<ParseResult> {
  const file = options.file;
  const size = typeof input === 'string' ? Buffer.byteLength(input) : input.byteLength;
  if (size > LIMITS.maxBytes)
    return tooLarge(
      file,
      `document is ${formatBytes(size)}, over the ${formatBytes(LIMITS.maxBytes)} limit; split it into one file per resource type`,
    );
  let text: string;
  if (typeof input === 'string') {
    text = input;
  } else {
    const decoded = decodeText(input);
    if (decoded === undefined) {
      return {
        diagnostics: [
          placed(
            file,
            diagnostic('TP1003', '', 'document is not UTF-8 text (binary data); give a JSON or YAML file'),
          ),
        ],
      };
    }
    text = decoded;
    yield;
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.includes('\u0000')) {
    return {
      diagnostics: [
        placed(
          file,
          diagnostic('TP1003', '', 'document contains NUL bytes (binary data); give a JSON or YAML file'),
        ),
      ],
    };
  }
  if (text.trim() === '') {
    return {
      diagnostics: [
        placed(
          file,
          diagnostic(
            'TP1002',
            '',
            'document is empty; a resource schema (JSON) or a manifest (YAML) is expected',
          ),
        ),
      ],
    };
  }
  const format = options.format ?? detectFormat(options.file, text);
  const lines = new LineIndex(text);
  if (format === 'json') return yield* parseJson(text, file, lines);
  return yield* parseYaml(text, file, lines, options.yamlTags, options.unknownYamlTag);
}

/** A diagnostic about the document in `file`, at `pos` (its start when unknown). */
function placed(file: string | undefined, d: Diagnostic, pos?: Position): Diagnostic {
  return { ...d, file, line: pos?.line ?? 1, column: pos?.column ?? 1 };
}

/** A document over one of the size limits (TP1004), located where the limit was passed if known. */
function tooLarge(file: string | undefined, message: string, pos?: Position): ParseResult {
  return { diagnostics: [placed(file, diagnostic('TP1004', '', message), pos)] };
}

/** A document nested deeper than the limit (TP1007), located at `offset`. */
function depthError(file: string | undefined, lines: LineIndex, offset: number, why = ''): ParseResult {
  return {
    diagnostics: [
      placed(
        file,
        diagnostic(
          'TP1007',
          '',
          `document is nested more than ${LIMITS.maxDepth} levels deep${why}; flatten it or move shared shapes into definitions`,
        ),
        lines.position(offset),
      ),
    ],
  };
}

function tooManyJsonValues(file: string | undefined): ParseResult {
  return tooLarge(
    file,
    `document has more than ${LIMITS.maxValues} values; split it into one file per resource type`,
  );
}

function* parseJson(text: string, file: string | undefined, lines: LineIndex): Steps<ParseResult> {
  // A value costs JSON.parse far more than a character costs this scan: millions of small values
  // in 10 MB are refused before they are built. The scan counts commas, so a text of at most
  // maxValues characters cannot pass it (nor hold more values): it is skipped.
  if (text.length > LIMITS.maxValues && jsonScan(text, Number.POSITIVE_INFINITY, LIMITS.maxValues))
    return tooManyJsonValues(file);
  yield;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    yield;
    if (e instanceof RangeError) return depthError(file, lines, 0);
    // jsonc-parser recurses once per level: deep input is refused before it gets there.
    const deep = jsonDepthOffset(text, LIMITS.maxDepth);
    if (deep >= 0) return depthError(file, lines, deep);
    const { parse: parseJsonc, printParseErrorCode } = jsonc();
    const errors: { error: number; offset: number; length: number }[] = [];
    try {
      parseJsonc(text, errors, {
        disallowComments: true,
        allowTrailingComma: false,
        allowEmptyContent: false,
      });
    } catch (e2) {
      if (e2 instanceof RangeError) return depthError(file, lines, 0);
      throw e2;
    }
    yield;
    // One report per place: a missing member after a trailing comma, say, is also a missing value.
    const seen = new Set<number>();
    const located = errors.filter((e) => !seen.has(e.offset) && seen.add(e.offset));
    const diagnostics = located.slice(0, LIMITS.maxSyntaxErrors).map((e) => {
      const comma = trailingCommaBefore(text, e.offset);
      return comma >= 0
        ? placed(
            file,
            diagnostic(
              'TP1005',
              '',
              `JSON syntax error: trailing comma; remove the ',' before '${text[e.offset]}' (JSON allows none)`,
            ),
            lines.position(comma),
          )
        : placed(
            file,
            diagnostic('TP1005', '', `JSON syntax error: ${describeJsonError(printParseErrorCode(e.error))}`),
            lines.position(e.offset),
          );
    });
    if (diagnostics.length === 0)
      diagnostics.push(placed(file, diagnostic('TP1005', '', 'JSON syntax error')));
    return { diagnostics };
  }
  yield;
  // A text of at most maxValues characters holds at most that many values: only its depth can pass.
  const bound = valueBounds(
    value,
    LIMITS.maxDepth,
    text.length > LIMITS.maxValues ? LIMITS.maxValues : Infinity,
  );
  if (bound === 'depth') return depthError(file, lines, Math.max(0, jsonDepthOffset(text, LIMITS.maxDepth)));
  if (bound === 'values') return tooManyJsonValues(file);
  let locator: ((tokens: readonly string[]) => JsonOffsets) | undefined;
  const document: SourceDocument = {
    file,
    format: 'json',
    text,
    value,
    locate(pointer: string, target: 'value' | 'key' = 'value'): Position {
      locator ??= jsonLocator(text, (starts) => lines.adopt(starts));
      const found = locator(pointerTokens(pointer));
      return lines.position(target === 'key' && found.key !== undefined ? found.key : found.value);
    },
  };
  return { document, diagnostics: [] };
}

function* parseYaml(
  text: string,
  file: string | undefined,
  lines: LineIndex,
  customTags?: Tags,
  unknownTag?: (tag: string) => string,
): Steps<ParseResult> {
  const tooManyValues = (offset: number, why: 'values' | 'anchors'): ParseResult =>
    tooLarge(
      file,
      why === 'values'
        ? `document has more than ${LIMITS.maxValues} values, aliases expanded; split it, or use fewer aliases of large anchors`
        : `document has more than ${LIMITS.maxAnchors} anchors and aliases; write the values out or share fewer of them`,
      lines.position(offset),
    );
  // The parser keeps every open level in memory and the composer recurses once per level, so depth
  // is bounded first from the tokens alone, then exactly on the syntax tree, before composing. The
  // parser's time grows with the tokens and lines, so they are bounded from the tokens too.
  const guard = yield* yamlTextGuard(text);
  if ('why' in guard) {
    if (guard.why === 'depth') return depthError(file, lines, guard.offset);
    return tooLarge(
      file,
      guard.why === 'tokens'
        ? `YAML document has more than ${LIMITS.maxYamlTokens} keys, values and indicators; split it, or give it as JSON`
        : `YAML document has more than ${LIMITS.maxYamlLines} lines; split it, or give it as JSON`,
      lines.position(guard.offset),
    );
  }
  const { Composer, Parser } = yaml();
  // The parser takes the guard's lexemes: the text is not lexed twice.
  const parser = new Parser();
  const tokens: CST.Token[] = [];
  let fed = 0;
  for (const lexeme of guard.lexemes) {
    for (const token of parser.next(lexeme)) tokens.push(token);
    if (++fed % LEXEMES_PER_STEP === 0) yield;
  }
  for (const token of parser.end()) tokens.push(token);
  const deep = cstDepthOffset(tokens, LIMITS.maxDepth);
  if (deep !== undefined) return depthError(file, lines, deep);
  yield;
  const syntaxErrors = (errors: readonly { message: string; pos: [number, number] }[]): ParseResult => ({
    diagnostics: errors
      .slice(0, LIMITS.maxSyntaxErrors)
      .map((e) =>
        placed(
          file,
          diagnostic('TP1006', '', `YAML syntax error: ${firstLine(e.message)}`),
          lines.position(e.pos[0]),
        ),
      ),
  });
  let docs;
  // The composer makes an Error for every fault it finds (a flood of stray commas, tags or anchors
  // makes thousands) and only their messages and places are used: no stack is captured for them,
  // which made such a text cost several times a valid one.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    // The composer's own duplicate-key check is quadratic in the size of a mapping; ours is linear.
    docs = [
      ...new Composer({
        prettyErrors: false,
        uniqueKeys: false,
        logLevel: 'error',
        ...(customTags ? { customTags } : {}),
      }).compose(tokens, true, text.length),
    ];
  } catch (e) {
    if (e instanceof RangeError) return depthError(file, lines, 0);
    throw e;
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
  yield;
  const doc = docs[0]!;
  if (docs.length > 1) {
    const second = docs[1]!.range[0];
    return syntaxErrors([
      ...doc.errors,
      {
        message:
          'a file holds one YAML document; remove the second one (after ---) or move it to its own file',
        pos: [second, second],
      },
    ]);
  }
  if (doc.errors.length > 0) return syntaxErrors(doc.errors);
  const unresolved = unknownTag ? doc.warnings.filter((w) => w.code === 'TAG_RESOLVE_FAILED') : [];
  if (unresolved.length > 0)
    return {
      diagnostics: unresolved
        .slice(0, LIMITS.maxSyntaxErrors)
        .map((w) =>
          placed(
            file,
            diagnostic('TP1006', '', unknownTag!(/^Unresolved tag: (.*)$/.exec(w.message)?.[1] ?? w.message)),
            lines.position(w.pos[0]),
          ),
        ),
    };
  const duplicates = duplicateKeys(doc);
  if (duplicates.length > 0) return syntaxErrors(duplicates);
  yield;
  if (doc.contents === null) {
    return {
      diagnostics: [
        placed(
          file,
          diagnostic(
            'TP1002',
            '',
            'document is empty (only comments); a resource schema or a manifest is expected',
          ),
        ),
      ],
    };
  }
  const expanded = yamlValuesProblem(doc, LIMITS.maxValues, LIMITS.maxAnchors);
  if (expanded !== undefined) return tooManyValues(expanded.offset, expanded.why);
  yield;
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    // Alias expansion beyond the bound ("billion laughs") lands here.
    return {
      diagnostics: [placed(file, diagnostic('TP1006', '', `YAML error: ${firstLine((e as Error).message)}`))],
    };
  }
  yield;
  // Aliases can nest a collection inside itself, or deeper than the text shows.
  if (valueBounds(value, LIMITS.maxDepth, Infinity) === 'depth')
    return depthError(
      file,
      lines,
      firstAliasOffset(text),
      ' once its aliases are expanded (or an alias refers to a collection that contains it)',
    );
  const locate = (pointer: string, target: 'value' | 'key' = 'value'): Position | undefined => {
    let node: unknown = doc.contents;
    let keyNode: YamlNode | undefined;
    for (const token of pointerTokens(pointer)) {
      const next = yamlChild(node, token);
      if (!next) {
        keyNode = undefined;
        break;
      }
      node = next.value;
      keyNode = next.key;
    }
    const chosen = target === 'key' && keyNode ? keyNode : (node as YamlNode | null);
    const offset = chosen?.range?.[0];
    return offset === undefined ? undefined : lines.position(offset);
  };
  return { document: { file, format: 'yaml', text, value, locate }, diagnostics: [] };
}

/**
 * Where a YAML document passes a bound on its aliases (the offset at fault, and why), or `undefined`
 * within them: at most `maxAnchors` anchors and aliases together (resolving an alias scans those
 * before it), and at most `maxValues` values once aliases are expanded. Each node's expanded count is
 * computed once and reused wherever an alias names it, so the cost is linear in the document however
 * large the expansion.
 */
function yamlValuesProblem(
  doc: YamlDocument.Parsed,
  maxValues: number,
  maxAnchors: number,
): { offset: number; why: 'values' | 'anchors' } | undefined {
  const { isAlias, isMap, isPair, isSeq, visit } = yaml();
  // Anchors as they appear: an alias names the last anchor of its name before it.
  const targets = new Map<unknown, unknown>();
  const anchors = new Map<string, unknown>();
  let seen = 0;
  let tooMany: number | undefined;
  visit(doc, {
    Node(_, node) {
      if (!isAlias(node) && node.anchor === undefined) return undefined;
      if (++seen > maxAnchors) {
        tooMany = node.range?.[0] ?? 0;
        return visit.BREAK;
      }
      if (isAlias(node)) targets.set(node, anchors.get(node.source));
      else anchors.set(node.anchor!, node);
      return undefined;
    },
  });
  if (tooMany !== undefined) return { offset: tooMany, why: 'anchors' };
  const counts = new Map<unknown, number>();
  let over: number | undefined;
  const count = (node: unknown): number => {
    if (over !== undefined) return Infinity;
    if (isAlias(node)) {
      const n = targets.get(node) === undefined ? 1 : count(targets.get(node));
      if (n > maxValues) over ??= node.range?.[0] ?? 0;
      return n;
    }
    const known = counts.get(node);
    if (known !== undefined) return known;
    // An alias to a collection containing it: counted once here; the depth check refuses it.
    counts.set(node, 1);
    let n = 1;
    if (isMap(node) || isSeq(node)) {
      for (const item of node.items) {
        n += isPair(item) ? count(item.key) + count(item.value) : count(item);
        if (n > maxValues) {
          const at = isPair(item) ? (item.value ?? item.key) : item;
          over ??= (at as { range?: [number] } | null)?.range?.[0] ?? node.range?.[0] ?? 0;
          return Infinity;
        }
      }
    }
    counts.set(node, n);
    return n;
  };
  count(doc.contents);
  return over === undefined ? undefined : { offset: over, why: 'values' };
}

/** Keys repeated within one mapping (scalar keys, compared by value as YAML does). */
function duplicateKeys(doc: YamlDocument.Parsed): { message: string; pos: [number, number] }[] {
  const { isScalar, visit } = yaml();
  const found: { message: string; pos: [number, number] }[] = [];
  visit(doc, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        const value = pair.key.value;
        if (seen.has(value)) {
          const at = pair.key.range?.[0] ?? 0;
          found.push({
            message: `duplicate key '${String(value)}'; a key may appear once in a mapping`,
            pos: [at, at],
          });
        }
        seen.add(value);
      }
    },
  });
  return found;
}

function yamlChild(node: unknown, token: string): { value: unknown; key?: YamlNode } | undefined {
  const { isMap, isPair, isScalar, isSeq } = yaml();
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = pair.key;
      const name = isScalar(key) ? String(key.value) : key;
      if (name === token) return { value: pair.value, key: isScalar(key) ? key : undefined };
    }
    return undefined;
  }
  if (isSeq(node) && /^(0|[1-9]\d*)$/.test(token)) {
    const value = node.items[Number(token)];
    if (value === undefined) return undefined;
    return { value: isPair(value) ? value.value : value };
  }
  return undefined;
}

/** Open block levels beyond which nesting surely exceeds the limit (each level opens at most ~3). */
const blockColumnsCap = (max: number): number => 4 * max + 4;

/**
 * Where YAML nesting, tokens or lines surely exceed {@link LIMITS}, from the token stream alone:
 * one pass that builds no tree and stops at the first bound passed, so hostile input costs little. Flow collections nest as their brackets do. Each block level starts at a
 * deeper column or after an indicator on the same line, so the columns still open bound the block
 * levels from above (at most ~3 columns per level). Otherwise the lexemes, for the parser; the exact
 * checks on its tree follow.
 */
function* yamlTextGuard(
  text: string,
): Steps<{ offset: number; why: 'depth' | 'tokens' | 'lines' } | { lexemes: string[] }> {
  const { CST, Lexer } = yaml();
  const max = LIMITS.maxDepth;
  const lexemes: string[] = [];
  let counted = 0;
  let lineCount = 0;
  const cap = blockColumnsCap(max);
  const columns: number[] = [];
  /** Where the open columns first outnumbered `max`: the likely place, reported if the cap is hit. */
  let suspect: number | undefined;
  let offset = 0;
  let lineStart = 0;
  let atLineStart = true;
  let flow = 0;
  let scalarNext = false;
  for (const token of new Lexer().lex(text)) {
    if (lexemes.push(token) % LEXEMES_PER_STEP === 0) yield;
    if (token === CST.DOCUMENT || token === CST.FLOW_END) continue;
    if (token === CST.SCALAR) {
      scalarNext = true;
      if (++counted > LIMITS.maxYamlTokens) return { offset, why: 'tokens' };
      continue;
    }
    const start = offset;
    offset += token.length;
    const type = scalarNext ? 'scalar' : CST.tokenType(token);
    // A scalar's own text was counted at its marker; spaces, comments and newlines are no nodes.
    if (!scalarNext && type !== 'space' && type !== 'comment' && type !== 'newline')
      if (++counted > LIMITS.maxYamlTokens) return { offset: start, why: 'tokens' };
    scalarNext = false;
    if (type === 'newline') {
      if (++lineCount > LIMITS.maxYamlLines) return { offset: start, why: 'lines' };
      atLineStart = true;
      lineStart = offset;
      continue;
    }
    if (type !== 'space' && type !== 'comment') {
      if (type === 'doc-start' || type === 'doc-end') {
        columns.length = 0;
        flow = 0;
      } else if (flow === 0) {
        const column = start - lineStart;
        if (atLineStart) {
          while (columns.length > 0 && columns[columns.length - 1]! > column) columns.pop();
          if (columns.length === 0 || columns[columns.length - 1]! < column) columns.push(column);
        } else if (
          (type === 'seq-item-ind' || type === 'explicit-key-ind' || type === 'map-value-ind') &&
          columns[columns.length - 1]! < column
        ) {
          columns.push(column);
        }
        if (columns.length > max) suspect ??= start;
        if (columns.length > cap) return { offset: suspect ?? start, why: 'depth' };
      }
      if (type === 'flow-seq-start' || type === 'flow-map-start') {
        if (++flow > max) return { offset: start, why: 'depth' };
      } else if ((type === 'flow-seq-end' || type === 'flow-map-end') && flow > 0) {
        flow--;
      }
      atLineStart = false;
    }
    // Block scalars end with their last line break; quoted and plain scalars may span lines.
    const lastBreak = token.lastIndexOf('\n');
    if (lastBreak >= 0) {
      lineStart = start + lastBreak + 1;
      atLineStart = lastBreak === token.length - 1;
    }
  }
  return { lexemes };
}

/** Offset of the first collection nested deeper than `max` in the syntax tree, in document order. */
function cstDepthOffset(tokens: readonly CST.Token[], max: number): number | undefined {
  const stack: [CST.Token | null | undefined, number][] = tokens
    .map((t): [CST.Token, number] => [t, 0])
    .reverse();
  while (stack.length > 0) {
    const [token, depth] = stack.pop()!;
    if (!token) continue;
    if (token.type === 'document') {
      stack.push([token.value, depth]);
    } else if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') {
      if (depth + 1 > max) return token.offset;
      for (let i = token.items.length - 1; i >= 0; i--) {
        const item = token.items[i]!;
        stack.push([item.value, depth + 1], [item.key, depth + 1]);
      }
    }
  }
  return undefined;
}

function firstAliasOffset(text: string): number {
  const match = /(^|[\s,[{:-])\*[^\s,[\]{}]/.exec(text);
  return match ? match.index + match[1]!.length : 0;
}

/**
 * Which bound a parsed value passes: nesting deeper than `maxDepth` (checked first), or more than
 * `maxValues` values (objects, arrays, scalars). Recursive, but never deeper than `maxDepth` (64):
 * deep input stops there, so it cannot overflow the stack.
 */
function valueBounds(root: unknown, maxDepth: number, maxValues: number): 'depth' | 'values' | undefined {
  if (typeof root !== 'object' || root === null) return undefined;
  if (maxValues === Infinity) return deeperThan(root, 1, maxDepth) ? 'depth' : undefined;
  const below = valuesBelow(root, 1, maxDepth);
  if (below < 0) return 'depth';
  return below + 1 > maxValues ? 'values' : undefined;
}

/**
 * Whether `node`, at `depth`, or a value inside it is nested deeper than `maxDepth`: {@link valuesBelow}
 * without the count. Members are read with `for…in` alone: a parsed value's objects have their own
 * members only, unless something made Object.prototype's enumerable, and then this can only answer
 * yes more often (a refusal), never miss a level.
 */
function deeperThan(node: object, depth: number, maxDepth: number): boolean {
  if (depth > maxDepth) return true;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const child: unknown = node[i];
      if (typeof child === 'object' && child !== null && deeperThan(child, depth + 1, maxDepth)) return true;
    }
  } else {
    for (const key in node) {
      const child = (node as Record<string, unknown>)[key];
      if (typeof child === 'object' && child !== null && deeperThan(child, depth + 1, maxDepth)) return true;
    }
  }
  return false;
}

/** The values inside `node`, at `depth`; -1 when it or one inside it is deeper than `maxDepth`. */
function valuesBelow(node: object, depth: number, maxDepth: number): number {
  if (depth > maxDepth) return -1;
  let count = 0;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      count++;
      const child: unknown = node[i];
      if (typeof child === 'object' && child !== null) {
        const inside = valuesBelow(child, depth + 1, maxDepth);
        if (inside < 0) return -1;
        count += inside;
      }
    }
  } else {
    for (const key in node) {
      if (!Object.hasOwn(node, key)) continue;
      count++;
      const child = (node as Record<string, unknown>)[key];
      if (typeof child === 'object' && child !== null) {
        const inside = valuesBelow(child, depth + 1, maxDepth);
        if (inside < 0) return -1;
        count += inside;
      }
    }
  }
  return count;
}

/** Offset where JSON nesting first exceeds `max`, or -1: a single pass that skips strings. */
export function jsonDepthOffset(text: string, max: number): number {
  return jsonScan(text, max, Number.POSITIVE_INFINITY)?.offset ?? -1;
}

/**
 * Where JSON text surely passes a bound, from its characters alone (strings skipped): nesting deeper
 * than `maxDepth`, or more commas than `maxValues` (each separates two values or members, so the
 * text holds more values than that).
 */
function jsonScan(
  text: string,
  maxDepth: number,
  maxValues: number,
): { offset: number; why: 'depth' | 'values' } | undefined {
  let depth = 0;
  let commas = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip a string, honouring escapes; like jsonc-parser, a line break ends an unterminated one.
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === 0x5c) i++;
        else if (s === 0x22) break;
        else if (s === 0x0a || s === 0x0d) break;
      }
    } else if (c === 0x2f && text.charCodeAt(i + 1) === 0x2f) {
      // A comment (an error in JSON, but jsonc-parser skips it): brackets in it do not nest.
      while (i < text.length && text.charCodeAt(i) !== 0x0a) i++;
    } else if (c === 0x2f && text.charCodeAt(i + 1) === 0x2a) {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return { offset: i, why: 'depth' };
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    } else if (c === 0x2c) {
      if (++commas > maxValues) return { offset: i, why: 'values' };
    }
  }
  return undefined;
}

function decodeText(bytes: Uint8Array): string | undefined {
  if (bytes.subarray(0, 8192).includes(0) || !isUtf8(bytes)) return undefined;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/** The offset of a comma that only whitespace separates from the `}` or `]` at `offset`, or -1. */
function trailingCommaBefore(text: string, offset: number): number {
  if (text[offset] !== '}' && text[offset] !== ']') return -1;
  let i = offset - 1;
  while (i >= 0 && /\s/.test(text[i]!)) i--;
  return text[i] === ',' ? i : -1;
}

function describeJsonError(code: string): string {
  const text: Record<string, string> = {
    InvalidSymbol: 'unexpected character',
    InvalidNumberFormat: 'malformed number',
    PropertyNameExpected: 'a quoted member name is expected',
    ValueExpected: 'a value is expected',
    ColonExpected: "':' is expected after a member name",
    CommaExpected: "',' is expected between members",
    CloseBraceExpected: "'}' is expected",
    CloseBracketExpected: "']' is expected",
    EndOfFileExpected: 'unexpected content after the document',
    InvalidCommentToken: 'comments are not allowed in JSON',
    UnexpectedEndOfComment: 'unterminated comment',
    UnexpectedEndOfString: 'unterminated string',
    UnexpectedEndOfNumber: 'unterminated number',
    InvalidUnicode: 'invalid \\u escape',
    InvalidEscapeCharacter: 'invalid escape sequence',
    InvalidCharacter: 'control character in a string; escape it',
  };
  return text[code] ?? code;
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.trim();
}

/** Offsets → 1-based line and column (columns count UTF-16 code units, as editors do). */
class LineIndex {
  private starts: number[] | undefined;
  constructor(private readonly text: string) {}

  /** Where each line starts, found by a scan that met every line break (the JSON locator's). */
  adopt(starts: number[]): void {
    this.starts ??= starts;
  }

  position(offset: number): Position {
    if (!this.starts) {
      this.starts = [0];
      for (let i = this.text.indexOf('\n'); i >= 0; i = this.text.indexOf('\n', i + 1))
        this.starts.push(i + 1);
    }
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - this.starts[lo]! + 1 };
  }
}
