package cometrpc

import (
	"bytes"
	"encoding/json"
	"slices"
	"sync"
)

// A JSON-RPC request as clients send it nearly always is a flat object
// whose params are a flat object of strings, numbers and booleans
// (cosmjs's abci_query: path, data, height, prove). encoding/json reads
// such a request in two reflective passes over the envelope and two more
// over the params, which was half of what an abci_query answered from
// the cache cost the server. quickRequest reads that common shape in one
// pass, without copying; anything else (escapes in a string, nested
// values, duplicate keys, positional params, bad JSON) makes it give up,
// and the request is read by encoding/json as before, so the two agree
// on every request quickRequest accepts (FuzzQuickRequest).

// quickRequest parses b as a request of the common shape; ok is false
// when b is anything else.
func quickRequest(b []byte) (req request, p params, ok bool) {
	s := scanner{b: b}
	if !s.byte('{') {
		return request{}, nil, false
	}
	var seen [4]bool // jsonrpc, method, id, params
	for first := true; ; first = false {
		if s.byte('}') {
			break
		}
		if !first && !s.byte(',') {
			return request{}, nil, false
		}
		key, ok := s.str()
		if !ok || !s.byte(':') {
			return request{}, nil, false
		}
		k := slices.Index(envelopeKeys, string(key))
		if k < 0 {
			return request{}, nil, false // a key encoding/json may read otherwise (case, unknown)
		}
		if seen[k] {
			return request{}, nil, false
		}
		seen[k] = true
		switch string(key) {
		case "jsonrpc", "method":
			v, ok := s.str()
			if !ok {
				return request{}, nil, false
			}
			if string(key) == "jsonrpc" {
				req.JSONRPC = intern(v)
			} else {
				req.Method = intern(v)
			}
		case "id":
			v, ok := s.scalar()
			if !ok || v[0] == 't' || v[0] == 'f' {
				return request{}, nil, false
			}
			req.ID = v
		case "params":
			s.space()
			if s.peek() == 'n' {
				if v, ok := s.scalar(); !ok || string(v) != "null" {
					return request{}, nil, false
				}
				continue
			}
			if !s.byte('{') {
				return request{}, nil, false
			}
			p = params{}
			for pfirst := true; ; pfirst = false {
				if s.byte('}') {
					break
				}
				if !pfirst && !s.byte(',') {
					return request{}, nil, false
				}
				k, ok := s.str()
				if !ok || !s.byte(':') {
					return request{}, nil, false
				}
				if _, dup := p[string(k)]; dup {
					return request{}, nil, false
				}
				v, ok := s.scalar()
				if !ok {
					return request{}, nil, false
				}
				p[intern(k)] = v
			}
		}
	}
	s.space()
	if s.i != len(s.b) {
		return request{}, nil, false
	}
	if p == nil {
		p = params{}
	}
	return req, p, true
}

// interned are the strings requests name again and again: the protocol
// version, the methods and their parameters. intern gives the one copy of
// such a string, so reading it allocates nothing.
var interned = sync.OnceValue(func() map[string]string {
	m := map[string]string{"2.0": "2.0"}
	for name := range methods {
		m[name] = name
	}
	for _, names := range paramNames {
		for _, n := range names {
			m[n] = n
		}
	}
	return m
})

func intern(b []byte) string {
	if s, ok := interned()[string(b)]; ok {
		return s
	}
	return string(b)
}

// envelopeKeys are the request's keys quickRequest reads, as written.
var envelopeKeys = []string{"jsonrpc", "method", "id", "params"}

// scanner reads the JSON subset quickRequest accepts.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

func (s *scanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// byte consumes c after any space.
func (s *scanner) byte(c byte) bool {
	s.space()
	if s.peek() != c {
		return false
	}
	s.i++
	return true
}

// str reads a string without escapes or control characters and returns
// its text; ok false for anything else.
func (s *scanner) str() ([]byte, bool) {
	v, ok := s.quoted()
	if !ok {
		return nil, false
	}
	return v[1 : len(v)-1], true
}

// quoted reads such a string and returns it with its quotes.
func (s *scanner) quoted() ([]byte, bool) {
	s.space()
	if s.peek() != '"' {
		return nil, false
	}
	start := s.i
	end := bytes.IndexByte(s.b[start+1:], '"')
	if end < 0 {
		return nil, false
	}
	v := s.b[start : start+end+2]
	for _, c := range v[1 : len(v)-1] {
		if c == '\\' || c < 0x20 || c >= 0x80 {
			return nil, false // escapes and non-ASCII: encoding/json's to read
		}
	}
	s.i = start + end + 2
	return v, true
}

// scalar reads a string, a number, true, false or null as it is written.
func (s *scanner) scalar() (json.RawMessage, bool) {
	s.space()
	switch c := s.peek(); {
	case c == '"':
		v, ok := s.quoted()
		return v, ok
	case c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n':
		start := s.i
		for s.i < len(s.b) && bytes.IndexByte([]byte("0123456789+-.eEtruefalsn"), s.b[s.i]) >= 0 {
			s.i++
		}
		v := s.b[start:s.i]
		// Let encoding/json judge the literal: it is short.
		return v, json.Valid(v)
	}
	return nil, false
}
