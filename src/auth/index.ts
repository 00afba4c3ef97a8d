/**
 * @module Access control: API tokens (stored hashed), roles and type scoping.
 *
 * @example
 * const tokens = new Tokens(store);
 * const { token } = await tokens.create({ role: 'reader', types: ['AWS::S3::*'] });
 * const principal = await tokens.authenticate(token); // { tokenId, role: 'reader', types: ['AWS::S3::*'] }
 * typeVisible(principal!, 'AWS::S3::Bucket'); // true
 */
export {
  ROLES,
  isRole,
  roleAllows,
  parseTypeGlobs,
  globMatches,
  typeVisible,
  callerOf,
  assertTypeVisible,
  assertRequestVisible,
  accessDenied,
  type Role,
  type Principal,
  type Action,
} from './policy.js';
export {
  Tokens,
  checkAdminToken,
  generateToken,
  isTokenSyntax,
  MIN_TOKEN_LENGTH,
  type TokenRecord,
  type NewToken,
} from './tokens.js';
export { AccessKeys, isAccessKeyId, type AccessKeyPair } from './access-keys.js';
export { isLoopbackHost, plainListenProblem } from './listen.js';
