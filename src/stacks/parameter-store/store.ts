/**
 * @module Where SSM parameter types and dynamic references read from: the server's own resources.
 * An SSM parameter is an `AWS::SSM::Parameter` (found by its `Name`, its primary identifier; its
 * `Type` and `Value`); a secret is an `AWS::SecretsManager::Secret` (found by its `Id` or its `Name`;
 * its `SecretString`, write-only, opened from where the engine keeps it sealed, or the password its
 * `GenerateSecretString` makes: generated-secret.ts). Reading one is
 * allowed to whoever reaches its type (checked by the caller of {@link ParameterStore}).
 */
import { TypeplaneError } from '../../errors.js';
import { resourceWithSecrets, type Engine } from '../../engine/index.js';
import type { Sealer } from '../../secrets/index.js';
import type { Store } from '../../store/types.js';
import type { TypeSource } from '../analyze.js';
import { generatedSecretString } from './generated-secret.js';

export const SSM_PARAMETER_TYPE = 'AWS::SSM::Parameter';
export const SECRET_TYPE = 'AWS::SecretsManager::Secret';

/** A parameter as the store holds it. */
export interface StoredParameter {
  /** `String`, `StringList` (or `SecureString`, where a registered schema allows it). */
  type: string;
  value: string;
}

/** What a lookup found: the value, or why there is none (said in a diagnostic or a failed step). */
export type Found<T> = { found: T } | { missing: string };

export interface ParameterStore {
  parameter(name: string): Promise<Found<StoredParameter>>;
  /** A secret's SecretString (undefined when the secret has none). */
  secret(id: string): Promise<Found<{ secretString: string | undefined }>>;
}

/** The server's resources as the parameter store; each lookup reads the engine's record anew. */
export function serverParameterStore(options: {
  engine: Pick<Engine, 'read' | 'list'>;
  types: TypeSource;
  store: Store;
  sealer: Sealer;
}): ParameterStore {
  const { engine, types } = options;
  const unregistered = (typeName: string) =>
    `${typeName} is not registered on this server (register its schema to keep them)`;
  return {
    async parameter(name) {
      if (!(await types.get(SSM_PARAMETER_TYPE))) return { missing: unregistered(SSM_PARAMETER_TYPE) };
      let properties: Record<string, unknown>;
      try {
        properties = (await engine.read(SSM_PARAMETER_TYPE, name)).properties;
      } catch (e) {
        if (e instanceof TypeplaneError && e.code === 'NotFound')
          return { missing: `no ${SSM_PARAMETER_TYPE} named '${name}' on this server` };
        throw e;
      }
      const value = properties.Value;
      if (typeof value !== 'string') return { missing: `${SSM_PARAMETER_TYPE} '${name}' has no Value` };
      return { found: { type: typeof properties.Type === 'string' ? properties.Type : 'String', value } };
    },
    async secret(id) {
      const compiled = await types.get(SECRET_TYPE);
      if (!compiled) return { missing: unregistered(SECRET_TYPE) };
      let stored = await resourceWithSecrets(options.store, options.sealer, compiled.type, id);
      if (!stored) {
        // Named as a template names it: by its Name (the Id is what Ref gives).
        const named = await engine.list(SECRET_TYPE, { filters: { Name: id }, maxResults: 1 });
        const identifier = named.resourceDescriptions[0]?.identifier;
        if (identifier !== undefined)
          stored = await resourceWithSecrets(options.store, options.sealer, compiled.type, identifier);
      }
      if (!stored) return { missing: `no ${SECRET_TYPE} with the Id or Name '${id}' on this server` };
      const { SecretString: secretString, GenerateSecretString: settings } = stored.properties;
      if (typeof secretString === 'string') return { found: { secretString } };
      if (typeof settings !== 'object' || settings === null) return { found: { secretString: undefined } };
      const generated = generatedSecretString(
        settings as Record<string, unknown>,
        (data) => options.sealer.mac(data),
        `generated-secret\u0000${stored.identifier}`,
      );
      if ('problem' in generated) return { missing: `${SECRET_TYPE} '${id}': ${generated.problem}` };
      return { found: { secretString: generated.value } };
    },
  };
}
