/**
 * @module Which endpoints a custom resource may call: the server's allow-list of URL prefixes
 * (`customResources.serviceTokens` in its configuration). A ServiceToken is called only when it is an
 * http(s) URL under one of them — same scheme, host and port, and a path that starts at a segment
 * boundary of the prefix's — so a template cannot point the server at any other address (SSRF).
 */

/** Why `serviceToken` may not be called, or undefined when an allowed prefix covers it. */
export function serviceTokenProblem(serviceToken: string, allowed: readonly string[]): string | undefined {
  const how =
    "an admin allows a handler's URL prefix in the server's configuration (customResources: { serviceTokens: ['https://handlers.example.com/'] })";
  if (allowed.length === 0)
    return `custom resources are off on this server: no ServiceToken is allowed; ${how}`;
  const url = parsed(serviceToken);
  if (!url)
    return `ServiceToken '${serviceToken.slice(0, 200)}' is not an http(s) URL without credentials: Typeplane calls custom resource handlers over HTTP(S) only (a Lambda or SNS ARN cannot be called here)`;
  if (!allowed.some((prefix) => covers(prefix, url)))
    return `ServiceToken ${url.origin}${url.pathname} is not under a URL prefix this server allows; ${how}`;
  return undefined;
}

/** Problems with the configured prefixes themselves (each must be an http(s) URL without credentials). */
export function serviceTokenPrefixProblems(allowed: unknown): string[] {
  if (!Array.isArray(allowed)) return ['must be a list of http(s) URL prefixes'];
  return allowed.flatMap((prefix, i) =>
    typeof prefix === 'string' && parsed(prefix) && !parsed(prefix)!.search && !parsed(prefix)!.hash
      ? []
      : [
          `[${i}] must be an http(s) URL prefix without credentials, query or fragment (like https://handlers.example.com/)`,
        ],
  );
}

function parsed(text: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username !== '' || url.password !== '') return undefined;
  return url;
}

function covers(prefix: string, url: URL): boolean {
  const base = parsed(prefix);
  if (!base || base.origin !== url.origin) return false;
  const path = base.pathname;
  if (url.pathname === path || path.endsWith('/')) return url.pathname.startsWith(path);
  return url.pathname.startsWith(`${path}/`);
}
