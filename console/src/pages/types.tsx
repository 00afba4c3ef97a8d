/**
 * Types: the list the token may see, and each type as a documentation page — its properties with
 * their constraints and marks, identifiers, references, versions, the diff between two versions with
 * its verdicts, and the generated Bicep / JSON Schema / OpenAPI to download.
 */
import { useState } from 'preact/hooks';
import { download, get, seg } from '../api';
import { href } from '../router';
import { ErrorBox, Show, Table, useLoad, when } from '../components/common';

interface TypeSummary {
  typeName: string;
  version: number;
  apiVersion?: string;
  dialect: string;
  description?: string;
  registeredAt: string;
  contract?: { status?: string } | null;
}

type Schema = Record<string, unknown> & {
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  $ref?: string;
  definitions?: Record<string, Schema>;
  relationshipRef?: { typeName: string; propertyPath: string };
};

interface TypeDetail extends TypeSummary {
  defaultVersion: number;
  versions: { version: number; registeredAt: string; isDefault: boolean; resourceCount: number }[];
  schema: Schema;
  primaryIdentifier: string[];
  additionalIdentifiers?: string[][];
  readOnlyProperties?: string[];
  writeOnlyProperties?: string[];
  createOnlyProperties?: string[];
  deprecatedProperties?: string[];
  traits?: unknown;
}

export function TypesPage() {
  const loaded = useLoad(() => get<{ types: TypeSummary[] }>('/v1/types'), 'types');
  return (
    <>
      <h1>Types</h1>
      <Show loaded={loaded}>
        {({ types }) =>
          types.length === 0 ? (
            <p>No type this token may see is registered.</p>
          ) : (
            <Table
              caption="Registered types"
              columns={['Type', 'Version', 'Dialect', 'Description', 'Resources']}
            >
              {types.map((t) => (
                <tr key={t.typeName}>
                  <td>
                    <a href={href(['types', t.typeName])}>{t.typeName}</a>
                  </td>
                  <td>
                    {t.version}
                    {t.apiVersion ? ` (${t.apiVersion})` : ''}
                  </td>
                  <td>{t.dialect}</td>
                  <td>{t.description}</td>
                  <td>
                    <a href={href(['resources', t.typeName])}>Resources of {t.typeName}</a>
                  </td>
                </tr>
              ))}
            </Table>
          )
        }
      </Show>
    </>
  );
}

interface Row {
  pointer: string;
  name: string;
  schema: Schema;
  required: boolean;
}

/** The properties as rows, nested objects and array items included (bounded depth), $refs followed. */
function rows(root: Schema, schema: Schema, pointer: string, depth: number, out: Row[]): Row[] {
  const required = new Set(schema.required ?? []);
  for (const [name, raw] of Object.entries(schema.properties ?? {})) {
    const property = resolve(root, raw);
    const at = `${pointer}/${name}`;
    out.push({
      pointer: at,
      name: at.replace(/^\/properties\//, ''),
      schema: property,
      required: required.has(name),
    });
    if (depth < 4) {
      if (property.properties) rows(root, property, at, depth + 1, out);
      const items = property.items && resolve(root, property.items);
      if (items?.properties) rows(root, items, `${at}/*`, depth + 1, out);
    }
  }
  return out;
}

function resolve(root: Schema, schema: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/definitions/')) return schema;
  return { ...(root.definitions?.[ref.slice('#/definitions/'.length)] ?? {}), ...schema, $ref: undefined };
}

const CONSTRAINTS = [
  'enum',
  'const',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'default',
];

function typeOf(schema: Schema): string {
  const type = schema.type;
  const name = Array.isArray(type) ? type.join(' | ') : typeof type === 'string' ? type : 'any';
  if (name === 'array' && schema.items) return `array of ${typeOf(schema.items)}`;
  return name;
}

function Marks({ pointer, detail }: { pointer: string; detail: TypeDetail }) {
  const marks: [string[] | undefined, string, string][] = [
    [detail.readOnlyProperties, 'read-only', 'set by the provider, never by a client'],
    [detail.writeOnlyProperties, 'write-only', 'sent on create and update, never returned'],
    [detail.createOnlyProperties, 'create-only', 'set on create; changing it replaces the resource'],
    [detail.deprecatedProperties, 'deprecated', 'kept for old clients; do not use'],
  ];
  const identifier = detail.primaryIdentifier.includes(pointer);
  return (
    <>
      {identifier && (
        <span class="mark identifier" title="part of the primary identifier">
          identifier
        </span>
      )}
      {marks
        .filter(([list]) => list?.includes(pointer))
        .map(([, word, title]) => (
          <span key={word} class={`mark ${word}`} title={title}>
            {word}
          </span>
        ))}
    </>
  );
}

export function TypePage({ typeName, version }: { typeName: string; version?: string }) {
  const path = `/v1/types/${seg(typeName)}${version ? `?version=${encodeURIComponent(version)}` : ''}`;
  const loaded = useLoad(() => get<TypeDetail>(path), path);
  return (
    <Show loaded={loaded}>
      {(detail) => {
        const list = rows(detail.schema, detail.schema, '/properties', 0, []);
        return (
          <>
            <h1>{detail.typeName}</h1>
            <p>{detail.description}</p>
            <dl class="facts">
              <dt>Version shown</dt>
              <dd>
                {detail.version}
                {detail.version === detail.defaultVersion ? ' (default)' : ''}
              </dd>
              <dt>Dialect</dt>
              <dd>{detail.dialect}</dd>
              <dt>Primary identifier</dt>
              <dd>{detail.primaryIdentifier.map((p) => p.replace(/^\/properties\//, '')).join(', ')}</dd>
              {(detail.additionalIdentifiers ?? []).length > 0 && (
                <>
                  <dt>Other identifiers</dt>
                  <dd>
                    {detail
                      .additionalIdentifiers!.map((ids) =>
                        ids.map((p) => p.replace(/^\/properties\//, '')).join(' + '),
                      )
                      .join('; ')}
                  </dd>
                </>
              )}
              <dt>Registered</dt>
              <dd>{when(detail.registeredAt)}</dd>
            </dl>
            <p>
              <a href={href(['resources', detail.typeName])}>Resources of this type</a>
            </p>
            <h2>Properties</h2>
            <Table
              caption={`Properties of ${detail.typeName}`}
              columns={['Property', 'Type', 'Required', 'Marks', 'Constraints', 'Description']}
            >
              {list.map((row) => (
                <tr key={row.pointer} data-property={row.name}>
                  <th scope="row">
                    <code>{row.name}</code>
                  </th>
                  <td>{typeOf(row.schema)}</td>
                  <td>{row.required ? 'required' : ''}</td>
                  <td>
                    <Marks pointer={row.pointer} detail={detail} />
                  </td>
                  <td>
                    <ul class="constraints">
                      {CONSTRAINTS.filter((c) => row.schema[c] !== undefined).map((c) => (
                        <li key={c}>
                          {c}: <code>{JSON.stringify(row.schema[c])}</code>
                        </li>
                      ))}
                      {row.schema.relationshipRef && (
                        <li>
                          refers to{' '}
                          <a href={href(['types', row.schema.relationshipRef.typeName])}>
                            {row.schema.relationshipRef.typeName}
                          </a>{' '}
                          <code>{row.schema.relationshipRef.propertyPath}</code>
                        </li>
                      )}
                    </ul>
                  </td>
                  <td>{typeof row.schema.description === 'string' ? row.schema.description : ''}</td>
                </tr>
              ))}
            </Table>
            <Versions detail={detail} />
            <Downloads typeName={detail.typeName} />
          </>
        );
      }}
    </Show>
  );
}

function Versions({ detail }: { detail: TypeDetail }) {
  const numbers = detail.versions.map((v) => Number(v.version));
  return (
    <>
      <h2>Versions</h2>
      <Table caption={`Versions of ${detail.typeName}`} columns={['Version', 'Registered', 'Resources']}>
        {detail.versions.map((v) => (
          <tr key={v.version}>
            <td>
              <a href={href(['types', detail.typeName], { version: String(v.version) })}>
                Version {v.version}
              </a>
              {v.isDefault ? ' (default)' : ''}
            </td>
            <td>{when(v.registeredAt)}</td>
            <td>{v.resourceCount}</td>
          </tr>
        ))}
      </Table>
      {numbers.length > 1 && <Diff typeName={detail.typeName} versions={numbers} />}
    </>
  );
}

interface Change {
  rule: string;
  verdict: 'breaking' | 'dangerous' | 'safe';
  message: string;
  property?: string;
}

function Diff({ typeName, versions }: { typeName: string; versions: number[] }) {
  const sorted = [...versions].sort((a, b) => a - b);
  const [from, setFrom] = useState(String(sorted[sorted.length - 2]));
  const [to, setTo] = useState(String(sorted[sorted.length - 1]));
  const path = `/v1/types/${seg(typeName)}/diff?from=${from}&to=${to}`;
  const loaded = useLoad(() => get<{ counts: Record<string, number>; changes: Change[] }>(path), path);
  return (
    <section aria-labelledby="diff-title">
      <h3 id="diff-title">Changes between two versions</h3>
      <div class="row">
        <VersionSelect label="From" value={from} versions={sorted} set={setFrom} />
        <VersionSelect label="To" value={to} versions={sorted} set={setTo} />
      </div>
      <Show loaded={loaded}>
        {({ counts, changes }) => (
          <>
            <p>
              {counts.breaking ?? 0} breaking, {counts.dangerous ?? 0} dangerous, {counts.safe ?? 0} safe
            </p>
            <ul class="changes">
              {changes.map((c, i) => (
                <li key={i}>
                  <span class={`verdict ${c.verdict}`}>{c.verdict}</span>{' '}
                  {c.property ? <code>{c.property}</code> : null} {c.message}{' '}
                  <span class="muted">({c.rule})</span>
                </li>
              ))}
            </ul>
          </>
        )}
      </Show>
    </section>
  );
}

function VersionSelect(props: {
  label: string;
  value: string;
  versions: number[];
  set: (v: string) => void;
}) {
  return (
    <label>
      {props.label}{' '}
      <select value={props.value} onChange={(e) => props.set((e.currentTarget as HTMLSelectElement).value)}>
        {props.versions.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
    </label>
  );
}

function Downloads({ typeName }: { typeName: string }) {
  const [error, setError] = useState<Error>();
  const fileName = typeName.replace(/[^A-Za-z0-9.-]+/g, '.');
  const run = (job: () => Promise<void>) => () => {
    setError(undefined);
    job().catch(setError);
  };
  const jsonSchema = async () => {
    const { schemas } = await get<{ schemas: { name: string; url: string }[] }>('/v1/artifacts/json-schema');
    const mine = schemas.find((s) => s.name.toLowerCase() === `${fileName.toLowerCase()}.json`);
    if (!mine) throw new Error(`the server lists no JSON Schema for ${typeName}`);
    await download(mine.url, mine.name);
  };
  const bicep = async () => {
    const { extensions } = await get<{ extensions: { namespace: string; index: string }[] }>(
      '/v1/artifacts/bicep',
    );
    // The server's Bicep namespace of a type: a manifest's before its '/', else Org.Service.
    const namespace = typeName.includes('/')
      ? typeName.slice(0, typeName.indexOf('/'))
      : typeName.split('::').slice(0, 2).join('.');
    const mine = extensions.find((e) => e.namespace.toLowerCase() === namespace.toLowerCase());
    if (!mine) throw new Error(`the server lists no Bicep extension for ${typeName}`);
    await download(mine.index.replace(/index\.json$/, 'types.json'), `${mine.namespace}.types.json`);
  };
  return (
    <section aria-labelledby="downloads-title">
      <h2 id="downloads-title">Generated files</h2>
      <div class="row">
        <button type="button" onClick={run(jsonSchema)}>
          Download JSON Schema
        </button>
        <button type="button" onClick={run(bicep)}>
          Download Bicep types
        </button>
        <button type="button" onClick={run(() => download('/v1/openapi.json', 'openapi.json'))}>
          Download OpenAPI
        </button>
      </div>
      {error && <ErrorBox error={error} />}
    </section>
  );
}
