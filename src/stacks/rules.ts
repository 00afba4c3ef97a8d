/**
 * @module The catalogue of template rules (TP4xxx), declared once: stable ids users match on, the
 * severity, and a title. Messages say what is wrong and how to fix it.
 */
import { TypeplaneError } from '../errors.js';
import type { Diagnostic, RuleInfo } from '../schema/diagnostics.js';
import { closestName, editsAllowed } from '../schema/similar-names.js';

export const STACK_RULES = {
  TP4001: { severity: 'error', title: 'template is malformed' },
  TP4002: { severity: 'error', title: 'template declares no resources' },
  TP4003: { severity: 'error', title: 'resource declaration is malformed' },
  TP4004: { severity: 'error', title: 'resource type is not registered' },
  TP4005: { severity: 'error', title: "property does not satisfy the type's schema" },
  TP4006: { severity: 'error', title: 'read-only property is set' },
  TP4007: { severity: 'error', title: 'Ref names nothing the template declares' },
  TP4008: { severity: 'error', title: 'Fn::GetAtt target or attribute does not exist' },
  TP4009: { severity: 'error', title: 'Fn::GetAtt of a write-only property' },
  TP4010: { severity: 'error', title: 'resources depend on each other in a cycle' },
  TP4011: { severity: 'error', title: 'parameter declaration is malformed' },
  TP4012: { severity: 'error', title: 'parameter value is missing or fails its constraints' },
  TP4013: { severity: 'warning', title: 'parameter is never used' },
  TP4014: { severity: 'error', title: 'intrinsic function is malformed' },
  TP4015: { severity: 'error', title: 'condition or mapping lookup fails' },
  TP4016: { severity: 'error', title: 'DependsOn names no resource of the template' },
  TP4017: { severity: 'error', title: 'output is malformed' },
  TP4018: { severity: 'error', title: 'feature is not supported' },
  TP4019: { severity: 'warning', title: 'condition is never used' },
  TP4020: { severity: 'error', title: 'type version is not the served one' },
  TP4021: { severity: 'error', title: 'Fn::ImportValue names no export' },
  TP4022: { severity: 'error', title: 'condition refers to a resource' },
  TP4023: { severity: 'error', title: 'more diagnostics were left out' },
  TP4024: { severity: 'error', title: 'NoEcho values are too many or too long' },
  TP4025: { severity: 'warning', title: 'parameter has no value yet' },
  TP4026: { severity: 'warning', title: "Fn::GetAtt of a read-only property the type's provider never sets" },
  TP4027: { severity: 'error', title: 'dynamic reference is malformed or misplaced' },
  TP4028: { severity: 'error', title: "a template rule's assertion fails" },
  TP4029: { severity: 'warning', title: 'a template rule cannot be checked here' },
} as const satisfies Record<string, RuleInfo>;

export type StackRuleId = keyof typeof STACK_RULES;

export function stackDiagnostic(rule: StackRuleId, pointer: string, message: string): Diagnostic {
  return { severity: STACK_RULES[rule].severity, rule, message, pointer };
}

/** The most diagnostics one answer carries; past it they are counted, not built (see {@link DiagnosticList}). */
export const MAX_DIAGNOSTICS = 100;

/** The last diagnostic of a capped list: how many more were found and left out, and how many of them errors. */
export interface LeftOutNote extends Diagnostic {
  rule: 'TP4023';
  leftOut: number;
  errorsLeftOut: number;
  /** Checking stopped once the answer was settled: there may be more than `leftOut`. */
  stopped?: true;
}

/**
 * Diagnostics as a template's checks find them, each (rule, pointer) once, at most
 * {@link MAX_DIAGNOSTICS} kept: past the cap a problem is only counted (its message, which may search
 * for a "did you mean", is never built), and {@link DiagnosticList.list} ends with a {@link LeftOutNote}.
 */
export class DiagnosticList {
  private readonly kept: Diagnostic[] = [];
  private readonly seen = new Set<string>();
  private leftOut = 0;
  private errorsLeftOut = 0;
  private stopped = false;

  /** `dedupe`: a (rule, pointer) found again is dropped (analysis finds some problems by two checks). */
  constructor(private readonly dedupe = true) {}

  add(diagnostic: Diagnostic): void {
    if (isLeftOutNote(diagnostic)) {
      this.leftOut += diagnostic.leftOut;
      this.errorsLeftOut += diagnostic.errorsLeftOut;
      if (diagnostic.stopped) this.stopped = true;
      return;
    }
    this.note(diagnostic.rule, diagnostic.pointer, diagnostic.severity, () => diagnostic);
  }

  /** A stack rule's diagnostic; `message` may be a function, called only when the diagnostic is kept. */
  problem(rule: StackRuleId, pointer: string, message: string | (() => string)): void {
    this.note(rule, pointer, STACK_RULES[rule].severity, () =>
      stackDiagnostic(rule, pointer, typeof message === 'string' ? message : message()),
    );
  }

  private note(rule: string, pointer: string, severity: string, build: () => Diagnostic): void {
    if (this.dedupe) {
      const key = `${rule}\u0000${pointer}`;
      if (this.seen.has(key)) return;
      this.seen.add(key);
    }
    if (this.kept.length < MAX_DIAGNOSTICS) this.kept.push(build());
    else {
      this.leftOut++;
      if (severity === 'error') this.errorsLeftOut++;
    }
  }

  /**
   * Whether the answer is settled (the template is invalid, and no room is left): a costly check
   * (evaluating values) stops here, and says so, so that the work is bounded too, not only the answer.
   */
  get settled(): boolean {
    return this.kept.length >= MAX_DIAGNOSTICS && this.kept.some((d) => d.severity === 'error');
  }

  /** A check was skipped because the answer was {@link settled}. */
  stop(): void {
    this.stopped = true;
  }

  /** Whether an error was found, kept or left out. */
  get hasErrors(): boolean {
    return this.errorsLeftOut > 0 || this.kept.some((d) => d.severity === 'error');
  }

  /** The kept diagnostics, `map`ped, then the count of those left out (if any). */
  list(map: (d: Diagnostic) => Diagnostic = (d) => d): Diagnostic[] {
    const out = this.kept.map(map);
    if (this.leftOut === 0 && !this.stopped) return out;
    const count = (n: number) => n.toLocaleString('en-US');
    const note: LeftOutNote = {
      ...stackDiagnostic(
        'TP4023',
        '',
        `${count(this.leftOut)} more diagnostic${this.leftOut === 1 ? '' : 's'} (${count(this.errorsLeftOut)} of them errors) left out${this.stopped ? ', and values were not evaluated past the first errors (there may be more)' : ''}: an answer carries at most ${MAX_DIAGNOSTICS}; fix these and validate again`,
      ),
      rule: 'TP4023',
      // Warnings left out do not make a template invalid; values not evaluated may hold errors.
      severity: this.errorsLeftOut > 0 || this.stopped ? 'error' : 'warning',
      leftOut: this.leftOut,
      errorsLeftOut: this.errorsLeftOut,
      ...(this.stopped ? { stopped: true as const } : {}),
    };
    out.push(map(note));
    return out;
  }
}

function isLeftOutNote(d: Diagnostic): d is LeftOutNote {
  return d.rule === 'TP4023' && typeof (d as Partial<LeftOutNote>).leftOut === 'number';
}

/** `diagnostics` as an answer carries them: at most {@link MAX_DIAGNOSTICS}, then how many were left out. */
export function capDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const list = new DiagnosticList(false);
  for (const d of diagnostics) list.add(d);
  return list.list();
}

/** The closest of `candidates` to `name` (edit distance at most a third of its length), for "did you mean". */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  return closestName(name, candidates, { maxEdits: editsAllowed(name, 3) });
}

/** Thrown when a template does not validate: carries the diagnostics. */
export function invalidTemplate(diagnostics: Diagnostic[]): TypeplaneError {
  const shown = capDiagnostics(diagnostics);
  const note = shown.find(isLeftOutNote);
  const errors = shown.filter((d) => d.severity === 'error' && d !== note);
  const count = errors.length + (note?.errorsLeftOut ?? 0);
  return new TypeplaneError(
    'InvalidRequest',
    `the template is invalid: ${count.toLocaleString('en-US')} error${count === 1 ? '' : 's'}, first: ${errors[0]?.rule} ${errors[0]?.message}`,
    shown.map((d) => ({ ...d })),
  );
}
