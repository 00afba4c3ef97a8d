/**
 * @module The catalogue of change rules: every difference between two versions of a type gets one of
 * these ids (TP6xxx) and, with it, its verdict. Users and tooling match on ids, never on text.
 *
 * TP60xx breaking (a client or a stored resource that was fine may now be refused, or an operation
 * that worked stops working), TP61xx safe, TP62xx dangerous (accepted input keeps working, but what
 * it means, returns or needs changes, or it is announced to go).
 */

export type Verdict = 'breaking' | 'dangerous' | 'safe';

export interface ChangeRuleInfo {
  verdict: Verdict;
  title: string;
}

export const CHANGE_RULES = {
  TP6001: { verdict: 'breaking', title: 'property removed or renamed' },
  TP6002: { verdict: 'breaking', title: 'type changed' },
  TP6003: { verdict: 'breaking', title: 'enum value removed (or an enum or const added)' },
  TP6004: { verdict: 'breaking', title: 'pattern or format tightened' },
  TP6005: { verdict: 'breaking', title: 'length, size or range tightened' },
  TP6006: { verdict: 'breaking', title: 'property now required without a default' },
  TP6007: { verdict: 'breaking', title: 'property made create-only' },
  TP6008: { verdict: 'breaking', title: 'property made read-only' },
  TP6009: { verdict: 'breaking', title: 'property made write-only' },
  TP6010: { verdict: 'breaking', title: 'primary identifier changed' },
  TP6011: { verdict: 'breaking', title: 'additionalProperties closed' },
  TP6012: { verdict: 'breaking', title: 'type or API version removed' },
  TP6013: { verdict: 'breaking', title: 'handler removed' },
  TP6014: { verdict: 'breaking', title: 'validation rule (CEL) added or changed' },

  TP6101: { verdict: 'safe', title: 'optional property added' },
  TP6102: { verdict: 'safe', title: 'enum widened' },
  TP6103: { verdict: 'safe', title: 'constraint relaxed' },
  TP6104: { verdict: 'safe', title: 'description or title changed' },
  TP6105: {
    verdict: 'safe',
    title: 'property no longer create-only or read-only (or only conditionally create-only now)',
  },
  TP6106: { verdict: 'safe', title: 'type or API version added' },
  TP6107: { verdict: 'safe', title: 'handler added' },
  TP6108: { verdict: 'safe', title: 'handler needs fewer permissions' },
  TP6109: { verdict: 'safe', title: 'property no longer deprecated' },
  TP6110: { verdict: 'safe', title: 'reference removed: values are no longer checked' },
  TP6111: { verdict: 'safe', title: 'handler timeout lengthened' },
  TP6112: { verdict: 'safe', title: 'validation rule (CEL) removed' },

  TP6201: { verdict: 'dangerous', title: 'default changed' },
  TP6202: { verdict: 'dangerous', title: 'oneOf/anyOf/allOf changed (not analysed further)' },
  TP6203: { verdict: 'dangerous', title: 'property no longer write-only: its values will be returned' },
  TP6204: { verdict: 'dangerous', title: 'handler needs more permissions' },
  TP6205: { verdict: 'dangerous', title: 'property deprecated' },
  TP6206: { verdict: 'dangerous', title: 'property made conditionally create-only' },
  TP6207: { verdict: 'dangerous', title: 'reference added: values may have to name an existing resource' },
  TP6208: { verdict: 'dangerous', title: 'reference retargeted to another type or property' },
  TP6209: { verdict: 'dangerous', title: 'handler timeout shortened' },
} as const satisfies Record<string, ChangeRuleInfo>;

export type ChangeRuleId = keyof typeof CHANGE_RULES;

/** One difference between two versions of a type, located in the newer document where it can be. */
export interface Change {
  rule: ChangeRuleId;
  verdict: Verdict;
  /** What changed and what it means for existing clients and resources. */
  message: string;
  typeName: string;
  /** Manifest types: the API version of the newer side. */
  apiVersion?: string;
  /** The property concerned, as a property pointer (`/properties/Tags/*\/Key`); absent for type-level changes. */
  property?: string;
  /** JSON pointer in the newer document (the nearest existing ancestor for something removed). */
  pointer: string;
  file?: string;
  line?: number;
  column?: number;
}

/** Worst verdict first, then in reading order of the newer document. */
export function byVerdict(a: Change, b: Change): number {
  const rank = { breaking: 0, dangerous: 1, safe: 2 } as const;
  return (
    rank[a.verdict] - rank[b.verdict] ||
    (a.line ?? 0) - (b.line ?? 0) ||
    (a.column ?? 0) - (b.column ?? 0) ||
    a.rule.localeCompare(b.rule)
  );
}
