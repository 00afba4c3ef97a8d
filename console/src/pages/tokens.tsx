/**
 * Tokens (admins): the list (ids, roles, scopes; never a secret: the server keeps hashes only),
 * creating one (its secret shown once, in this page only, until it is dismissed) and revoking one.
 */
import { useState } from 'preact/hooks';
import { get, seg, send } from '../api';
import { ErrorBox, Show, Table, useLoad, when } from '../components/common';

interface TokenRecord {
  id: string;
  role: string;
  types?: string[];
  description?: string;
  createdAt?: string;
}

export function TokensPage() {
  const loaded = useLoad(() => get<{ tokens: TokenRecord[] }>('/v1/tokens'), 'tokens');
  const [created, setCreated] = useState<{ id: string; token: string }>();
  const [error, setError] = useState<Error>();
  const create = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const value = (name: string) => (form.elements.namedItem(name) as HTMLInputElement).value.trim();
    const types = value('types')
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== '');
    setError(undefined);
    send<{ id: string; token: string }>('POST', '/v1/tokens', {
      role: value('role'),
      ...(types.length > 0 ? { types } : {}),
      ...(value('description') !== '' ? { description: value('description') } : {}),
    }).then((answer) => {
      setCreated({ id: answer!.id, token: answer!.token });
      form.reset();
      loaded.reload();
    }, setError);
  };
  const revoke = (id: string) => {
    if (!confirm(`Revoke token ${id}? Whoever uses it is refused from now on.`)) return;
    send('DELETE', `/v1/tokens/${seg(id)}`).then(() => loaded.reload(), setError);
  };
  return (
    <>
      <h1>Tokens</h1>
      {created && (
        <section class="once" role="status" aria-labelledby="created-title">
          <h2 id="created-title">Token {created.id} created</h2>
          <p>Copy it now: it is shown this once, and the server keeps only its hash.</p>
          <label for="created-token">New token</label>
          <input
            id="created-token"
            readOnly
            value={created.token}
            onFocus={(e) => (e.currentTarget as HTMLInputElement).select()}
          />
          <button type="button" onClick={() => setCreated(undefined)}>
            Done, hide it
          </button>
        </section>
      )}
      <form class="create-token" onSubmit={create} aria-labelledby="create-title">
        <h2 id="create-title">Create a token</h2>
        <label for="role">Role</label>
        <select id="role" name="role">
          <option value="reader">reader</option>
          <option value="writer">writer</option>
          <option value="monitor">monitor</option>
          <option value="admin">admin</option>
        </select>
        <label for="types">Types (globs, comma-separated; empty: all)</label>
        <input id="types" name="types" placeholder="Typeplane.Data/*" />
        <label for="description">Description</label>
        <input id="description" name="description" />
        <button type="submit">Create token</button>
      </form>
      {error && <ErrorBox error={error} />}
      <h2>Tokens</h2>
      <Show loaded={loaded}>
        {({ tokens }) => (
          <Table
            caption="Tokens"
            columns={['Id', 'Role', 'Types', 'Description', 'Created', 'Revoke']}
            testid="tokens"
          >
            {tokens.map((t) => (
              <tr key={t.id} data-token={t.id}>
                <td>
                  <code>{t.id}</code>
                </td>
                <td>{t.role}</td>
                <td>{t.types ? t.types.join(', ') : 'all'}</td>
                <td>{t.description ?? ''}</td>
                <td>{when(t.createdAt)}</td>
                <td>
                  <button type="button" onClick={() => revoke(t.id)} aria-label={`Revoke token ${t.id}`}>
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Show>
    </>
  );
}
