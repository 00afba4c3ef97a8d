/**
 * @module Breaking-change analysis: two versions of a type compared in the one model both dialects
 * become, every difference a located change with a rule id and a verdict (breaking, dangerous, safe).
 *
 * @example
 * const { changes, counts } = diffDocuments({ text: before, file: 'v1.json' }, { text: after, file: 'v2.json' });
 * if (counts.breaking > 0) process.exitCode = 1;
 */
export {
  diffDocuments,
  diffApiVersions,
  diffAgainst,
  diffTypes,
  diffTypeLists,
  summarize,
  documentTarget,
  type Target,
  type DiffInput,
  type DiffResult,
} from './documents.js';
export { CHANGE_RULES, byVerdict, type Change, type ChangeRuleId, type Verdict } from './rules.js';
