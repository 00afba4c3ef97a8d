/**
 * Routes in the URL's fragment (#/types/Name): the server serves one page at /console, and no
 * fragment ever reaches it. Never a token: only names of what is shown.
 */
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  /** The path's segments, decoded: ['types', 'Test::Shop::Widget']. */
  parts: string[];
  query: URLSearchParams;
}

function current(): Route {
  const hash = location.hash.replace(/^#\/?/, '');
  const [path = '', query = ''] = hash.split('?');
  return {
    parts: path
      .split('/')
      .filter((p) => p !== '')
      .map(decodeURIComponent),
    query: new URLSearchParams(query),
  };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const changed = () => setRoute(current());
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}

/** The fragment link for a route: href(['types', name], {version: '2'}). */
export function href(parts: string[], query?: Record<string, string | undefined>): string {
  const q = new URLSearchParams(
    Object.entries(query ?? {}).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''),
  ).toString();
  return `#/${parts.map(encodeURIComponent).join('/')}${q ? `?${q}` : ''}`;
}
