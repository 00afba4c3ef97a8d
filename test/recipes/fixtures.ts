/**
 * The pieces recipe tests share: the Radius design's sample type (read from its fixture, as
 * published), a lower-level type for recipes to make (the state provider serves it), and recipes.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const SAMPLE_TYPE = 'MyCompany.Resources/postgresDatabases';
export const SAMPLE_MANIFEST = readFileSync(
  fileURLToPath(new URL('../fixtures/radius/radius-design-postgresDatabases.yaml', import.meta.url)),
  'utf8',
);

/** What a recipe makes in these tests: a database record with a write-only password. */
export const BOX_TYPE = 'Test::Recipe::Database';
export const BOX = JSON.stringify({
  typeName: BOX_TYPE,
  description: 'A database a recipe makes, for tests.',
  properties: {
    Name: { type: 'string', pattern: '^[a-z][a-z0-9_-]{0,40}$' },
    Size: { type: 'string', enum: ['S', 'M', 'L', 'XL'] },
    Password: { type: 'string', minLength: 12 },
    Host: { type: 'string' },
  },
  additionalProperties: false,
  required: ['Name'],
  primaryIdentifier: ['/properties/Name'],
  createOnlyProperties: ['/properties/Name'],
  writeOnlyProperties: ['/properties/Password'],
});

/** A login a recipe makes beside the database. */
export const LOGIN_TYPE = 'Test::Recipe::Login';
export const LOGIN = JSON.stringify({
  typeName: LOGIN_TYPE,
  description: 'A login a recipe makes, for tests.',
  properties: {
    User: { type: 'string', pattern: '^[a-z][a-z0-9_-]{0,40}$' },
    Database: { type: 'string' },
  },
  additionalProperties: false,
  required: ['User'],
  primaryIdentifier: ['/properties/User'],
  createOnlyProperties: ['/properties/User'],
});

/** The sample recipe's parameters: a generated password, and a suffix of the database's name. */
export const RECIPE_PARAMETERS = `Parameters:
  Password:
    Type: String
    NoEcho: true
  Suffix:
    Type: String
    Default: db`;

/** The sample's recipe: a database and a login, the binding filled from them, a generated password. */
export const RECIPE = `
Description: A database for one postgresDatabases resource.
Metadata:
  Typeplane::Recipe:
    GeneratedSecrets: [Password]
${RECIPE_PARAMETERS}
Resources:
  Database:
    Type: ${BOX_TYPE}
    Properties:
      Name: !Sub '\${context.resource.name}_\${Suffix}'
      Size: !GetAtt context.resource.properties.size
      Password: !Ref Password
      Host: !Sub '\${context.environment.name}.db.internal'
  Login:
    Type: ${LOGIN_TYPE}
    Properties:
      User: !Sub '\${context.resource.name}_user'
      Database: !Ref Database
Outputs:
  result:
    Value:
      values:
        status.binding.hostname: !GetAtt Database.Host
        status.binding.username: !Ref Login
        status.binding.secret: !Sub '\${Database}/password'
`;

/**
 * An admission policy that judges the database's creates (and denies none a test makes): a recipe
 * making databases then deploys its instance's stack at create, as a stack reviews its plan whole.
 */
export async function judgeDatabases(api: {
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
}): Promise<void> {
  const policy = await api.call('POST', '/v1/policies', {
    name: 'sizes-known',
    match: { types: [BOX_TYPE], operations: ['CREATE'] },
    action: 'Deny',
    validations: [{ expression: "object.Size != 'XXL'" }],
  });
  if (policy.status !== 201)
    throw new Error(`adding the policy answered ${policy.status}: ${JSON.stringify(policy.body)}`);
}

/** Register the lower-level types and the sample type (as the admin `api` is), as each recipe test starts. */
export async function registerSampleTypes(api: {
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: unknown }>;
}): Promise<void> {
  for (const doc of [BOX, LOGIN, SAMPLE_MANIFEST]) {
    const r = await api.call('POST', '/v1/types', doc, {
      'content-type': doc.startsWith('{') ? 'application/json' : 'application/yaml',
    });
    if (r.status !== 201)
      throw new Error(`registering a type answered ${r.status}: ${JSON.stringify(r.body)}`);
  }
}
