/**
 * @module The values AWS gives where their shape is well known, by property name and type: ARNs,
 * ids with their prefixes (`sg-…`, `vpc-…`), DNS names, endpoints and ports, URLs, hosted zone ids,
 * accounts, regions, timestamps, states. Each rule offers candidates, best first; the caller keeps
 * the first one the property's schema accepts and otherwise writes a value from the schema alone.
 */
import { GLOBAL_SERVICES, kebab, NO_ACCOUNT_SERVICES, type Seed, type Subject } from './subject.js';

/** Where a value goes. */
export interface Place {
  /** Property names from the top, array positions left out: `['Endpoint', 'Address']`. */
  names: readonly string[];
  /** Whether the value is an item of an array. */
  item: boolean;
  seed: Seed;
}

type Rule = (
  name: string,
  parent: string | undefined,
  subject: Subject,
  place: Place,
) => unknown[] | undefined;

/** Candidates reading like AWS's for `place`, best first; empty when no rule knows the place. */
export function wellKnown(place: Place, subject: Subject): unknown[] {
  const name = place.names.at(-1) ?? '';
  const parent = place.names.at(-2);
  for (const rule of RULES) {
    const found = rule(name, parent, subject, place);
    if (found) return found;
  }
  return [];
}

/**
 * Id prefixes of EC2 (and VPC) resources, by the id's stem (`SecurityGroupId`, a SecurityGroup's
 * own `Id` or `GroupId` → `securitygroup`). Stems marked `ec2:` stand for EC2's ids only on EC2
 * types (another service's `InstanceId` is its own).
 */
const ID_PREFIXES: Record<string, string> = {
  vpc: 'vpc',
  subnet: 'subnet',
  securitygroup: 'sg',
  defaultsecuritygroup: 'sg',
  internetgateway: 'igw',
  routetable: 'rtb',
  networkinterface: 'eni',
  natgateway: 'nat',
  networkacl: 'acl',
  defaultnetworkacl: 'acl',
  transitgateway: 'tgw',
  transitgatewayattachment: 'tgw-attach',
  transitgatewayroutetable: 'tgw-rtb',
  vpcendpoint: 'vpce',
  launchtemplate: 'lt',
  dhcpoptions: 'dopt',
  vpngateway: 'vgw',
  vpnconnection: 'vpn',
  customergateway: 'cgw',
  prefixlist: 'pl',
  egressonlyinternetgateway: 'eigw',
  vpcpeeringconnection: 'pcx',
  carriergateway: 'cagw',
  securitygrouprule: 'sgr',
  cidrblockassociation: 'vpc-cidr-assoc',
  subnetroutetableassociation: 'rtbassoc',
  routetableassociation: 'rtbassoc',
  networkaclassociation: 'aclassoc',
  'ec2:instance': 'i',
  'ec2:image': 'ami',
  'ec2:volume': 'vol',
  'ec2:snapshot': 'snap',
  'ec2:allocation': 'eipalloc',
  'ec2:eip': 'eipalloc',
  'ec2:association': 'eipassoc',
  'ec2:keypair': 'key',
  'ec2:placementgroup': 'pg',
  'ec2:capacityreservation': 'cr',
  'ec2:flowlog': 'fl',
  'ec2:host': 'h',
  'ec2:spotfleet': 'sfr',
  'ec2:ec2fleet': 'fleet',
  'ec2:ipam': 'ipam',
  'ec2:ipampool': 'ipam-pool',
};

/** Unique-id prefixes IAM gives its resources (`RoleId` `AROA…`). */
const IAM_ID_PREFIXES: Record<string, string> = {
  Role: 'AROA',
  User: 'AIDA',
  Group: 'AGPA',
  InstanceProfile: 'AIPA',
  ManagedPolicy: 'ANPA',
};

/** Default ports by database engine, and by service where an engine does not say. */
const ENGINE_PORTS: [RegExp, number][] = [
  [/postgres/i, 5432],
  [/mysql|maria|^aurora$/i, 3306],
  [/oracle/i, 1521],
  [/sqlserver/i, 1433],
  [/redis|valkey/i, 6379],
  [/memcached/i, 11211],
  [/docdb|mongo/i, 27017],
  [/neptune/i, 8182],
];
const SERVICE_PORTS: Record<string, number> = {
  rds: 3306,
  redshift: 5439,
  elasticache: 6379,
  memorydb: 6379,
  dax: 8111,
  kafka: 9092,
  mq: 5671,
};

const UPPER_ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const LOWER_ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** The ARN of the resource itself. */
export function ownArn(subject: Subject, seed: Seed): string {
  return arn(subject, subject.service, resourcePart(subject, seed));
}

function arn(subject: Subject, service: string, resource: string): string {
  const e = subject.emulated;
  const region = GLOBAL_SERVICES.has(service) ? '' : e.region;
  const account = NO_ACCOUNT_SERVICES.has(service) ? '' : e.accountId;
  return `arn:${e.partition}:${service}:${region}:${account}:${resource}`;
}

/** The resource part of the resource's own ARN, as its service writes it. */
function resourcePart(subject: Subject, seed: Seed): string {
  const name = subject.name();
  const path = subject.given('Path') ?? '/';
  switch (subject.typeName) {
    case 'AWS::S3::Bucket':
    case 'AWS::SNS::Topic':
    case 'AWS::SQS::Queue':
      return name;
    case 'AWS::Lambda::Function':
      return `function:${name}`;
    case 'AWS::Logs::LogGroup':
      return `log-group:${name}:*`;
    case 'AWS::RDS::DBInstance':
      return `db:${name}`;
    case 'AWS::RDS::DBCluster':
      return `cluster:${name}`;
    case 'AWS::RDS::DBSubnetGroup':
      return `subgrp:${name}`;
    case 'AWS::RDS::DBParameterGroup':
      return `pg:${name}`;
    case 'AWS::StepFunctions::StateMachine':
      return `stateMachine:${name}`;
    case 'AWS::SecretsManager::Secret':
      return `secret:${name}-${seed.derive('secret').chars('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', 6)}`;
    case 'AWS::ElasticLoadBalancingV2::LoadBalancer':
      return `loadbalancer/${loadBalancerKind(subject)}/${name}/${seed.derive('lb').hex(16)}`;
    case 'AWS::ElasticLoadBalancingV2::TargetGroup':
      return `targetgroup/${name}/${seed.derive('tg').hex(16)}`;
    case 'AWS::KMS::Key':
      return `key/${seed.derive('key').uuid()}`;
    case 'AWS::IAM::Role':
    case 'AWS::IAM::User':
    case 'AWS::IAM::Group':
    case 'AWS::IAM::InstanceProfile':
    case 'AWS::IAM::ManagedPolicy': {
      const kind = subject.kind === 'ManagedPolicy' ? 'policy' : kebab(subject.kind);
      return `${kind}${path.startsWith('/') ? path : `/${path}`}${path.endsWith('/') ? '' : '/'}${name}`;
    }
    default:
      return `${kebab(subject.kind)}/${name}`;
  }
}

function loadBalancerKind(subject: Subject): string {
  const type = subject.given('Type');
  return type === 'network' ? 'net' : type === 'gateway' ? 'gwy' : 'app';
}

/** An id with EC2's prefix for `stem` on this type, if it has one. */
function ec2Id(stem: string, subject: Subject, seed: Seed): string | undefined {
  const key = stem.toLowerCase();
  const prefix = ID_PREFIXES[key] ?? (subject.service === 'ec2' ? ID_PREFIXES[`ec2:${key}`] : undefined);
  return prefix === undefined ? undefined : `${prefix}-${seed.hex(17)}`;
}

/**
 * The stem of an id's name: `VpcId` → `Vpc`, `Id` or `GroupId` on a SecurityGroup → `SecurityGroup`;
 * a few EC2 ids are named without `Id` (`DefaultSecurityGroup`, `CidrBlockAssociations`).
 */
function idStem(name: string, subject: Subject): string | undefined {
  const m = /^(.*?)(Id|ID|Ids|IDs)$/.exec(name);
  if (!m) {
    const singular = name.toLowerCase().replace(/s$/, '');
    return ID_PREFIXES[singular] !== undefined ? singular : undefined;
  }
  const stem = m[1]!;
  if (stem === '' || subject.kind.toLowerCase().endsWith(stem.toLowerCase())) return subject.kind;
  return stem;
}

/** The resource's creation time as the schema may want it: ISO 8601 (with or without milliseconds), a date, epoch seconds. */
function timestamps(subject: Subject): unknown[] {
  const at = subject.created();
  const iso = at.toISOString();
  const seconds = Math.floor(at.getTime() / 1000);
  return [iso.replace(/\.\d{3}Z$/, 'Z'), iso, iso.slice(0, 10), seconds, String(seconds)];
}

/** A host name for the resource under its service: `<name>.<id>.<region>.<service>.<suffix>`. */
function hostName(subject: Subject, seed: Seed, service = subject.service): string {
  const e = subject.emulated;
  return `${subject.label()}.${seed.chars(LOWER_ALNUM, 12)}.${e.region}.${service}.${e.urlSuffix}`;
}

function port(subject: Subject): number {
  const given = subject.model.Port;
  if (typeof given === 'number') return given;
  if (typeof given === 'string' && /^\d{1,5}$/.test(given)) return Number(given);
  const engine = subject.given('Engine');
  for (const [test, value] of ENGINE_PORTS) if (engine !== undefined && test.test(engine)) return value;
  return SERVICE_PORTS[subject.service] ?? 443;
}

/** Both the number and its string, the number first (the schema decides which fits). */
const numberOrString = (n: number): unknown[] => [n, String(n)];

const RULES: Rule[] = [
  // ARNs: the resource's own (`Arn`, `TopicArn` on a Topic), else one of its service for the name's stem.
  (name, parent, subject, place) => {
    const m = /^(.*?)(Arn|ARN)s?$/.exec(name);
    if (!m) return undefined;
    const stem = m[1]!;
    if (parent === undefined && (stem === '' || subject.kind.toLowerCase().endsWith(stem.toLowerCase())))
      return [ownArn(subject, place.seed)];
    const e = subject.emulated;
    const id = place.seed.hex(17);
    if (/^Stream$/.test(stem))
      return [`${ownArn(subject, place.seed)}/stream/${subject.created().toISOString()}`];
    if (/Secret$/.test(stem))
      return [
        arn(
          subject,
          'secretsmanager',
          `secret:${subject.label()}-${place.seed.chars('abcdefghijklmnopqrstuvwxyz', 6)}`,
        ),
      ];
    if (/Role$/.test(stem)) return [arn(subject, 'iam', `role/${subject.label()}-${id}`)];
    if (/K[Mm][Ss]Key$|^Key$/.test(stem)) return [arn(subject, 'kms', `key/${place.seed.uuid()}`)];
    if (/Topic$/.test(stem)) return [arn(subject, 'sns', `${subject.label()}-${id}`)];
    return [
      arn(subject, subject.service, `${kebab(stem || subject.kind)}/${id}`),
      `arn:${e.partition}:${subject.service}:${e.region}:${e.accountId}:${id}`,
    ];
  },
  // Hosted zones: Route 53's ids, `Z` and 13 characters.
  (name, _parent, _subject, place) =>
    /HostedZone(Name)?I[dD]$/.test(name) ? [`Z${place.seed.chars(UPPER_ALNUM, 13)}`] : undefined,
  // Endpoints: an address and a port.
  (name, parent, subject, place) => {
    if (parent === undefined || !/Endpoint$/.test(parent)) return undefined;
    if (name === 'Port') return numberOrString(port(subject));
    if (/^(Address|Host|HostName|Hostname)$/.test(name))
      return [endpointAddress(subject, parent, place.seed)];
    return undefined;
  },
  (name, _parent, subject) => (/^(Port|.+Port)$/.test(name) ? numberOrString(port(subject)) : undefined),
  // Names and URLs a service gives (S3, load balancers, CloudFront, SQS).
  (name, _parent, subject, place) => serviceNames(name, subject, place.seed),
  (name, _parent, subject, place) => {
    if (!/(DNSName|DnsName|DomainName|Hostname|HostName|Endpoint)$/.test(name)) return undefined;
    const host = hostName(subject, place.seed);
    return [host, `https://${host}`];
  },
  (name, _parent, subject, place) =>
    /(Url|URL|Uri|URI)s?$/.test(name) ? [`https://${hostName(subject, place.seed)}/`] : undefined,
  // Accounts and places.
  (name, _parent, subject) =>
    /^(AccountId|AccountID|OwnerId|OwnerAccountId|AwsAccountId|Owner|OwnerAccount)$/.test(name)
      ? [subject.emulated.accountId]
      : undefined,
  (name, _parent, subject) => (/Region$/.test(name) ? [subject.emulated.region] : undefined),
  (name, _parent, subject, place) =>
    /AvailabilityZones?$/.test(name)
      ? [`${subject.emulated.region}${place.item ? place.seed.pick(['a', 'b', 'c']) : 'a'}`]
      : undefined,
  // Ids: EC2's prefixes, IAM's unique ids, a name's own id.
  (name, _parent, subject, place) => {
    const stem = idStem(name, subject);
    if (stem === undefined) return undefined;
    // A second name for the resource's own id (a SecurityGroup's GroupId beside its Id) is the same id.
    const own = subject.ownId();
    if (stem === subject.kind && own !== undefined) return [own];
    const ec2 = ec2Id(stem, subject, place.seed);
    if (ec2) return [ec2];
    const iam =
      subject.service === 'iam' && stem === subject.kind ? IAM_ID_PREFIXES[subject.kind] : undefined;
    if (iam) return [`${iam}${place.seed.chars(UPPER_ALNUM, 17)}`];
    if (subject.typeName === 'AWS::CloudFront::Distribution')
      return [`E${place.seed.chars(UPPER_ALNUM, 13)}`];
    return [place.seed.uuid(), place.seed.hex(17), place.seed.chars(LOWER_ALNUM, 10)];
  },
  // The resource's own name where the service reports it (`LoadBalancerName`).
  (name, parent, subject) =>
    parent === undefined && (name === 'Name' || name === `${subject.kind}Name`)
      ? [subject.name()]
      : undefined,
  // Times, states, addresses, versions.
  (name, _parent, subject) =>
    /(Time|Date|At|Timestamp|Created|Modified|Updated|On)$/.test(name) && !/Format$/.test(name)
      ? timestamps(subject)
      : undefined,
  (name, _parent, subject) =>
    /(Status|State)$/.test(name)
      ? ['rds', 'ec2', 'elasticache', 'redshift'].includes(subject.service)
        ? ['available', 'AVAILABLE', 'ACTIVE', 'Active']
        : ['ACTIVE', 'Active', 'active', 'AVAILABLE', 'available']
      : undefined,
  (name, _parent, _subject, place) =>
    /Ipv6CidrBlocks?$/.test(name)
      ? [
          `2001:db8:${place.seed.hex(4).replace(/^0+/, '') || '1'}:${place.seed.hex(2).replace(/^0+/, '') || '1'}00::/56`,
        ]
      : undefined,
  (name) => (/CidrBlock$/.test(name) ? ['10.0.0.0/16'] : undefined),
  (name, _parent, _subject, place) =>
    /(PublicIp|PublicIpAddress|PublicIpv4)$/.test(name)
      ? [`203.0.113.${1 + place.seed.below(254)}`]
      : /(Ip|IpAddress|PrivateIp|PrivateIpAddress|Ipv4)$/.test(name)
        ? [`10.0.${place.seed.below(256)}.${1 + place.seed.below(254)}`]
        : undefined,
  (name) => (/^(Version|VersionNumber|LatestVersion|Revision|VersionId)$/.test(name) ? [1, '1'] : undefined),
];

function endpointAddress(subject: Subject, parent: string, seed: Seed): string {
  const e = subject.emulated;
  const id = subject.label();
  const code = seed.chars(LOWER_ALNUM, 12);
  if (subject.service === 'rds') {
    if (subject.kind === 'DBCluster' || subject.kind === 'DBProxy') {
      const role = parent === 'ReadEndpoint' ? 'cluster-ro' : 'cluster';
      return `${id}.${role}-${code}.${e.region}.rds.${e.urlSuffix}`;
    }
    return `${id}.${code}.${e.region}.rds.${e.urlSuffix}`;
  }
  if (subject.service === 'elasticache')
    return `${id}.${seed.chars(LOWER_ALNUM, 6)}.0001.${shortRegion(e.region)}.cache.${e.urlSuffix}`;
  if (subject.service === 'redshift') return `${id}.${code}.${e.region}.redshift.${e.urlSuffix}`;
  return hostName(subject, seed);
}

/** `us-east-1` → `use1`, as ElastiCache's host names write a region. */
function shortRegion(region: string): string {
  const [area, direction, number] = region.split('-');
  return `${area ?? ''}${(direction ?? '').replace(/(north|south|east|west|central)/g, (w) => w[0]!)}${number ?? ''}`;
}

/** Host names and URLs particular to a few services. */
function serviceNames(name: string, subject: Subject, seed: Seed): unknown[] | undefined {
  const e = subject.emulated;
  const label = subject.label();
  switch (`${subject.typeName}#${name}`) {
    case 'AWS::S3::Bucket#DomainName':
      return [`${label}.s3.${e.urlSuffix}`];
    case 'AWS::S3::Bucket#RegionalDomainName':
      return [`${label}.s3.${e.region}.${e.urlSuffix}`];
    case 'AWS::S3::Bucket#DualStackDomainName':
      return [`${label}.s3.dualstack.${e.region}.${e.urlSuffix}`];
    case 'AWS::S3::Bucket#WebsiteURL':
      return [`http://${label}.s3-website-${e.region}.${e.urlSuffix}`];
    case 'AWS::ElasticLoadBalancingV2::LoadBalancer#DNSName':
    case 'AWS::ElasticLoadBalancing::LoadBalancer#DNSName':
    case 'AWS::ElasticLoadBalancing::LoadBalancer#CanonicalHostedZoneName': {
      const internal = subject.given('Scheme') === 'internal' ? 'internal-' : '';
      const lb = label.slice(0, 32).replace(/-+$/, '');
      return loadBalancerKind(subject) === 'app'
        ? [`${internal}${lb}-${seed.chars('0123456789', 10)}.${e.region}.elb.${e.urlSuffix}`]
        : [`${internal}${lb}-${seed.hex(16)}.elb.${e.region}.${e.urlSuffix}`];
    }
    case 'AWS::ElasticLoadBalancingV2::LoadBalancer#LoadBalancerFullName':
    case 'AWS::ElasticLoadBalancingV2::TargetGroup#TargetGroupFullName': {
      // The ARN's resource part after `loadbalancer/`, the whole part for a target group.
      const arn = subject.given(`${subject.kind}Arn`) ?? ownArn(subject, seed);
      const part = arn.split(':').slice(5).join(':');
      return [subject.kind === 'LoadBalancer' ? part.replace(/^loadbalancer\//, '') : part];
    }
    case 'AWS::CloudFront::Distribution#DomainName':
      return [`d${seed.chars(LOWER_ALNUM, 13)}.cloudfront.net`];
    case 'AWS::SQS::Queue#QueueUrl':
      return [`https://sqs.${e.region}.${e.urlSuffix}/${e.accountId}/${subject.name()}`];
    case 'AWS::Lambda::Url#FunctionUrl':
      return [`https://${seed.chars(LOWER_ALNUM, 32)}.lambda-url.${e.region}.on.aws/`];
    case 'AWS::ApiGateway::RestApi#RestApiId':
    case 'AWS::ApiGateway::RestApi#RootResourceId':
      return [seed.chars(LOWER_ALNUM, 10)];
    default:
      return undefined;
  }
}
