// A BIP-173 bech32 encoder written for the suite, so the addresses it
// sends are not made by the node under test.
const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GEN = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

function polymod(values) {
  let chk = 1;
  for (const v of values) {
    const b = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((b >>> i) & 1) chk ^= GEN[i];
  }
  return chk >>> 0;
}

/** bech32(hrp, 0x-address) encodes the address's 20 bytes under hrp. */
export function bech32(hrp, hexAddr) {
  const bytes = Buffer.from(hexAddr.replace(/^0x/i, ''), 'hex');
  const words = [];
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      words.push((acc >>> bits) & 31);
    }
  }
  if (bits > 0) words.push((acc << (5 - bits)) & 31);
  const exp = [...hrp].map((c) => c.charCodeAt(0) >> 5).concat([0], [...hrp].map((c) => c.charCodeAt(0) & 31));
  const mod = polymod(exp.concat(words, [0, 0, 0, 0, 0, 0])) ^ 1;
  const sum = Array.from({ length: 6 }, (_, i) => (mod >>> (5 * (5 - i))) & 31);
  return hrp + '1' + words.concat(sum).map((w) => CHARSET[w]).join('');
}

/** bech32Decode(s) returns the 0x form of the 20 bytes s encodes (its checksum checked). */
export function bech32Decode(s) {
  const str = s.toLowerCase();
  const sep = str.lastIndexOf('1');
  const hrp = str.slice(0, sep);
  const words = [...str.slice(sep + 1)].map((c) => CHARSET.indexOf(c));
  if (words.some((w) => w < 0)) throw new Error(`bech32: bad character in ${s}`);
  const exp = [...hrp].map((c) => c.charCodeAt(0) >> 5).concat([0], [...hrp].map((c) => c.charCodeAt(0) & 31));
  if (polymod(exp.concat(words)) !== 1) throw new Error(`bech32: bad checksum in ${s}`);
  const bytes = [];
  let acc = 0;
  let bits = 0;
  for (const w of words.slice(0, -6)) {
    acc = ((acc << 5) | w) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((acc >>> bits) & 0xff);
    }
  }
  return '0x' + Buffer.from(bytes).toString('hex');
}
