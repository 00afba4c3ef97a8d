/**
 * @module One deployment of a stack (or its deletion), run through the engine's public API: the
 * phase machine. Each phase is a stage of its own in stages/ (load, forward, cleanup, rollback,
 * outputs, delete), all over one {@link DeploymentState}.
 *
 * The graph is walked with independent resources in parallel (bounded); each step issues one engine
 * operation whose client token is derived from the deployment and the logical id, so a deployment
 * resumed after a crash replays what it had already started instead of doing it twice. Progress is
 * the resource records themselves: a step whose record says it is done in this deployment is skipped.
 * Phases: forward → cleanup (replaced and removed resources deleted last, in reverse order), or
 * forward → rollback (what this deployment changed put back, in reverse order).
 */
import type { DeploymentRecord } from './records.js';
import type { Begun } from './resume.js';
import { cleanup, cleansUp } from './stages/cleanup.js';
import { deleteStack } from './stages/delete.js';
import { forward } from './stages/forward.js';
import { load } from './stages/load.js';
import { finishSuccess } from './stages/outputs.js';
import { rollback } from './stages/rollback.js';
import { DeploymentState, type DeploymentContext } from './stages/state.js';
import { continues, continuing, currentTraceparent } from '../telemetry/spans.js';

/** For a deployment record begun in a traced request: that trace, which the deployment continues. */
export function tracedFrom(): { traceparent?: string } {
  const traceparent = currentTraceparent();
  return traceparent === undefined ? {} : { traceparent };
}

export class Deployment {
  private readonly d: DeploymentState;

  constructor(
    ctx: DeploymentContext,
    record: DeploymentRecord,
    /** Persist the deployment's new phase (under its lease); false when the lease was lost. */
    persist: (record: DeploymentRecord) => Promise<boolean>,
    lost: () => boolean,
    /** What the deployment was begun with in this process (a resumed one has nothing). */
    private readonly begun?: Begun,
  ) {
    this.d = new DeploymentState(ctx, record, persist, lost);
    this.d.begun = begun?.analysis;
  }

  /**
   * Runs the deployment to its end (or until its lease is lost); traced, as one span continuing the
   * trace of the request that began it (its traceparent, kept in the record), with a span per
   * resource step. A deployment resumed after a restart, here or on another replica, continues it too.
   */
  run(): Promise<void> {
    const { record } = this.d;
    if (!continues(record.traceparent)) return this.runHere();
    return continuing(
      record.traceparent,
      `stack ${record.kind}`,
      {
        'typeplane.stack': record.stack,
        'typeplane.deployment': record.id,
        'typeplane.deployment.phase': record.phase,
        ...(this.begun ? {} : { 'typeplane.deployment.resumed': true }),
      },
      () => this.runHere(),
    );
  }

  private async runHere(): Promise<void> {
    const d = this.d;
    const current = await d.ctx.records.getStack(d.name);
    if (!current || current.record.deployment !== d.id) return; // superseded or never started
    d.stack = current.record;
    d.resources = this.begun?.resources ?? (await d.ctx.records.getResources(d.name));
    if (!this.begun) await d.replayEvents();
    if (d.record.kind === 'delete') return deleteStack(d);
    await load(d);
    // Resumed in cleanup with a template that no longer analyses: nothing is left to put back; it ends.
    if (d.analysis === undefined && d.record.phase === 'cleanup')
      return d.finish(d.record.update ? 'UPDATE_FAILED' : 'CREATE_FAILED', d.record.failure);
    if (d.record.phase === 'forward') {
      const ok = d.analysis !== undefined && (await forward(d));
      if (d.lost()) return;
      // Nothing to clean up: the phase is not written (resumed in forward, the deployment does the same).
      if (ok && !cleansUp(d)) d.enterUnwritten('cleanup');
      else if (ok) await d.setPhase('cleanup');
      else if (d.record.noRollback) return d.finish(d.record.update ? 'UPDATE_FAILED' : 'CREATE_FAILED');
      else await d.setPhase('rollback');
    }
    if (d.lost()) return;
    if (d.record.phase === 'cleanup') {
      if (d.record.update) await d.stackEvent('UPDATE_COMPLETE_CLEANUP_IN_PROGRESS');
      await cleanup(d);
      if (d.lost()) return;
      return finishSuccess(d);
    }
    if (d.record.phase === 'rollback') {
      await d.stackEvent(
        d.record.update ? 'UPDATE_ROLLBACK_IN_PROGRESS' : 'ROLLBACK_IN_PROGRESS',
        d.record.failure,
      );
      const ok = await rollback(d);
      if (d.lost()) return;
      return d.finish(
        d.record.update
          ? ok
            ? 'UPDATE_ROLLBACK_COMPLETE'
            : 'UPDATE_ROLLBACK_FAILED'
          : ok
            ? 'ROLLBACK_COMPLETE'
            : 'ROLLBACK_FAILED',
        d.record.failure,
      );
    }
  }

  /** `text` with the deployment's secrets masked: for every reason, event and log line it writes. */
  masked(text: string): string {
    return this.d.masked(text);
  }
}
