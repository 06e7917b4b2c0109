package h2

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// listen serves h on a loopback port with srv and returns its address.
func listen(t *testing.T, srv *Server, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() { defer wg.Done(); srv.ServeConn(context.Background(), c, h) }()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		wg.Wait()
	})
	return ln.Addr().String()
}

// echo answers with the request body, a header and a trailer.
var echo = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Trailer", "X-Sum")
	w.Header().Set("X-Path", r.URL.Path)
	n, _ := io.Copy(w, r.Body)
	w.Header().Set("X-Sum", fmt.Sprint(n))
})

func goClient() *http.Client {
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	return &http.Client{Transport: &http.Transport{Protocols: p}}
}

// Go's own HTTP/2 client (its HPACK encoder uses the dynamic table and
// Huffman coding) against the server: bodies of all sizes, trailers,
// many streams at once on one connection.
func TestGoClient(t *testing.T) {
	addr := listen(t, new(Server), echo)
	c := goClient()
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			body := bytes.Repeat([]byte{byte(i)}, i*i*500) // up to 760 KB: past every window
			resp, err := c.Post("http://"+addr+"/echo/"+fmt.Sprint(i), "application/octet-stream", bytes.NewReader(body))
			if err != nil {
				t.Error(err)
				return
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || !bytes.Equal(got, body) || resp.Header.Get("X-Path") != "/echo/"+fmt.Sprint(i) ||
				resp.Trailer.Get("X-Sum") != fmt.Sprint(len(body)) || resp.ProtoMajor != 2 {
				t.Errorf("stream %d: %d bytes, %v, header %q, trailer %q", i, len(got), err, resp.Header, resp.Trailer)
			}
		}(i)
	}
	wg.Wait()
}

// A bidirectional stream: each line the client sends is answered at
// once, before the client has finished sending.
func TestBidiStream(t *testing.T) {
	addr := listen(t, new(Server), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		w.(http.Flusher).Flush() // the client waits for the headers
		buf := make([]byte, 64)
		for {
			n, err := r.Body.Read(buf)
			if n > 0 {
				w.Write(bytes.ToUpper(buf[:n]))
				w.(http.Flusher).Flush()
			}
			if err != nil {
				return
			}
		}
	}))
	pr, pw := io.Pipe()
	req, _ := http.NewRequest("POST", "http://"+addr+"/", pr)
	resp, err := goClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	for _, word := range []string{"one", "two", "three"} {
		pw.Write([]byte(word))
		buf := make([]byte, 64)
		n, err := resp.Body.Read(buf)
		if err != nil || string(buf[:n]) != strings.ToUpper(word) {
			t.Fatalf("%s: %q %v", word, buf[:n], err)
		}
	}
	pw.Close() // half-close: the handler sees EOF and ends the stream
	if rest, err := io.ReadAll(resp.Body); err != nil || len(rest) != 0 {
		t.Fatalf("after half-close: %q %v", rest, err)
	}
}

// rawClient speaks HTTP/2 frame by frame, to test what well-behaved
// clients never send.
type rawClient struct {
	t   *testing.T
	c   net.Conn
	fr  frameReader
	dec *Decoder
}

func dialRaw(t *testing.T, addr string, settings ...[2]uint32) *rawClient {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	rc := &rawClient{t: t, c: c, fr: frameReader{r: c, max: maxFrameSizeLimit}, dec: NewDecoder(4096)}
	var p []byte
	for _, s := range settings {
		p = append(p, byte(s[0]>>8), byte(s[0]))
		p = appendUint32(p, s[1])
	}
	c.Write([]byte(preface))
	rc.send(frameSettings, 0, 0, p)
	return rc
}

func (rc *rawClient) send(typ, flags uint8, stream uint32, p []byte) {
	rc.c.Write(append(appendFrameHdr(nil, len(p), typ, flags, stream), p...))
}

// request sends a request's headers on stream id.
func (rc *rawClient) request(id uint32, end bool, extra ...string) {
	block := appendField(nil, ":method", "POST")
	block = appendField(block, ":scheme", "http")
	block = appendField(block, ":path", "/x")
	block = appendField(block, ":authority", "test")
	for i := 0; i+1 < len(extra); i += 2 {
		block = appendField(block, extra[i], extra[i+1])
	}
	flags := uint8(flagEndHeaders)
	if end {
		flags |= flagEndStream
	}
	rc.send(frameHeaders, flags, id, block)
}

type rawFrame struct {
	frameHdr
	p      []byte
	fields []HeaderField
}

// next returns the next frame other than SETTINGS, WINDOW_UPDATE or the
// acknowledgement of our PING.
func (rc *rawClient) next() rawFrame {
	rc.t.Helper()
	for {
		h, p, err := rc.fr.next()
		if err != nil {
			rc.t.Fatalf("reading: %v", err)
		}
		f := rawFrame{frameHdr: h, p: append([]byte(nil), p...)}
		switch h.typ {
		case frameSettings, frameWindowUpdate:
			continue
		case frameHeaders:
			if err := rc.dec.Decode(p, func(hf HeaderField) error { f.fields = append(f.fields, hf); return nil }); err != nil {
				rc.t.Fatal(err)
			}
		}
		return f
	}
}

// expectGoAway reads until GOAWAY and checks its code.
func (rc *rawClient) expectGoAway(code ErrCode) {
	rc.t.Helper()
	for {
		f := rc.next()
		if f.typ == frameGoAway {
			if got := ErrCode(binary.BigEndian.Uint32(f.p[4:])); got != code {
				rc.t.Fatalf("GOAWAY %s (%s), want %s", got, f.p[8:], code)
			}
			return
		}
	}
}

func (rc *rawClient) expectReset(id uint32, code ErrCode) {
	rc.t.Helper()
	for {
		f := rc.next()
		if f.typ == frameRSTStream && f.stream == id {
			if got := ErrCode(binary.BigEndian.Uint32(f.p)); got != code {
				rc.t.Fatalf("RST_STREAM %s, want %s", got, code)
			}
			return
		}
		if f.typ == frameGoAway {
			rc.t.Fatalf("GOAWAY %s %s, want RST_STREAM of stream %d", ErrCode(binary.BigEndian.Uint32(f.p[4:])), f.p[8:], id)
		}
	}
}

func TestPing(t *testing.T) {
	rc := dialRaw(t, listen(t, new(Server), echo))
	rc.send(framePing, 0, 0, []byte("12345678"))
	if f := rc.next(); f.typ != framePing || !f.has(flagAck) || string(f.p) != "12345678" {
		t.Fatalf("got %+v", f)
	}
}

// The server keeps within the client's stream window and frame size, and
// goes on when the window grows.
func TestSendFlowControl(t *testing.T) {
	big := bytes.Repeat([]byte("z"), 40000)
	rc := dialRaw(t, listen(t, new(Server), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(big) })),
		[2]uint32{settingInitialWindowSize, 100})
	rc.request(1, true)
	got := 0
	for got < 100 {
		f := rc.next()
		if f.typ == frameData {
			got += len(f.p)
		}
	}
	if got != 100 {
		t.Fatalf("%d bytes in a window of 100", got)
	}
	rc.send(frameWindowUpdate, 0, 1, appendUint32(nil, 40000))
	for {
		f := rc.next()
		if f.typ != frameData {
			continue
		}
		if len(f.p) > defaultFrameSize {
			t.Fatalf("DATA frame of %d bytes", len(f.p))
		}
		got += len(f.p)
		if f.has(flagEndStream) {
			break
		}
	}
	if got != len(big) {
		t.Fatalf("%d bytes, want %d", got, len(big))
	}
}

// A header block split over HEADERS and CONTINUATION frames.
func TestContinuation(t *testing.T) {
	rc := dialRaw(t, listen(t, new(Server), echo))
	block := appendField(nil, ":method", "GET")
	block = appendField(block, ":scheme", "http")
	block = appendField(block, ":path", "/continued")
	block = appendField(block, "x-long", strings.Repeat("v", 100))
	rc.send(frameHeaders, flagEndStream, 1, block[:10])
	rc.send(frameContinuation, 0, 1, block[10:50])
	rc.send(frameContinuation, flagEndHeaders, 1, block[50:])
	f := rc.next()
	if f.typ != frameHeaders || len(f.fields) < 2 || f.fields[0].Value != "200" {
		t.Fatalf("got %+v", f)
	}
	for _, hf := range f.fields {
		if hf.Name == "x-path" && hf.Value != "/continued" {
			t.Fatalf("x-path %q", hf.Value)
		}
	}
}

// Protocol violations end the connection with GOAWAY and the right code.
func TestConnectionErrors(t *testing.T) {
	addr := listen(t, new(Server), echo)
	for _, tc := range []struct {
		name string
		do   func(rc *rawClient)
		code ErrCode
	}{
		{"DATA on stream 0", func(rc *rawClient) { rc.send(frameData, 0, 0, []byte("x")) }, ErrProtocol},
		{"even stream", func(rc *rawClient) { rc.request(2, true) }, ErrProtocol},
		{"frame over the maximum", func(rc *rawClient) { rc.send(frameData, 0, 1, make([]byte, defaultFrameSize+1)) }, ErrFrameSize},
		{"CONTINUATION alone", func(rc *rawClient) { rc.send(frameContinuation, flagEndHeaders, 1, nil) }, ErrProtocol},
		{"frame inside a header block", func(rc *rawClient) {
			rc.send(frameHeaders, 0, 1, appendField(nil, ":method", "GET"))
			rc.send(framePing, 0, 0, make([]byte, 8))
		}, ErrProtocol},
		{"DATA on an idle stream", func(rc *rawClient) { rc.send(frameData, 0, 5, []byte("x")) }, ErrProtocol},
		{"bad HPACK", func(rc *rawClient) { rc.send(frameHeaders, flagEndHeaders, 1, []byte{0x80}) }, ErrCompression},
		{"PING of 4 bytes", func(rc *rawClient) { rc.send(framePing, 0, 0, make([]byte, 4)) }, ErrFrameSize},
		{"window overflow", func(rc *rawClient) { rc.send(frameWindowUpdate, 0, 0, appendUint32(nil, maxWindow)) }, ErrFlowControl},
		{"bad max frame size", func(rc *rawClient) { rc.send(frameSettings, 0, 0, []byte{0, 5, 0, 0, 0, 1}) }, ErrProtocol},
		{"stream reused", func(rc *rawClient) {
			rc.request(1, true)
			for f := rc.next(); !f.has(flagEndStream); f = rc.next() {
			}
			rc.request(1, true)
		}, ErrStreamClosed},
		{"DATA past the connection window", func(rc *rawClient) {
			rc.request(1, false)
			for i := 0; i < 70; i++ {
				rc.send(frameData, 0, 1, make([]byte, defaultFrameSize))
			}
		}, ErrFlowControl},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := addr
			if strings.Contains(tc.name, "connection window") {
				// A handler that does not read, on streams whose window
				// is larger than the connection's.
				addr = listen(t, &Server{StreamWindow: 4 << 20}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					<-r.Context().Done()
				}))
			}
			rc := dialRaw(t, addr)
			tc.do(rc)
			rc.expectGoAway(tc.code)
		})
	}
}

// Malformed requests and misuse of one stream reset that stream only.
func TestStreamErrors(t *testing.T) {
	addr := listen(t, &Server{StreamWindow: 1000}, echo)
	for _, tc := range []struct {
		name string
		do   func(rc *rawClient)
		code ErrCode
	}{
		{"upper-case header name", func(rc *rawClient) { rc.request(1, true, "X-Upper", "1") }, ErrProtocol},
		{"connection header", func(rc *rawClient) { rc.request(1, true, "connection", "close") }, ErrProtocol},
		{"te other than trailers", func(rc *rawClient) { rc.request(1, true, "te", "gzip") }, ErrProtocol},
		{"missing :path", func(rc *rawClient) {
			rc.send(frameHeaders, flagEndHeaders|flagEndStream, 1, appendField(appendField(nil, ":method", "GET"), ":scheme", "http"))
		}, ErrProtocol},
		{"unknown pseudo-header", func(rc *rawClient) { rc.request(1, true, ":protocol", "websocket") }, ErrProtocol},
		{"WINDOW_UPDATE of 0", func(rc *rawClient) {
			rc.request(1, false)
			rc.send(frameWindowUpdate, 0, 1, appendUint32(nil, 0))
		}, ErrProtocol},
		{"DATA past the stream window", func(rc *rawClient) {
			rc.request(1, false)
			rc.send(frameData, 0, 1, make([]byte, 1001))
		}, ErrFlowControl},
		{"body longer than content-length", func(rc *rawClient) {
			rc.request(1, false, "content-length", "2")
			rc.send(frameData, flagEndStream, 1, []byte("abc"))
		}, ErrProtocol},
		{"trailers without END_STREAM", func(rc *rawClient) {
			rc.request(1, false)
			rc.send(frameHeaders, flagEndHeaders, 1, appendField(nil, "x-t", "1"))
		}, ErrProtocol},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := dialRaw(t, addr)
			tc.do(rc)
			rc.expectReset(1, tc.code)
			// The connection goes on.
			rc.send(framePing, 0, 0, []byte("still up"))
			for f := rc.next(); f.typ != framePing; f = rc.next() {
			}
		})
	}
}

// Streams past SETTINGS_MAX_CONCURRENT_STREAMS are refused, a request
// reset by the client cancels its handler, and a header list over the
// limit is answered 431.
func TestLimits(t *testing.T) {
	started, canceled := make(chan struct{}, 1), make(chan struct{})
	srv := &Server{MaxConcurrentStreams: 1, MaxHeaderListSize: 200}
	addr := listen(t, srv, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		<-r.Context().Done()
		close(canceled)
	}))
	rc := dialRaw(t, addr)
	rc.request(1, true)
	<-started
	rc.request(3, true)
	rc.expectReset(3, ErrRefusedStream)
	rc.send(frameRSTStream, 0, 1, appendUint32(nil, uint32(ErrCancel)))
	select {
	case <-canceled:
	case <-time.After(5 * time.Second):
		t.Fatal("handler not canceled by RST_STREAM")
	}
	rc.request(5, true, "x-big", strings.Repeat("b", 300))
	for {
		f := rc.next()
		if f.typ == frameHeaders && f.stream == 5 {
			if f.fields[0].Value != "431" || !f.has(flagEndStream) {
				t.Fatalf("got %q", f.fields)
			}
			break
		}
	}
}

// Shutdown sends GOAWAY, lets the running stream finish, then closes.
func TestShutdown(t *testing.T) {
	release := make(chan struct{})
	srv := new(Server)
	addr := listen(t, srv, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
		io.WriteString(w, "done")
	}))
	rc := dialRaw(t, addr)
	rc.request(1, true)
	time.Sleep(50 * time.Millisecond) // let the stream start
	errc := make(chan error, 1)
	go func() { errc <- srv.Shutdown(context.Background()) }()
	rc.expectGoAway(ErrNo)
	close(release)
	for f := rc.next(); !(f.typ == frameData && f.has(flagEndStream) || f.typ == frameHeaders && f.has(flagEndStream)); f = rc.next() {
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// FuzzFrames feeds arbitrary bytes after the preface to a connection:
// no panic, no hang, whatever the frames say.
func FuzzFrames(f *testing.F) {
	hdrs := appendField(appendField(appendField(nil, ":method", "POST"), ":scheme", "http"), ":path", "/")
	seed := func(frames ...[]byte) []byte { return bytes.Join(frames, nil) }
	fr := func(typ, flags uint8, id uint32, p []byte) []byte {
		return append(appendFrameHdr(nil, len(p), typ, flags, id), p...)
	}
	f.Add(seed(fr(frameSettings, 0, 0, nil), fr(frameHeaders, flagEndHeaders, 1, hdrs), fr(frameData, flagEndStream, 1, []byte("hi"))))
	f.Add(seed(fr(frameSettings, 0, 0, []byte{0, 4, 0, 0, 0, 1}), fr(frameHeaders, flagEndHeaders|flagEndStream, 1, hdrs), fr(frameWindowUpdate, 0, 1, []byte{0, 0, 1, 0})))
	f.Add(seed(fr(frameSettings, 0, 0, nil), fr(frameHeaders, flagPadded, 1, append([]byte{2}, append(hdrs, 0, 0)...)), fr(frameContinuation, flagEndHeaders, 1, nil)))
	f.Add(seed(fr(frameSettings, 0, 0, nil), fr(framePing, 0, 0, make([]byte, 8)), fr(frameRSTStream, 0, 1, make([]byte, 4)), fr(frameGoAway, 0, 0, make([]byte, 8))))
	f.Fuzz(func(t *testing.T, data []byte) {
		client, server := net.Pipe()
		go io.Copy(io.Discard, client)
		done := make(chan struct{})
		srv := &Server{PrefaceTimeout: time.Second}
		go func() {
			srv.ServeConn(context.Background(), server, echo)
			close(done)
		}()
		client.Write([]byte(preface))
		client.Write(data)
		client.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("connection did not end")
		}
	})
}

// A handler that answers before the request ends makes the server reset
// the stream with NO_ERROR; frames the client still sends on it are
// ignored, trailers included, and the connection goes on.
func TestEarlyAnswer(t *testing.T) {
	rc := dialRaw(t, listen(t, new(Server), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "early")
	})))
	rc.request(1, false)
	rc.expectReset(1, ErrNo)
	rc.send(frameData, 0, 1, []byte("late"))
	rc.send(frameHeaders, flagEndHeaders|flagEndStream, 1, appendField(nil, "x-trailer", "1"))
	rc.send(framePing, 0, 0, []byte("still up"))
	for f := rc.next(); f.typ != framePing; f = rc.next() {
		if f.typ == frameGoAway {
			t.Fatalf("GOAWAY %s", f.p[8:])
		}
	}
}
