/**
 * @module What `Ref` of a resource gives: its identifier, as CloudFormation's registry has it — but for a
 * compound identifier (several properties) with exactly one part the service makes (read-only), that
 * part alone. Such types (`AWS::ApiGateway::Resource` is `RestApiId|ResourceId`,
 * `AWS::ECS::Service` `ServiceArn|Cluster`, `AWS::ApplicationAutoScaling::ScalingPolicy`
 * `Arn|ScalableDimension` …) name a child by its parent and its own id, and CloudFormation's `Ref`
 * returns the child's own id (`abc123`), which templates hand on where one id is expected (a method's
 * `ResourceId: !Ref MyResource`). Other compound identifiers (no generated part, or several) stay
 * joined by `|`, the form Cloud Control and the API use.
 */
import { valuesAt } from '../model/index.js';
import type { ResourceType } from '../schema/index.js';

export function refValue(
  type: Pick<ResourceType, 'primaryIdentifier' | 'readOnlyProperties'>,
  identifier: string,
  model: Record<string, unknown>,
): string {
  if (type.primaryIdentifier.length < 2) return identifier;
  const generated = type.primaryIdentifier.filter((p) => type.readOnlyProperties.includes(p));
  if (generated.length !== 1) return identifier;
  const value = valuesAt(model, generated[0]!)[0]?.value;
  return typeof value === 'string' || typeof value === 'number' ? String(value) : identifier;
}
