/**
 * Calls to the /v1 API with the signed-in token: a page shows exactly what its token may see.
 */
import { forgetToken, storedToken } from './session';

/** An error answer of the API: its contract code and message, as the server wrote them. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Told when the server refuses the token (revoked, unknown): the console signs out. */
let onSignedOut: () => void = () => {};
export function whenSignedOut(callback: () => void): void {
  onSignedOut = callback;
}

/** The token was refused (or a watch ended for it): forget it and show the sign-in form. */
export function signOut(): void {
  forgetToken();
  onSignedOut();
}

export function authorization(token = storedToken()): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

async function failure(answer: Response): Promise<ApiError> {
  let code = 'Error';
  let message = `${answer.status} ${answer.statusText}`;
  try {
    const body = (await answer.json()) as { errorCode?: string; message?: string };
    code = body.errorCode ?? code;
    message = body.message ?? message;
  } catch {
    /* not JSON: the status says it */
  }
  if (answer.status === 401) signOut();
  return new ApiError(answer.status, code, message);
}

export async function request(
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json', ...authorization(token) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const answer = await fetch(path, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    credentials: 'omit',
    cache: 'no-store',
  });
  if (!answer.ok) throw await failure(answer);
  return answer;
}

export async function get<T>(path: string, token?: string): Promise<T> {
  return (await (await request('GET', path, undefined, token)).json()) as T;
}

export async function send<T>(method: string, path: string, body?: unknown): Promise<T | undefined> {
  const answer = await request(method, path, body);
  return answer.status === 204 ? undefined : ((await answer.json()) as T);
}

/** A path segment: type names hold '::' or '/', identifiers anything. */
export function seg(value: string): string {
  return encodeURIComponent(value);
}

/** Fetches `path` with the token and hands it to the browser as a file named `name`. */
export async function download(path: string, name: string): Promise<void> {
  const blob = await (await request('GET', path)).blob();
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
