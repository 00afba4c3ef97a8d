/**
 * Resources: a table per type with filters (top-level properties, as the list route takes them) and
 * paging, kept current by a watch from the list's version; a resource's page with its model (as a
 * read answers it: write-only values never) and the history of its operations.
 */
import { useState } from 'preact/hooks';
import { get, seg } from '../api';
import { href } from '../router';
import { useLiveList } from '../live';
import { ErrorBox, Loading, Show, Table, Value, useLoad } from '../components/common';
import { OperationRows, type ProgressEvent } from './operations';

interface ResourceItem {
  identifier: string;
  properties: Record<string, unknown>;
}

interface Page {
  resourceDescriptions: ResourceItem[];
  nextToken?: string;
  resourceVersion?: string;
}

const PAGE_SIZE = 20;

export function ResourcesIndex() {
  const loaded = useLoad(() => get<{ types: { typeName: string }[] }>('/v1/types'), 'types');
  return (
    <>
      <h1>Resources</h1>
      <Show loaded={loaded}>
        {({ types }) => (
          <ul>
            {types.map((t) => (
              <li key={t.typeName}>
                <a href={href(['resources', t.typeName])}>{t.typeName}</a>
              </li>
            ))}
          </ul>
        )}
      </Show>
    </>
  );
}

export function ResourcesPage({ typeName, query }: { typeName: string; query: URLSearchParams }) {
  const filter = query.get('filter') ?? '';
  const pageToken = query.get('page') ?? undefined;
  const [rows, setRows] = useState<Map<string, ResourceItem>>();
  const [next, setNext] = useState<string>();
  const filters = parseFilter(filter);
  const params = new URLSearchParams({ maxResults: String(PAGE_SIZE), ...filters });
  if (pageToken) params.set('nextToken', pageToken);
  const list = `/v1/resources/${seg(typeName)}?${params}`;
  const { error, live } = useLiveList<Page, { identifier: string; properties?: Record<string, unknown> }>(
    {
      list,
      // Live on the first page: a change after the list's version arrives as an event (a filtered
      // view keeps what matches its filters).
      watch: pageToken ? undefined : `/v1/resources/${seg(typeName)}`,
      loaded(page) {
        setRows(new Map(page.resourceDescriptions.map((r) => [r.identifier, r])));
        setNext(page.nextToken);
      },
      event(event) {
        const { identifier, properties } = event.object;
        setRows((old) => {
          const copy = new Map(old);
          if (event.type === 'DELETED' || !matches(properties ?? {}, filters)) copy.delete(identifier);
          else copy.set(identifier, { identifier, properties: properties ?? {} });
          return copy;
        });
      },
    },
    list,
  );
  const applyFilter = (event: Event) => {
    event.preventDefault();
    const value = ((event.currentTarget as HTMLFormElement).elements.namedItem('filter') as HTMLInputElement)
      .value;
    location.hash = href(['resources', typeName], { filter: value });
  };
  const columns = rows ? columnsOf([...rows.values()]) : [];
  return (
    <>
      <h1>Resources of {typeName}</h1>
      <p>
        <a href={href(['types', typeName])}>Documentation of {typeName}</a>{' '}
        <span class={`live ${live ? 'on' : 'off'}`} aria-live="polite">
          {live ? 'live' : 'not live'}
        </span>
      </p>
      <form class="row" onSubmit={applyFilter} role="search">
        <label for="filter">Filter (property=value, several separated by commas)</label>
        <input id="filter" name="filter" defaultValue={filter} placeholder="Size=M" />
        <button type="submit">Filter</button>
      </form>
      {error && <ErrorBox error={error} />}
      {!rows && !error && <Loading />}
      {rows && (
        <Table caption={`Resources of ${typeName}`} columns={['Identifier', ...columns]} testid="resources">
          {[...rows.values()].map((r) => (
            <tr key={r.identifier} data-identifier={r.identifier}>
              <td>
                <a href={href(['resources', typeName, r.identifier])}>{r.identifier}</a>
              </td>
              {columns.map((c) => (
                <td key={c}>{short(r.properties[c])}</td>
              ))}
            </tr>
          ))}
        </Table>
      )}
      <nav class="row" aria-label="Pages">
        {pageToken && <a href={href(['resources', typeName], { filter })}>First page</a>}
        {next && <a href={href(['resources', typeName], { filter, page: next })}>Next page</a>}
      </nav>
    </>
  );
}

function parseFilter(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(',')) {
    const at = part.indexOf('=');
    if (at > 0) out[part.slice(0, at).trim()] = part.slice(at + 1).trim();
  }
  return out;
}

function matches(properties: Record<string, unknown>, filters: Record<string, string>): boolean {
  return Object.entries(filters).every(([k, v]) => String(properties[k]) === v);
}

function columnsOf(items: ResourceItem[]): string[] {
  const names = new Set<string>();
  for (const item of items) for (const k of Object.keys(item.properties)) names.add(k);
  return [...names].slice(0, 6);
}

function short(value: unknown): string {
  if (value === undefined) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

export function ResourcePage({ typeName, identifier }: { typeName: string; identifier: string }) {
  const path = `/v1/resources/${seg(typeName)}/${seg(identifier)}`;
  const model = useLoad(() => get<{ properties: Record<string, unknown> }>(path), path);
  return (
    <>
      <h1>
        {typeName} <code>{identifier}</code>
      </h1>
      <p>
        <a href={href(['resources', typeName])}>All resources of {typeName}</a>
      </p>
      <h2>Model</h2>
      <Show loaded={model}>
        {({ properties }) => (
          <dl class="facts">
            {Object.entries(properties).map(([k, v]) => (
              <>
                <dt key={`k-${k}`}>{k}</dt>
                <dd key={`v-${k}`}>
                  <Value value={v} />
                </dd>
              </>
            ))}
          </dl>
        )}
      </Show>
      <h2>Operations</h2>
      <History key={`${typeName}/${identifier}`} typeName={typeName} identifier={identifier} />
    </>
  );
}

interface HistoryPage {
  progressEvents: ProgressEvent[];
  nextToken?: string | null;
}

/** A resource's operations, newest first, 50 at a time: older ones on asking. */
function History({ typeName, identifier }: { typeName: string; identifier: string }) {
  const first = `/v1/requests?typeName=${seg(typeName)}&identifier=${seg(identifier)}&maxResults=50`;
  const history = useLoad(() => get<HistoryPage>(first), first);
  const [older, setOlder] = useState<HistoryPage[]>([]);
  const [error, setError] = useState<Error>();
  const next = older.length > 0 ? older[older.length - 1]!.nextToken : history.data?.nextToken;
  const more = () =>
    get<HistoryPage>(`${first}&nextToken=${encodeURIComponent(next!)}`).then(
      (p) => setOlder((o) => [...o, p]),
      setError,
    );
  return (
    <Show loaded={history}>
      {({ progressEvents }) => {
        const events = [...progressEvents, ...older.flatMap((p) => p.progressEvents)];
        return (
          <>
            {events.length === 0 ? (
              <p>No operation on record (they expire 7 days after they end).</p>
            ) : (
              <OperationRows events={events} />
            )}
            {next && (
              <button type="button" onClick={more}>
                Older operations
              </button>
            )}
            {error && <ErrorBox error={error} />}
          </>
        );
      }}
    </Show>
  );
}
