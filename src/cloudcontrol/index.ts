/**
 * @module The AWS Cloud Control API, spoken natively: AWS JSON 1.0 on `POST /`, every request signed
 * with SigV4 by an access key pair issued beside a token. AWS SDKs and the AWS CLI work unchanged
 * against the server's address (`--endpoint-url`), on the same engine and store as `/v1`.
 *
 * @example
 * await buildServer({ ..., frontDoor: cloudControlFrontDoor({ engine, tokens, logger }) });
 * // aws cloudcontrol get-resource --endpoint-url http://127.0.0.1:4780 --type-name Test::Shop::Widget --identifier w1
 */
export { cloudControlFrontDoor, type FrontDoorOptions } from './front-door.js';
export { SERVICE as SIGNING_SERVICE } from './sigv4.js';
// HMAC-SHA256 under a key used many times (a SigV4 signing key), for clients that sign as SDKs do.
export { HmacSha256Key } from './hmac.js';
