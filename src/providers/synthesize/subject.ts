/**
 * @module What synthesized values are about: the emulated account (partition, region, account id,
 * URL suffix) and the resource being made (its type's service and kind, its name, its identifier,
 * the properties it was given).
 */
import type { Model } from '../../model/index.js';
import { Seed } from './seed.js';

/** The account the state provider pretends to be (its ARNs, DNS names and endpoints). */
export interface Emulated {
  partition: string;
  region: string;
  accountId: string;
  urlSuffix: string;
}

export const DEFAULT_EMULATED: Emulated = {
  partition: 'aws',
  region: 'us-east-1',
  accountId: '123456789012',
  urlSuffix: 'amazonaws.com',
};

/** A service's name in ARNs and host names where it is not the type name's second part, lower-cased. */
const SERVICE_NAMES: Record<string, string> = {
  ElasticLoadBalancingV2: 'elasticloadbalancing',
  ElasticLoadBalancing: 'elasticloadbalancing',
  CertificateManager: 'acm',
  StepFunctions: 'states',
  KinesisFirehose: 'firehose',
  KinesisAnalyticsV2: 'kinesisanalytics',
  EFS: 'elasticfilesystem',
  OpenSearchService: 'es',
  Elasticsearch: 'es',
  Cognito: 'cognito-idp',
  DocDB: 'rds',
  Neptune: 'rds',
  ApiGatewayV2: 'apigateway',
  EMR: 'elasticmapreduce',
  ApplicationAutoScaling: 'application-autoscaling',
  CodeStarConnections: 'codestar-connections',
  MSK: 'kafka',
  AmazonMQ: 'mq',
};

/** Services whose ARNs name no region (and S3 and Route 53, no account either). */
export const GLOBAL_SERVICES = new Set(['iam', 'cloudfront', 'route53', 's3', 'organizations', 'waf']);
export const NO_ACCOUNT_SERVICES = new Set(['s3', 'route53']);

/** The resource a create makes. */
export class Subject {
  /** The service in ARNs (`ec2`, `elasticloadbalancing`). */
  readonly service: string;
  /** The type name's last part (`SecurityGroup`). */
  readonly kind: string;
  /** Filled once the identifier is known (after names and identifier parts). */
  identifier: string | undefined;

  constructor(
    readonly typeName: string,
    readonly emulated: Emulated,
    /** The model so far: what the caller gave, and what was synthesized before. */
    readonly model: Model,
    /** The top-level property holding the resource's own name, if the type has one. */
    private readonly nameProperty: string | undefined,
    /** The type's only primary identifier property, if it has one. */
    private readonly identifierProperty: string | undefined,
    /**
     * Seeds what is about the resource rather than one property (its creation time, a name when it
     * has none): the request while the identifier is being made, the identifier after.
     */
    public seed: Seed,
  ) {
    const parts = typeName.split('::');
    const second = parts[1] ?? parts[0] ?? typeName;
    this.service = SERVICE_NAMES[second] ?? second.toLowerCase();
    this.kind = parts[parts.length - 1] ?? typeName;
  }

  /**
   * The resource's name: its name property's value, else its identifier (an ARN's last part), else
   * one made from the seed.
   */
  name(): string {
    const named = this.nameProperty === undefined ? undefined : this.model[this.nameProperty];
    if (typeof named === 'string' && named !== '') return named;
    const id = this.identifier?.split('|')[0];
    if (id !== undefined && id !== '') return id.startsWith('arn:') ? (id.split(/[:/]/).pop() ?? id) : id;
    return `${kebab(this.kind)}-${this.seed.derive('name').hex(8)}`;
  }

  /** The resource's id, when its identifier is one (`Id`, `VpcId`): another id property of its own repeats it. */
  ownId(): string | undefined {
    const property = this.identifierProperty;
    if (property === undefined || !/(Id|ID)$/.test(property)) return undefined;
    return this.given(property);
  }

  /** The resource's name written as a DNS label (lower case, letters, digits and hyphens). */
  label(): string {
    const label = this.name()
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40)
      .replace(/-+$/, '');
    return label === '' ? this.seed.derive('label').hex(8) : label;
  }

  /** The moment the resource was made, the same for all its timestamps (within 2024, from its seed). */
  created(): Date {
    return new Date(Date.UTC(2024, 0, 1) + this.seed.derive('created').below(365 * 24 * 3600) * 1000);
  }

  /** A property of the given model, when it is a string. */
  given(name: string): string | undefined {
    const value = this.model[name];
    return typeof value === 'string' ? value : undefined;
  }
}

/** `SecurityGroup` → `security-group`, `VPC` → `vpc`, `DBInstance` → `db-instance`. */
export function kebab(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();
}

export { Seed };
