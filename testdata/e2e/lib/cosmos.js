// What the Cosmos suites share: a grpc-js channel shaped as cosmjs-types'
// query clients want it, REST reads, and the field-by-field comparison of
// a REST answer with the same answer decoded from gRPC.
import assert from 'node:assert/strict';
import grpc from '@grpc/grpc-js';
import { BinaryReader } from 'cosmjs-types/binary';
import { PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys';
import { TextProposal } from 'cosmjs-types/cosmos/gov/v1beta1/gov';
import { ParameterChangeProposal } from 'cosmjs-types/cosmos/params/v1beta1/params';
import { SoftwareUpgradeProposal } from 'cosmjs-types/cosmos/upgrade/v1beta1/upgrade';
import { BaseAccount } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import { MsgExecLegacyContent } from 'cosmjs-types/cosmos/gov/v1/tx';
import { env } from './env.js';

// Rpc adapts a grpc-js channel to the request interface cosmjs-types'
// query clients call.
export class Rpc {
  constructor(addr) {
    this.client = new grpc.Client(addr, grpc.credentials.createInsecure());
  }
  request(service, method, data) {
    return new Promise((res, rej) => {
      this.client.makeUnaryRequest(`/${service}/${method}`, (b) => Buffer.from(b), (b) => new Uint8Array(b), data,
        (err, out) => (err ? rej(err) : res(out)));
    });
  }
  // requestAt is request at a block height (the x-cosmos-block-height
  // metadata); it resolves to the answer and the height the response
  // metadata names.
  requestAt(service, method, data, height) {
    const md = new grpc.Metadata();
    md.set('x-cosmos-block-height', String(height));
    let echoed;
    return new Promise((res, rej) => {
      const call = this.client.makeUnaryRequest(`/${service}/${method}`, (b) => Buffer.from(b), (b) => new Uint8Array(b), data, md,
        (err, out) => (err ? rej(err) : res({ out, height: echoed })));
      call.on('metadata', (m) => { echoed = m.get('x-cosmos-block-height')[0]; });
    });
  }
  close() {
    this.client.close();
  }
}

export async function rest(path, headers = {}) {
  const res = await fetch(env.node.rest + path, { headers });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

// Dec fields travel on the gRPC wire as the value times 10^18 and read in
// JSON with 18 decimals; this puts the JSON text in wire form.
export function decWire(s) {
  const [whole, frac = ''] = s.split('.');
  return BigInt(whole + frac.padEnd(18, '0')).toString();
}

export function pageEqual(grpcPage, restPage) {
  assert.equal(grpcPage.total.toString(), restPage.total);
  const key = grpcPage.nextKey && grpcPage.nextKey.length ? Buffer.from(grpcPage.nextKey).toString('base64') : null;
  assert.equal(key, restPage.next_key);
}

// The Any payloads the answers carry, decoded to compare with the REST
// rendering of the same message.
export const anyTypes = {
  '/cosmos.crypto.secp256k1.PubKey': PubKey,
  '/cosmos.gov.v1beta1.TextProposal': TextProposal,
  '/cosmos.params.v1beta1.ParameterChangeProposal': ParameterChangeProposal,
  '/cosmos.upgrade.v1beta1.SoftwareUpgradeProposal': SoftwareUpgradeProposal,
  '/cosmos.auth.v1beta1.BaseAccount': BaseAccount,
  '/cosmos.gov.v1.MsgExecLegacyContent': MsgExecLegacyContent,
};

const camel = (k) => k.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
const isDefault = (v) => v === null || v === undefined || v === false || v === '' || v === 0 || v === '0' ||
  (Array.isArray(v) && v.length === 0) || /^0\.0{18}$/.test(v) || v === '1970-01-01T00:00:00Z';

// sameFields walks a REST answer and the same answer decoded from gRPC (as
// cosmjs-types renders it to JSON) and returns the first difference, or
// null. Names differ only in case style; Decs travel on the wire times
// 10^18; timestamps render with or without milliseconds; an Any is
// {"@type", fields} in REST and {typeUrl, value} in gRPC; a Duration "60s"
// and {seconds, nanos}; a field the
// gRPC side leaves out must be a default value in REST.
export function sameFields(r, g, at = '') {
  if (r === null || r === undefined) {
    return g === null || g === undefined || g === '' ? null : `${at}: REST ${r}, gRPC ${JSON.stringify(g)}`;
  }
  if (Array.isArray(r)) {
    if (!Array.isArray(g) || g.length !== r.length) return `${at}: REST ${r.length} items, gRPC ${JSON.stringify(g)}`;
    for (let i = 0; i < r.length; i++) {
      const d = sameFields(r[i], g[i], `${at}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (typeof r === 'object') {
    if (g === null || typeof g !== 'object') return `${at}: REST object, gRPC ${JSON.stringify(g)}`;
    if ('@type' in r) {
      if (g.typeUrl !== r['@type']) return `${at}: @type ${r['@type']}, gRPC ${g.typeUrl}`;
      const codec = anyTypes[g.typeUrl];
      if (!codec) return `${at}: no codec for ${g.typeUrl}`;
      const { '@type': _, ...fields } = r;
      return sameFields(fields, codec.toJSON(codec.decode(Buffer.from(g.value, 'base64'))), `${at}<${g.typeUrl}>`);
    }
    for (const [k, v] of Object.entries(r)) {
      const gk = camel(k);
      if (!(gk in g)) {
        if (!isDefault(v)) return `${at}.${k}: REST ${JSON.stringify(v)}, absent in gRPC`;
        continue;
      }
      const d = sameFields(v, g[gk], `${at}.${k}`);
      if (d) return d;
    }
    for (const gk of Object.keys(g)) {
      if (!Object.keys(r).some((k) => camel(k) === gk) && !isDefault(g[gk])) return `${at}.${gk}: only in gRPC: ${JSON.stringify(g[gk])}`;
    }
    return null;
  }
  if (typeof r === 'string' && /^\d+(\.\d+)?s$/.test(r) && g && typeof g === 'object' && 'seconds' in g) {
    // A Duration: "1.5s" in REST, {seconds, nanos} from cosmjs-types.
    const [sec, frac = ''] = r.slice(0, -1).split('.');
    return sec === String(g.seconds) && Number(frac.padEnd(9, '0')) === Number(g.nanos) ? null
      : `${at}: REST ${r}, gRPC ${JSON.stringify(g)}`;
  }
  if (typeof r === 'string' && typeof g === 'string') {
    if (r === g) return null;
    // A Dec travels as its integer text (times 10^18); in gov's params it
    // is a bytes field, which cosmjs-types shows as base64 of that text.
    if (/^-?\d+\.\d{18}$/.test(r) && (decWire(r) === g || Buffer.from(g, 'base64').toString() === decWire(r))) return null;
    if (/^\d{4}-\d\d-\d\dT/.test(r) && Date.parse(r) === Date.parse(g)) return null;
  }
  if (r === g || String(r) === String(g)) return null;
  return `${at}: REST ${JSON.stringify(r)}, gRPC ${JSON.stringify(g)}`;
}

// fields reads a protobuf message with no schema at hand (Cosmos EVM's
// messages are not in cosmjs-types): field number -> values, varints as
// BigInt and length-delimited fields as bytes.
export function fields(bytes) {
  const r = new BinaryReader(bytes);
  const out = {};
  while (r.pos < r.len) {
    const tag = r.uint32();
    const wt = tag & 7;
    let v;
    if (wt === 0) v = r.uint64();
    else if (wt === 2) v = r.bytes();
    else { r.skipType(wt); continue; }
    (out[tag >>> 3] ||= []).push(v);
  }
  return out;
}
