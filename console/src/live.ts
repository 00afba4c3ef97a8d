/**
 * List, then watch from the list's version (docs/watch.md): nothing between the two is missed. A
 * watch whose version expired (410) lists again; any other failure is the page's error.
 */
import { useEffect, useState } from 'preact/hooks';
import { get, type ApiError } from './api';
import { watch, type WatchEvent } from './watch';

export interface LiveList<P, E> {
  /** The list route with its query. */
  list: string;
  /** The route to watch, or undefined to show the page as listed (a later page, say). */
  watch: string | undefined;
  loaded(page: P): void;
  event(event: WatchEvent<E>): void;
}

/** Runs `spec` again whenever `key` changes; says whether the watch is connected, and any error. */
export function useLiveList<P extends { resourceVersion?: string }, E>(spec: LiveList<P, E>, key: string) {
  const [error, setError] = useState<Error>();
  const [live, setLive] = useState(false);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let stop: (() => void) | undefined;
    let current = true;
    setError(undefined);
    get<P>(spec.list).then(
      (page) => {
        if (!current) return;
        spec.loaded(page);
        if (spec.watch === undefined) return;
        stop = watch<E>(spec.watch, page.resourceVersion, {
          event(event) {
            if (event.type !== 'BOOKMARK') spec.event(event);
          },
          failed(e) {
            if ((e as ApiError).status === 410) setRound((r) => r + 1);
            else setError(e);
          },
          live: setLive,
        });
      },
      (e: Error) => current && setError(e),
    );
    return () => {
      current = false;
      stop?.();
    };
    // The spec is made anew on each render; `key` says when it asks for something else.
  }, [key, round]);
  return { error, live };
}
