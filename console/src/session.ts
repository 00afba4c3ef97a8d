/**
 * The signed-in token: in sessionStorage (this tab only, gone when it closes), never in a URL or a
 * cookie, and sent only as an Authorization header by api.ts.
 */
const KEY = 'typeplane.token';

export function storedToken(): string | undefined {
  return sessionStorage.getItem(KEY) ?? undefined;
}

export function keepToken(token: string): void {
  sessionStorage.setItem(KEY, token);
}

export function forgetToken(): void {
  sessionStorage.removeItem(KEY);
}
