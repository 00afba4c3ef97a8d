/**
 * The console's frame: signed out, the sign-in form; signed in, the navigation (Tokens only for a
 * token that may list them) and the page the fragment names.
 */
import { useEffect, useState } from 'preact/hooks';
import { get, whenSignedOut } from './api';
import { forgetToken, storedToken } from './session';
import { href, useRoute, type Route } from './router';
import { SignIn } from './pages/signin';
import { TypePage, TypesPage } from './pages/types';
import { ResourcePage, ResourcesIndex, ResourcesPage } from './pages/resources';
import { OperationsPage } from './pages/operations';
import { StackPage, StacksPage } from './pages/stacks';
import { TokensPage } from './pages/tokens';

function page(route: Route) {
  const [area, first, second] = route.parts;
  switch (area) {
    case 'types':
      return first ? (
        <TypePage typeName={first} version={route.query.get('version') ?? undefined} />
      ) : (
        <TypesPage />
      );
    case 'resources':
      if (first && second) return <ResourcePage typeName={first} identifier={second} />;
      return first ? <ResourcesPage typeName={first} query={route.query} /> : <ResourcesIndex />;
    case 'operations':
      return <OperationsPage />;
    case 'stacks':
      return first ? <StackPage name={first} /> : <StacksPage query={route.query} />;
    case 'tokens':
      return <TokensPage />;
    default:
      return <TypesPage />;
  }
}

export function App() {
  const [signedIn, setSignedIn] = useState(storedToken() !== undefined);
  const [admin, setAdmin] = useState(false);
  const route = useRoute();
  useEffect(() => whenSignedOut(() => setSignedIn(false)), []);
  useEffect(() => {
    if (!signedIn) return;
    // Whether this token may manage tokens: the API answers 403 to any other.
    get('/v1/tokens').then(
      () => setAdmin(true),
      () => setAdmin(false),
    );
  }, [signedIn]);
  // The page's title says where one is (screen readers announce it on navigation).
  useEffect(() => {
    document.title = `${route.parts.join(' / ') || 'types'} — Typeplane console`;
  }, [route]);
  if (!signedIn) return <SignIn signedIn={() => setSignedIn(true)} />;
  const area = route.parts[0] ?? 'types';
  const link = (name: string, label: string) => (
    <li>
      <a href={href([name])} aria-current={area === name ? 'page' : undefined}>
        {label}
      </a>
    </li>
  );
  return (
    <>
      <a
        class="skip"
        href="#main"
        onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}
      >
        Skip to content
      </a>
      <header>
        <span class="brand">Typeplane</span>
        <nav aria-label="Console">
          <ul>
            {link('types', 'Types')}
            {link('resources', 'Resources')}
            {link('operations', 'Operations')}
            {link('stacks', 'Stacks')}
            {admin && link('tokens', 'Tokens')}
          </ul>
        </nav>
        <button
          type="button"
          class="signout"
          onClick={() => {
            forgetToken();
            setSignedIn(false);
          }}
        >
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {page(route)}
      </main>
    </>
  );
}
