/**
 * @module The suite's results for people and for machines: a terminal report (a line per test, each
 * failure with its request, response and a diff of expected against actual), JSON, and JUnit XML.
 */
import type { Failure, RecordedRequest } from './suite.js';
import type { SuiteReport, TestResult } from './runner.js';
import { canonicalJson } from './generate.js';

export interface TextOptions {
  /** ANSI colours (default off). */
  color?: boolean;
}

const MAX_LINE = 240;
const MAX_DIFF_LINES = 60;

/** The header printed before the first result. */
export function textHeader(report: Pick<SuiteReport, 'typeName' | 'provider' | 'inputs'>): string {
  const inputs =
    report.inputs.source === 'generated'
      ? `generated (seed ${report.inputs.seed}, ${report.inputs.runs} per test)`
      : `from files (${report.inputs.sets.join(', ')})`;
  return `typeplane test: ${report.typeName} with provider ${report.provider}\ninputs: ${inputs}\n\n`;
}

/** One test's lines: the status line, then its failures in detail. */
export function textResult(result: TestResult, options: TextOptions = {}): string {
  const paint = painter(options.color === true);
  const label = {
    pass: paint.green('PASS '),
    fail: paint.red('FAIL '),
    error: paint.red('ERROR'),
    skip: paint.yellow('SKIP '),
  }[result.status];
  const time = result.status === 'skip' ? '' : paint.dim(`  ${result.durationMs} ms`);
  const reason = result.reason ? ` — ${result.reason}` : '';
  const lines = [`  ${label} ${result.name}${reason}${time}`];
  for (const note of result.notes) lines.push(paint.dim(`        (${note})`));
  if (result.status === 'fail') {
    lines.push(paint.dim(`        clause: ${result.clause}`));
    for (const failure of result.failures) lines.push(...failureLines(failure, paint));
    if (result.input !== undefined) {
      const shrunk = result.shrinks ? `, shrunk ${result.shrinks} times` : '';
      lines.push(`        input (after ${result.runs} runs${shrunk}): ${clip(canonicalJson(result.input))}`);
    }
  }
  return lines.join('\n') + '\n';
}

/** The closing summary. */
export function textSummary(report: SuiteReport, options: TextOptions = {}): string {
  const paint = painter(options.color === true);
  const count = (s: TestResult['status']) => report.results.filter((r) => r.status === s).length;
  const parts = [`${count('pass')} passed`, `${count('fail')} failed`];
  if (count('error') > 0) parts.push(`${count('error')} could not run`);
  parts.push(`${count('skip')} skipped`);
  const lines = ['', `${parts.join(', ')} in ${(report.durationMs / 1000).toFixed(2)} s`];
  for (const warning of report.warnings) lines.push(paint.yellow(`warning: ${warning}`));
  const { deleted, leftovers } = report.cleanup;
  if (leftovers.length === 0) {
    lines.push(`cleanup: nothing left behind${deleted > 0 ? ` (${deleted} deleted by the cleanup)` : ''}`);
  } else {
    lines.push(paint.red(`cleanup: ${leftovers.length} resources may be left behind:`));
    for (const l of leftovers) lines.push(paint.red(`  ${l.identifier}: ${l.problem}`));
  }
  if (report.interrupted) lines.push(paint.yellow('interrupted: the remaining tests did not run'));
  if (report.inputs.source === 'generated' && !report.ok)
    lines.push(`reproduce with: --seed ${report.inputs.seed} --runs ${report.inputs.runs}`);
  lines.push(
    report.ok
      ? paint.green('the provider keeps the contract')
      : paint.red('the provider breaks the contract'),
  );
  return lines.join('\n') + '\n';
}

/** The whole text report. */
export function textReport(report: SuiteReport, options: TextOptions = {}): string {
  return (
    textHeader(report) +
    report.results.map((r) => textResult(r, options)).join('') +
    textSummary(report, options)
  );
}

function failureLines(failure: Failure, paint: Painter): string[] {
  const lines = [paint.red(`        ✗ ${failure.message}`)];
  const call = failure.call;
  if (call) {
    lines.push(`          request:  ${call.action} ${clip(canonicalJson(requestShown(call.request)))}`);
    const response = call.problem
      ? call.events.length > 0
        ? `${call.problem.message}; last answer ${clip(eventText(call.events.at(-1)))}`
        : call.problem.message
      : clip(eventText(call.final ?? call.events.at(-1)));
    lines.push(`          response: ${response}`);
    if (call.events.length > 1)
      lines.push(paint.dim(`          (${call.events.length} answers: IN_PROGRESS steps followed)`));
    for (const log of call.logs.slice(0, 5)) lines.push(paint.dim(`          log: ${clip(log)}`));
  }
  if (failure.expected !== undefined || failure.actual !== undefined) {
    lines.push(`          ${paint.red('- expected')} ${paint.green('+ actual')}`);
    for (const line of diffLines(failure.expected, failure.actual)) {
      const text = `            ${line}`;
      lines.push(line.startsWith('-') ? paint.red(text) : line.startsWith('+') ? paint.green(text) : text);
    }
  }
  return lines;
}

/** An answer as `STATUS [errorCode] {the rest}`. */
function eventText(event: unknown): string {
  if (typeof event !== 'object' || event === null || Array.isArray(event))
    return canonicalJson(event ?? null);
  const { status, errorCode, ...rest } = event as Record<string, unknown>;
  const head = [status, errorCode]
    .filter((v) => v !== undefined)
    .map(String)
    .join(' ');
  const tail = Object.keys(rest).length > 0 ? canonicalJson(rest) : '';
  return [head, tail].filter((v) => v !== '').join(' ') || '{}';
}

function requestShown(request: RecordedRequest): Record<string, unknown> {
  const { typeName: _t, clientRequestToken: _c, ...rest } = request;
  return rest;
}

function clip(text: string): string {
  return text.length > MAX_LINE ? `${text.slice(0, MAX_LINE)}… (${text.length} chars)` : text;
}

/** A line diff of the two values as pretty JSON with sorted keys; unchanged runs collapsed. */
export function diffLines(expected: unknown, actual: unknown): string[] {
  const a = pretty(expected);
  const b = pretty(actual);
  const ops = lcsDiff(a, b);
  const out: string[] = [];
  const CONTEXT = 2;
  ops.forEach((op, i) => {
    if (op.kind !== ' ') {
      out.push(`${op.kind} ${clip(op.line)}`);
      return;
    }
    const near = ops.slice(Math.max(0, i - CONTEXT), i + CONTEXT + 1).some((o) => o.kind !== ' ');
    if (near) out.push(`  ${clip(op.line)}`);
    else if (out.at(-1) !== '  …') out.push('  …');
  });
  if (out.length > MAX_DIFF_LINES)
    return [...out.slice(0, MAX_DIFF_LINES), `  … (${out.length - MAX_DIFF_LINES} more lines)`];
  return out;
}

function pretty(value: unknown): string[] {
  if (value === undefined) return ['(nothing)'];
  return JSON.stringify(JSON.parse(canonicalJson(value)), null, 2).split('\n');
}

function lcsDiff(a: string[], b: string[]): { kind: ' ' | '-' | '+'; line: string }[] {
  if (a.length * b.length > 4_000_000) {
    return [
      ...a.map((line) => ({ kind: '-' as const, line })),
      ...b.map((line) => ({ kind: '+' as const, line })),
    ];
  }
  const n = a.length;
  const m = b.length;
  const table: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      table[i]![j] =
        a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
  const ops: { kind: ' ' | '-' | '+'; line: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      ops.push({ kind: ' ', line: a[i]! });
      i++;
      j++;
    } else if (table[i + 1]![j]! >= table[i]![j + 1]!) ops.push({ kind: '-', line: a[i++]! });
    else ops.push({ kind: '+', line: b[j++]! });
  }
  while (i < n) ops.push({ kind: '-', line: a[i++]! });
  while (j < m) ops.push({ kind: '+', line: b[j++]! });
  return ops;
}

// ---- JSON ------------------------------------------------------------------------------------------

/** The report as JSON: every result, each failure with its request, answers and expected/actual. */
export function jsonReport(report: SuiteReport): string {
  const shown = {
    ...report,
    results: report.results.map((r) => ({
      ...r,
      failures: r.failures.map((f) => ({
        message: f.message,
        ...(f.call
          ? {
              action: f.call.action,
              request: f.call.request,
              response: f.call.final ?? null,
              answers: f.call.events,
              ...(f.call.problem ? { problem: f.call.problem } : {}),
              ...(f.call.logs.length > 0 ? { logs: f.call.logs } : {}),
            }
          : {}),
        ...(f.expected === undefined ? {} : { expected: f.expected }),
        ...(f.actual === undefined ? {} : { actual: f.actual }),
      })),
    })),
  };
  return JSON.stringify(shown, null, 2) + '\n';
}

// ---- JUnit XML -------------------------------------------------------------------------------------

/** The report as JUnit XML (one testsuite, a testcase per contract test). */
export function junitReport(report: SuiteReport): string {
  const count = (s: TestResult['status']) => report.results.filter((r) => r.status === s).length;
  const leftovers = report.cleanup.leftovers;
  const cases = report.results.map((r) => {
    const open = `    <testcase classname="typeplane.contract.${attr(report.typeName)}" name="${attr(r.name)}" time="${(r.durationMs / 1000).toFixed(3)}"`;
    if (r.status === 'pass') return `${open}/>`;
    if (r.status === 'skip')
      return `${open}>\n      <skipped message="${attr(r.reason ?? '')}"/>\n    </testcase>`;
    if (r.status === 'error')
      return `${open}>\n      <error message="${attr(r.reason ?? 'could not run')}" type="SuiteError"/>\n    </testcase>`;
    const body = textResult(r).replace(/\n$/, '');
    return `${open}>\n      <failure message="${attr(r.failures[0]?.message ?? 'failed')}" type="ContractViolation">${text(body)}</failure>\n    </testcase>`;
  });
  if (leftovers.length > 0) {
    const body = leftovers.map((l) => `${l.identifier}: ${l.problem}`).join('\n');
    cases.push(
      `    <testcase classname="typeplane.contract.${attr(report.typeName)}" name="cleanup" time="0.000">\n      <failure message="${attr(`${leftovers.length} resources may be left behind`)}" type="Cleanup">${text(body)}</failure>\n    </testcase>`,
    );
  }
  const failures = count('fail') + (leftovers.length > 0 ? 1 : 0);
  const tests = report.results.length + (leftovers.length > 0 ? 1 : 0);
  const time = (report.durationMs / 1000).toFixed(3);
  const properties = [
    ['provider', report.provider],
    ['inputs', report.inputs.source],
    ...(report.inputs.source === 'generated'
      ? [
          ['seed', String(report.inputs.seed)],
          ['runs', String(report.inputs.runs)],
        ]
      : [['sets', report.inputs.sets.join(',')]]),
  ]
    .map(([name, value]) => `      <property name="${attr(name!)}" value="${attr(value!)}"/>`)
    .join('\n');
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="typeplane test" tests="${tests}" failures="${failures}" errors="${count('error')}" skipped="${count('skip')}" time="${time}">`,
    `  <testsuite name="${attr(`${report.typeName} (${report.provider})`)}" tests="${tests}" failures="${failures}" errors="${count('error')}" skipped="${count('skip')}" time="${time}" timestamp="${attr(report.startedAt)}">`,
    `    <properties>\n${properties}\n    </properties>`,
    ...cases,
    ...(report.warnings.length > 0
      ? [`    <system-err>${text(report.warnings.join('\n'))}</system-err>`]
      : []),
    '  </testsuite>',
    '</testsuites>',
    '',
  ];
  return out.join('\n');
}

/** Characters XML 1.0 cannot hold at all, shown as `\u{…}` instead. */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

function xmlSafe(value: string): string {
  return value.replace(NOT_XML, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}

function text(value: string): string {
  return xmlSafe(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function attr(value: string): string {
  return text(value)
    .replace(/"/g, '&quot;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;')
    .replace(/\t/g, '&#9;');
}

// ---- Colours ---------------------------------------------------------------------------------------

interface Painter {
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  dim(s: string): string;
}

function painter(on: boolean): Painter {
  const wrap = (code: string) => (s: string) => (on ? `\x1b[${code}m${s}\x1b[0m` : s);
  return { red: wrap('31'), green: wrap('32'), yellow: wrap('33'), dim: wrap('2') };
}
