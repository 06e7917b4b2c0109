// A gRPC-Web client for the browser, on fetch alone: what a staking
// dashboard without a generated client does. It frames one protobuf
// request (a flag byte, a 4-byte big-endian length, the bytes), posts it
// as application/grpc-web+proto or, with text, as base64
// (application/grpc-web-text), and takes the answer apart: data frames,
// then the trailer frame (flag 0x80) whose HTTP/1-style lines carry
// grpc-status and grpc-message. Bytes cross into and out of the page as
// base64 strings.

const b64ToBytes = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
const bytesToB64 = (b) => {
  let s = '';
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(s);
};

export async function call(base, service, method, requestB64, { text = false, height } = {}) {
  const msg = b64ToBytes(requestB64);
  const frame = new Uint8Array(5 + msg.length);
  new DataView(frame.buffer).setUint32(1, msg.length);
  frame.set(msg, 5);
  const headers = {
    'content-type': text ? 'application/grpc-web-text' : 'application/grpc-web+proto',
    accept: text ? 'application/grpc-web-text' : 'application/grpc-web+proto',
    'x-grpc-web': '1',
  };
  if (height !== undefined) headers['x-cosmos-block-height'] = String(height);
  const res = await fetch(`${base}/${service}/${method}`, { method: 'POST', headers, body: text ? bytesToB64(frame) : frame });
  let body = new Uint8Array(await res.arrayBuffer());
  const ctype = res.headers.get('content-type');
  if (ctype && ctype.startsWith('application/grpc-web-text')) body = b64ToBytes(new TextDecoder().decode(body));
  const messages = [];
  let trailers = null;
  for (let i = 0; i < body.length;) {
    if (body.length - i < 5) throw new Error(`gRPC-Web: ${body.length - i} bytes left, short of a frame header`);
    const flag = body[i];
    const n = new DataView(body.buffer, body.byteOffset + i + 1, 4).getUint32(0);
    const payload = body.subarray(i + 5, i + 5 + n);
    if (payload.length !== n) throw new Error('gRPC-Web: a frame cut short');
    i += 5 + n;
    if (flag & 0x80) {
      trailers = {};
      for (const line of new TextDecoder().decode(payload).split('\r\n')) {
        if (!line) continue;
        const at = line.indexOf(':');
        trailers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
      }
    } else {
      messages.push(bytesToB64(payload));
    }
  }
  return {
    httpStatus: res.status,
    contentType: ctype,
    // Readable across origins only because the port exposes it.
    height: res.headers.get('x-cosmos-block-height'),
    messages,
    trailers,
  };
}
