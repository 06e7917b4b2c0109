package grpcsrv

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// A gRPC message on the wire is a length-prefixed frame: one flag byte
// (1 = compressed), a four-byte big-endian length, then the message.
// Frames are unrelated to HTTP/2 DATA frames; the reader reassembles them.

// frameHeaderLen is the length of a frame's flag byte and length.
const frameHeaderLen = 5

// errFrameTooLarge is a message over the size limit.
type errFrameTooLarge struct{ size, limit uint32 }

func (e *errFrameTooLarge) Error() string {
	return fmt.Sprintf("grpc: received message larger than max (%d vs. %d)", e.size, e.limit)
}

// errCompressed is a compressed message; the server accepts none.
var errCompressed = errors.New("grpc: compressed message received but no grpc-encoding is supported")

// readFrame reads one message of at most limit bytes. io.EOF means the
// stream ended cleanly between messages; io.ErrUnexpectedEOF that it
// ended inside one.
func readFrame(r io.Reader, limit uint32) ([]byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	switch hdr[0] {
	case 0:
	case 1:
		return nil, errCompressed
	default:
		return nil, fmt.Errorf("grpc: invalid compressed flag %d", hdr[0])
	}
	n := binary.BigEndian.Uint32(hdr[1:])
	if n > limit {
		return nil, &errFrameTooLarge{size: n, limit: limit}
	}
	msg := make([]byte, n)
	if _, err := io.ReadFull(r, msg); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return msg, nil
}

// appendFrame appends msg as an uncompressed frame.
func appendFrame(dst, msg []byte) []byte {
	dst = append(dst, 0, 0, 0, 0, 0)
	binary.BigEndian.PutUint32(dst[len(dst)-4:], uint32(len(msg)))
	return append(dst, msg...)
}
