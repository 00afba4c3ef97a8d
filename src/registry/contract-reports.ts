/**
 * @module Contract reports attached to registered types: "a resource implementation MUST pass all
 * resource contract tests in order to be registered". A report is what `typeplane test -o json`
 * prints; the registry keeps, per type version, whether it passed, and a server can refuse operations
 * on types without a passing one.
 *
 * A report belongs to the registration it was attached to: re-registering the version (its schema may
 * have changed) needs a new report. Kept in the store's key-value table, so every replica sees it.
 */
import { TypeplaneError } from '../errors.js';
import type { Store, StoredType } from '../store/types.js';

const NAMESPACE = 'typeplane:contract-reports';

/** What the registry records of a report. */
export interface ContractStatus {
  /** Every test passed or was skipped, the suite ran to the end and left nothing behind. */
  passed: boolean;
  provider: string;
  passedTests: number;
  failedTests: string[];
  skippedTests: number;
  /** When the suite ran (from the report) and when the report was attached. */
  ranAt: string;
  attachedAt: string;
}

interface Kept extends ContractStatus {
  /** The registration it belongs to. */
  registeredAt: string;
}

const keyOf = (record: StoredType) => JSON.stringify([record.typeName, record.version]);

/** Record `report` for the registration `record`; InvalidRequest when it is not a report of this type. */
export async function attachReport(
  store: Store,
  record: StoredType,
  report: unknown,
): Promise<ContractStatus> {
  const status = judge(record.typeName, report);
  const entry = { value: { ...status, registeredAt: record.registeredAt }, writtenBy: 'registry' };
  if (!(await store.kvInsert(NAMESPACE, keyOf(record), entry)))
    await store.kvReplace(NAMESPACE, keyOf(record), entry);
  return status;
}

/** The status of the report attached to this registration, or undefined (none, or one for an earlier one). */
export async function reportStatus(store: Store, record: StoredType): Promise<ContractStatus | undefined> {
  const entry = await store.kvGet(NAMESPACE, keyOf(record));
  const kept = entry?.value as Kept | undefined;
  if (!kept || kept.registeredAt !== record.registeredAt) return undefined;
  const { registeredAt: _registration, ...status } = kept;
  return status;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function judge(typeName: string, report: unknown): ContractStatus {
  const refuse = (message: string) =>
    new TypeplaneError(
      'InvalidRequest',
      `not a contract report of ${typeName}: ${message}; attach what 'typeplane test -o json' prints`,
    );
  if (!isRecord(report)) throw refuse('the body must be a JSON object');
  if (report.typeName !== typeName) throw refuse(`it is a report of ${JSON.stringify(report.typeName)}`);
  if (typeof report.ok !== 'boolean' || typeof report.provider !== 'string' || !Array.isArray(report.results))
    throw refuse('it needs ok, provider and results');
  const results = report.results.filter(isRecord);
  if (results.length === 0 || results.length !== report.results.length)
    throw refuse('results must be a non-empty list of test results');
  const named = (status: string) => results.filter((r) => r.status === status).map((r) => String(r.name));
  const failedTests = [...named('fail'), ...named('error')];
  const passedTests = named('pass').length;
  return {
    passed: report.ok && report.interrupted !== true && failedTests.length === 0 && passedTests > 0,
    provider: report.provider,
    passedTests,
    failedTests: failedTests.slice(0, 50),
    skippedTests: named('skip').length,
    ranAt: typeof report.startedAt === 'string' ? report.startedAt : '',
    attachedAt: new Date().toISOString(),
  };
}
