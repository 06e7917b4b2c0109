package rpctests

import "testing"

// A speconly response is held to what any result schema implies: when a
// result was recorded, an error object, a missing result or a body that
// is not JSON fails; any result passes on to the (absent) schema check.
func TestSchemaOnlyMismatch(t *testing.T) {
	const result = `{"jsonrpc":"2.0","id":1,"result":"0x5316"}`
	const recordedError = `{"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"execution reverted"}}`
	for _, tc := range []struct {
		name             string
		expected, actual string
		fails            bool
	}{
		{"another value", result, `{"jsonrpc":"2.0","id":1,"result":"0x5270"}`, false},
		{"another shape", result, `{"jsonrpc":"2.0","id":1,"result":{"a":1}}`, false},
		{"null result", result, `{"jsonrpc":"2.0","id":1,"result":null}`, false},
		{"error for a result", result, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"x"}}`, true},
		{"no result", result, `{"jsonrpc":"2.0","id":1}`, true},
		{"not JSON", result, `<html>`, true},
		{"not an object", result, `[1]`, true},
		{"recorded error, any answer", recordedError, `{"jsonrpc":"2.0","id":1,"result":"0x1"}`, false},
		{"recorded error, error", recordedError, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"x"}}`, false},
	} {
		if got := SchemaOnlyMismatch(tc.expected, []byte(tc.actual)); (got != "") != tc.fails {
			t.Errorf("%s: %q, want failure %v", tc.name, got, tc.fails)
		}
	}
}
