/**
 * Operations: the latest page of operations the token may see, kept live by a watch; each one's
 * progress events as the watch delivered them (status, message, when), newest operation first.
 */
import { useState } from 'preact/hooks';
import { href } from '../router';
import { useLiveList } from '../live';
import { ErrorBox, Loading, Status, Table, when } from '../components/common';

export interface ProgressEvent {
  typeName: string;
  identifier?: string;
  requestToken: string;
  operation: string;
  operationStatus: string;
  eventTime: string;
  statusMessage?: string;
  errorCode?: string;
}

interface Tracked {
  latest: ProgressEvent;
  /** Each distinct status this page saw, in order. */
  progress: ProgressEvent[];
}

export function OperationRows({
  events,
  progress,
}: {
  events: ProgressEvent[];
  progress?: Map<string, ProgressEvent[]>;
}) {
  return (
    <Table
      caption="Operations"
      columns={['When', 'Operation', 'Type', 'Identifier', 'Status', 'Message']}
      testid="operations"
    >
      {events.map((e) => (
        <tr key={e.requestToken} data-request={e.requestToken}>
          <td>{when(e.eventTime)}</td>
          <td>{e.operation}</td>
          <td>{e.typeName}</td>
          <td>
            {e.identifier ? <a href={href(['resources', e.typeName, e.identifier])}>{e.identifier}</a> : ''}
          </td>
          <td>
            <Status value={e.operationStatus} />
            {(progress?.get(e.requestToken)?.length ?? 0) > 1 && (
              <ol class="progress" aria-label="Progress events">
                {progress!.get(e.requestToken)!.map((p, i) => (
                  <li key={i}>
                    {p.operationStatus} <span class="muted">{when(p.eventTime)}</span>
                  </li>
                ))}
              </ol>
            )}
          </td>
          <td>
            {e.errorCode ? `${e.errorCode}: ` : ''}
            {e.statusMessage ?? ''}
          </td>
        </tr>
      ))}
    </Table>
  );
}

export function OperationsPage() {
  const [tracked, setTracked] = useState<Map<string, Tracked>>();
  const { error, live } = useLiveList<
    { progressEvents: ProgressEvent[]; resourceVersion?: string },
    ProgressEvent
  >(
    {
      list: '/v1/requests?maxResults=50',
      watch: '/v1/requests',
      loaded(page) {
        setTracked(new Map(page.progressEvents.map((e) => [e.requestToken, { latest: e, progress: [e] }])));
      },
      event({ object: e }) {
        setTracked((old) => {
          const copy = new Map(old);
          const seen = copy.get(e.requestToken);
          const progress = seen ? [...seen.progress] : [];
          if (progress[progress.length - 1]?.operationStatus !== e.operationStatus) progress.push(e);
          copy.set(e.requestToken, { latest: e, progress: progress.slice(-20) });
          return copy;
        });
      },
    },
    'operations',
  );
  const events = tracked
    ? [...tracked.values()]
        .map((t) => t.latest)
        .sort((a, b) => (a.eventTime < b.eventTime ? 1 : -1))
        .slice(0, 100)
    : [];
  const progress = new Map([...(tracked?.values() ?? [])].map((t) => [t.latest.requestToken, t.progress]));
  return (
    <>
      <h1>Operations</h1>
      <p>
        <span class={`live ${live ? 'on' : 'off'}`} aria-live="polite">
          {live ? 'live' : 'not live'}
        </span>
      </p>
      {error && <ErrorBox error={error} />}
      {!tracked && !error && <Loading />}
      {tracked &&
        (events.length === 0 ? (
          <p>No operation yet.</p>
        ) : (
          <OperationRows events={events} progress={progress} />
        ))}
    </>
  );
}
