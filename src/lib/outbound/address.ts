/**
 * Whether an address is one outbound requests (webhook deliveries) may reach: a public one. Refused:
 * loopback, private (RFC 1918, unique local), link-local (cloud metadata among them),
 * carrier-grade NAT, "this network", multicast, reserved and documentation ranges, and IPv6
 * forms that carry an IPv4 address (mapped, NAT64, 6to4) when that address is refused; of IPv6
 * only global unicast (2000::/3) is public, Teredo and documentation ranges left out.
 */

/** An IPv4 address as four numbers, or undefined when the text is not one in dotted form. */
function ipv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes = parts.map((part) => (/^(0|[1-9]\d{0,2})$/.test(part) ? Number(part) : NaN));
  return bytes.every((byte) => byte >= 0 && byte <= 255) ? bytes : undefined;
}

/** Whether an IPv4 address (four numbers) is outside every range no delivery goes to. */
function isPublicIpv4(bytes: number[]): boolean {
  const [a = 0, b = 0, c = 0] = bytes;
  if (a === 0 || a === 10 || a === 127 || a >= 224) return false; // this network, private, loopback, multicast and reserved
  if (a === 100 && b >= 64 && b <= 127) return false; // carrier-grade NAT
  if (a === 169 && b === 254) return false; // link-local, cloud metadata
  if (a === 172 && b >= 16 && b <= 31) return false;
  if (a === 192 && b === 168) return false;
  if (a === 192 && b === 0 && (c === 0 || c === 2)) return false; // IETF protocol assignments, TEST-NET-1
  if (a === 198 && (b === 18 || b === 19)) return false; // benchmarking
  if (a === 198 && b === 51 && c === 100) return false; // TEST-NET-2
  if (a === 203 && b === 0 && c === 113) return false; // TEST-NET-3
  return true;
}

/** An IPv6 address as eight 16-bit groups, or undefined when the text is not one. */
function ipv6(text: string): number[] | undefined {
  let address = text.toLowerCase();
  if (address.includes('%')) return undefined; // a zone: link-local by nature
  let tail: number[] = [];
  const lastColon = address.lastIndexOf(':');
  const dotted = ipv4(address.slice(lastColon + 1));
  if (dotted) {
    tail = [(dotted[0]! << 8) | dotted[1]!, (dotted[2]! << 8) | dotted[3]!];
    address = `${address.slice(0, lastColon + 1)}0:0`;
  }
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  if (![...head, ...rest].every((group) => /^[0-9a-f]{1,4}$/.test(group))) return undefined;
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...Array(halves.length === 2 ? missing : 0).fill('0'), ...rest].map((group) =>
    parseInt(group, 16),
  );
  if (tail.length) all.splice(6, 2, ...tail);
  return all;
}

function isPublicIpv6(g: number[]): boolean {
  const embedded = (high: number, low: number) => isPublicIpv4([high >> 8, high & 255, low >> 8, low & 255]);
  if (g.slice(0, 5).every((group) => group === 0) && g[5] === 0xffff) return embedded(g[6]!, g[7]!); // IPv4-mapped
  if (g[0] === 0x64 && g[1] === 0xff9b) return embedded(g[6]!, g[7]!); // NAT64
  if (g[0] === 0x2002) return embedded(g[1]!, g[2]!); // 6to4
  // only global unicast (2000::/3): loopback, unspecified, IPv4-compatible, unique and link- or site-local, multicast are all outside it
  if ((g[0]! & 0xe000) !== 0x2000) return false;
  if (g[0] === 0x2001 && g[1] === 0) return false; // Teredo: the IPv4 address behind it is hidden
  if (g[0] === 0x2001 && g[1] === 0x0db8) return false; // documentation
  if (g[0] === 0x3fff && g[1]! < 0x1000) return false; // documentation (3fff::/20)
  return true;
}

/** An IP address literal's kind, or undefined for a name. */
export function ipLiteral(host: string): 4 | 6 | undefined {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (ipv4(bare)) return 4;
  if (ipv6(bare)) return 6;
  return undefined;
}

/** Whether an IP address (v4 dotted, or v6, bracketed or not) is public. Not an address: false. */
export function isPublicAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const four = ipv4(bare);
  if (four) return isPublicIpv4(four);
  const six = ipv6(bare);
  return six ? isPublicIpv6(six) : false;
}

/** Names that stand for the machine itself or a private network, whatever DNS says. */
export function isPrivateName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return (
    name === 'localhost' ||
    name.endsWith('.localhost') ||
    name.endsWith('.local') ||
    name.endsWith('.internal') ||
    name.endsWith('.home.arpa') ||
    !name.includes('.')
  );
}
