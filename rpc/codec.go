package rpc

import (
	"encoding"
	"encoding/json"
	"reflect"
)

// The request envelope is decoded by hand because it is the one JSON every
// call pays for: encoding/json's reflection and its second validating pass
// were about 40% of the server's CPU for a cheap method like
// eth_blockNumber. The scanner below accepts only the plain shape clients
// send — an object with the keys jsonrpc, id, method and params, spelled
// exactly so and each given once, strings without escapes — and hands
// anything else to encoding/json, so that case-insensitive keys, duplicate
// keys, escapes and every error message keep encoding/json's rules.

// maxFastDepth bounds the scanner's recursion; deeper values go to
// encoding/json, which has its own (larger) limit and error.
const maxFastDepth = 64

// decodeRequest fills req from one request object.
func decodeRequest(b []byte, req *request) error {
	if decodeRequestFast(b, req) {
		return nil
	}
	*req = request{}
	return json.Unmarshal(b, req)
}

func decodeRequestFast(b []byte, req *request) bool {
	var seen [4]bool
	return scanPlainObject(b, func(key []byte, i int) (int, bool) {
		var k int
		switch string(key) {
		case "jsonrpc":
			k = 0
		case "id":
			k = 1
		case "method":
			k = 2
		case "params":
			k = 3
		default:
			return 0, false
		}
		if seen[k] {
			return 0, false
		}
		seen[k] = true
		if k == 0 || k == 2 {
			s, end, ok := plainString(b, i)
			if !ok {
				return 0, false
			}
			if k == 0 {
				req.JSONRPC = internVersion(s)
			} else {
				req.Method = string(s)
			}
			return end, true
		}
		end, ok := skipValue(b, i, 0)
		if !ok {
			return 0, false
		}
		// encoding/json leaves a RawMessage nil for an absent key and
		// "null" for an explicit null; slicing b does the same.
		if k == 1 {
			req.ID = json.RawMessage(b[i:end])
		} else {
			req.Params = json.RawMessage(b[i:end])
		}
		return end, true
	})
}

// scanPlainObject walks the object that is the whole of b (space aside),
// calling field with each member's key — plain, see plainString — and the
// offset of its value; field returns where the value ends. It reports
// false when b is not such an object or field turns a member down.
func scanPlainObject(b []byte, field func(key []byte, i int) (int, bool)) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipSpace(b, i+1) == len(b)
	}
	for {
		key, end, ok := plainString(b, i)
		if !ok {
			return false
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		if i, ok = field(key, skipSpace(b, i+1)); !ok {
			return false
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return false
		}
		if b[i] == '}' {
			return skipSpace(b, i+1) == len(b)
		}
		if b[i] != ',' {
			return false
		}
		i = skipSpace(b, i+1)
	}
}

func internVersion(s []byte) string {
	if string(s) == "2.0" {
		return "2.0"
	}
	return string(s)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// plainString returns the contents of the string starting at b[i] when it
// is printable ASCII without escapes.
func plainString(b []byte, i int) ([]byte, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return b[i+1 : j], j + 1, true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// skipValue returns the end of the JSON value starting at b[i]. It is a
// strict validator of the JSON grammar; false means "not valid here, or too
// deep", never a partial answer.
func skipValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) || depth > maxFastDepth {
		return 0, false
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '{':
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1, true
		}
		for {
			end, ok := skipString(b, i)
			if !ok {
				return 0, false
			}
			i = skipSpace(b, end)
			if i >= len(b) || b[i] != ':' {
				return 0, false
			}
			if i, ok = skipValue(b, skipSpace(b, i+1), depth+1); !ok {
				return 0, false
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return 0, false
			}
			if b[i] == '}' {
				return i + 1, true
			}
			if b[i] != ',' {
				return 0, false
			}
			i = skipSpace(b, i+1)
		}
	case c == '[':
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = skipValue(b, i, depth+1); !ok {
				return 0, false
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return 0, false
			}
			if b[i] == ']' {
				return i + 1, true
			}
			if b[i] != ',' {
				return 0, false
			}
			i = skipSpace(b, i+1)
		}
	case c == '-' || c >= '0' && c <= '9':
		return skipNumber(b, i)
	case c == 't':
		return skipLiteral(b, i, "true")
	case c == 'f':
		return skipLiteral(b, i, "false")
	case c == 'n':
		return skipLiteral(b, i, "null")
	}
	return 0, false
}

func skipLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, false
	}
	return i + len(lit), true
}

// skipString accepts what encoding/json accepts: any bytes but '"', '\\'
// and control characters, and the escapes of RFC 8259.
func skipString(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return j + 1, true
		case c < 0x20:
			return 0, false
		case c == '\\':
			j++
			if j >= len(b) {
				return 0, false
			}
			switch b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(b)-j < 5 {
					return 0, false
				}
				for _, h := range b[j+1 : j+5] {
					if !isHex(h) {
						return 0, false
					}
				}
				j += 4
			default:
				return 0, false
			}
		}
	}
	return 0, false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// skipNumber accepts -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func skipNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = skipDigits(b, i)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		j := skipDigits(b, i+1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := skipDigits(b, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// splitArray splits a JSON array that is known to be valid (it came from
// decodeRequest) into its elements; false if it is not an array after all.
func splitArray(raw []byte) ([]json.RawMessage, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return nil, false
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return []json.RawMessage{}, skipSpace(raw, i+1) == len(raw)
	}
	out := make([]json.RawMessage, 0, 4)
	for {
		end, ok := skipValue(raw, i, 1)
		if !ok {
			return nil, false
		}
		out = append(out, json.RawMessage(raw[i:end]))
		i = skipSpace(raw, end)
		if i >= len(raw) {
			return nil, false
		}
		if raw[i] == ']' {
			return out, skipSpace(raw, i+1) == len(raw)
		}
		if raw[i] != ',' {
			return nil, false
		}
		i = skipSpace(raw, i+1)
	}
}

// decodeParam is json.Unmarshal(raw, v) without encoding/json's walk
// where that walk would end in a single method call anyway: a type that
// decodes itself (UnmarshalJSON gets the value once it is checked to be
// valid JSON, exactly the bytes encoding/json would pass), or a plain
// string for a type that decodes text. Errors come back unchanged, as
// encoding/json returns them.
func decodeParam(raw []byte, v any) error {
	if rv := reflect.ValueOf(v); rv.Kind() != reflect.Pointer || rv.IsNil() {
		return json.Unmarshal(raw, v) // and its InvalidUnmarshalError
	}
	s := trimJSONSpace(raw)
	switch u := v.(type) {
	case json.Unmarshaler:
		if end, ok := skipValue(s, 0, 0); ok && end == len(s) {
			return u.UnmarshalJSON(s)
		}
	case encoding.TextUnmarshaler:
		if text, end, ok := plainString(s, 0); ok && end == len(s) {
			return u.UnmarshalText(text)
		}
	}
	return json.Unmarshal(raw, v)
}

func trimJSONSpace(b []byte) []byte {
	b = b[skipSpace(b, 0):]
	for len(b) > 0 {
		switch b[len(b)-1] {
		case ' ', '\t', '\n', '\r':
			b = b[:len(b)-1]
			continue
		}
		break
	}
	return b
}

// appendResult appends the JSON of a handler's result. Most results are
// hex quantities, hashes and addresses whose MarshalText output needs no
// escaping; those skip encoding/json, which would call MarshalText, quote
// it and then scan it again. Everything else is marshalled by encoding/json.
func appendResult(out []byte, result any) ([]byte, error) {
	if _, ok := result.(json.Marshaler); !ok {
		if tm, ok := result.(encoding.TextMarshaler); ok {
			if v := reflect.ValueOf(tm); v.Kind() != reflect.Pointer || !v.IsNil() {
				text, err := tm.MarshalText()
				if err == nil && plainText(text) {
					out = append(out, '"')
					out = append(out, text...)
					return append(out, '"'), nil
				}
			}
		}
	}
	b, err := json.Marshal(result)
	if err != nil {
		return out, err
	}
	return append(out, b...), nil
}

// plainText reports whether encoding/json would write text inside quotes
// unchanged: printable ASCII, none of the characters it escapes.
func plainText(text []byte) bool {
	for _, c := range text {
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// DecodeValue decodes one JSON value into v with the result and errors of
// json.Unmarshal, as Params.Decode does, for method packages decoding
// parts of parameters themselves.
func DecodeValue(raw []byte, v any) error { return decodeParam(raw, v) }

// DecodePlainObject walks an object whose members are all strings
// without escapes, calling set with each key and quoted value. It reports
// false when the object has any other shape or set turns a member down;
// the caller then decodes with encoding/json, whose rules (keys matched
// without case, repeated keys, escapes) this walk does not repeat.
func DecodePlainObject(b []byte, set func(key, quoted []byte) bool) bool {
	return scanPlainObject(b, func(key []byte, i int) (int, bool) {
		_, end, ok := plainString(b, i)
		if !ok || !set(key, b[i:end]) {
			return 0, false
		}
		return end, true
	})
}
