/** Pieces every page uses: loading an API answer, showing an error, a status, a value. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api';

export interface Loaded<T> {
  data?: T;
  error?: Error;
  reload: () => void;
}

/** Runs `load` when `key` changes (and on reload()); the latest answer wins. */
export function useLoad<T>(load: () => Promise<T>, key: string): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error }>({});
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setState({});
    load().then(
      (data) => current && setState({ data }),
      (error: Error) => current && setState({ error }),
    );
    return () => {
      current = false;
    };
  }, [key, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { ...state, reload };
}

export function ErrorBox({ error }: { error: Error }) {
  return (
    <p class="error" role="alert">
      {error instanceof ApiError ? `${error.code} (${error.status}): ` : ''}
      {error.message}
    </p>
  );
}

export function Loading() {
  return (
    <p class="muted" aria-live="polite">
      Loading…
    </p>
  );
}

/** Renders `loaded`'s data with `children`, or its error, or that it loads. */
export function Show<T>({
  loaded,
  children,
}: {
  loaded: Loaded<T>;
  children: (data: T) => ComponentChildren;
}) {
  if (loaded.error) return <ErrorBox error={loaded.error} />;
  if (loaded.data === undefined) return <Loading />;
  return <>{children(loaded.data)}</>;
}

/** A status word with its colour class: green when done, red when failed, amber on the way. */
export function statusClass(status: string): string {
  if (
    /FAILED|DRIFTED|MODIFIED|DELETED$|ROLLBACK_COMPLETE|NOT_FOUND/.test(status) &&
    !/^DELETE_COMPLETE$/.test(status)
  )
    return /ROLLBACK_COMPLETE|DRIFTED|MODIFIED|DELETED$/.test(status) && !/FAILED/.test(status)
      ? 'warn'
      : 'bad';
  if (/IN_PROGRESS|PENDING/.test(status)) return 'busy';
  if (/COMPLETE|SUCCESS|IN_SYNC/.test(status)) return 'good';
  return 'plain';
}

export function Status({ value }: { value: string }) {
  return <span class={`status ${statusClass(value)}`}>{value}</span>;
}

/** A value as JSON, or as a word when it is a string. */
export function Value({ value }: { value: unknown }) {
  if (typeof value === 'string') return <code>{value}</code>;
  return <pre class="json">{JSON.stringify(value, null, 2)}</pre>;
}

export function when(time: string | undefined): string {
  return time ? new Date(time).toLocaleString() : '';
}

/** A table with a caption (hidden unless `showCaption`: the page's heading says it) and column headers. */
export function Table({
  caption,
  columns,
  showCaption = false,
  testid,
  children,
}: {
  caption: ComponentChildren;
  columns: string[];
  showCaption?: boolean;
  testid?: string;
  children: ComponentChildren;
}) {
  return (
    <table data-testid={testid}>
      <caption class={showCaption ? undefined : 'visually-hidden'}>{caption}</caption>
      <thead>
        <tr>
          {columns.map((c) => (
            <th scope="col" key={c}>
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}
