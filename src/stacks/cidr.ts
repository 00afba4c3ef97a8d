/**
 * @module `Fn::Cidr`: `count` address blocks of `cidrBits` host bits each, taken in order from the
 * start of `ipBlock` (IPv4 or IPv6), as CloudFormation makes them —
 * `!Cidr ['10.0.0.0/16', 3, 8]` is `['10.0.0.0/24', '10.0.1.0/24', '10.0.2.0/24']`.
 */

/** The blocks, or what is wrong with the arguments (a message naming the argument and the fix). */
export function cidrBlocks(ipBlock: string, count: number, cidrBits: number): string[] | string {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(ipBlock);
  const address = m ? parseAddress(m[1]!) : undefined;
  if (!m || !address || Number(m[2]) > address.bits)
    return `the address block ${JSON.stringify(ipBlock.slice(0, 64))} is not an IPv4 or IPv6 CIDR block (10.0.0.0/16, 2001:db8::/56)`;
  const prefix = Number(m[2]);
  if (!Number.isInteger(count) || count < 1 || count > 256)
    return `the count of blocks must be a whole number from 1 to 256, not ${count}`;
  if (!Number.isInteger(cidrBits) || cidrBits < 1 || cidrBits > address.bits - prefix)
    return `the bits of each block must be a whole number from 1 to ${address.bits - prefix} (the host bits of /${prefix}), not ${cidrBits}`;
  const available = 2n ** BigInt(address.bits - prefix - cidrBits);
  if (BigInt(count) > available)
    return `/${prefix} holds ${available} blocks of ${cidrBits} host bits, not ${count}: ask for fewer, or smaller ones`;
  const hostMask = 2n ** BigInt(address.bits - prefix) - 1n;
  const start = address.value & ~hostMask;
  const size = 2n ** BigInt(cidrBits);
  const subnetPrefix = address.bits - cidrBits;
  return Array.from(
    { length: count },
    (_, i) => `${formatAddress(start + BigInt(i) * size, address.bits)}/${subnetPrefix}`,
  );
}

function parseAddress(text: string): { value: bigint; bits: 32 | 128 } | undefined {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(text)) {
    const parts = text.split('.').map(Number);
    if (parts.some((p) => p > 255)) return undefined;
    return { value: parts.reduce((v, p) => (v << 8n) | BigInt(p), 0n), bits: 32 };
  }
  if (!/^[0-9a-fA-F:]{2,39}$/.test(text)) return undefined;
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - head.length - tail.length;
  if ((halves.length === 1 && missing !== 0) || (halves.length === 2 && missing < 1)) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (all.some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  return { value: all.reduce((v, g) => (v << 16n) | BigInt(parseInt(g, 16)), 0n), bits: 128 };
}

/** An address as written: dotted for IPv4, RFC 5952's compressed form for IPv6. */
function formatAddress(value: bigint, bits: 32 | 128): string {
  if (bits === 32) return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 255n)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  // The longest run of two or more zero groups (the first of equals) becomes '::'.
  let best = { at: -1, length: 0 };
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.length && j - i >= 2) best = { at: i, length: j - i };
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.at < 0) return hex.join(':');
  return `${hex.slice(0, best.at).join(':')}::${hex.slice(best.at + best.length).join(':')}`;
}
