/**
 * @module One deployment of a stack (or its deletion), run through the engine's public API.
 *
 * The graph is walked with independent resources in parallel (bounded); each step issues one engine
 * operation whose client token is derived from the deployment and the logical id, so a deployment
 * resumed after a crash replays what it had already started instead of doing it twice. Progress is
 * the resource records themselves: a step whose record says it is done in this deployment is skipped.
 * Phases: forward → cleanup (replaced and removed resources deleted last, in reverse order), or
 * forward → rollback (what this deployment changed put back, in reverse order).
 */
import { createHash } from 'node:crypto';
import { TypeplaneError } from '../errors.js';
import { callerOf } from '../auth/index.js';
import type { Caller, Engine, ProgressEvent } from '../engine/index.js';
import { stripWriteOnly } from '../model/index.js';
import type { ResourceType } from '../schema/index.js';
import {
  analyzeTemplate,
  asEvaluationError,
  createScope,
  type Analysis,
  type TypeSource,
} from './analyze.js';
import { decide, plain } from './changes.js';
import { decideNamed, physicalName } from './physical-names.js';
import { conformProperties } from './conform.js';
import { walkGraph } from './graph.js';
import {
  EvaluationError,
  containsUnknown,
  evaluate,
  type ParameterValue,
  type PseudoParameters,
  type Scope,
} from './intrinsics.js';
import type {
  DeploymentRecord,
  ResourceRecord,
  ResourceStatus,
  StackOutput,
  StackRecord,
  StackStatus,
  StackStore,
  StoredValue,
} from './records.js';
import { fromSecret, holdsSecret, maskReason, type SecretSources } from './secrets.js';
import { loadTemplateYielding } from './template.js';
import { importedValues, secretImports, type Imported } from './imports.js';

/** The engine as stacks use it: its public operations. */
export type StackEngine = Pick<
  Engine,
  'create' | 'update' | 'delete' | 'read' | 'waitFor' | 'readOnlyNeverSet'
>;

export interface DeploymentContext {
  engine: StackEngine;
  records: StackStore;
  types: TypeSource;
  pseudo: PseudoParameters;
  /** Most engine operations one deployment runs at once. */
  concurrency: number;
  log: { info(o: object, m: string): void; warn(o: object, m: string): void };
}

const WAIT_SLICE_MS = 60_000;
export const STACK_TYPE = 'Typeplane::Stack';

/** The client token of one step: the same deployment, resource and action always give the same token. */
export function stepToken(deployment: string, action: string, logicalId: string): string {
  const id = createHash('sha256').update(logicalId).digest('hex').slice(0, 24);
  return `stack.${deployment}.${action}.${id}`;
}

export function openParameters(
  records: StackStore,
  stack: string,
  stored: Record<string, StoredValue> | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(stored ?? {}))
    out[name] = records.open(value, `stack-parameter:${stack}/${name}`);
  return out;
}

export function sealParameters(
  records: StackStore,
  stack: string,
  values: Record<string, unknown>,
  secret: ReadonlySet<string>,
): Record<string, StoredValue> {
  const out: Record<string, StoredValue> = {};
  for (const [name, value] of Object.entries(values))
    out[name] = secret.has(name) ? records.seal(value, `stack-parameter:${stack}/${name}`) : { value };
  return out;
}

export class Deployment {
  private resources = new Map<string, ResourceRecord>();
  private stack!: StackRecord;
  private analysis?: Analysis;
  private secrets: string[] = [];

  constructor(
    private readonly ctx: DeploymentContext,
    private record: DeploymentRecord,
    /** Persist the deployment's new phase (under its lease); false when the lease was lost. */
    private readonly persist: (record: DeploymentRecord) => Promise<boolean>,
    private readonly lost: () => boolean,
  ) {}

  private get id(): string {
    return this.record.id;
  }

  private get name(): string {
    return this.record.stack;
  }

  /** The engine's operations run as who asked: their client tokens, references only to types they see. */
  private get caller(): Caller | undefined {
    const asked = this.record.caller;
    return asked && callerOf({ tokenId: asked.id, types: asked.types });
  }

  async run(): Promise<void> {
    const current = await this.ctx.records.getStack(this.name);
    if (!current || current.record.deployment !== this.id) return; // superseded or never started
    this.stack = current.record;
    this.resources = await this.ctx.records.getResources(this.name);
    if (this.record.kind === 'delete') return this.runDelete();
    await this.load();
    // Resumed in cleanup with a template that no longer analyses: nothing is left to put back; it ends.
    if (this.analysis === undefined && this.record.phase === 'cleanup')
      return this.finish(this.record.update ? 'UPDATE_FAILED' : 'CREATE_FAILED', this.record.failure);
    if (this.record.phase === 'forward') {
      const ok = this.analysis !== undefined && (await this.forward());
      if (this.lost()) return;
      if (ok) await this.setPhase('cleanup');
      else if (this.record.noRollback)
        return this.finish(this.record.update ? 'UPDATE_FAILED' : 'CREATE_FAILED');
      else await this.setPhase('rollback');
    }
    if (this.lost()) return;
    if (this.record.phase === 'cleanup') {
      if (this.record.update) await this.stackEvent('UPDATE_COMPLETE_CLEANUP_IN_PROGRESS');
      await this.cleanup();
      if (this.lost()) return;
      return this.finishSuccess();
    }
    if (this.record.phase === 'rollback') {
      await this.stackEvent(
        this.record.update ? 'UPDATE_ROLLBACK_IN_PROGRESS' : 'ROLLBACK_IN_PROGRESS',
        this.record.failure,
      );
      const ok = await this.rollback();
      if (this.lost()) return;
      return this.finish(
        this.record.update
          ? ok
            ? 'UPDATE_ROLLBACK_COMPLETE'
            : 'UPDATE_ROLLBACK_FAILED'
          : ok
            ? 'ROLLBACK_COMPLETE'
            : 'ROLLBACK_FAILED',
        this.record.failure,
      );
    }
  }

  private async load(): Promise<void> {
    const loaded = await loadTemplateYielding(this.record.template ?? '');
    const parameters = openParameters(this.ctx.records, this.name, this.record.parameters);
    if (!loaded.template) return this.fail('the template can no longer be read');
    this.imports = await importedValues(this.ctx.records, loaded.template);
    const result = await analyzeTemplate(loaded.template, {
      types: this.ctx.types,
      parameters,
      requireValues: true,
      stackName: this.name,
      pseudo: this.ctx.pseudo,
      importValue: (name) => this.imports.get(name)?.value,
      secretImports: secretImports(this.imports),
    });
    // A template stored before a rule refused it (a condition naming a resource) fails here, once.
    if (!result.analysis)
      return this.fail(
        `the template is no longer valid: ${result.diagnostics
          .filter((d) => d.severity === 'error')
          .slice(0, 3)
          .map((d) => `${d.rule} ${d.message}`)
          .join('; ')}`,
      );
    this.analysis = result.analysis;
    this.secrets = result.analysis.secretValues;
  }

  private imports = new Map<string, Imported>();

  /** Where this deployment's secrets come from: an evaluation error never quotes a value built from one. */
  private secretSources(analysis: Analysis): SecretSources {
    return { parameters: analysis.secretParameters, imports: analysis.secretImports };
  }

  /** `text` with the deployment's secrets masked: for every reason, event and log line it writes. */
  masked(text: string): string {
    return maskReason(text, this.secrets);
  }

  private scope(analysis: Analysis): Scope {
    return createScope({
      template: analysis.template,
      parameters: new Map<string, ParameterValue>(analysis.parameters),
      stackName: this.name,
      stackId: this.stack.stackId,
      pseudo: this.ctx.pseudo,
      applied: (logicalId) => {
        const r = this.resources.get(logicalId);
        return r && r.identifier !== undefined ? { identifier: r.identifier, model: r.model } : undefined;
      },
      importValue: (name) => this.imports.get(name)?.value,
      secret: this.secretSources(analysis),
    });
  }

  // ---- Forward ----

  private async forward(): Promise<boolean> {
    const analysis = this.analysis!;
    const scope = this.scope(analysis);
    const result = await walkGraph(
      analysis.order,
      (id) => analysis.resources.get(id)!.dependsOn,
      this.ctx.concurrency,
      (id) => this.forwardStep(id, scope),
    );
    if (result.failed.length > 0) return false;
    // Outputs are part of the deployment: one that cannot be evaluated fails it.
    try {
      this.outputs = this.evaluateOutputs(scope);
    } catch (e) {
      await this.fail(`output: ${asEvaluationError(e, '/Outputs').message}`);
      return false;
    }
    return true;
  }

  private outputs: { outputs: StackOutput[]; exports: Map<string, StoredValue> } | undefined;

  private async fail(reason: string): Promise<void> {
    if (this.record.failure === undefined) {
      this.record.failure = this.masked(reason);
      await this.persist(this.record);
    }
  }

  private async forwardStep(logicalId: string, scope: Scope): Promise<boolean> {
    if (this.lost()) return false;
    const analyzed = this.analysis!.resources.get(logicalId)!;
    const type = analyzed.compiled.type;
    const rec = this.resources.get(logicalId);
    if (rec?.deployment === this.id && (rec.status === 'CREATE_COMPLETE' || rec.status === 'UPDATE_COMPLETE'))
      return true; // done before a restart
    let desired: Record<string, unknown>;
    try {
      const included = scope.included(logicalId);
      if (included === false) return true; // removed in cleanup, if it exists
      const value = evaluate(analyzed.declaration.properties, scope, `/Resources/${logicalId}/Properties`);
      if (containsUnknown(value))
        throw new EvaluationError(
          'TP4014',
          `/Resources/${logicalId}/Properties`,
          'a value is still unknown after the resources it depends on ran',
        );
      desired = conformProperties(type, value as Record<string, unknown>);
    } catch (e) {
      // Evaluating again gives the same answer: the step fails (and the deployment rolls back), it is
      // never left to be resumed and thrown again after every lease.
      const error = asEvaluationError(e, `/Resources/${logicalId}/Properties`);
      await this.resourceEvent(
        logicalId,
        type.typeName,
        rec?.identifier,
        rec ? 'UPDATE_FAILED' : 'CREATE_FAILED',
        error.message,
      );
      await this.fail(`${logicalId}: ${error.message}`);
      return false;
    }
    const named = decideNamed(type, rec, desired, () => physicalName(type, this.name, logicalId, this.id));
    const decision = named.decision;
    desired = named.desired;
    const base = this.baseRecord(logicalId, type, rec);
    if (named.physicalName !== undefined) base.physicalName = named.physicalName;
    else delete base.physicalName;
    switch (decision.action) {
      case 'NoChange':
        return true;
      case 'Add':
        return this.create(logicalId, type, desired, base, 'create');
      case 'Modify': {
        await this.resourceEvent(logicalId, type.typeName, rec!.identifier, 'UPDATE_IN_PROGRESS');
        const event = await this.operate(logicalId, () =>
          this.ctx.engine.update(
            type.typeName,
            rec!.identifier!,
            decision.patch,
            stepToken(this.id, 'update', logicalId),
            this.caller,
          ),
        );
        if (event.operationStatus !== 'SUCCESS') {
          const reason = this.reason(event);
          await this.resourceEvent(logicalId, type.typeName, rec!.identifier, 'UPDATE_FAILED', reason);
          await this.fail(`${logicalId}: ${reason}`);
          return false;
        }
        await this.save({
          ...base,
          properties: desired,
          model: await this.modelOf(type, event, rec!.identifier!),
          status: 'UPDATE_COMPLETE',
        });
        await this.resourceEvent(logicalId, type.typeName, rec!.identifier, 'UPDATE_COMPLETE');
        return true;
      }
      case 'Replace': {
        const reason = `replacing: ${decision.createOnly!.join(', ')} cannot change in place`;
        if (decision.deleteFirst) {
          await this.resourceEvent(logicalId, type.typeName, rec!.identifier, 'DELETE_IN_PROGRESS', reason);
          const event = await this.operate(logicalId, () =>
            this.ctx.engine.delete(
              rec!.type,
              rec!.identifier!,
              stepToken(this.id, 'replace-delete', logicalId),
              this.caller,
            ),
          );
          if (event.operationStatus !== 'SUCCESS') {
            const why = this.reason(event);
            await this.resourceEvent(logicalId, type.typeName, rec!.identifier, 'UPDATE_FAILED', why);
            await this.fail(`${logicalId}: ${why}`);
            return false;
          }
          const { identifier: _gone, ...rest } = base;
          await this.save({ ...rest, status: 'DELETE_COMPLETE' });
          await this.resourceEvent(logicalId, type.typeName, rec!.identifier, 'DELETE_COMPLETE', reason);
          return this.create(logicalId, type, desired, { ...rest, status: 'DELETE_COMPLETE' }, 'create');
        }
        const replaced = { type: rec!.type, identifier: rec!.identifier! };
        return this.create(logicalId, type, desired, { ...base, replaced }, 'create', reason);
      }
    }
  }

  /** The record a step writes, keeping what a rollback needs: the state before this deployment. */
  private baseRecord(logicalId: string, type: ResourceType, rec: ResourceRecord | undefined): ResourceRecord {
    const declaration = this.analysis!.resources.get(logicalId)!;
    const previous =
      rec && rec.deployment !== this.id
        ? rec.identifier !== undefined
          ? { type: rec.type, identifier: rec.identifier, properties: rec.properties, model: rec.model }
          : undefined
        : rec?.previous;
    return {
      logicalId,
      type: type.typeName,
      ...(rec?.identifier !== undefined ? { identifier: rec.identifier } : {}),
      status: rec?.status ?? 'CREATE_IN_PROGRESS',
      deployment: this.id,
      deletionPolicy: declaration.declaration.deletionPolicy,
      updateReplacePolicy: declaration.declaration.updateReplacePolicy,
      dependsOn: [...declaration.dependsOn],
      properties: rec?.properties ?? {},
      model: rec?.model ?? {},
      ...(previous ? { previous } : {}),
      ...(rec?.deployment === this.id && rec.replaced ? { replaced: rec.replaced } : {}),
      ...(rec?.physicalName !== undefined ? { physicalName: rec.physicalName } : {}),
      updatedAt: new Date().toISOString(),
    };
  }

  private async create(
    logicalId: string,
    type: ResourceType,
    desired: Record<string, unknown>,
    base: ResourceRecord,
    action: string,
    reason?: string,
  ): Promise<boolean> {
    await this.resourceEvent(logicalId, type.typeName, undefined, 'CREATE_IN_PROGRESS', reason);
    const event = await this.operate(logicalId, () =>
      this.ctx.engine.create(type.typeName, desired, stepToken(this.id, action, logicalId), this.caller),
    );
    if (event.operationStatus !== 'SUCCESS' || event.identifier === undefined) {
      const why = this.reason(event);
      await this.resourceEvent(logicalId, type.typeName, undefined, 'CREATE_FAILED', why);
      await this.fail(`${logicalId}: ${why}`);
      return false;
    }
    const { identifier: _old, ...rest } = base;
    await this.save({
      ...rest,
      identifier: event.identifier,
      properties: desired,
      model: await this.modelOf(type, event, event.identifier),
      status: 'CREATE_COMPLETE',
    });
    await this.resourceEvent(logicalId, type.typeName, event.identifier, 'CREATE_COMPLETE');
    return true;
  }

  /** Run one engine operation to its end; an operation refused before it began is a failed event. */
  private async operate(logicalId: string, start: () => Promise<ProgressEvent>): Promise<ProgressEvent> {
    let event: ProgressEvent;
    try {
      event = await start();
    } catch (e) {
      if (!(e instanceof TypeplaneError)) throw e;
      return {
        typeName: '',
        requestToken: '',
        operation: 'CREATE',
        operationStatus: 'FAILED',
        eventTime: new Date().toISOString(),
        errorCode: e.code,
        statusMessage: `${e.message}${e.details.length > 0 ? `: ${e.details.map((d) => `${d.pointer ?? ''} ${d.message}`).join('; ')}` : ''}`,
      };
    }
    while (
      event.operationStatus !== 'SUCCESS' &&
      event.operationStatus !== 'FAILED' &&
      event.operationStatus !== 'CANCEL_COMPLETE'
    ) {
      if (this.lost()) return event;
      event = await this.ctx.engine.waitFor(event.requestToken, WAIT_SLICE_MS);
    }
    void logicalId;
    return event;
  }

  private reason(event: ProgressEvent): string {
    return this.masked(`${event.errorCode ?? event.operationStatus}: ${event.statusMessage ?? 'no message'}`);
  }

  /** The model to read attributes from: the operation's, or a read when it carried none. */
  private async modelOf(
    type: ResourceType,
    event: ProgressEvent,
    identifier: string,
  ): Promise<Record<string, unknown>> {
    if (event.resourceModel) return stripWriteOnly(type, event.resourceModel);
    return (await this.ctx.engine.read(type.typeName, identifier)).properties;
  }

  private async save(record: ResourceRecord): Promise<void> {
    this.resources.set(record.logicalId, record);
    await this.ctx.records.putResource(this.name, record);
  }

  // ---- Cleanup: replaced and removed resources, last, in reverse order ----

  private async cleanup(): Promise<void> {
    const analysis = this.analysis!;
    const scope = this.scope(analysis);
    for (const rec of [...this.resources.values()]) {
      if (!rec.replaced || rec.deployment !== this.id) continue;
      const old = rec.replaced;
      if (rec.updateReplacePolicy === 'Retain') {
        await this.resourceEvent(
          rec.logicalId,
          old.type,
          old.identifier,
          'DELETE_SKIPPED',
          'UpdateReplacePolicy: Retain',
        );
      } else {
        await this.resourceEvent(rec.logicalId, old.type, old.identifier, 'DELETE_IN_PROGRESS', 'replaced');
        const event = await this.operate(rec.logicalId, () =>
          this.ctx.engine.delete(
            old.type,
            old.identifier,
            stepToken(this.id, 'cleanup-replaced', rec.logicalId),
            this.caller,
          ),
        );
        const ok = event.operationStatus === 'SUCCESS' || event.errorCode === 'NotFound';
        await this.resourceEvent(
          rec.logicalId,
          old.type,
          old.identifier,
          ok ? 'DELETE_COMPLETE' : 'DELETE_FAILED',
          ok ? undefined : this.reason(event),
        );
        if (!ok) continue;
      }
      const { replaced: _done, ...rest } = rec;
      await this.save(rest);
    }
    const removed = [...this.resources.values()].filter(
      (r) => !analysis.resources.has(r.logicalId) || scope.included(r.logicalId) === false,
    );
    await this.deleteInReverse(removed, 'remove');
  }

  /** Delete records' resources, dependants first; Retain leaves them. Whether all went. */
  private async deleteInReverse(records: ResourceRecord[], action: string): Promise<boolean> {
    const ids = new Set(records.map((r) => r.logicalId));
    const dependants = new Map<string, string[]>();
    for (const r of records)
      for (const d of r.dependsOn)
        if (ids.has(d)) dependants.set(d, [...(dependants.get(d) ?? []), r.logicalId]);
    const result = await walkGraph(
      records.map((r) => r.logicalId),
      (id) => dependants.get(id) ?? [],
      this.ctx.concurrency,
      async (id) => {
        const rec = this.resources.get(id)!;
        if (rec.identifier === undefined) {
          await this.forget(id);
          return true;
        }
        if (rec.deletionPolicy === 'Retain') {
          await this.resourceEvent(id, rec.type, rec.identifier, 'DELETE_SKIPPED', 'DeletionPolicy: Retain');
          await this.forget(id);
          return true;
        }
        await this.resourceEvent(id, rec.type, rec.identifier, 'DELETE_IN_PROGRESS');
        const event = await this.operate(id, () =>
          this.ctx.engine.delete(rec.type, rec.identifier!, stepToken(this.id, action, id), this.caller),
        );
        if (event.operationStatus !== 'SUCCESS' && event.errorCode !== 'NotFound') {
          const why = this.reason(event);
          await this.resourceEvent(id, rec.type, rec.identifier, 'DELETE_FAILED', why);
          await this.fail(`${id}: ${why}`);
          return false;
        }
        await this.resourceEvent(id, rec.type, rec.identifier, 'DELETE_COMPLETE');
        await this.forget(id);
        return true;
      },
    );
    return result.failed.length === 0 && result.skipped.length === 0;
  }

  private async forget(logicalId: string): Promise<void> {
    this.resources.delete(logicalId);
    await this.ctx.records.deleteResource(this.name, logicalId);
  }

  // ---- Rollback: what this deployment changed, put back in reverse order ----

  private async rollback(): Promise<boolean> {
    const touched = [...this.resources.values()].filter((r) => r.deployment === this.id);
    const ids = new Set(touched.map((r) => r.logicalId));
    const dependants = new Map<string, string[]>();
    for (const r of touched)
      for (const d of r.dependsOn)
        if (ids.has(d)) dependants.set(d, [...(dependants.get(d) ?? []), r.logicalId]);
    let ok = true;
    await walkGraph(
      touched.map((r) => r.logicalId),
      (id) => dependants.get(id) ?? [],
      this.ctx.concurrency,
      async (id) => {
        // A resource that cannot be put back is reported; the others are still put back.
        if (!(await this.rollbackStep(this.resources.get(id)!))) ok = false;
        return true;
      },
    );
    return ok;
  }

  private async rollbackStep(rec: ResourceRecord): Promise<boolean> {
    const { logicalId } = rec;
    const previous = rec.previous;
    const deleteCurrent = async (): Promise<boolean> => {
      if (rec.identifier === undefined) return true;
      await this.resourceEvent(logicalId, rec.type, rec.identifier, 'DELETE_IN_PROGRESS', 'rollback');
      const event = await this.operate(logicalId, () =>
        this.ctx.engine.delete(
          rec.type,
          rec.identifier!,
          stepToken(this.id, 'rollback-delete', logicalId),
          this.caller,
        ),
      );
      const done = event.operationStatus === 'SUCCESS' || event.errorCode === 'NotFound';
      await this.resourceEvent(
        logicalId,
        rec.type,
        rec.identifier,
        done ? 'DELETE_COMPLETE' : 'DELETE_FAILED',
        done ? 'rollback' : this.reason(event),
      );
      return done;
    };
    if (!previous) {
      if (!(await deleteCurrent())) return false;
      await this.forget(logicalId);
      return true;
    }
    const restored: ResourceRecord = {
      ...rec,
      type: previous.type,
      properties: previous.properties,
      model: previous.model,
      status: 'UPDATE_COMPLETE',
      deployment: `${this.id}:rolled-back`,
    };
    delete restored.previous;
    delete restored.replaced;
    if (rec.replaced || previous.identifier !== rec.identifier) {
      if (!(await deleteCurrent())) return false;
      if (rec.replaced) {
        await this.save({ ...restored, identifier: rec.replaced.identifier });
        return true;
      }
      // The old resource was deleted first: create it again as it was.
      await this.resourceEvent(logicalId, previous.type, undefined, 'CREATE_IN_PROGRESS', 'rollback');
      const event = await this.operate(logicalId, () =>
        this.ctx.engine.create(
          previous.type,
          previous.properties,
          stepToken(this.id, 'rollback-create', logicalId),
          this.caller,
        ),
      );
      if (event.operationStatus !== 'SUCCESS' || event.identifier === undefined) {
        await this.resourceEvent(logicalId, previous.type, undefined, 'CREATE_FAILED', this.reason(event));
        return false;
      }
      const type = (await this.ctx.types.get(previous.type))?.type;
      await this.save({
        ...restored,
        identifier: event.identifier,
        model: type ? await this.modelOf(type, event, event.identifier) : previous.model,
      });
      await this.resourceEvent(logicalId, previous.type, event.identifier, 'CREATE_COMPLETE', 'rollback');
      return true;
    }
    const type = (await this.ctx.types.get(rec.type))?.type;
    const decision = type ? decide(type, rec, previous.properties) : { action: 'NoChange' as const };
    if (decision.action === 'Modify') {
      await this.resourceEvent(logicalId, rec.type, rec.identifier, 'UPDATE_IN_PROGRESS', 'rollback');
      const event = await this.operate(logicalId, () =>
        this.ctx.engine.update(
          rec.type,
          rec.identifier!,
          decision.patch,
          stepToken(this.id, 'rollback-update', logicalId),
          this.caller,
        ),
      );
      if (event.operationStatus !== 'SUCCESS') {
        await this.resourceEvent(logicalId, rec.type, rec.identifier, 'UPDATE_FAILED', this.reason(event));
        return false;
      }
      await this.resourceEvent(logicalId, rec.type, rec.identifier, 'UPDATE_COMPLETE', 'rollback');
    }
    await this.save({ ...restored, identifier: rec.identifier! });
    return true;
  }

  // ---- Outputs and the end ----

  private evaluateOutputs(scope: Scope): { outputs: StackOutput[]; exports: Map<string, StoredValue> } {
    const outputs: StackOutput[] = [];
    const exports = new Map<string, StoredValue>();
    const analysis = this.analysis!;
    for (const output of analysis.template.outputs.values()) {
      const at = `/Outputs/${output.name}`;
      if (output.condition !== undefined && scope.condition(output.condition, `${at}/Condition`) !== true)
        continue;
      const value = plain({ v: evaluate(output.value, scope, `${at}/Value`) }).v;
      // An output built from a NoEcho parameter (or a secret import) is as secret as the parameter.
      const secret =
        holdsSecret(value, this.secrets) || fromSecret(output.value, this.secretSources(analysis));
      const stored = secret
        ? this.ctx.records.seal(value, `stack-output:${this.name}/${output.name}`)
        : { value };
      const entry: StackOutput = { name: output.name, value: stored };
      if (output.description !== undefined) entry.description = output.description;
      if (output.exportName !== undefined) {
        const exportName = String(evaluate(output.exportName, scope, `${at}/Export/Name`));
        entry.exportName = exportName;
        exports.set(
          exportName,
          secret ? this.ctx.records.seal(value, `stack-export:${exportName}`) : { value },
        );
      }
      outputs.push(entry);
    }
    return { outputs, exports };
  }

  private async finishSuccess(): Promise<void> {
    const analysis = this.analysis!;
    const scope = this.scope(analysis);
    try {
      this.outputs ??= this.evaluateOutputs(scope);
    } catch (e) {
      // Resumed after its forward phase, with outputs that no longer evaluate: it ends, failed.
      const reason = `output: ${asEvaluationError(e, '/Outputs').message}`;
      return this.finish(this.record.update ? 'UPDATE_FAILED' : 'CREATE_FAILED', reason);
    }
    const { outputs, exports } = this.outputs;
    for (const [name, value] of exports) await this.ctx.records.putExport(name, this.name, value);
    for (const name of this.stack.exports)
      if (!exports.has(name)) await this.ctx.records.deleteExport(name, this.name);
    const imports = [...this.imports.keys()];
    for (const name of imports) await this.ctx.records.setImport(name, this.name, true);
    for (const name of this.stack.imports)
      if (!this.imports.has(name)) await this.ctx.records.setImport(name, this.name, false);
    const status: StackStatus = this.record.update ? 'UPDATE_COMPLETE' : 'CREATE_COMPLETE';
    await this.ctx.records.updateStack(this.name, (s) => {
      const next: StackRecord = {
        ...s,
        status,
        version: s.version + 1,
        template: this.record.template!,
        parameters: this.record.parameters!,
        outputs,
        exports: [...exports.keys()],
        imports,
      };
      if (analysis.template.description !== undefined) next.description = analysis.template.description;
      delete next.statusReason;
      delete next.deployment;
      return next;
    });
    await this.stackEvent(status);
    await this.ctx.records.deleteDeployment(this.id);
  }

  private async finish(status: StackStatus, reason?: string): Promise<void> {
    await this.ctx.records.updateStack(this.name, (s) => {
      const next: StackRecord = { ...s, status, version: s.version + 1 };
      if (reason !== undefined) next.statusReason = this.masked(reason);
      delete next.deployment;
      return next;
    });
    await this.stackEvent(status, reason);
    await this.ctx.records.deleteDeployment(this.id);
  }

  // ---- Delete ----

  private async runDelete(): Promise<void> {
    const all = [...this.resources.values()];
    const ok = await this.deleteInReverse(all, 'delete');
    if (this.lost()) return;
    if (!ok) return this.finish('DELETE_FAILED', this.record.failure);
    for (const name of this.stack.exports) await this.ctx.records.deleteExport(name, this.name);
    for (const name of this.stack.imports) await this.ctx.records.setImport(name, this.name, false);
    await this.stackEvent('DELETE_COMPLETE');
    const types = [...new Set([...(this.stack.types ?? []), ...all.map((r) => r.type)])];
    await this.ctx.records.dropResources(this.name);
    await this.ctx.records.dropPlans(this.name);
    // Kept, with its events, as deleted (listed, its events read) until the server's retention passes.
    await this.ctx.records.keepDeleted(this.stack, types);
    await this.ctx.records.deleteDeployment(this.id);
  }

  // ---- Phases and events ----

  private async setPhase(phase: DeploymentRecord['phase']): Promise<void> {
    this.record = { ...this.record, phase };
    await this.persist(this.record);
  }

  private async stackEvent(status: StackStatus | 'DELETE_COMPLETE', reason?: string): Promise<void> {
    await this.ctx.records.addEvent(this.name, {
      logicalId: this.name,
      type: STACK_TYPE,
      identifier: this.stack.stackId,
      status,
      ...(reason !== undefined ? { reason: this.masked(reason) } : {}),
    });
    if (status !== 'DELETE_COMPLETE')
      await this.ctx.records.updateStack(this.name, (s) => (s.deployment === this.id ? { ...s, status } : s));
  }

  private async resourceEvent(
    logicalId: string,
    type: string,
    identifier: string | undefined,
    status: ResourceStatus,
    reason?: string,
  ): Promise<void> {
    await this.ctx.records.addEvent(this.name, {
      logicalId,
      type,
      ...(identifier !== undefined ? { identifier } : {}),
      status,
      ...(reason !== undefined ? { reason: this.masked(reason) } : {}),
    });
  }
}
