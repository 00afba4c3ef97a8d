/**
 * @module The names a manifest gives: its namespace, type names, API versions, capabilities and
 * property names, and the name every resource of a manifest type carries.
 */

/**
 * `Company.Area`, as Radius requires: exactly two PascalCase segments of letters and digits, each at
 * least two characters long. Typeplane also bounds the length.
 */
export const NAMESPACE_PATTERN = /^[A-Z][A-Za-z0-9]+\.[A-Z][A-Za-z0-9]+$/;
export const MAX_NAMESPACE_LENGTH = 128;

/** camelCase, as Radius requires (two characters or more): `postgreSqlDatabases`. Typeplane bounds it to 63. */
export const TYPE_NAME_PATTERN = /^[a-z][A-Za-z0-9]{1,62}$/;

/** `YYYY-MM-DD`, optionally `-preview`; the date must exist. */
const API_VERSION_PATTERN = /^(\d{4})-(\d{2})-(\d{2})(-preview)?$/;

/** PascalCase, as Radius requires: `SupportsRecipes`. */
export const CAPABILITY_PATTERN = /^[A-Z][A-Za-z0-9]{1,63}$/;

/**
 * Property names: letters, digits, `_` and `-`, starting with a letter or `_`. They become segments
 * of property pointers (`/properties/status/binding`), where `*` means "every item", so names with
 * punctuation or wildcards would be ambiguous.
 */
export const PROPERTY_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

/** The name of a resource of any manifest type: its identifier. */
export const RESOURCE_NAME_PATTERN = '^[A-Za-z][A-Za-z0-9-]{0,62}$';

/** Why `version` is not a valid API version, or `undefined` when it is. */
export function apiVersionProblem(version: string): string | undefined {
  const match = API_VERSION_PATTERN.exec(version);
  if (!match)
    return "it must be a date in YYYY-MM-DD form, optionally followed by '-preview', like '2025-08-01-preview'";
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12) return `month ${match[2]} does not exist`;
  if (day < 1 || day > daysInMonth(year, month)) return `${match[1]}-${match[2]} has no day ${match[3]}`;
  return undefined;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
