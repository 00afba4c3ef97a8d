/**
 * @module The breaking-change lens: what `typeplane diff` reports between a baseline and the document
 * as it is being edited, shown at the changed place. The baseline is the file at a git revision
 * (`git show <rev>:<path>`) or the server's registered default version of each type it defines.
 */
import { execFile } from 'node:child_process';
import { basename, dirname } from 'node:path';
import { diffAgainst, diffDocuments, type Change } from '../diff/index.js';
import { LIMITS, type ResourceType } from '../schema/index.js';
import type { Workspace } from './workspace.js';

export type Baseline = { revision: string } | { registered: true };

/** How long a file read from git is used before it is read again (a branch name moves). */
const GIT_TTL_MS = 10_000;
const GIT_TIMEOUT_MS = 5_000;

export class BreakingChangeLens {
  private readonly fromGit = new Map<string, { at: number; text: Promise<string | undefined> }>();

  constructor(
    private readonly baseline: Baseline,
    private readonly workspace: Workspace,
  ) {}

  /** What changed since the baseline in a valid type document (`types`: those it defines). */
  async changes(text: string, path: string, file: string, types: readonly ResourceType[]): Promise<Change[]> {
    if ('revision' in this.baseline) {
      const before = await this.gitText(path, this.baseline.revision);
      if (before === undefined) return [];
      const result = diffDocuments({ text: before, file }, { text, file });
      return result.problems.length > 0 ? [] : result.changes;
    }
    const changes: Change[] = [];
    for (const typeName of new Set(types.map((t) => t.typeName))) {
      const registered = await this.workspace.registeredType(typeName);
      if (registered) changes.push(...diffAgainst(registered, { text, file }).changes);
    }
    return changes;
  }

  /** The baseline's label in messages. */
  get label(): string {
    return 'revision' in this.baseline ? this.baseline.revision : 'the registered version';
  }

  private gitText(path: string, revision: string): Promise<string | undefined> {
    const key = `${revision}\u0000${path}`;
    const cached = this.fromGit.get(key);
    if (cached && Date.now() - cached.at < GIT_TTL_MS) return cached.text;
    const text = new Promise<string | undefined>((resolve) => {
      // `--` keeps a revision from being read as an option; `./` makes the path the file's own.
      execFile(
        'git',
        ['show', `${revision}:./${basename(path)}`, '--'],
        { cwd: dirname(path), timeout: GIT_TIMEOUT_MS, maxBuffer: LIMITS.maxBytes, encoding: 'utf8' },
        (error, stdout) => resolve(error ? undefined : stdout),
      );
    });
    this.fromGit.set(key, { at: Date.now(), text });
    return text;
  }
}
