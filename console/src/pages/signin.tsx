/** Sign in with a token: checked against the API (GET /v1/types), then kept for this tab only. */
import { useState } from 'preact/hooks';
import { get, ApiError } from '../api';
import { keepToken } from '../session';

export function SignIn({ signedIn }: { signedIn: () => void }) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const input = form.elements.namedItem('token') as HTMLInputElement;
    const token = input.value.trim();
    if (token === '') {
      setError(
        'Enter a token: `typeplane serve` prints an admin token on first start; `typeplane token create` makes more.',
      );
      return;
    }
    setBusy(true);
    try {
      await get('/v1/types', token);
      keepToken(token);
      input.value = '';
      signedIn();
    } catch (e) {
      setError(
        e instanceof ApiError && e.status === 401
          ? 'The server does not know this token (unknown or revoked).'
          : (e as Error).message,
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="signin">
      <h1>Typeplane console</h1>
      <form onSubmit={submit} aria-describedby="signin-help">
        <label for="token">API token</label>
        <input id="token" name="token" type="password" autocomplete="off" spellcheck={false} required />
        <p id="signin-help" class="muted">
          The token stays in this tab (session storage) and is sent only in the Authorization header.
        </p>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
