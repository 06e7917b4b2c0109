package h2

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Frame types and flags of RFC 9113 §6.
const (
	frameData         = 0x0
	frameHeaders      = 0x1
	framePriority     = 0x2
	frameRSTStream    = 0x3
	frameSettings     = 0x4
	framePushPromise  = 0x5
	framePing         = 0x6
	frameGoAway       = 0x7
	frameWindowUpdate = 0x8
	frameContinuation = 0x9

	flagEndStream  = 0x1
	flagAck        = 0x1
	flagEndHeaders = 0x4
	flagPadded     = 0x8
	flagPriority   = 0x20
)

// Settings identifiers (RFC 9113 §6.5.2).
const (
	settingHeaderTableSize      = 0x1
	settingEnablePush           = 0x2
	settingMaxConcurrentStreams = 0x3
	settingInitialWindowSize    = 0x4
	settingMaxFrameSize         = 0x5
	settingMaxHeaderListSize    = 0x6
)

const (
	frameHeaderLen     = 9
	defaultFrameSize   = 16384 // the smallest SETTINGS_MAX_FRAME_SIZE, and its default
	maxFrameSizeLimit  = 1<<24 - 1
	defaultWindow      = 65535 // initial window of streams and connection
	maxWindow          = 1<<31 - 1
	defaultHeaderTable = 4096
)

// preface is what every HTTP/2 client sends first.
const preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// ErrCode is an HTTP/2 error code (RFC 9113 §7).
type ErrCode uint32

const (
	ErrNo                 ErrCode = 0x0
	ErrProtocol           ErrCode = 0x1
	ErrInternal           ErrCode = 0x2
	ErrFlowControl        ErrCode = 0x3
	ErrSettingsTimeout    ErrCode = 0x4
	ErrStreamClosed       ErrCode = 0x5
	ErrFrameSize          ErrCode = 0x6
	ErrRefusedStream      ErrCode = 0x7
	ErrCancel             ErrCode = 0x8
	ErrCompression        ErrCode = 0x9
	ErrConnect            ErrCode = 0xa
	ErrEnhanceYourCalm    ErrCode = 0xb
	ErrInadequateSecurity ErrCode = 0xc
	ErrHTTP11Required     ErrCode = 0xd
)

var errCodeNames = [...]string{"NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR",
	"SETTINGS_TIMEOUT", "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL",
	"COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED"}

func (c ErrCode) String() string {
	if int(c) < len(errCodeNames) {
		return errCodeNames[c]
	}
	return fmt.Sprintf("error code 0x%x", uint32(c))
}

// ConnError is a violation that ends the whole connection: the server
// sends GOAWAY with its code and closes.
type ConnError struct {
	Code   ErrCode
	Reason string
}

func (e *ConnError) Error() string {
	return "http2: connection error " + e.Code.String() + ": " + e.Reason
}

// StreamError is a violation confined to one stream: the server resets
// that stream with its code and goes on.
type StreamError struct {
	Stream uint32
	Code   ErrCode
	Reason string
}

func (e *StreamError) Error() string {
	return fmt.Sprintf("http2: stream %d error %s: %s", e.Stream, e.Code, e.Reason)
}

func connErr(code ErrCode, format string, a ...any) *ConnError {
	return &ConnError{Code: code, Reason: fmt.Sprintf(format, a...)}
}

// frameHdr is the nine-byte header of a frame.
type frameHdr struct {
	length uint32
	typ    uint8
	flags  uint8
	stream uint32
}

func (h frameHdr) has(f uint8) bool { return h.flags&f != 0 }

// frameReader reads frames of at most max payload bytes; the payload it
// returns is valid until the next call.
type frameReader struct {
	r   io.Reader
	max uint32
	hdr [frameHeaderLen]byte
	buf []byte
}

func (fr *frameReader) next() (frameHdr, []byte, error) {
	if _, err := io.ReadFull(fr.r, fr.hdr[:]); err != nil {
		return frameHdr{}, nil, err
	}
	h := frameHdr{
		length: uint32(fr.hdr[0])<<16 | uint32(fr.hdr[1])<<8 | uint32(fr.hdr[2]),
		typ:    fr.hdr[3], flags: fr.hdr[4],
		stream: binary.BigEndian.Uint32(fr.hdr[5:]) & maxWindow,
	}
	if h.length > fr.max {
		return h, nil, connErr(ErrFrameSize, "frame of %d bytes over the maximum %d", h.length, fr.max)
	}
	if cap(fr.buf) < int(h.length) {
		fr.buf = make([]byte, h.length, max(h.length, 4096))
	}
	p := fr.buf[:h.length]
	if _, err := io.ReadFull(fr.r, p); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return h, nil, err
	}
	return h, p, nil
}

// unpad strips the padding of a PADDED frame.
func unpad(h frameHdr, p []byte) ([]byte, error) {
	if !h.has(flagPadded) {
		return p, nil
	}
	if len(p) == 0 {
		return nil, connErr(ErrFrameSize, "padded frame without a pad length")
	}
	pad := int(p[0])
	if pad >= len(p) {
		return nil, connErr(ErrProtocol, "padding of %d bytes longer than the frame", pad)
	}
	return p[1 : len(p)-pad], nil
}

// headersBlock returns the header block fragment of a HEADERS frame,
// without padding and priority fields.
func headersBlock(h frameHdr, p []byte) ([]byte, error) {
	if h.stream == 0 {
		return nil, connErr(ErrProtocol, "HEADERS on stream 0")
	}
	p, err := unpad(h, p)
	if err != nil {
		return nil, err
	}
	if h.has(flagPriority) {
		if len(p) < 5 {
			return nil, connErr(ErrFrameSize, "HEADERS too short for its priority fields")
		}
		if binary.BigEndian.Uint32(p)&maxWindow == h.stream {
			return nil, &StreamError{Stream: h.stream, Code: ErrProtocol, Reason: "stream depends on itself"}
		}
		p = p[5:]
	}
	return p, nil
}

// checkControl validates the fixed shape of the frames that carry no
// stream data: lengths and the stream they may travel on.
func checkControl(h frameHdr) error {
	switch h.typ {
	case framePriority:
		if h.stream == 0 {
			return connErr(ErrProtocol, "PRIORITY on stream 0")
		}
		if h.length != 5 {
			return &StreamError{Stream: h.stream, Code: ErrFrameSize, Reason: "PRIORITY frame not 5 bytes"}
		}
	case frameRSTStream:
		if h.stream == 0 {
			return connErr(ErrProtocol, "RST_STREAM on stream 0")
		}
		if h.length != 4 {
			return connErr(ErrFrameSize, "RST_STREAM frame not 4 bytes")
		}
	case frameSettings:
		if h.stream != 0 {
			return connErr(ErrProtocol, "SETTINGS on stream %d", h.stream)
		}
		if h.has(flagAck) && h.length != 0 {
			return connErr(ErrFrameSize, "SETTINGS acknowledgement with a payload")
		}
		if h.length%6 != 0 {
			return connErr(ErrFrameSize, "SETTINGS of %d bytes, not a multiple of 6", h.length)
		}
	case framePing:
		if h.stream != 0 {
			return connErr(ErrProtocol, "PING on stream %d", h.stream)
		}
		if h.length != 8 {
			return connErr(ErrFrameSize, "PING frame not 8 bytes")
		}
	case frameGoAway:
		if h.stream != 0 {
			return connErr(ErrProtocol, "GOAWAY on stream %d", h.stream)
		}
		if h.length < 8 {
			return connErr(ErrFrameSize, "GOAWAY frame under 8 bytes")
		}
	case frameWindowUpdate:
		if h.length != 4 {
			return connErr(ErrFrameSize, "WINDOW_UPDATE frame not 4 bytes")
		}
	case framePushPromise:
		return connErr(ErrProtocol, "PUSH_PROMISE from a client")
	case frameData:
		if h.stream == 0 {
			return connErr(ErrProtocol, "DATA on stream 0")
		}
	}
	return nil
}

// appendFrameHdr appends a frame header.
func appendFrameHdr(dst []byte, length int, typ, flags uint8, stream uint32) []byte {
	return append(dst, byte(length>>16), byte(length>>8), byte(length), typ, flags,
		byte(stream>>24), byte(stream>>16), byte(stream>>8), byte(stream))
}

func appendUint32(dst []byte, v uint32) []byte {
	return append(dst, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}
