/**
 * Stacks: the list, and a stack's page — its dependency graph coloured by status (refreshed every
 * second while a deployment runs), its events as a timeline, its outputs (NoEcho ones as the API
 * masks them, `****`), a plan's changes as before → after, and drift as expected → actual.
 */
import { useEffect, useState } from 'preact/hooks';
import { get, seg, send } from '../api';
import { watch } from '../watch';
import { href } from '../router';
import { ErrorBox, Loading, Show, Status, Table, Value, useLoad, when } from '../components/common';
import { Graph } from '../components/graph';

interface StackSummary {
  stackName: string;
  status: string;
  updatedAt?: string;
  description?: string;
}

interface StackView extends StackSummary {
  statusReason?: string;
  parameters: Record<string, unknown>;
  outputs: { name: string; value: unknown; description?: string; exportName?: string }[];
  resources: { logicalId: string; type: string; identifier?: string; status: string; dependsOn?: string[] }[];
}

interface StackEvent {
  eventId: string;
  time: string;
  logicalId: string;
  type: string;
  identifier?: string;
  status: string;
  reason?: string;
}

const STACKS_PAGE = 50;

export function StacksPage({ query }: { query: URLSearchParams }) {
  const pageToken = query.get('page') ?? undefined;
  const path = `/v1/stacks?maxResults=${STACKS_PAGE}${pageToken ? `&nextToken=${encodeURIComponent(pageToken)}` : ''}`;
  const loaded = useLoad(() => get<{ stacks: StackSummary[]; nextToken?: string | null }>(path), path);
  return (
    <>
      <h1>Stacks</h1>
      <Show loaded={loaded}>
        {({ stacks }) =>
          stacks.length === 0 && !pageToken ? (
            <p>No stack this token may see.</p>
          ) : (
            <Table caption="Stacks" columns={['Stack', 'Status', 'Updated']}>
              {stacks.map((s) => (
                <tr key={s.stackName}>
                  <td>
                    <a href={href(['stacks', s.stackName])}>{s.stackName}</a>
                  </td>
                  <td>
                    <Status value={s.status} />
                  </td>
                  <td>{when(s.updatedAt)}</td>
                </tr>
              ))}
            </Table>
          )
        }
      </Show>
      <Show loaded={loaded}>
        {({ nextToken }) => (
          <nav class="row" aria-label="Pages">
            {pageToken && <a href={href(['stacks'])}>First page</a>}
            {nextToken && <a href={href(['stacks'], { page: nextToken })}>Next page</a>}
          </nav>
        )}
      </Show>
    </>
  );
}

const byTime = (a: StackEvent, b: StackEvent) =>
  a.time < b.time ? 1 : a.time > b.time ? -1 : a.eventId < b.eventId ? 1 : -1;

/**
 * The stack and its events, live: the stack's events are watched, and the stack read again as they
 * come (its graph's colours change with them). Where the server cannot watch a stack's events, both
 * are read every second while a deployment runs, every 5 s otherwise.
 */
function useStack(name: string) {
  const [stack, setStack] = useState<StackView>();
  const [events, setEvents] = useState<Map<string, StackEvent>>(new Map());
  const [error, setError] = useState<Error>();
  const [live, setLive] = useState(false);
  useEffect(() => {
    let current = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let again: ReturnType<typeof setTimeout> | undefined;
    let last: string | undefined;
    const path = `/v1/stacks/${seg(name)}`;
    setEvents(new Map());
    const readView = async (): Promise<StackView | undefined> => {
      try {
        const view = await get<StackView>(path);
        if (current) {
          setStack(view);
          setError(undefined);
        }
        return view;
      } catch (e) {
        if (current) setError(e as Error);
        return undefined;
      }
    };
    const add = (list: StackEvent[]) => {
      if (list.length === 0) return;
      last = list[list.length - 1]!.eventId;
      setEvents((old) => {
        const copy = new Map(old);
        for (const e of list) copy.set(e.eventId, e);
        // The latest 500 are enough to read; the API keeps them all.
        return copy.size > 500
          ? new Map(
              [...copy.values()]
                .sort(byTime)
                .slice(0, 500)
                .map((e) => [e.eventId, e]),
            )
          : copy;
      });
    };
    const poll = async () => {
      const view = await readView();
      try {
        const page = await get<{ events: StackEvent[] }>(
          `${path}/events?maxResults=100${last ? `&after=${encodeURIComponent(last)}` : ''}`,
        );
        if (current) add(page.events);
      } catch (e) {
        if (current) setError(e as Error);
      }
      if (current && view) timer = setTimeout(poll, /IN_PROGRESS/.test(view.status) ? 1000 : 5000);
    };
    void readView();
    const stop = watch<StackEvent>(`${path}/events`, undefined, {
      event(event) {
        if (event.type !== 'ADDED') return;
        add([event.object]);
        // Several events come at once: the stack is read once for them.
        again ??= setTimeout(() => {
          again = undefined;
          void readView();
        }, 200);
      },
      failed(e) {
        if ((e as { status?: number }).status === 501) void poll();
        else setError(e);
      },
      live: setLive,
    });
    return () => {
      current = false;
      stop();
      clearTimeout(timer);
      clearTimeout(again);
    };
  }, [name]);
  return { stack, events: [...events.values()].sort(byTime), error, live };
}

export function StackPage({ name }: { name: string }) {
  const { stack, events, error, live } = useStack(name);
  if (error) return <ErrorBox error={error} />;
  if (!stack) return <Loading />;
  const nodes = stack.resources.map((r) => ({
    id: r.logicalId,
    label: r.logicalId,
    status: r.status,
    dependsOn: r.dependsOn ?? [],
  }));
  return (
    <>
      <h1>Stack {stack.stackName}</h1>
      <p>
        <Status value={stack.status} /> {stack.statusReason ?? ''}{' '}
        <span class={`live ${live ? 'on' : 'off'}`} aria-live="polite">
          {live ? 'live' : 'refreshed every few seconds'}
        </span>
      </p>
      {stack.description && <p>{stack.description}</p>}
      <h2>Resources</h2>
      {nodes.length === 0 ? (
        <p>No resource yet.</p>
      ) : (
        <>
          <div class="graph-frame">
            <Graph nodes={nodes} title={`Dependency graph of stack ${stack.stackName}`} />
          </div>
          <Table
            caption={`Resources of stack ${stack.stackName}`}
            columns={['Resource', 'Type', 'Identifier', 'Status', 'Depends on']}
          >
            {stack.resources.map((r) => (
              <tr key={r.logicalId}>
                <td>{r.logicalId}</td>
                <td>{r.type}</td>
                <td>
                  {r.identifier ? <a href={href(['resources', r.type, r.identifier])}>{r.identifier}</a> : ''}
                </td>
                <td>
                  <Status value={r.status} />
                </td>
                <td>{(r.dependsOn ?? []).join(', ')}</td>
              </tr>
            ))}
          </Table>
        </>
      )}
      <h2>Outputs</h2>
      {stack.outputs.length === 0 ? (
        <p>No output.</p>
      ) : (
        <dl class="facts" data-testid="outputs">
          {stack.outputs.map((o) => (
            <>
              <dt key={`n-${o.name}`}>
                {o.name}
                {o.exportName ? ` (exported as ${o.exportName})` : ''}
              </dt>
              <dd key={`v-${o.name}`}>
                <Value value={o.value} />
              </dd>
            </>
          ))}
        </dl>
      )}
      <h2>Events</h2>
      <ol class="timeline" data-testid="events">
        {events.map((e) => (
          <li key={e.eventId}>
            <time dateTime={e.time}>{when(e.time)}</time> <strong>{e.logicalId}</strong>{' '}
            <Status value={e.status} /> {e.reason ?? ''}
          </li>
        ))}
      </ol>
      <Drift name={stack.stackName} />
      <Plan name={stack.stackName} />
    </>
  );
}

interface DriftAnswer {
  status: string;
  resources: {
    logicalId: string;
    status: string;
    differences: { path: string; expected?: unknown; actual?: unknown; kind: string }[];
  }[];
}

function Drift({ name }: { name: string }) {
  const [drift, setDrift] = useState<DriftAnswer>();
  const [error, setError] = useState<Error>();
  const [busy, setBusy] = useState(false);
  const detect = () => {
    setBusy(true);
    setError(undefined);
    get<DriftAnswer>(`/v1/stacks/${seg(name)}/drift`)
      .then(setDrift, setError)
      .finally(() => setBusy(false));
  };
  return (
    <section aria-labelledby="drift-title">
      <h2 id="drift-title">Drift</h2>
      <button type="button" onClick={detect} disabled={busy}>
        Detect drift
      </button>
      {error && <ErrorBox error={error} />}
      {drift && (
        <div data-testid="drift">
          <p>
            Stack: <Status value={drift.status} />
          </p>
          <Table
            caption="Drift by resource"
            columns={['Resource', 'Status', 'Property', 'Expected', 'Actual']}
          >
            {drift.resources.flatMap((r) =>
              (r.differences.length > 0 ? r.differences : [undefined]).map((d, i) => (
                <tr key={`${r.logicalId}-${i}`}>
                  <td>{r.logicalId}</td>
                  <td>
                    <Status value={r.status} />
                  </td>
                  <td>{d ? <code>{d.path}</code> : ''}</td>
                  <td>{d && 'expected' in d ? <Value value={d.expected} /> : ''}</td>
                  <td>{d && 'actual' in d ? <Value value={d.actual} /> : ''}</td>
                </tr>
              )),
            )}
          </Table>
        </div>
      )}
    </section>
  );
}

interface PlanAnswer {
  planId: string;
  changes: {
    logicalId: string;
    type: string;
    action: string;
    patch?: { op: string; path: string; value?: unknown }[];
    before?: Record<string, unknown>;
    properties?: Record<string, unknown>;
    replacement?: { properties: string[] };
  }[];
}

function Plan({ name }: { name: string }) {
  const [plan, setPlan] = useState<PlanAnswer>();
  const [error, setError] = useState<Error>();
  const submit = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const template = (form.elements.namedItem('template') as HTMLTextAreaElement).value;
    const parametersText = (form.elements.namedItem('parameters') as HTMLTextAreaElement).value.trim();
    setError(undefined);
    let parameters: unknown;
    try {
      parameters = parametersText === '' ? {} : JSON.parse(parametersText);
    } catch {
      setError(new Error('Parameters must be a JSON object, such as {"Size": "M"}'));
      return;
    }
    send<PlanAnswer>('POST', `/v1/stacks/${seg(name)}/plans`, { template, parameters }).then(
      (answer) => setPlan(answer),
      setError,
    );
  };
  return (
    <section aria-labelledby="plan-title">
      <h2 id="plan-title">Plan a change</h2>
      <form onSubmit={submit}>
        <label for="plan-template">Template (YAML or JSON)</label>
        <textarea id="plan-template" name="template" rows={8} required spellcheck={false} />
        <label for="plan-parameters">Parameters (JSON object)</label>
        <textarea id="plan-parameters" name="parameters" rows={2} spellcheck={false} />
        <button type="submit">Plan</button>
      </form>
      {error && <ErrorBox error={error} />}
      {plan && (
        <Table
          caption={`Plan ${plan.planId}`}
          columns={['Resource', 'Action', 'Property', 'Before', 'After']}
          testid="plan"
          showCaption
        >
          {plan.changes.flatMap((c) => {
            const patch = c.patch ?? [];
            const lines =
              patch.length > 0
                ? patch.map((p) => ({
                    path: p.path,
                    before: c.before?.[p.path],
                    after: p.op === 'remove' ? undefined : p.value,
                  }))
                : Object.entries(c.properties ?? {}).map(([k, v]) => ({
                    path: `/${k}`,
                    before: undefined,
                    after: v,
                  }));
            return (lines.length > 0 ? lines : [undefined]).map((l, i) => (
              <tr key={`${c.logicalId}-${i}`}>
                <td>{c.logicalId}</td>
                <td>{c.action}</td>
                <td>{l ? <code>{l.path}</code> : ''}</td>
                <td>{l && l.before !== undefined ? <Value value={l.before} /> : ''}</td>
                <td>{l && l.after !== undefined ? <Value value={l.after} /> : ''}</td>
              </tr>
            ));
          })}
        </Table>
      )}
    </section>
  );
}
