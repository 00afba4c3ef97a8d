/**
 * @module SASLprep (RFC 4013) as PostgreSQL applies it to a password before hashing it for
 * SCRAM-SHA-256, so the secrets computed here match the ones the server would compute: pure ASCII is
 * used as it is; otherwise non-ASCII spaces become U+0020, characters "commonly mapped to nothing"
 * are removed and the result is NFKC-normalised — unless it then holds a prohibited character or
 * breaks the bidirectional rule, in which case the server (and libpq) use the password unchanged.
 */

// RFC 3454 C.1.2: non-ASCII spaces.
const NON_ASCII_SPACE = /[\u00A0\u1680\u2000-\u200B\u202F\u205F\u3000]/g;
// RFC 3454 B.1: commonly mapped to nothing (joiners and variation selectors among them).
// eslint-disable-next-line no-misleading-character-class
const MAPPED_TO_NOTHING = /[\u00AD\u034F\u1806\u180B-\u180D\u200C\u200D\u2060\uFE00-\uFE0F\uFEFF]/g;
/**
 * RFC 3454 C.2–C.9 (controls, private use, non-characters, surrogates, characters inappropriate for
 * plain text or canonical representation, display-changing and tagging characters), and A.1
 * (unassigned) approximated by the current Unicode's unassigned code points.
 */
const PROHIBITED =
  // eslint-disable-next-line no-control-regex, no-misleading-character-class
  /[\u0000-\u001F\u007F-\u009F\u06DD\u070F\u180E\u200C\u200D\u2028\u2029\u2060-\u2063\u206A-\u206F\uFEFF\uFFF9-\uFFFD\u2FF0-\u2FFB\u0340\u0341\u200E\u200F\u202A-\u202E\uE000-\uF8FF\uFDD0-\uFDEF\u{1D173}-\u{1D17A}\u{E0001}\u{E0020}-\u{E007F}\u{F0000}-\u{FFFFD}\u{100000}-\u{10FFFD}]|[\u{FFFE}\u{FFFF}\u{1FFFE}\u{1FFFF}\u{2FFFE}\u{2FFFF}\u{3FFFE}\u{3FFFF}\u{4FFFE}\u{4FFFF}\u{5FFFE}\u{5FFFF}\u{6FFFE}\u{6FFFF}\u{7FFFE}\u{7FFFF}\u{8FFFE}\u{8FFFF}\u{9FFFE}\u{9FFFF}\u{AFFFE}\u{AFFFF}\u{BFFFE}\u{BFFFF}\u{CFFFE}\u{CFFFF}\u{DFFFE}\u{DFFFF}\u{EFFFE}\u{EFFFF}]|\p{Cs}|\p{Cn}/u;
// RFC 3454 D.1 (right-to-left) and D.2 (left-to-right) approximated by script and category.
const RAND_AL = /[\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}]/u;
const RAND_AL_ALL = /[\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}]/gu;
const L_CAT =
  /(?![\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}])\p{L}/u;

/** The password PostgreSQL hashes for `password`. */
export function saslprep(password: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(password)) return password;
  const prepared = password.replace(NON_ASCII_SPACE, ' ').replace(MAPPED_TO_NOTHING, '').normalize('NFKC');
  if (PROHIBITED.test(prepared)) return password;
  if (RAND_AL.test(prepared)) {
    const chars = [...prepared];
    const rtl = (c: string) => (c.match(RAND_AL_ALL)?.length ?? 0) > 0;
    if (L_CAT.test(prepared) || !rtl(chars[0]!) || !rtl(chars[chars.length - 1]!)) return password;
  }
  return prepared;
}
