/**
 * @module Synthesized values: the state provider standing in for a real service. Off by default;
 * on for the types the server's configuration names (`stateProvider.synthesize`), a create then
 * fills every read-only property, and the names the service would give, with values the schema
 * accepts that read like the real thing (docs/state-provider.md).
 *
 * @example
 * const synthesis = new Synthesis({ synthesize: ['AWS::EC2::*'] });
 * synthesis.appliesTo('AWS::EC2::VPC'); // true
 * synthesis.create(vpcType, { CidrBlock: '10.0.0.0/16' }, token).VpcId; // 'vpc-0b5c…' (17 hex digits)
 */
import type { Model } from '../../model/index.js';
import type { ResourceType } from '../../schema/index.js';
import { synthesizes, type StateProviderSettings } from './settings.js';
import { DEFAULT_EMULATED, type Emulated } from './subject.js';
import { keepSynthesized, synthesize, synthesizedPointers, type ModelCheck } from './synthesizer.js';

export { stateProviderProblems, type StateProviderSettings, type SettingsProblem } from './settings.js';
export { DEFAULT_EMULATED, type Emulated } from './subject.js';
export type { ModelCheck } from './synthesizer.js';

export class Synthesis {
  private readonly globs: readonly string[];
  readonly emulated: Emulated;

  /** `defaults`: the server's own account settings (its stacks' pseudo parameters), under the settings' own. */
  constructor(
    settings: StateProviderSettings,
    defaults: Partial<Emulated> = {},
    /** Checks a model against its type's schema; values it refuses are left out. */
    private readonly check?: ModelCheck,
  ) {
    this.globs = settings.synthesize ?? [];
    this.emulated = {
      ...DEFAULT_EMULATED,
      ...defaults,
      ...(settings.region !== undefined ? { region: settings.region } : {}),
      ...(settings.accountId !== undefined ? { accountId: settings.accountId } : {}),
      ...(settings.partition !== undefined ? { partition: settings.partition } : {}),
    };
  }

  appliesTo(typeName: string): boolean {
    return synthesizes(this.globs, typeName);
  }

  /** A new resource's model: `desired` with its synthesized values. */
  create(type: ResourceType, desired: Model, requestToken: string): Model {
    return synthesize(type, desired, requestToken, this.emulated, this.check);
  }

  /** The pointers a create of the type fills. */
  generates(type: ResourceType): string[] {
    return synthesizedPointers(type, this.emulated);
  }

  /** An update's model keeping what was synthesized at create. */
  keep(type: ResourceType, before: Model, desired: Model): Model {
    return keepSynthesized(type, before, desired, this.emulated);
  }
}
